"""The noise each kernel injects is the noise the privacy accounting is told about — from both sides.

Same seed with the noise on and off: the record draws come first in every step, so after one step
the difference of the two outputs is exactly the injected noise (times the known step).  Its
empirical variance is compared with the noise multiplier the accountant uses (times the per-record
sensitivity over the batch size) through a two-sided 99.9% chi-square interval: too little noise
(a privacy bug) and too much (a utility bug) both fail.
"""

import dataclasses

import numpy as np
import pytest
from scipy import stats

import kernels
from kernels.adp import NonconvexProblem, run_adp
from kernels.pagan import STEP_CONSTANT, LoopSettings, make_config, run_config, trial_generators

LEVEL = 0.999


def _variance_interval(x: np.ndarray) -> tuple[float, float]:
    """Two-sided CI for σ² of i.i.d. N(0, σ²) samples (mean known to be 0)."""
    k = x.size
    ss = float(np.sum(x**2))
    a = (1 - LEVEL) / 2
    return ss / stats.chi2.ppf(1 - a, k), ss / stats.chi2.ppf(a, k)


@pytest.mark.parametrize("algorithm", ["dp_sgd", "pdp_sgd", "pasan", "pagan", "pagan_opt"])
def test_pagan_family_noise_matches_the_accounted_multiplier(algorithm):
    ds = kernels.make_problem("abs_regression", seed=0, n=200, d=6)
    eps, delta, b, clip = 2.0, 1e-5, 10, 1.0
    cfg = make_config(algorithm, ds, epsilon=eps, delta=delta, steps=1, batch_size=b, alpha=1e-3,
                      clip_norm=clip, settings=LoopSettings(n_log=2))
    # one step of size α along −(ĝ + noise): a constant step exposes the noise linearly for every geometry
    cfg = dataclasses.replace(cfg, step_rule=STEP_CONSTANT, domain=0)
    quiet = dataclasses.replace(cfg, noise=False)
    # one stream per trial (as run_algorithm does): the same seed gives both runs the same batch
    x_noisy = np.array([run_config(cfg, ds, r)["x"] for r in trial_generators(3, 3000)])
    x_quiet = np.array([run_config(quiet, ds, r)["x"] for r in trial_generators(3, 3000)])
    noise = (x_quiet - x_noisy) / cfg.alpha  # (trials, d): the added Gaussian noise
    if cfg.subspace.shape[1]:  # PDP-SGD projects the noisy gradient: compare inside the subspace
        noise = noise @ cfg.subspace
        told = np.full(cfg.subspace.shape[1], cfg.info["noise_multiplier"] * clip / b)
    else:
        # the accountant is told multiplier z for sensitivity 1 in the geometry ‖g‖_A ≤ 1: std z/(b·√a_j)
        told = cfg.info["noise_multiplier"] / (b * np.sqrt(cfg.ellipsoid))
    z = np.sqrt(np.log(1 / delta)) / eps
    assert cfg.info["noise_multiplier"] == pytest.approx(z)
    whitened = noise / told  # should be N(0, 1) in every coordinate
    lo, hi = _variance_interval(whitened)
    assert lo <= 1.0 <= hi, f"{algorithm}: whitened noise variance CI [{lo:.4f}, {hi:.4f}] excludes 1"


@pytest.mark.parametrize("b_rule,alpha_rule", [("poly", "dp"), ("poly", "adp"), ("adaptive", "adp")])
def test_adp_noise_matches_alpha_sigma(b_rule, alpha_rule):
    d, sigma = 8, 0.7
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    prob = NonconvexProblem(X, np.sign(rng.standard_normal(50)), 0.0, np.zeros(d), {})
    kw = dict(steps=1, eta=1.0, b_rule=b_rule, alpha_rule=alpha_rule, clip=1.0, trials=3000, seed=4, n_log=2)
    noisy = run_adp(prob, sigma=sigma, **kw)["theta"]
    quiet = run_adp(prob, sigma=0.0, **kw)["theta"]
    # step 1: θ₁ = −(η/b₁)(g + α₁σξ) with η = 1; b₁ = √(a + c) = √2 (poly) or √(b₀² + max(‖g‖², ν)) with
    # b₀ = 1 (adaptive), and then the quiet step θ₁ = −g/b₁ gives ‖θ₁‖² = ‖g‖²/(1 + ‖g‖²) (ν below ‖g‖² here)
    if b_rule == "poly":
        b1 = np.full(len(quiet), np.sqrt(2.0))
    else:
        s2 = np.sum(quiet**2, axis=1)
        g2 = s2 / (1.0 - s2)
        assert g2.min() > 1e-3  # ν = 1e-3 is not active
        b1 = np.sqrt(1.0 + g2)
    # α₁: 1 (DP-SGD); √b₁ = 2^{1/4} (poly ADP); (b₀² + C)^{1/4} = 2^{1/4} (adaptive ADP, C = 1)
    alpha1 = 1.0 if alpha_rule == "dp" else 2.0 ** 0.25
    xi = (quiet - noisy) * b1[:, None] / (alpha1 * sigma)
    lo, hi = _variance_interval(xi)
    assert lo <= 1.0 <= hi, f"CI [{lo:.4f}, {hi:.4f}]"

