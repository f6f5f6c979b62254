"""Theorem 3's second part (:mod:`verify.papers.pagan.estimated_geometry`): PAGAN with Algorithm 3's Ĉ at b = 1 on
planted data, its quick verdict, its mutant, its planted data and the mechanism check.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import kernels
import kernels.faults
import kernels.moments
from theory import numeric
from theory import pagan as tp
from verify import mutants, registry
from verify.papers.pagan import _common, estimated_geometry

CID = "pagan.theorem3.pagan"



def _claim():
    registry.load_all()
    return registry.REGISTRY[CID]



FAULTS = {"noise*3": (dict(noise_scale=3.0), "noise multiplier 3 "),
          "noise-cov-A": (dict(noise_geometry_inverse=True), "noise multiplier"),
          "no-clipping": (dict(skip_clipping=True), "not projected"),
          "stepsize*10": (dict(stepsize_scale=10.0), "stepsize 10 ")}



def _fake_thm3p(n_values=(1000, 3162, 10000), datasets=8, growth=0.5):
    """Task outputs of pagan.theorem3.pagan's sweep (no runs): (10) holds on every dataset and the measured excess
    is the stated bound times (n/1000)^growth (a ±5% spread), far below f(0) − min f: the ratio grows over one
    decade of n."""
    rng = np.random.default_rng(0)
    tasks, outs = [], []
    for n in n_values:
        t = dict(n=n, d=estimated_geometry.THM3P_D, c=estimated_geometry.THM3P_C, datasets=datasets, runs=4, seed=1,
                 data_seed=2)
        o = {k: np.full(datasets, v) for k, v in dict(G_2p=1.0, diam_C=2.0, tr_Cinv_half=3.0, S_2_3=2.0,
                                                          R_ada=1e-9).items()}
        bound = 1e-9 + 2.0 * 2.0**1.5 * math.log(estimated_geometry.THM3P_D / _common.RATE_DELTA) / n
        o.update(ok10=np.ones(datasets), factor_ratio=np.ones(datasets), trivial=np.full(datasets, 100.0),
                 excess=bound * (n / 1000) ** growth * rng.uniform(0.95, 1.05, datasets),
                 excess_se=np.full(datasets, 1e-6), steps=_common.lemma31_steps(estimated_geometry.THM3P_C, n, 1), p=2)
        tasks.append(t)
        outs.append(o)
    return tasks, outs



def test_theorem3_pagan_quick_is_violated_with_the_ratio_to_theorem2_flat():
    """The ratio to the stated (nε)^{-1} rate grows like √n (p = ⌈log 4⌉ = 2) over one decade of n on datasets where
    (10) holds, while the ratio to Theorem 2's general-p bound at Ĉ stays flat."""
    out = _claim().check("quick", 0)
    assert out.verdict == "violated" and out.counterexample is not None
    f = out.numbers
    assert f["ratio_slope_n_violated_bound"] > 0.1 and f["asymptotic_points_n"] == 3
    # (10) is met by more datasets as n grows (Theorem 3's first part); at the largest quick n by all of them
    counts = [f[f"with_10_n{n}"] for n in (1000, 3162, 10000)]
    assert counts == sorted(counts) and counts[-1] == f["datasets"] // 3 and sum(counts) == f["datasets_with_10"]
    assert abs(f["ratio_thm2_slope_n"]) < 0.2
    assert f["moment_ratio_r2_bound"] <= 1.0
    assert f["plugin_factor_ratio_max"] <= 2 ** (4 / 3)
    assert f["steps_n10000"] == 10000**2 // 16  # b = 1, T = c n²



def test_theorem3_pagan_catches_the_theorem2_rate_mutant():
    """With Theorem 2's dependence (nε)^{-(p-1)/p} in place of the stated (nε)^{-1}, the same runs show a flat ratio:
    the verdict changes from violated to inconclusive (that bound is above f(0) − min f at every quick n, so no point
    is in the asymptotic window)."""
    c = _claim()
    (m,) = [m for m in c.mutants if m.name == "theorem3_rate:(nε)^((p-1)/p)"]
    try:
        with m.apply():
            out = c.check("quick", 0)
    finally:
        mutants.reset_caches()
    assert out.verdict == "inconclusive"
    f = out.numbers
    assert f["ratio_mean_n10000"] < 1.5 * f["ratio_mean_n1000"]



def test_shifted_gaussian_moment_ratio_is_at_most_one_for_small_d():
    """Definition 4.1 holds with r = 1 for any shifted Gaussian coordinate at d = 4 (p ≤ 2 log 4)."""
    assert estimated_geometry.shifted_gaussian_moment_ratio(4) <= 1.0



