"""The privacy statements (:mod:`verify.papers.noisy_adagrad.privacy`): Lemma 5's sensitivity (its rate, its witness
pairs, its declared forms), Theorem 10's Gaussian-mechanism calibration against the accountant and §4.1's σ_b, σ_B —
verdicts at quick, negative controls and the wrong powers each decision must catch."""

import math
import re

import numpy as np
import pytest
import sympy as sp

from dpvalidate import InvalidParameter
from tests.verify.evidence_support import lost_numbers
from theory import noisy_adagrad as tn
from verify import mutants, registry
from verify.mutants import _powers
from verify.papers.noisy_adagrad import privacy
from verify.registry import Budgets
from verify.runner import SerialRunner, using

from .support import memoised_quick


@pytest.fixture(scope="module")
def quick():
    return memoised_quick(privacy)


def test_lemma5_holds_supports_the_statement_not_the_proof_line(quick):
    out = quick("lemma5")
    f = out.numbers
    assert out.verdict == "holds"
    assert f["worst_ratio_L_sqrt_t_over_n"] >= 1.0 and f["worst_ratio_L_sqrt_t_over_n"] <= math.sqrt(2) * (1 + 1e-9)
    assert abs(f["slope_in_n"]) < 0.05 and f["slope_vs_proof_line_in_n"] == pytest.approx(-0.5, abs=0.05)


def _one_short_sentence(summary: str) -> bool:
    return summary.endswith(".") and not re.search(r"\. [A-Z]", summary) and len(summary) <= 250


def test_lemma5_summary_and_points_keep_every_number_of_its_evidence(quick):
    out = quick("lemma5")
    assert _one_short_sentence(out.summary) and out.summary.startswith("holds (exact)")
    assert [(p["t"], p["n"]) for p in out.points if p["part"] == "search grid"] == [
        (t, n) for t in (1, 2, 4) for n in (10, 100, 1000)]
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_section4_1_sigma_summary_and_points_keep_every_number_of_its_evidence(quick):
    out = quick("section4_1_sigma")
    assert _one_short_sentence(out.summary) and out.summary.startswith("holds:")
    assert {p["axis"] for p in out.points if "axis" in p} == {"T", "n", "1/ε", "log(1/δ)", "L → 0", "L → ∞"}
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_lemma5_negative_control_growing_sensitivity_is_caught(monkeypatch):
    # a gap growing like √n in units of L√t/n (the task reports the ratio and the gap itself)
    monkeypatch.setattr(privacy, "lemma5_worst", lambda t, n, p, starts, random_cases, seed: {
        "worst": math.sqrt(n), "worst_gap": math.sqrt(n) * math.sqrt(t) / n, "evaluated": 1})
    out = privacy.lemma5("quick", 0)
    assert out.verdict == "violated"
    # its finding: every grid point above √2 (the planted ratio √n ≥ √10), no repair (the lemma holds with √2)
    f = out.finding
    assert f is not None and f.scope == "in_regime" and f.region.failing >= f.region.explored - 3 > 0
    assert f.at_paper_setting.fails and f.at_paper_setting.size > 2.0
    assert f.repair is None and "Araki–Yamagami" in f.no_repair_reason


def test_theorem10_holds_inside_its_range(quick):
    out = quick("theorem10")
    assert out.verdict == "holds"
    assert out.numbers["points_broken"] == 0 and out.numbers["max_ratio_inside"] < 1.0


def test_theorem10_negative_control_less_noise_is_caught(monkeypatch):
    real = tn.theorem10_sigma()
    monkeypatch.setattr(tn, "theorem10_sigma", lambda: real * 0.6)
    out = privacy.theorem10("quick", 0)
    assert out.verdict == "violated" and out.counterexample["eps_lo"] > out.counterexample["epsilon"]


def test_lemma5_decides_with_its_declared_forms(monkeypatch):
    """A statement unit with the wrong n exponent (n^(5/4)) pushes the worst ratio past √2; a rigorous bound 10×
    too small, or a proof line 10× too small, is exceeded by the found gaps: each is violated."""
    assert privacy.lemma5("quick", 0).verdict == "holds"
    true = {f: getattr(tn, f) for f in ("lemma5_statement", "lemma5_rigorous", "lemma5_proof_line")}
    for fn, wrong in (("lemma5_statement", lambda: tn.L * sp.sqrt(tn.t) / tn.n ** sp.Rational(5, 4)),
                      ("lemma5_rigorous", lambda: true["lemma5_rigorous"]() / 10),
                      ("lemma5_proof_line", lambda: true["lemma5_proof_line"]() / 10)):
        with monkeypatch.context() as mp:
            mp.setattr(tn, fn, wrong)
            assert privacy.lemma5("quick", 0).verdict == "violated", fn


