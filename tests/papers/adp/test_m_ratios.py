"""verify.papers.adp.m_ratios: Remark 4.1 and its alternative relation, Propositions 5.1 and 5.2 — verdicts,
pinned counterexamples, negative controls, and the declared equivalences of their mutants, each decided and able
to fail."""


import re

import numpy as np
import pytest
import sympy as sp

from tests.papers.adp.mutant_support import declared_still_false, theory_mutation
from tests.verify.evidence_support import lost_numbers
from theory import adp as tadp
from verify.papers.adp import m_ratios


def test_proposition51_exact_part_and_reported_measurements():
    out = m_ratios.proposition5_1("quick", 0)
    assert out.verdict == "holds"
    r7 = out.numbers["exact_ratio_T10000000"]
    assert r7 == pytest.approx(tadp.m_ratio(tadp.polynomial_schedule(10**7, 1.0, 1.0)))
    assert 0.9 * np.log(1e7) / 4 < r7 < np.log(1e7) / 4  # Θ(log T) with constant ¼ (exact value 3.927)
    assert out.numbers["stated_privacy_term_ratio_T10000000"] == pytest.approx(2 * np.log(1 + 1e7))
    assert {k for k in out.numbers if k.startswith("measured_utility_ratio_T")} == {
        "measured_utility_ratio_T100", "measured_utility_ratio_T1000", "measured_utility_ratio_T4000"}


def test_proposition52_break_even_counterexample_pinned():
    """Pinned: b_0² = ν, T = 2 — the stated ADP term (11) exceeds DP's (12): (12)/(11) = ¼·log 3 < 1."""

    r = tadp.proposition5_2_ratio().subs({tadp.T: 2, tadp.nu: 1, tadp.b0: 1})
    assert float(r) == pytest.approx(np.log(3) / 4) and float(r) < 1
    assert float(tadp.proposition5_2_break_even().subs({tadp.nu: 1, tadp.b0: 1})) == pytest.approx(np.e**4 - 1)
    assert sp.simplify(tadp.proposition5_2_ratio() - sp.log(1 + tadp.T * tadp.nu / tadp.b0**2) / 4) == 0
    out = m_ratios.proposition5_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["T"] == 2
    assert out.numbers["M_ratio_max"] > 1.0 > out.numbers["M_ratio_min"]


def _one_short_sentence(summary: str) -> bool:
    return summary.endswith(".") and not re.search(r"\. [A-Z]", summary) and len(summary) <= 250


def test_proposition52_summary_and_points_keep_every_number_of_its_evidence():
    out = m_ratios.proposition5_2("quick", 0)
    assert _one_short_sentence(out.summary) and out.summary.startswith("violated (exact)")
    assert "685.8× looser" in out.summary
    assert lost_numbers(out.evidence, out.summary, out.points) == []


@pytest.mark.parametrize("name, start", [("remark4_1", "holds (exact): over"),
                                         ("remark4_1_alternative", "violated (exact): the relation")])
def test_remark41_summaries_and_points_keep_every_number_of_their_evidence(name, start):
    out = getattr(m_ratios, name)("quick", 0)
    assert _one_short_sentence(out.summary) and out.summary.startswith(start)
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_proposition51_summary_and_points_keep_every_number_of_its_evidence():
    out = m_ratios.proposition5_1("quick", 0)
    assert _one_short_sentence(out.summary) and out.summary.startswith("holds (exact): M_dp/M_adp lies")
    assert [p["T"] for p in out.points if p["part"] == "exact"] == list(m_ratios.P51_GRIDS["quick"]["T_exact"])
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_proposition52_reports_the_paper_experiment_looseness():
    out = m_ratios.proposition5_2("quick", 0)
    f = out.numbers
    assert f["paper_experiment_ratio_12_over_11"] == pytest.approx(np.log1p(11700 * 1e-5 / 20) / 4, rel=1e-9)
    assert f["paper_experiment_adp_looser_by"] == pytest.approx(685.8, rel=1e-3)
    assert "685.8× looser" in out.evidence


