"""The shared helpers of :mod:`verify.papers.pagan._common` (the rate sweeps' mechanism checks) and of
:mod:`verify.papers.pagan._lower_bound_common` (the lower bounds' runs, comparisons and exact edges).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import kernels
import kernels.faults
import kernels.moments
import kernels.pagan_problems
from theory import numeric
from theory import pagan as tp
from verify import decide, mutants
from verify.papers.pagan import _common, _lower_bound_common, estimated_geometry, lower_bounds, lower_bounds_l2, rates

FAULTS = {"noise*3": (dict(noise_scale=3.0), "noise multiplier 3 "),
          "noise-cov-A": (dict(noise_geometry_inverse=True), "noise multiplier"),
          "no-clipping": (dict(skip_clipping=True), "not projected"),
          "stepsize*10": (dict(stepsize_scale=10.0), "stepsize 10 ")}



def _thm3p_args():
    s = kernels.pagan_problems.power_law_sigma(estimated_geometry.THM3P_D, estimated_geometry.THM3P_DECAY)
    return ("pagan", estimated_geometry.THM3P_D, estimated_geometry.THM3P_DECAY, estimated_geometry.THM3P_EPSILON,
            _common.RATE_DELTA,
            _common.lemma31_steps(estimated_geometry.THM3P_C, 1000, 1), 1, 2.0, _common._geometry(s, "pagan"))



def _eq7_args():
    s = kernels.pagan_problems.power_law_sigma(10, _common.RATE_DECAY)
    b = _common.rate_batch(16000)
    return ("pagan", 10, _common.RATE_DECAY, 1.0, _common.RATE_DELTA,
            _common.lemma31_steps(_common.RATE_C, 16000, b), b, 2.0, _common._geometry(s, "pagan"))



def _pow(expr, k):

    return expr.subs({s: s ** sp.Rational(k) for s in expr.free_symbols if s.is_positive})



def _box_bound(expr):
    f = numeric(expr)
    return lambda d, ne, sg: float(f(S_2_3=float(np.sum(sg ** (2 / 3))), d=d, epsilon=ne, n=1))



def _ball_bound(expr):
    f = numeric(expr)
    return lambda d, ne, sg: float(f(S_1=float(np.sum(sg)), d=d, epsilon=ne, n=1))



# --------------------------------------------------------------------------------------
# the rate claims (theorem1, theorem2, eq9, section3.2.box): an exact probe of the kernel's configuration
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["pasan", "pagan", "pasan_box"])
def test_rate_setting_probe_passes_unmutated_and_names_each_kernel_fault(setting):
    assert _common._rate_setting_departures(setting, "quick") == []
    assert _common._rate_setting_departures(setting, "full") == []
    expected = {"stepsize*10": "stepsize 10 ×", "no-clipping": "not projected", "noise-cov-A": "noise multiplier",
                "noise*3": "noise multiplier 3 ×"}
    faults = {m.name: m for m in mutants.KERNEL_MUTANTS}
    for name, phrase in expected.items():
        with faults[name].apply():
            found = _common._rate_setting_departures(setting, "quick")
        assert len(found) == 1 and phrase in found[0], (name, found)



def test_lower_bound_runs_outside_the_hypothesis_are_not_made(monkeypatch):
    ran = []

    def fake_sweep(fn, tasks, label):
        ran.extend(tasks)
        return [{"excess": [1.0, 1.1, 0.9]} for _ in tasks]

    monkeypatch.setattr(_lower_bound_common, "_memo_sweep", fake_sweep)
    inside = lambda d, e: d < 64  # noqa: E731
    tasks, outs, acct = _lower_bound_common._lb_runs("ball", 1.5, "quick", 0, applies=inside)
    assert ran and all(t["d"] < 64 for t in ran) and len(ran) == sum(t["d"] < 64 for t in tasks) < len(tasks)
    assert all((o is None) == (t["d"] >= 64) for t, o in zip(tasks, outs))
    rows, verdicts = _lower_bound_common._lb_compare(tasks, outs, acct, "excess", lambda d, e, s: -1.0, inside)
    assert {r["verdict"] for r in rows if r["d"] >= 64} == {"not applicable"} and set(verdicts) == {"holds"}
    with pytest.raises(ValueError, match="not run"):  # a cell inside the hypothesis must have all its runs
        _lower_bound_common._lb_compare(tasks, outs, acct, "excess", lambda d, e, s: 0.5, lambda d, e: True)



@pytest.mark.parametrize("name", sorted(FAULTS))
def test_rate_mechanism_check_passes_unmutated_and_names_each_kernel_fault(name):
    for args in (_thm3p_args(), _eq7_args()):
        assert _common._rate_mechanism_faults(*args) == []
        kw, words = FAULTS[name]
        with kernels.faults.inject(**kw):
            found = _common._rate_mechanism_faults(*args)
        assert len(found) == 1 and words in found[0], found



def test_lb_edge_at_every_scale_holds_for_the_papers_bounds():
    v, ex, checked, _ = _lower_bound_common._lb_edge_scaled(_box_bound(tp.proposition1_lower_bound()),
                                                            lower_bounds._box_condition,
                                                            lambda sg: float(np.sum(sg)), dims=(3, 4))
    assert v == "holds" and ex is None and checked > 2 * 2 * len(_lower_bound_common.LB_EDGE_SCALES)
    v, ex, _, _ = _lower_bound_common._lb_edge_scaled(lower_bounds_l2._thm5_lb_ne, lower_bounds_l2._thm5_condition,
                                                      lambda sg: 2.0 * math.sqrt(float(np.sum(sg**2))), dims=(2, 3))
    assert v == "holds" and ex is None



@pytest.mark.parametrize("what, k, scale", [("prop1", "5/4", 1e4), ("thm5", "5/4", 1e4), ("thm5", "3/4", 1e-4)])
def test_lb_edge_at_another_scale_refutes_a_bound_with_another_power_of_sigma(what, k, scale):
    """The pow mutants of the lower bounds are degree 5/4 or 3/4 in σ while the largest value is degree 1: at the
    scale 1e4 (or 1e-4) the mutated bound exceeds it, exactly; at scale 1 it does not."""
    if what == "prop1":
        lb, cond, top, dims = (_box_bound(_pow(tp.proposition1_lower_bound(), k)), lower_bounds._box_condition,
                               lambda sg: float(np.sum(sg)), (3,))
    else:
        lb, cond, top, dims = (_ball_bound(_pow(tp.theorem5_lower_bound(), k)), lower_bounds_l2._thm5_condition,
                               lambda sg: 2.0 * math.sqrt(float(np.sum(sg**2))), (2, 3))
    assert _lower_bound_common._lb_edge(lb, cond, top, dims=dims)[0] == "holds"
    v, ex, _, _ = _lower_bound_common._lb_edge_scaled(lb, cond, top, dims=dims)
    assert v == "violated" and ex["scale"] == scale and ex["lower_bound"] > ex["largest_possible"]
    assert ex["lower_bound"] == pytest.approx(lb(ex["d"], ex["epsilon"], np.array(ex["sigma"])), rel=1e-12)



def test_edge_reason_names_log_d_only_where_log_d_is_at_most_one():
    assert _lower_bound_common._edge_reason({"d": 2, "scale": 1.0}) == " (log d ≤ 1)"
    assert _lower_bound_common._edge_reason({"d": 3}) == ""  # log 3 > 1: not the reason there
    assert "scaled by 0.0001" in _lower_bound_common._edge_reason({"d": 3, "scale": 1e-4})



def test_quick_planted_grid_spans_a_decade_and_plants_the_same_means_as_b1():
    """Quick's b = 4 plants the same μ_j as full's b = 1: z·B·C_jj^{-1/2}/(b√T) with T = c n²/b² does not
    depend on b."""
    for budget in ("quick", "full"):
        ns = [t["n"] for t in rates.adversarial_tasks("pagan", budget, 0)]
        assert math.log10(max(ns) / min(ns)) >= 1.0
    assert {t["batch"] for t in rates.adversarial_tasks("pagan", "full", 0)} == {1}
    n = 2000
    for b in (1, 4):
        T = _common.lemma31_steps(_common.RATE_C, n, b)
        assert 1.0 / (b * math.sqrt(T)) == pytest.approx(1.0 / (math.sqrt(_common.RATE_C) * n), rel=1e-3)



def test_planted_task_shifts_the_means_to_the_noise_level():
    """The adversarial data: every record shifted by μ_j = ±z·B·C_jj^(-1/2)/(b√T), b = 1."""
    o0 = _common._rate_task("pagan", n=300, d=6, epsilon=1.0, c=0.25, trials=1, seed=1, data_seed=2, batch=1)
    o1 = _common._rate_task("pagan", n=300, d=6, epsilon=1.0, c=0.25, trials=1, seed=1, data_seed=2, batch=1,
                          planted=1.0)
    sigma = kernels.pagan_problems.power_law_sigma(6, 1.5)
    C = sigma ** (-4 / 3)
    z = float(numeric(tp.noise_multiplier())(epsilon=1.0, delta=_common.RATE_DELTA))
    mu = z * o1["B"] / (np.sqrt(C) * math.sqrt(o1["steps"]))
    assert o1["B"] == o0["B"] and o1["steps"] == o0["steps"] == _common.lemma31_steps(0.25, 300, 1)
    # same zero-mean data plus μ: ‖z̄ + μ‖₁ lies within ‖z̄‖₁ of ‖μ‖₁ (triangle inequality)
    assert abs(o1["trivial"][0] - mu.sum()) <= o0["trivial"][0] * (1 + 1e-12)



def test_rate_rule_on_a_growing_and_a_flat_ratio():
    """Negative control of the rate decision: per-run ratios growing like x^0.5 over a decade with 5% noise
    are refuted; flat ones hold (verify.decide.rate with the claims' margin and criterion)."""

    rng = np.random.default_rng(0)
    x = np.array([1e3, 3e3, 1e4])
    grow = [xi**0.5 * (1 + 0.05 * rng.standard_normal(8)) for xi in x]
    flat = [np.ones(8) * (1 + 0.05 * rng.standard_normal(8)) for _ in x]
    d_grow = decide.rate(x, grow, axis="n", asymptotic=[True] * 3, criterion="test", margin=_common.RATE_MARGIN)
    d_flat = decide.rate(x, flat, axis="n", asymptotic=[True] * 3, criterion="test", margin=_common.RATE_MARGIN)
    assert str(d_grow.verdict) == "violated" and str(d_flat.verdict) == "holds"



def test_rate_task_uses_the_prescribed_parameters():
    """B, T, α of Theorem 2 recomputed from the closed forms; the bound is at least its non-private term."""
    o = _common._rate_task("pagan", n=400, d=8, epsilon=2.0, c=0.25, trials=2, seed=1, data_seed=2, batch=4)
    sigma = kernels.pagan_problems.power_law_sigma(8, 1.5)
    C = sigma ** (-4 / 3)
    p = _common.moment_order(8)
    assert p == 3
    vals = dict(G_2p=o["G_2p"], diam_C=2 * math.sqrt(np.sum(1 / C)), n=400, epsilon=2.0, diam_inf=2.0,
                delta=_common.RATE_DELTA, tr_Cinv_half=float(np.sum(C**-0.5)), p=p)
    B = float(numeric(tp.theorem2_radius())(**vals))
    assert o["B"] == pytest.approx(B, rel=1e-12)
    assert o["steps"] == _common.lemma31_steps(0.25, 400, 4) == 2500
    assert np.all(o["bound"] > o["R_term"]) and np.all(o["excess"] >= -1e-12)
    assert np.all(o["excess"] <= 2 * o["trivial"] + 1e-12)  # max_X f − min_X f = 2‖z̄‖₁



def test_lower_bound_comparison_negative_controls():
    """An impossible bound is never shown (inconclusive); a zero bound always is (holds)."""
    tasks, outs, acct = _lower_bound_common._lb_runs("ball", 1.5, "quick", 0)
    _, v_big = _lower_bound_common._lb_compare(tasks, outs, acct, "excess", lambda d, e, s: 1e9, lambda d, e: True)
    _, v_zero = _lower_bound_common._lb_compare(tasks, outs, acct, "excess", lambda d, e, s: 0.0, lambda d, e: True)
    assert set(v_big) == {"inconclusive"} and set(v_zero) == {"holds"}