def _check(cid: str):
    registry.load_all()
    return registry.REGISTRY[cid].check("quick", 0)


# ---- noisy_adagrad.section4.1.sigma ------------------------------------------------------------------------------
def test_section4_1_sigma_holds_with_the_constants_it_needs():
    out = _check("noisy_adagrad.section4.1.sigma")
    assert out.verdict == "holds" and out.plots
    nb = out.numbers
    assert 1.0 < nb["c_b_min"] <= nb["c_b_max"] < 3.0  # σ_b needs a constant above 1
    assert nb["tail_slope_c_B_n"] == pytest.approx(-0.5, abs=1e-9)  # σ_B over-calibrated by √n
    assert nb["max_accountant_over_theorem10_multiplier"] <= 1.0
    for i in (0, 1):
        assert nb[f"direct{i}_eps_b_unit_constant"] > 2 * nb[f"direct{i}_eps_b"]  # the printed constant 1 fails


def test_section4_1_sigma_closed_limits():
    c = privacy.sec41_closed_constants()
    assert sp.simplify(c["K_b_delta0"] - 2 * sp.sqrt(2)) == 0
    assert sp.simplify(c["K_B_delta0"] - 2 * sp.sqrt(2) / sp.sqrt(tn.n)) == 0


def test_section4_1_sigma_exponent_mutant_of_sigma_b_refutes_it():
    registry.load_all()
    (c,) = registry.select(["noisy_adagrad.section4.1.sigma"])
    (m,) = [m for m in mutants.theory_mutants(c) if m.name == "sigma_b_calibration:pow0.75"]
    mutants.reset_caches()
    with using(SerialRunner()), m.apply():
        out = c.check("quick", 0)
    assert out.verdict == "violated"
    f = out.finding  # the σ_b exponent ×3/4: a tail slope grows, and no constant restores it
    assert f is not None and f.scope == "in_regime" and f.region.failing >= 1 and f.repair is None
    assert "tail log-log slope of c_b_" in f.region.text and not f.at_paper_setting.fails


def test_lemma5_rate_is_decided_flat_unmutated(quick_lemma5):
    out = quick_lemma5
    assert out.verdict == "holds"
    assert abs(out.numbers["slope_in_t"]) <= privacy.LEMMA5_SLOPE_MARGIN
    assert abs(out.numbers["slope_in_n"]) <= privacy.LEMMA5_SLOPE_MARGIN
    assert "≤ the margin 0.1" in out.evidence


@pytest.fixture(scope="module")
def quick_lemma5():
    return privacy.lemma5("quick", 0)