def test_proposition51_brackets_must_tend_to_the_declared_asymptotic(monkeypatch):
    """The log T coefficient the brackets are held to is poly_ratio_asymptotic's: a stated ½·log T is refuted."""

    monkeypatch.setattr(tadp, "poly_ratio_asymptotic", lambda: sp.log(tadp.T) / 2)
    out = m_ratios.proposition5_1("quick", 0)
    assert out.verdict == "violated" and out.counterexample["brackets_hold"]


def test_remark4_1_alternative_relation_smallest_counterexample_is_pinned():
    """T = 2, b = (1, 1), α = (2, 1/2): α₁α₂ = 1 = b₁ = b₂, yet M = (4 + 1/4)(1/4 + 4) = 289/16 ≠ M_adp = 4."""
    import numpy as np

    from verify.papers.adp.m_ratios import alternative_alphas, remark4_1_alternative

    b = np.array([1.0, 1.0])
    alpha = alternative_alphas(b, np.array([2.0]))
    assert alpha.tolist() == [2.0, 0.5] and (alpha * alpha[::-1]).tolist() == b.tolist()
    assert tadp.m_value(alpha, b) == 289 / 16 and tadp.m_adp(b) == 4.0
    odd = alternative_alphas(np.array([4.0, 9.0, 4.0]), np.array([8.0]))
    assert odd.tolist() == [8.0, 3.0, 0.5]  # the middle is √b_m; the pair multiplies to b_1
    out = remark4_1_alternative("quick", 0)
    assert out.verdict == "violated" and out.counterexample["M"] == 289 / 16 and out.counterexample["M_adp"] == 4.0
    assert out.numbers["paper_schedule_palindromic"] == 0.0


def test_remark4_1_alternative_declared_mutant_turns_it_to_holds():
    from verify import mutants, registry

    rs = mutants.run([registry.REGISTRY["adp.remark4.1.alternative"]], "quick", 0)
    by = {r.mutant: r for r in rs}
    assert by["alternative_alphas:sqrt-b"].verdict == "holds" and by["alternative_alphas:sqrt-b"].refuted
    assert all(r.equivalent for name, r in by.items() if name != "alternative_alphas:sqrt-b")


def test_proposition5_1_privacy_ratio_must_be_theta_log_t(monkeypatch):
    """The privacy-term ratio (10)/(9) is held to Θ(log T): one growing like √T (a different statement) is refuted,
    while the stated 2·log(1 + Tc/a) passes."""

    out = m_ratios.proposition5_1("quick", 0)
    assert out.verdict == "holds" and "Θ(log T) [yes]" in out.evidence
    monkeypatch.setattr(tadp, "proposition5_1_privacy_ratio", lambda: sp.sqrt(tadp.T * tadp.c / tadp.a))
    bad = m_ratios.proposition5_1("quick", 0)
    assert bad.verdict == "violated" and bad.counterexample["privacy_ratio_over_log_T"] == "oo"


def test_remark41_identity_is_decided_and_holds():
    out = m_ratios.remark4_1("quick", 0)
    assert out.verdict == "holds"
    assert 0.0 <= out.numbers["max_identity_deviation_rounding_units"] <= 1.0
    assert "(the identity)" in out.evidence


def test_remark41_a_tenfold_ratio_is_violated(monkeypatch):
    """m_ratio ×10 is still ≥ 1 (the inequality part cannot see it); the identity M_dp/M_adp = M(1, b)/M_adp can."""
    real = tadp.m_ratio
    monkeypatch.setattr(tadp, "m_ratio", lambda b, exact=False: 10.0 * real(b, exact))
    out = m_ratios.remark4_1("quick", 0)
    assert out.verdict == "violated"
    assert out.numbers["max_identity_deviation_rounding_units"] > 1e10


