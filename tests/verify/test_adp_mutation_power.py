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


def test_proposition52_common_factor_on_the_terms_is_equivalent(monkeypatch):
    """The reason declared for proposition5_2_terms:x10 / x0.1: the ratio, the break-even T and the verdict are
    unchanged when both privacy terms are scaled by one constant."""
    import sympy as sp

    from verify.mutants import EQUIVALENT

    ratio, t_star = tadp.proposition5_2_ratio(), tadp.proposition5_2_break_even()
    base = va.proposition5_2("quick", 0)
    real = tadp.proposition5_2_terms
    for factor in (10, sp.Rational(1, 10)):
        assert ("adp.proposition5.2", f"proposition5_2_terms:x{'10' if factor == 10 else '0.1'}") in EQUIVALENT
        monkeypatch.setattr(tadp, "proposition5_2_terms", lambda f=factor: tuple(f * e for e in real()))
        assert sp.simplify(tadp.proposition5_2_ratio() - ratio) == 0
        assert sp.simplify(tadp.proposition5_2_break_even() - t_star) == 0
        out = va.proposition5_2("quick", 0)
        assert out.verdict == base.verdict == "violated" and out.counterexample["T"] == base.counterexample["T"]


def test_proposition52_declares_a_larger_ratio_weaker():
    from verify.registry import load_all

    assert dict(load_all()["adp.proposition5.2"].weaker_if) == {"theory.adp.proposition5_2_ratio": "larger"}