def test_lemma5_a_slower_rate_in_t_is_violated(monkeypatch):
    """lemma5_statement with every exponent ×3/4 (L√t/n → L^(3/4) t^(3/8)/n^(3/4)) is larger on the grid, so the
    ceiling and the pointwise bounds cannot see it; the ratio then grows like t^(1/8) along t: the rate fails."""
    L, t, n = tn.L, tn.t, tn.n
    monkeypatch.setattr(tn, "lemma5_statement",
                        lambda: L ** sp.Rational(3, 4) * t ** sp.Rational(3, 8) / n ** sp.Rational(3, 4))
    out = privacy.lemma5("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["slope_in_t"] > privacy.LEMMA5_SLOPE_MARGIN
    assert out.counterexample["worst_ratio"] < out.counterexample["ceiling"]  # only the rate decides here


@pytest.mark.parametrize("fn", ["sigma_B_calibration", "lemma5_rigorous", "goe_noise_multiplier"])
def test_section41_scale_in_L_catches_exponent_errors_the_sqrt_n_slack_absorbs(monkeypatch, fn):
    """σ_B's forms with every positive variable's exponent ×5/4 (σ_B) or ×3/4 (the sensitivity, the GOE multiplier)
    stay bounded along T and n (σ_B carries √n of slack) but are no longer scale-free in L."""
    real = getattr(tn, fn)()
    wrong = _powers(sp.Rational(5, 4) if fn == "sigma_B_calibration" else sp.Rational(3, 4))(real)
    monkeypatch.setattr(tn, fn, lambda: wrong)
    out = privacy.section4_1_sigma("quick", 0)
    assert out.verdict == "violated"
    L_slopes = [out.numbers[f"tail_slope_c_B_{a}"] for a in privacy.SEC41_L_AXES]
    assert max(L_slopes) > privacy.SEC41_VIOLATE and out.counterexample["largest_tail_slope"].startswith("c_B_L_")


def test_section41_constants_are_scale_free_in_L():
    a = privacy.sec41_constants(100, 1000, 1.0, 1e-5, L=1.0)
    for L in (1e-6, 1e6):
        b = privacy.sec41_constants(100, 1000, 1.0, 1e-5, L=L)
        assert b["c_B"] == pytest.approx(a["c_B"], rel=1e-12) and b["c_b"] == pytest.approx(a["c_b"], rel=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# Lemma 5's two explicit bounds at fixed witness pairs off the grid (n = 2, L ≠ 1)
# ---------------------------------------------------------------------------------------------------------------
def test_lemma5_witness_is_a_valid_pair_below_the_rigorous_bound():
    for L, t in privacy.LEMMA5_WITNESS_POINTS:
        g = privacy.lemma5_witness_gap(L, t)
        unit = L * math.sqrt(t) / 2
        assert 1.26 < g / unit < math.sqrt(2)  # ≈ 1.262·L√t/n, under Araki–Yamagami's √2
    a = np.array([[0.5, 0.0, 0.0]])
    h = np.array([[0.5 * math.cos(privacy.LEMMA5_WITNESS_PHI), 0.5 * math.sin(privacy.LEMMA5_WITNESS_PHI), 0.0]])
    assert np.linalg.norm(a) <= 0.5 and np.linalg.norm(h) <= 0.5 + 1e-15  # inside the balls at n = 2, L = 1
    assert privacy.lemma5_witness_gap(1.0, 1) == privacy.lemma5_gap(a, h)


@pytest.mark.parametrize("fn, k", [("lemma5_rigorous", sp.Rational(3, 4)), ("lemma5_proof_line", sp.Rational(5, 4)),
                                   ("lemma5_proof_line", sp.Rational(3, 4))])
def test_lemma5_a_wrong_power_in_an_explicit_bound_is_violated_at_a_witness(monkeypatch, fn, k):
    """Every variable of the bound to the power k: on the grid (t ≤ 4 < n, L = 1) the bound is only larger or still
    above the search's gaps; at a witness point it falls below an exact gap."""
    real = getattr(tn, fn)
    monkeypatch.setattr(tn, fn, lambda: real().xreplace({s: s**k for s in real().free_symbols}))
    out = privacy.lemma5("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["witness_broken"]
    assert out.counterexample["worst_ratio"] <= out.counterexample["ceiling"] * (1 + 1e-9)  # the ceiling cannot see it


# ---------------------------------------------------------------------------------------------------------------
# Theorem 10 at sensitivities Δ₂ ≠ 1
# ---------------------------------------------------------------------------------------------------------------
def test_theorem10_multiplier_does_not_depend_on_the_sensitivity():
    for D in (1.0,) + privacy.THEOREM10_DELTA2:
        assert privacy._thm10_point(0.5, 1e-3, D)["z"] == pytest.approx(privacy._thm10_point(0.5, 1e-3)["z"], rel=1e-12)


def test_theorem10_a_wrong_power_of_the_sensitivity_is_violated(monkeypatch):
    """σ with every variable to the power 5/4: at Δ₂ = 1 and ε < 1 it is larger (ε^(−5/4) > ε^(−1)), so the grid at
    Δ₂ = 1 cannot see it; at Δ₂ = 0.01 the multiplier σ/Δ₂ is too small."""
    real = tn.theorem10_sigma
    monkeypatch.setattr(tn, "theorem10_sigma",
                        lambda: real().xreplace({s: s ** sp.Rational(5, 4) for s in real().free_symbols}))
    out = privacy.theorem10("quick", 0)
    assert out.verdict == "violated"
    assert out.counterexample["Delta"] == 0.01 and out.counterexample["eps_lo"] > out.counterexample["epsilon"]


# ---------------------------------------------------------------------------------------------------------------
# Theorem 10 at multipliers whose 1e-4 PLD grid dp-accounting cannot hold
# ---------------------------------------------------------------------------------------------------------------
def test_theorem10_point_past_the_pld_grid_takes_the_analytic_epsilon(monkeypatch):
    """σ ten times too small at ε = 16, δ = 0.01 (multiplier 0.0194, true ε ≈ 1444.3): the 1e-4 grid would exceed
    MAX_PLD_POINTS, so the point takes dp-accounting's analytic Gaussian ε, whose bracket holds the root of the
    closed-form δ(ε) = Φ(1/(2z) − εz) − e^ε Φ(−1/(2z) − εz) = δ solved independently with 50-digit mpmath."""
    mpmath = pytest.importorskip("mpmath")
    real = tn.theorem10_sigma()
    monkeypatch.setattr(tn, "theorem10_sigma", lambda: real * sp.Rational(1, 10))
    r = privacy._thm10_point(16.0, 1e-2)
    assert r["grid"] == 0.0
    with mpmath.workdps(50):
        z = mpmath.mpf(r["z"])
        root = mpmath.findroot(lambda e: mpmath.ncdf(1 / (2 * z) - e * z) - mpmath.exp(e) * mpmath.ncdf(
            -1 / (2 * z) - e * z) - mpmath.mpf("0.01"), 1444)
    assert r["eps_lo"] <= float(root) <= r["eps_hi"] and r["eps_hi"] - r["eps_lo"] < 1e-5 and r["eps_lo"] > 16.0
    # the paper's own multiplier keeps the 1e-4 PLD grid
    monkeypatch.undo()
    assert privacy._thm10_point(0.5, 1e-2)["grid"] == 1e-4


def test_theorem10_point_other_errors_are_not_swallowed(monkeypatch):
    def refuse(*args, **kwargs):
        raise InvalidParameter("delta", "in (0, 1)", 2.0)
    monkeypatch.setattr(privacy, "gaussian_epsilon_interval", refuse)
    with pytest.raises(InvalidParameter, match="delta"):
        privacy._thm10_point(0.5, 1e-3)


def test_theorem10_decides_a_tenfold_too_small_sigma_whose_outside_points_leave_the_grid(monkeypatch):
    """The mutant theorem10_sigma:x0.1 at ε = 0.5 (inside the hypothesis) and at the full budget's corner ε = 16
    (outside, reported only), δ = 0.01: the outside point used to raise (the 1e-4 grid too fine for dp-accounting),
    which cost the whole claim its verdict; now it is decided: violated."""
    real = tn.theorem10_sigma()
    monkeypatch.setattr(tn, "theorem10_sigma", lambda: real * sp.Rational(1, 10))
    monkeypatch.setattr(privacy, "THEOREM10_BUDGETS", Budgets(
        quick=privacy.Theorem10Settings(eps_in=(0.5,), eps_out=(16.0,), deltas=(1e-2,)),
        full=privacy.THEOREM10_BUDGETS.full))
    out = privacy.theorem10("quick", 0)
    assert out.verdict == "violated" and out.counterexample["eps_lo"] > out.counterexample["epsilon"]
    assert out.numbers["outside_points_broken"] == 1


def test_theorem10_violation_carries_a_finding_without_repair(monkeypatch):
    """With 0.6× the classical σ the accountant breaks the promise: the finding counts the broken points with ε < 1,
    reports the largest lower ε / promised ε, and gives no repair (Dwork–Roth A.1 is true: a fault)."""
    real = tn.theorem10_sigma()
    monkeypatch.setattr(tn, "theorem10_sigma", lambda: real * 0.6)
    out = privacy.theorem10("quick", 0)
    f = out.finding
    assert out.verdict == "violated" and f is not None and f.scope == "in_regime"
    assert f.region.failing == out.numbers["points_broken"] > 0 and f.region.explored == out.numbers["points"]
    assert f.at_paper_setting.fails and f.at_paper_setting.size > 1.0
    assert f.repair is None and "fault" in f.no_repair_reason


def test_lemma5_gaps_and_stacked_balls_equal_the_one_pair_forms_exactly():
    # the L-BFGS-B search's stacked evaluation must be the same arithmetic as lemma5_gap of each point
    rng = np.random.default_rng(5)
    for t, n in ((1, 10), (4, 1000), (32, 10)):
        X = rng.uniform(-1, 1, (9, 6 * t)) * 10.0 ** rng.uniform(-3, 0, (9, 6 * t))
        X[0, : 3 * t] = 0.0  # a = 0
        X[1, -1] = 1.0  # on the box's face
        A, H = privacy._to_balls(X, t, 3, n)
        gaps = privacy.lemma5_gaps(A, H)
        for j in range(len(X)):
            a, h = privacy._to_balls(X[j], t, 3, n)
            assert np.array_equal(a, A[j]) and np.array_equal(h, H[j])
            assert gaps[j] == privacy.lemma5_gap(a, h)
