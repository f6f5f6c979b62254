"""verify.papers.adp.convergence: Theorem 4.2's bound (7) measured, and the consistency of (7) with (9) and (10)
(Proposition 5.1 "under the conditions of Theorem 4.2") — pinned cases, declared mutants, equivalences."""

import math
import re

import pytest

from tests.papers.adp.mutant_support import declared_still_false, theory_mutation
from tests.verify.evidence_support import lost_numbers
from theory import adp as tadp
from verify.papers.adp import _common as common
from verify.papers.adp import convergence


def test_proposition5_1_does_not_follow_from_eq7_smallest_case_pinned():
    """a = c = 1, T = 9 (= 5 + 4a/c), ηL = 1, units of K: (9) states ηL√T/√c = 3, while (7) at α_t² = b_t gives
    M_adp/Σ1/b_t = Σ_{t=1}^9 1/√(1 + t) ≈ 4.021 > 3; (10) = 2·3·log 10 ≥ (7)'s DP-SGD value ≈ 4.318."""

    from verify.papers.adp.convergence import eq7_against_eq9_eq10, proposition5_1_from_theorem4_2

    r = eq7_against_eq9_eq10(1.0, 1.0, 9, 1.0)
    assert r["eq9"] == pytest.approx(3.0) and r["eq10"] == pytest.approx(6 * math.log(10))
    assert r["eq7_adp"] == pytest.approx(math.fsum(1 / math.sqrt(1 + t) for t in range(1, 10)), rel=1e-14)
    assert r["eq7_adp"] > r["eq9"] and r["eq7_dp"] < r["eq10"]
    out = proposition5_1_from_theorem4_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["T"] == 9
    assert out.numbers["min_slack_etaL"] < 0 and out.numbers["min_slack_printed"] < out.numbers["min_slack_etaL"]


def test_proposition5_1_from_eq7_a_tenfold_stated_term_is_consistent():
    from verify import mutants, registry

    by = {r.mutant: r for r in mutants.run([registry.REGISTRY["adp.proposition5.1.from_theorem4.2"]], "quick", 0)}
    assert by["proposition5_1_privacy_terms:x10"].verdict == "holds"
    assert by["eq7_privacy_term:x10"].equivalent and by["proposition5_1_privacy_terms:x0.1"].equivalent


def test_theorem4_2_bound7_is_violated_where_the_quadratic_regime_predicts():
    """η = b/L makes θ_{k+1} ≈ −c_k/L, so E‖∇F(θ_k)‖² ≈ dσ² for k ≥ 1, while (7) evaluates to
    D_F·L/T + Σ_t E‖∇F(θ_t)‖²/(2T) + dσ²/(2b) ≈ (0.04 + 0.53 + 0.0625)·dσ² at T = 50, b = 8, ‖∇F(θ_0)‖² = 4dσ²."""
    from verify.papers.adp.convergence import THM42, theorem4_2

    out = theorem4_2("quick", 0)
    noise = THM42.d * out.numbers["sigma2"]
    assert out.verdict == "violated"
    assert out.numbers["bound"] / noise == pytest.approx(0.6325, rel=0.02)
    assert out.numbers["min_mean_grad_sq"] / noise == pytest.approx(1.0, rel=0.05)
    assert out.counterexample["ratio"] > 1.4 and out.decisions[0].control.alpha < 0.05


def test_theorem4_2_with_the_eta_l_factor_holds():
    from verify import mutants, registry

    by = {r.mutant: r for r in mutants.run([registry.REGISTRY["adp.theorem4.2"]], "quick", 0)}
    assert by["theorem4_2_bound:etaL-privacy-term"].verdict == "holds"
    assert by["theorem4_2_bound:x10"].refuted and by["theorem4_2_bound:x0.1"].equivalent


def test_proposition51_from_t42_exponent_mutants_still_fail_at_the_smallest_case():
    s0 = convergence.P51_CONSISTENCY_SMALLEST
    tol = common.relative_tolerance(convergence.P51_FROM_T42_BUDGETS.at("quick").tmax)
    for name in ("pow1.25", "pow0.75"):
        declared_still_false("adp.proposition5.1.from_theorem4.2", f"proposition5_1_privacy_terms:{name}")
        with theory_mutation("theory.adp.proposition5_1_privacy_terms", name).apply():
            r = convergence.eq7_against_eq9_eq10(s0["a"], s0["c"], s0["T"], s0["etaL"])
        k = 1.25 if name == "pow1.25" else 0.75
        assert abs(r["eq9"] - 9 ** (k / 2)) < 1e-12
        assert r["eq9"] < r["eq7_adp"] * (1 - tol) and r["eq9"] < r["eq7_adp_etaL"] * (1 - tol)


def test_proposition51_from_t42_the_counterexample_check_can_fail(monkeypatch):
    """(9) ×10 lies above (7)'s term at the smallest case: the same comparison says so."""
    s0 = convergence.P51_CONSISTENCY_SMALLEST
    real = tadp.proposition5_1_privacy_terms
    monkeypatch.setattr(tadp, "proposition5_1_privacy_terms", lambda: tuple(10 * e for e in real()))
    r = convergence.eq7_against_eq9_eq10(s0["a"], s0["c"], s0["T"], s0["etaL"])
    assert r["eq9"] > r["eq7_adp"]


# -- the findings of the violated claims -----------------------------------------------------------
@pytest.fixture(scope="module")
def thm42_quick():
    return convergence.theorem4_2("quick", 0)


@pytest.fixture(scope="module")
def p51_from_t42_quick():
    return convergence.proposition5_1_from_theorem4_2("quick", 0)


def test_theorem4_2_finding_and_its_etaL_repair(thm42_quick):
    """Every step k is above (7) (the verdict's intersection-union test); the paper's experiments give no ‖∇F‖²,
    so the size there is not computable; (7) with the factor ηL, decided on the same runs, holds."""
    f = thm42_quick.finding
    assert thm42_quick.verdict == "violated" and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing, f.region.edge) == (50, 50, "")
    assert not f.at_paper_setting.fails and math.isnan(f.at_paper_setting.size)
    assert f.repair.verdict == "holds" and "ηL" in f.repair.statement


def test_theorem4_2_summary_and_points_keep_every_number_of_its_evidence(thm42_quick):
    out = thm42_quick
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated: with σ² of (6)") and "every step's family-corrected lower bound" in s
    assert [p["verdict"] for p in out.points] == ["violated"]
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []


def test_proposition5_1_from_theorem4_2_summary_and_points_keep_every_number_of_its_evidence(p51_from_t42_quick):
    out = p51_from_t42_quick
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated (exact): the stated privacy terms (9) and (10) fall below")
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_proposition5_1_from_theorem4_2_finding(p51_from_t42_quick):
    """(9) or (10) falls short of (7) at 107 of 201 admissible points and at §6's schedule (a = 20, c = 1,
    T = 11700, ηL = 1) by about half; no single factor is known to repair it."""
    f = p51_from_t42_quick.finding
    assert p51_from_t42_quick.verdict == "violated" and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing) == (201, 107)
    assert f.at_paper_setting.fails and f.at_paper_setting.size == pytest.approx(-0.4786, abs=1e-3)
    assert f.repair is None and f.no_repair_reason