def test_the_claims_planted_data_has_the_stated_scales_and_moment_ratio():
    """On the records the claim runs on (n = 10000, d = 4): σ_j from thm3p_dataset matches √(mean_i z_ij²), max σ_j = 1,
    and Definition 4.1 holds with the computed r² for every p in [1, 2 log d] (empirical moments of the records)."""
    r2 = estimated_geometry.shifted_gaussian_moment_ratio(4)
    for seed in (0, 1, 2):
        ds, sigma = estimated_geometry.thm3p_dataset(10_000, 4, estimated_geometry.THM3P_C, seed)
        z = np.asarray(ds.features)
        second = np.mean(z**2, axis=0)
        # mean of z² over n = 10⁴ records: relative s.e. ≤ √(2/n)·(1 + …) ≈ 1.5%; 5 s.e. allowed
        np.testing.assert_allclose(np.sqrt(second), sigma, rtol=5 * np.sqrt(3.0 / z.shape[0]))
        assert sigma.max() == pytest.approx(1.0)
        for p in np.linspace(1.0, 2 * np.log(4), 8):
            moment = np.mean(np.abs(z) ** p, axis=0) ** (2 / p)
            assert np.all(moment <= r2 * p * second)



def test_theorem3_rate_reading_is_eq7_times_r():
    """theory.pagan.theorem3_rate = R_ada + diam∞·r·(eq. (7)'s privacy term)."""
    diff = tp.theorem3_rate() - (tp.R_ada + tp.diam_inf * tp.r_moment * tp.eq7_rate())
    assert pytest.approx(0.0) == float(diff.subs({s: 1.7 for s in diff.free_symbols}))



def test_theorem3_pagan_is_inconclusive_when_the_kernel_is_not_the_stated_pagan(monkeypatch):
    monkeypatch.setattr(estimated_geometry, "_thm3p_runs", lambda budget, seed: _fake_thm3p())
    out = estimated_geometry.theorem3_pagan("quick", 0)
    assert out.verdict == "violated" and out.numbers["mechanism_departures"] == 0
    for kw, words in FAULTS.values():
        with kernels.faults.inject(**kw):
            bad = estimated_geometry.theorem3_pagan("quick", 0)
        assert bad.verdict == "inconclusive" and bad.counterexample is None
        assert bad.numbers["mechanism_departures"] == 1
        assert "does not implement the stated mechanism" in bad.evidence and words in bad.evidence



def test_plugin_geometry_factor_bound_over_the_whole_box_of_10():
    """Exact consequence used for Theorem 3's second part: for any σ̂ with σ/2 ≤ σ̂ ≤ 2σ (and any r) the rate
    factor tr(Ĉ^{-1/2})·√(Σ Ĉσ²) of Ĉ = (rσ̂)^{-4/3}/4 is at most 2^{4/3}·(Σσ^{2/3})^{3/2}; corners included."""
    rng = np.random.default_rng(5)
    f_c = numeric(tp.theorem3_estimated_C())
    limit = float(tp.theorem3_factor_bound().subs(tp.power_sum(sp.Rational(2, 3)), 1))
    assert limit == pytest.approx(2 ** (4 / 3))
    worst = 0.0
    for _ in range(300):
        d = int(rng.integers(1, 30))
        sigma = rng.uniform(0.01, 1.0, d)
        r = float(rng.uniform(0.5, 5.0))
        u = rng.choice([0.5, 2.0], d) if rng.random() < 0.5 else rng.uniform(0.5, 2.0, d)
        c_hat = np.asarray(f_c(r=r, sigmahat_j=u * sigma), dtype=float)
        factor = np.sum(c_hat**-0.5) * np.sqrt(np.sum(c_hat * sigma**2)) / np.sum(sigma ** (2 / 3)) ** 1.5
        worst = max(worst, factor)
    assert worst <= limit * (1 + 1e-12)
    assert worst > 1.0  # the search reaches beyond the optimal geometry's factor



@pytest.fixture(scope="module")
def theorem3_pagan_outcome():
    registry.load_all()
    return registry.REGISTRY["pagan.theorem3.pagan"].check("quick", 0)


def test_theorem3_pagan_finding_is_in_regime_with_theorem2_at_c_hat_as_repair(theorem3_pagan_outcome):
    f = theorem3_pagan_outcome.finding
    assert theorem3_pagan_outcome.verdict == "violated" and f.scope == "in_regime"
    assert (f.region.explored, f.region.failing, f.region.edge) == (3, 3, "")
    assert "[1000, 3162, 10000]" in f.region.text
    assert f.at_paper_setting.size == pytest.approx(20000 ** (1 / math.log(100)))
    assert f.repair.source == "paper" and f.repair.verdict == "inconclusive"