def test_proposition52_common_factor_on_the_terms_is_equivalent(monkeypatch):
    """The reason declared for proposition5_2_terms:x10 / x0.1: the ratio, the break-even T and the verdict are
    unchanged when both privacy terms are scaled by one constant."""

    from verify.mutants import EQUIVALENT

    ratio, t_star = tadp.proposition5_2_ratio(), tadp.proposition5_2_break_even()
    base = m_ratios.proposition5_2("quick", 0)
    real = tadp.proposition5_2_terms
    for factor in (10, sp.Rational(1, 10)):
        assert ("adp.proposition5.2", f"proposition5_2_terms:x{'10' if factor == 10 else '0.1'}") in EQUIVALENT
        monkeypatch.setattr(tadp, "proposition5_2_terms", lambda f=factor: tuple(f * e for e in real()))
        assert sp.simplify(tadp.proposition5_2_ratio() - ratio) == 0
        assert sp.simplify(tadp.proposition5_2_break_even() - t_star) == 0
        out = m_ratios.proposition5_2("quick", 0)
        assert out.verdict == base.verdict == "violated" and out.counterexample["T"] == base.counterexample["T"]


def test_proposition52_declares_a_larger_ratio_weaker():
    from verify.registry import load_all

    assert dict(load_all()["adp.proposition5.2"].weaker_if) == {"theory.adp.proposition5_2_ratio": "larger"}


def test_proposition52_exponent_mutants_of_the_ratio_are_still_false_at_t2():

    for fn in ("proposition5_2_terms", "proposition5_2_ratio"):
        declared_still_false("adp.proposition5.2", f"{fn}:pow0.75")
        with theory_mutation(f"theory.adp.{fn}", "pow0.75").apply():
            r = tadp.proposition5_2_ratio()
            assert sp.simplify(r - sp.log(1 + (tadp.T * tadp.nu / tadp.b0**2) ** sp.Rational(3, 4)) / 4) == 0
            val = r.subs({tadp.T: 2, tadp.nu: 1, tadp.b0: 1})
            assert sp.N(val, 30) < 1 and sp.simplify(val - sp.log(1 + 2 ** sp.Rational(3, 4)) / 4) == 0
            assert m_ratios.proposition5_2("quick", 0).counterexample["T"] == 2


def test_proposition52_break_even_mutants_leave_the_t2_counterexample():

    for name in ("x10", "x0.1", "pow1.25", "pow0.75"):
        declared_still_false("adp.proposition5.2", f"proposition5_2_break_even:{name}")
        with theory_mutation("theory.adp.proposition5_2_break_even", name).apply():
            assert sp.simplify(tadp.proposition5_2_break_even() - (sp.E**4 - 1) * tadp.b0**2 / tadp.nu) != 0
            assert tadp.proposition5_2_ratio().subs({tadp.T: 2, tadp.nu: 1, tadp.b0: 1}) == sp.log(3) / 4
            out = m_ratios.proposition5_2("quick", 0)
            assert out.verdict == "violated" and out.counterexample["T"] == 2


def test_proposition52_a_wrong_identity_is_violated_without_a_crash():
    """(12)/(11) ×10 is ≥ 1 at every T; the stated identity (12)/(11) = ¼·log(1 + Tν/b_0²) still fails, because
    the stated terms' own ratio is ¼·log(1 + Tν/b_0²) (the declared reason for proposition5_2_ratio:x10)."""

    declared_still_false("adp.proposition5.2", "proposition5_2_ratio:x10")
    adp_term, dp_term = tadp.proposition5_2_terms()
    with theory_mutation("theory.adp.proposition5_2_ratio", "x10").apply():
        mutated = tadp.proposition5_2_ratio()
        out = m_ratios.proposition5_2("quick", 0)
    assert sp.simplify(mutated - sp.cancel(dp_term / adp_term)) != 0
    assert sp.simplify(sp.cancel(dp_term / adp_term) - sp.log(1 + tadp.T * tadp.nu / tadp.b0**2) / 4) == 0
    assert out.verdict == "violated"
    assert out.counterexample["T"] is None and out.counterexample["identity_exact"] is False


