"""dp_adam_design: the noise kernels.dp_adam injects is the noise the accountant is told about — from both sides.

Same seed with σ on and σ = 0 (run_stream draws data and noise from separate spawned streams, so both runs see
the same per-record gradients): the noisy inputs (g̃_t, and IME's noisy square q_t) recovered exactly from the
released θ_t and v_t, minus the clean ones, are the injected noise.  Whitened by what the accountant is told —
multiplier σ times the sensitivity over the batch, the sensitivities computed here from the paper's formulas,
not from the kernel — the variance must be 1 within a two-sided 99.9% chi-square interval.  A kernel off by
±10% in σ must fail (the interval has the power to see both under- and over-noising).
"""

import math

import numpy as np
import pytest
from scipy import stats

from kernels import dp_adam as kd
from verify.papers import dp_adam_design as vd

LEVEL = 0.999
B, C, D, TRIALS = 4, 1.0, 6, 1500


def _variance_interval(x: np.ndarray) -> tuple[float, float]:
    """Two-sided CI for σ² of i.i.d. N(0, σ²) samples (mean known to be 0)."""
    k = x.size
    ss = float(np.sum(x**2))
    a = (1 - LEVEL) / 2
    return ss / stats.chi2.ppf(1 - a, k), ss / stats.chi2.ppf(a, k)


def _grad_fn(seen):
    def f(t, theta, rng):
        seen.append(theta.copy())
        return 1.5 * rng.standard_normal((B, D))  # norms ≈ 3.7 > C: clipping active
    return f


def _inputs(variant: str, sigma: float, rounds: int, kind: str, seed: int = 11):
    cfg = kd.RoundConfig(variant=variant, lr=1.0, xi=1.0, clip_norm=C, sigma=sigma, batch_size=B)
    seen = []
    out = kd.run_stream(cfg, _grad_fn(seen), D, rounds, trials=TRIALS, seed=seed, strat_kind=kind, record_v=True)
    thetas = np.concatenate([np.asarray(seen).reshape(TRIALS, rounds, D), out["theta"][:, None]], axis=1)
    return vd._dpa_released_inputs(cfg, thetas, out["v_hist"])


def _whitened(variant: str, kind: str, rounds: int, sigma_told: float, kernel_factor: float = 1.0):
    g, q = _inputs(variant, sigma_told * kernel_factor, rounds, kind)
    g0, q0 = _inputs(variant, 0.0, rounds, kind)
    d1 = C / B  # zero-out sensitivity of the clipped average
    if variant == "ime":
        d2 = (2 * B - 1) * C**2 / B**2  # §3.2: sensitivity of ḡ⊙ḡ
        gamma = d1 / d2
        told = sigma_told * math.hypot(d1, gamma * d2)  # multiplier σ on [ḡ, γḡ²]; the v-part divided by γ
        return np.concatenate([((g - g0) / told).ravel(), ((q - q0) * gamma / told).ravel()])
    if kind == "identity":
        return ((g - g0) / (sigma_told * d1)).ravel()
    # DP-MF 'half': C has coefficients 2^{-k}; the noise C g̃ − C ḡ must be i.i.d. at σ·sens·C/B, sens = ‖c‖
    c = 0.5 ** np.arange(rounds)
    sens = math.sqrt(float(np.sum(c**2)))
    Cm = np.array([[c[i - j] if i >= j else 0.0 for j in range(rounds)] for i in range(rounds)])
    return (np.einsum("ts,nsd->ntd", Cm, g - g0) / (sigma_told * sens * d1)).ravel()


CASES = [("post_processing", "identity", 2, 1.3), ("ime", "identity", 2, 0.8), ("post_processing", "half", 4, 1.0)]


@pytest.mark.parametrize("variant,kind,rounds,sigma", CASES)
def test_injected_noise_matches_what_the_accountant_is_told(variant, kind, rounds, sigma):
    w = _whitened(variant, kind, rounds, sigma)
    lo, hi = _variance_interval(w)
    assert lo <= 1.0 <= hi, f"{variant}/{kind}: whitened noise variance CI [{lo:.4f}, {hi:.4f}] excludes 1"


@pytest.mark.parametrize("variant,kind,rounds,sigma", CASES)
@pytest.mark.parametrize("factor", [0.9, 1.1])
def test_ten_percent_too_little_or_too_much_noise_is_caught(variant, kind, rounds, sigma, factor):
    lo, hi = _variance_interval(_whitened(variant, kind, rounds, sigma, kernel_factor=factor))
    assert not lo <= 1.0 <= hi
