"""Issue 25 (mutation power) for adp: parts of a statement that a check computed but did not decide are decided,
and each new decision can fail."""

from theory import adp as tadp
from verify.papers import adp as va


def test_remark41_identity_is_decided_and_holds():
    out = va.remark4_1("quick", 0)
    assert out.verdict == "holds"
    assert 0.0 <= out.numbers["max_identity_deviation_rounding_units"] <= 1.0
    assert "(the identity)" in out.evidence


def test_remark41_a_tenfold_ratio_is_violated(monkeypatch):
    """m_ratio ×10 is still ≥ 1 (the inequality part cannot see it); the identity M_dp/M_adp = M(1, b)/M_adp can."""
    real = tadp.m_ratio
    monkeypatch.setattr(tadp, "m_ratio", lambda b, exact=False: 10.0 * real(b, exact))
    out = va.remark4_1("quick", 0)
    assert out.verdict == "violated"
    assert out.numbers["max_identity_deviation_rounding_units"] > 1e10