def test_proposition52_break_even_is_found_when_T_enters_with_a_fractional_power():
    """SymPy's solve found no root of ¼·log(1 + (Tν/b_0²)^{5/4}) = 1 (the pow1.25 mutants crashed the check);
    solveset over T > 0 gives ((e⁴ − 1)^{4/5}·b_0^{5/2}/ν^{5/4}) in closed form, and the unmutated value is
    unchanged."""

    from theory import adp as tadp

    nu, b0 = tadp.nu, tadp.b0
    assert sp.simplify(tadp.proposition5_2_break_even() - (sp.E**4 - 1) * b0**2 / nu) == 0
    with theory_mutation("theory.adp.proposition5_2_ratio", "pow1.25").apply():
        t_star = tadp.proposition5_2_break_even()
    val = complex(sp.N(t_star.subs({b0: 1, nu: 1})))
    assert val.imag == 0 and val.real == pytest.approx(float((sp.E**4 - 1) ** sp.Rational(4, 5)), rel=1e-12)


@pytest.mark.parametrize("fn", ["proposition5_2_terms", "proposition5_2_ratio"])
def test_proposition52_pow125_mutants_are_still_false_at_t2_and_decided(fn):

    from theory import adp as tadp
    from verify.mutants import EQUIVALENT

    assert EQUIVALENT[("adp.proposition5.2", f"{fn}:pow1.25")].startswith("the mutated statement is still false")
    with theory_mutation(f"theory.adp.{fn}", "pow1.25").apply():
        r = tadp.proposition5_2_ratio()
        assert sp.simplify(r - sp.log(1 + (tadp.T * tadp.nu / tadp.b0**2) ** sp.Rational(5, 4)) / 4) == 0
        val = r.subs({tadp.T: 2, tadp.nu: 1, tadp.b0: 1})
        assert sp.simplify(val - sp.log(1 + 2 ** sp.Rational(5, 4)) / 4) == 0 and sp.N(val, 30) < 1
        out = m_ratios.proposition5_2("quick", 0)  # decided, no crash
    assert out.verdict == "violated" and out.counterexample["T"] == 2


# -- the findings of the violated claims -----------------------------------------------------------
@pytest.fixture(scope="module")
def alternative_quick():
    return m_ratios.remark4_1_alternative("quick", 0)


@pytest.fixture(scope="module")
def p52_quick():
    return m_ratios.proposition5_2("quick", 0)


def test_remark4_1_alternative_finding(alternative_quick):
    """Every explored solution of α_t·α_{T−t+1} = b_t other than α_t² = b_t gives M > M_adp (in the regime); the
    paper's b_t = √(20 + t) has no solution at all; the repair M ≥ M_adp (Cauchy–Schwarz) holds at every point."""
    f = alternative_quick.finding
    assert alternative_quick.verdict == "violated" and f.scope == "in_regime"
    assert f.region.explored == alternative_quick.numbers["evaluations"] == f.region.failing == 301
    assert f.region.edge == "" and not f.at_paper_setting.fails and f.at_paper_setting.size > 0
    assert f.repair.verdict == "holds" and "301/301" in f.repair.evidence


def test_proposition5_2_finding_at_the_papers_experiment(p52_quick):
    """At §6.2's b_0² = 20, ν = 1e-5, T = 11700 the stated ADP bound is ~686× looser than DP-SGD's; the grid's
    failures are the T below T* = 53.6 (b_0² = ν); the repair 'T ≥ T*' holds at every grid T above it."""
    f = p52_quick.finding
    assert p52_quick.verdict == "violated" and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing) == (39, p52_quick.numbers["grid_T_failing"]) == (39, 8)
    assert f.at_paper_setting.fails and f.at_paper_setting.size == pytest.approx(
        p52_quick.numbers["paper_experiment_adp_looser_by"]) and 680 < f.at_paper_setting.size < 690
    assert f.repair.verdict == "holds" and "31/31" in f.repair.evidence
