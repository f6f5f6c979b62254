"""verify.papers.adp.privacy: Lemma 2.1, Lemma 2.2 and Theorem 4.1 at the quick budget (the adaptive stepsize's
privacy: ``test_adaptive_stepsize.py``) — known verdicts, pinned counterexamples, negative controls, and the declared
"still false" equivalences checked at their explicit counterexamples under the mutation verify.mutants applies."""

import math
import re

import numpy as np
import pytest

from tests.papers.adp.mutant_support import declared_still_false, theory_mutation
from tests.verify.evidence_support import lost_numbers
from theory import adp as tadp
from verify.papers.adp import privacy
from verify.privacy import composed_epsilon, gaussian_epsilon, optimal_composition_epsilon


@pytest.fixture(scope="module")
def thm41_quick():
    return privacy.theorem4_1("quick", 0)


def test_lemma22_quick_holds_and_its_numbers_say_so():
    out = privacy.lemma2_2("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["min_slack"] >= 0 and out.numbers["max_ratio_optimal_over_tilde"] <= 1.0


def test_lemma22_negative_control_flags_a_wrong_formula(monkeypatch):
    """Halving ε̃ (a composition bound that is too good to be true) must be caught."""
    real = tadp.extended_advanced_composition
    monkeypatch.setattr(tadp, "extended_advanced_composition",
                        lambda e, d, dp: (real(e, d, dp)[0] / 4, real(e, d, dp)[1]))
    out = privacy.lemma2_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["eps_optimal"] > out.counterexample["eps_tilde"]


def test_optimal_composition_of_one_mechanism_is_itself():
    assert optimal_composition_epsilon([0.7], [1e-6], 1e-6 + 1e-9) == pytest.approx(0.7, abs=2e-4)


def test_theorem41_quick_and_the_calibration_it_checks(thm41_quick):
    out = thm41_quick
    f = out.numbers
    expected = "violated" if f["points_broken"] else ("holds" if f["points_not_certified"] == 0 else "inconclusive")
    assert out.verdict == expected
    r = privacy._thm41_task("dp", 1000, 1000, 1.0, 1e-5)
    b_delta = np.log(16 * 1000 / (1000 * 1e-5)) * np.log(1.25 / 1e-5)
    assert r["sigma"] == pytest.approx(np.sqrt(256 * b_delta / 1000**2 * 1000))
    # negative control: the same steps with a twentieth of the noise are not (1, 1e-5)-DP by the accountant
    assert composed_epsilon([(1e-3, r["sigma"] / 20, 1000)], 1e-5, "rdp") > 1.0


def test_theorem41_uncertified_points_make_it_inconclusive(monkeypatch):
    monkeypatch.setattr(privacy, "_thm41_task", lambda **kw: {"sigma": 1.0, "z_min": 1.0,
                                                              "eps_upper": 10 * kw["epsilon"],
                                                              "eps_lower": 0.0, "delta_lower": 0.0})
    out = privacy.theorem4_1("quick", 0)
    assert out.verdict == "inconclusive" and out.numbers["points_not_certified"] == out.numbers["points"]


def test_theorem41_counterexample_pinned():
    """Pinned: ADP-SGD (α_t² = √(1 + t)), T = 100, n = 10000, ε = 4, δ = 1e-8. Theorem 4.1's σ ≈ 0.03 leaves
    the one-record steps nearly noiseless: the event 'some step's output along u exceeds 1/2' has probability
    ≈ T/n under one neighbour and ≈ 0 under the other, so δ(4) ≥ 0.0099 ≫ 1e-8."""
    r = privacy._thm41_task("adp_poly", 100, 10000, 4.0, 1e-8, 8, 1e-2)
    assert r["sigma"] == pytest.approx(0.02959, rel=1e-3)
    assert r["delta_lower"] > 0.0099 > 1e-8
    # the bound is a real probability computation: with ample noise it certifies nothing
    assert privacy.delta_lower_bound(np.full(100, 5.0), 1e-3, 1.0) == 0.0


def test_theorem41_quick_reports_the_violation(thm41_quick):
    out = thm41_quick
    assert out.verdict == "violated" and out.numbers["points_broken"] >= 1
    c = out.counterexample
    assert c["delta_lower_bound"] > c["delta"] or c["epsilon_lower_bound"] > c["epsilon"]


def test_theorem41_optimistic_pld_failure_pinned():
    """Pinned: DP-SGD, T = 100, n = 10000, ε = 0.5, δ = 1e-5, replace-one: Theorem 4.1's σ = 0.341 and
    dp-accounting's optimistic (lower) PLD ε is ≈ 3 > 0.5 — a provable failure, counted as such."""
    r = privacy._thm41_task("dp", 100, 10000, 0.5, 1e-5, 4, 1e-2)
    assert r["sigma"] == pytest.approx(0.3411, rel=1e-3)
    assert r["eps_lower"] > 2.5 > 0.5 and r["eps_upper"] >= r["eps_lower"]


def test_theorem41_quick_counts_pld_failures_and_drops_duplicate_rows(thm41_quick):
    f = thm41_quick.numbers
    assert f["points"] == 16 and f["points_broken_by_pld_lower"] >= 1 and f["points_broken_by_event"] >= 1
    assert f["points_broken"] <= f["points_broken_by_pld_lower"] + f["points_broken_by_event"]
    assert not any("adp_adaptive" in k for k in f)
    assert thm41_quick.evidence.startswith("violated (exact, replace-one)")


def test_replace_one_lower_bound_is_below_the_upper_bound_and_doubles_the_shift():
    alpha = np.ones(1)
    lo = privacy.replace_one_pld_epsilon(alpha, 2.0, 1, 1e-5, 1, False, 1e-3)
    hi = privacy.replace_one_pld_epsilon(alpha, 2.0, 1, 1e-5, 1, True, 1e-3)
    assert lo <= hi and hi == pytest.approx(gaussian_epsilon(1.0, 1e-5), abs=2e-2)  # replace-one: multiplier z/2


def _replace_one_pld_epsilon_plain(alpha, sigma, n, delta, blocks, pessimistic, vdi):
    """The per-block loop without reuse: every block builds its own step PLD and self-composition."""
    dist = None
    for b in np.array_split(np.arange(alpha.size), min(blocks, alpha.size)):
        z = float(alpha[b].min() if pessimistic else alpha[b].max()) * sigma
        if z < privacy.THM41_PLD_MIN_Z:
            return float("nan")
        step = privacy.pld.from_gaussian_mechanism(
            z, sampling_prob=1.0 / n, pessimistic_estimate=pessimistic, use_connect_dots=pessimistic,
            value_discretization_interval=vdi, neighboring_relation=privacy.NeighboringRelation.REPLACE_ONE)
        part = step.self_compose(int(b.size))
        dist = part if dist is None else dist.compose(part)
    return float(dist.get_epsilon_for_delta(delta))


@pytest.mark.parametrize("schedule, T, blocks", [("dp", 10, 4), ("dp", 7, 7), ("adp_poly", 10, 4), ("dp", 3, 16)])
@pytest.mark.parametrize("pessimistic", [True, False])
def test_replace_one_pld_epsilon_reusing_equal_blocks_equals_the_plain_loop_exactly(schedule, T, blocks,
                                                                                      pessimistic):
    """Sharing the step PLD and self-composition among blocks of equal multiplier and length leaves ε bit-identical
    (unequal block lengths, one-step blocks, more blocks than steps, distinct multipliers)."""
    alpha = privacy.alpha_schedule(schedule, T)
    args = (alpha, 1.3, 100, 1e-5, blocks, pessimistic, 1e-2)
    fast = privacy.replace_one_pld_epsilon(*args)
    assert math.isfinite(fast) and fast > 0
    assert fast == _replace_one_pld_epsilon_plain(*args)


def test_lemma2_1_is_violated_at_large_epsilon_and_the_example_is_pinned():
    """δ = 1e-5, Δ = 1, σ = √(2 ln(1.25e5))/10: the lemma promises (10, 1e-5)-DP; the Gaussian mechanism's exact
    δ at ε = 10 is larger than 1e-5, and dp-accounting's optimistic PLD ε at δ = 1e-5 exceeds 10."""

    from verify.papers.adp.privacy import gaussian_delta_at, lemma2_1
    from verify.privacy import gaussian_epsilon_interval

    z = math.sqrt(2 * math.log(1.25e5)) / 10
    assert float(tadp.lemma2_1_epsilon().subs({tadp.delta: 1e-5, tadp.Delta: 1, tadp.sigma: z})) == pytest.approx(10)
    assert gaussian_delta_at(z, 10.0) > 1e-5
    assert gaussian_epsilon_interval(z, 1e-5)[0] > 10.0
    z1 = math.sqrt(2 * math.log(1.25e5)) / 0.99  # inside Dwork–Roth's ε < 1 the calibration is valid
    assert gaussian_delta_at(z1, 0.99) < 1e-5
    out = lemma2_1("quick", 0)
    assert out.verdict == "violated" and out.numbers["points_broken_below_epsilon_1"] == 0
    assert out.counterexample["delta"] == 0.9 and out.counterexample["epsilon"] == pytest.approx(4.406, abs=1e-3)
    assert out.counterexample["pld_epsilon_lower"] > out.counterexample["epsilon"]


def test_lemma2_1_restricted_to_epsilon_below_one_holds():
    from verify import mutants, registry

    by = {r.mutant: r for r in mutants.run([registry.REGISTRY["adp.lemma2.1"]], "quick", 0)}
    assert by["lemma2_1_epsilon_range:dwork-roth"].verdict == "holds"
    assert by["lemma2_1_epsilon:x10"].refuted


def test_lemma21_exponent_mutants_still_fail_at_their_counterexamples():
    from theory import numeric

    for name, (dl, z) in privacy.LEMMA21_POW_COUNTEREXAMPLES.items():
        declared_still_false("adp.lemma2.1", f"lemma2_1_epsilon:{name}")
        with theory_mutation("theory.adp.lemma2_1_epsilon", name).apply():
            eps = float(numeric(tadp.lemma2_1_epsilon())(delta=dl, Delta=1.0, sigma=z))
        plain = float(numeric(tadp.lemma2_1_epsilon())(delta=dl, Delta=1.0, sigma=z))
        assert eps != plain  # the mutation is in force
        assert privacy.gaussian_delta_at(z, eps) > dl * (1 + privacy.LEMMA21_RELATIVE_TOLERANCE)
        lo, _ = privacy.gaussian_epsilon_interval(z, dl)
        assert lo > eps, (name, lo, eps)


def test_lemma21_the_counterexample_check_can_fail():
    """At a point where the promise is kept (small ε: σ/Δ = 5, δ = 1e-5, unmutated) the same test says so."""
    from theory import numeric

    eps = float(numeric(tadp.lemma2_1_epsilon())(delta=1e-5, Delta=1.0, sigma=5.0))
    assert privacy.gaussian_delta_at(5.0, eps) <= 1e-5
    assert privacy.gaussian_epsilon_interval(5.0, 1e-5)[0] <= eps


def test_theorem41_exponent_mutants_still_fail_at_the_counterexample():
    p = privacy.THM41_POW_COUNTEREXAMPLE
    plain = privacy._thm41_task(**p, pld_blocks=4, vdi=1e-2)
    for fn, name in (("theorem4_1_variance", "pow1.25"), ("b_delta", "pow1.25"), ("b_delta", "pow0.75")):
        declared_still_false("adp.theorem4.1", f"{fn}:{name}")
        with theory_mutation(f"theory.adp.{fn}", name).apply():
            r = privacy._thm41_task(**p, pld_blocks=4, vdi=1e-2)
        assert r["sigma"] != plain["sigma"]  # the mutation is in force
        assert r["delta_lower"] > 100 * p["delta"], (fn, name, r)


def test_theorem41_tenfold_variance_mutants_still_fail_at_their_counterexample():
    """The reason declared for theorem4_1_variance:x10 and b_delta:x10: at DP-SGD, T = 100, n = 10⁴, ε = 2,
    δ = 1e-5 the event bound at the mutated σ (√10 times eq. (6)'s) still exceeds δ, by more than 80×."""
    p = privacy.THM41_X10_COUNTEREXAMPLE
    plain = privacy._thm41_task(**p, pld_blocks=4, vdi=1e-2)
    for fn in ("theorem4_1_variance", "b_delta"):
        declared_still_false("adp.theorem4.1", f"{fn}:x10")
        with theory_mutation(f"theory.adp.{fn}", "x10").apply():
            r = privacy._thm41_task(**p, pld_blocks=4, vdi=1e-2)
        assert r["sigma"] == pytest.approx(10**0.5 * plain["sigma"], rel=1e-12)  # the mutation is in force
        assert r["sigma"] == pytest.approx(0.2696, rel=1e-3)
        assert r["delta_lower"] > 8.7e-4 > 80 * p["delta"], (fn, r)
        # thresholds below the shift (0.5, 0.7, 0.9) certify nothing here: τ = 1.3 does
        z = privacy.alpha_schedule("dp", 100) * r["sigma"]
        assert privacy.delta_lower_bound(z, 1e-4, 2.0, (0.5, 0.7, 0.9)) == 0.0
        assert privacy.delta_lower_bound(z, 1e-4, 2.0, (1.3,)) > 8.7e-4


def test_theorem41_variance_pow075_still_fails_at_its_counterexample():
    """The reason declared for theorem4_1_variance:pow0.75: a point of the full grid (DP-SGD, T = 100, n = 10⁴,
    ε = 4, δ = 1e-5) where the event bound at the mutated σ exceeds δ more than 20-fold."""
    p = privacy.THM41_POW075_COUNTEREXAMPLE
    plain = privacy._thm41_task(**p, pld_blocks=4, vdi=1e-2)
    declared_still_false("adp.theorem4.1", "theorem4_1_variance:pow0.75")
    with theory_mutation("theory.adp.theorem4_1_variance", "pow0.75").apply():
        r = privacy._thm41_task(**p, pld_blocks=4, vdi=1e-2)
    assert r["sigma"] != plain["sigma"] and r["sigma"] == pytest.approx(0.267, rel=2e-3)
    assert r["delta_lower"] > 2.5e-4 > 20 * p["delta"], r


def test_theorem41_the_counterexample_check_can_fail():
    """A thousand times Theorem 4.1's σ² at the same points: the event bound no longer exceeds δ (ten times, the
    thresholds above the shift still find δ(2) > δ: see the test above)."""
    from verify.mutants import substituted

    real = tadp.theorem4_1_variance
    with substituted("theory.adp.theorem4_1_variance", lambda: 1000 * real()):
        for p in (privacy.THM41_POW_COUNTEREXAMPLE, privacy.THM41_X10_COUNTEREXAMPLE,
                  privacy.THM41_POW075_COUNTEREXAMPLE):
            r = privacy._thm41_task(**p, pld_blocks=4, vdi=1e-2)
            assert not r["delta_lower"] > p["delta"]


def test_lemma22_a_tenfold_smaller_delta_tilde_below_the_point_mass_is_violated_without_a_crash(monkeypatch):
    """ε̃ and δ̃ both ÷10 (the x0.1 mutant): where δ̃/10 ≤ 1 − Π(1 − δ_i) no finite ε is valid, which the check
    now says (violated) instead of letting the accountant raise."""
    from theory import adp as tadp

    real = tadp.extended_advanced_composition
    monkeypatch.setattr(privacy, "LEMMA22_BUDGETS", privacy.Budgets(quick=privacy.Lemma22Settings(cases=12, kmax=3),
                                                          full=privacy.LEMMA22_BUDGETS.full))
    monkeypatch.setattr(tadp, "extended_advanced_composition", lambda e, d, dp: tuple(0.1 * v for v in real(e, d, dp)))
    out = privacy.lemma2_2("quick", 0)
    assert out.verdict == "violated" and out.counterexample["no_finite_epsilon"] is True
    assert "no finite ε" in out.evidence and out.numbers["cases_without_finite_epsilon"] >= 1


# -- the findings of the violated privacy claims ------------------------------------------------
@pytest.fixture(scope="module")
def lemma21_quick():
    return privacy.lemma2_1("quick", 0)


def test_lemma2_1_finding_is_a_boundary_at_epsilon_one_and_above(lemma21_quick):
    """Every failing grid point has ε ≥ 1 (the smallest 4.41), the 150 points with ε < 1 hold, and at §6's budgets
    (ε̄ ≤ 6.4, δ = 1e-5) the true δ stays below the stated one: a boundary case; the hypothesis ε < 1 repairs it."""
    f = lemma21_quick.finding
    assert lemma21_quick.verdict == "violated" and f.scope == "boundary"
    r = f.region
    assert (r.edge, r.explored, r.failing, r.failing_on_edge, r.holding_off_edge) == ("ε ≥ 1", 300, 90, 90, 150)
    assert not f.at_paper_setting.fails and 0.3 < f.at_paper_setting.size < 0.35
    assert f.repair.verdict == "holds" and f.repair.source == "derived"


def test_theorem4_1_finding_fails_at_the_papers_experiment(thm41_quick):
    """At §6's σ (ε = 16·0.8, T = 11700, n = 50000, δ = 1e-5) the event bound gives δ ≥ 0.2 ≫ 1e-5: in the regime."""
    f = thm41_quick.finding
    assert f.scope == "in_regime" and f.repair is None and f.no_repair_reason
    assert (f.region.explored, f.region.failing) == (16, thm41_quick.numbers["points_broken"]) and f.region.edge == ""
    assert f.at_paper_setting.fails and f.at_paper_setting.size == pytest.approx(0.2086, rel=1e-3)


def test_lemma2_1_summary_and_points_keep_every_number_of_its_evidence(lemma21_quick):
    out = lemma21_quick
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated (exact): the true δ exceeds") and "0 of them with ε < 1" in s
    assert sum(p.get("broken", 0) for p in out.points) == out.numbers["points_broken"]
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_theorem4_1_summary_and_points_keep_every_number_of_its_evidence():
    out = privacy.theorem4_1("quick", 0)
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated (exact, replace-one): the promised (ε, δ) provably fails")
    assert len(out.points) == out.numbers["points"]
    assert sum(p["fails"] for p in out.points) == out.numbers["points_broken"]
    assert lost_numbers(out.evidence, out.summary, out.points) == []
