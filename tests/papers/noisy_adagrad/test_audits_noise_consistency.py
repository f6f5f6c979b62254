"""The noise noisy_adagrad's kernels inject is the noise the accountant is told about — from both sides.

Same seed with the noise on and off (the kernels draw their noise before, and independently of, σ), so the
difference of the two outputs is the injected noise times a known linear map.  Whitened by the std the
accountant is told (multiplier z × sensitivity L/n of the average gradient; GOE multiplier σ_B√2/Δ), it must
be N(0, 1): a two-sided 99.9% chi-square interval for its variance must contain 1.  Scaling the noise by
0.9 or 1.1 (a privacy bug, a utility bug) must make the same check fail.
"""

import math

import numpy as np
import pytest
from scipy import stats

from kernels import noisy_adagrad as kn
from theory import noisy_adagrad as tn
from theory import numeric
from verify.papers.noisy_adagrad import audits

LEVEL = 0.999
EPS, DELTA = 2.0, 1e-5


def _variance_ci(x: np.ndarray) -> tuple[float, float]:
    """Two-sided CI for σ² of i.i.d. N(0, σ²) samples (mean known to be 0)."""
    x = np.asarray(x, float).ravel()
    ss, k = float(np.sum(x**2)), x.size
    a = (1 - LEVEL) / 2
    return ss / stats.chi2.ppf(1 - a, k), ss / stats.chi2.ppf(a, k)


def _consistent(x) -> bool:
    lo, hi = _variance_ci(x)
    return lo <= 1.0 <= hi


# -- DP-GD -------------------------------------------------------------------------------------
def _dpgd_whitened(scale: float, trials: int = 3000) -> np.ndarray:
    """DP-GD on the canary dataset (constant gradient −e₁/n), T = 3, η = 0.5: θ_avg = (θ₁ + θ₂)/3 and the
    noise part of θ_avg is −ησ(2ξ₀ + ξ₁)/3, of std ησ√5/3 per coordinate."""
    n, T, eta = 4, 3, 0.5
    _, ds = audits.na_audit_datasets(n, p=5)
    sigma = float(numeric(tn.theorem5_1_sigma())(L=1.0, T=T, delta=DELTA, epsilon=EPS, n=n))
    z_told = sigma * n / ds.lipschitz  # the multiplier theorem5_1's check hands the accountant (L = 1)
    noisy = kn.run_dpgd(ds, T, eta, sigma * scale, trials=trials, seed=11)["theta_avg"]
    quiet = kn.run_dpgd(ds, T, eta, 0.0, trials=trials, seed=11)["theta_avg"]
    told = z_told * ds.lipschitz / n
    return (quiet - noisy) / (eta * told * math.sqrt(5.0) / 3.0)


def _dpgd_glm_whitened(scale: float, trials: int = 3000) -> np.ndarray:
    """DP-GD on a real low_rank_glm, T = 2: θ_avg = θ₁/2 = −η(∇L(0) + σξ₀)/2 (the same gradient in both runs)."""
    prob = kn.low_rank_glm(n=30, p=6, k=3, loss="logistic", seed=2)
    T, eta = 2, 0.7
    sigma = float(numeric(tn.theorem5_1_sigma())(L=prob.lipschitz, T=T, delta=DELTA, epsilon=EPS, n=prob.n))
    told = (sigma * prob.n / prob.lipschitz) * prob.lipschitz / prob.n
    noisy = kn.run_dpgd(prob, T, eta, sigma * scale, trials=trials, seed=3)["theta_avg"]
    quiet = kn.run_dpgd(prob, T, eta, 0.0, trials=trials, seed=3)["theta_avg"]
    return (quiet - noisy) * 2.0 / (eta * told)


@pytest.mark.parametrize("whiten", [_dpgd_whitened, _dpgd_glm_whitened])
def test_dpgd_noise_matches_the_accounted_multiplier(whiten):
    w = whiten(1.0)
    assert _consistent(w), _variance_ci(w)
    for wrong in (0.9, 1.1):
        assert not _consistent(whiten(wrong)), wrong


# -- noisy AdaGrad ------------------------------------------------------------------------------
def _cor6_noise(n: int, T: int, L: float = 1.0):
    """Corollary 6's calibration (as the claim and the audit set it): σ_b = zL/n, σ_B(t) = zΔ_t/√2."""
    z = audits.na_adagrad_audit_multiplier(T)
    t = np.arange(1, T + 1, dtype=float)
    delta_t = np.asarray(numeric(tn.lemma5_rigorous())(L=L, t=t, n=n), float)
    # what the accountant is told: multiplier z for sensitivity L/n, and z = σ_B√2/Δ_t for the GOE term
    goe_mult = numeric(tn.goe_noise_multiplier())
    sigma_B = z * delta_t / math.sqrt(2.0)
    assert np.allclose([goe_mult(Delta=float(d), sigma=float(s)) for d, s in zip(delta_t, sigma_B)], z)
    return z, z * L / n, sigma_B


def _adagrad_gradient_noise_whitened(scale: float, trials: int = 4000) -> np.ndarray:
    """σ_B = 0, T = 1, exact oracle, no ball: H₁ = ‖g‖ĝĝᵀ, so θ₁ = −ηĝ⟨ĝ, g + σ_bξ⟩/‖g‖ and
    ⟨ĝ, θ_quiet − θ_noisy⟩·‖g‖/η = σ_b⟨ĝ, ξ⟩ ~ N(0, σ_b²)."""
    prob = kn.low_rank_glm(n=20, p=6, k=3, loss="hinge", seed=1)
    eta = 0.3
    _, sigma_b, _ = _cor6_noise(prob.n, 1, prob.lipschitz)
    kw = dict(sigma_B=0.0, trials=trials, seed=7)
    noisy = kn.run_noisy_adagrad(prob, 1, eta, math.inf, sigma_b=sigma_b * scale, **kw)["theta_last"]
    quiet = kn.run_noisy_adagrad(prob, 1, eta, math.inf, sigma_b=0.0, **kw)["theta_last"]
    g = prob.gradient(np.zeros(prob.p))
    gn = np.linalg.norm(g)
    return (quiet - noisy) @ (g / gn) * gn / (eta * sigma_b)


def _adagrad_goe_ratio_whitened(scale: float, trials: int = 3000) -> np.ndarray:
    """Zero gradients (D of the audit), T = 1: H₁ = |σ_B M| and θ₁ = −η(σ_b/σ_B)|M|⁻¹ξ, with M the kernel's own
    pre-drawn GOE (kernels.noisy_adagrad.draw_noise, same seed): −|M|θ₁·σ_B/(ησ_b) ~ N(0, I).  Only σ_B is
    scaled here, so together with the gradient-noise test this pins σ_B to what the accountant is told."""
    n, eta, seed = 1, 0.5, 13
    d0, _ = audits.na_audit_datasets(n, p=3)
    _, sigma_b, sigma_B = _cor6_noise(n, 1)
    th = kn.run_noisy_adagrad(d0, 1, eta, math.inf, Vt=np.eye(3), sigma_b=sigma_b, sigma_B=sigma_B * scale,
                              trials=trials, seed=seed)["theta_last"]
    out = []
    for (xi, M), t1 in zip(kn.draw_noise(seed, trials, 1, 3, 3), th):
        w, U = np.linalg.eigh(M[0])
        out.append(-(U * np.abs(w)) @ U.T @ t1 * sigma_B[0] / (eta * sigma_b))
    return np.array(out)


@pytest.mark.parametrize("whiten", [_adagrad_gradient_noise_whitened, _adagrad_goe_ratio_whitened])
def test_noisy_adagrad_noise_matches_the_accounted_multipliers(whiten):
    w = whiten(1.0)
    assert _consistent(w), _variance_ci(w)
    for wrong in (0.9, 1.1):
        assert not _consistent(whiten(wrong)), wrong


def test_goe_law_is_the_one_the_multiplier_assumes():
    """σ_B√2/Δ is the multiplier only if M has N(0, 2) diagonal and N(0, 1) off-diagonal entries (Definition 8):
    test the kernel's own draws (draw_noise), both variances, two-sided."""
    Ms = np.array([m for _, m in kn.draw_noise(5, 2000, 2, 1, 4)]).reshape(-1, 4, 4)
    assert np.allclose(Ms, np.swapaxes(Ms, 1, 2))
    diag = np.diagonal(Ms, axis1=1, axis2=2) / math.sqrt(2.0)
    off = Ms[:, np.triu_indices(4, 1)[0], np.triu_indices(4, 1)[1]]
    assert _consistent(diag) and _consistent(off)
    assert not _consistent(diag * math.sqrt(2.0)) and not _consistent(off * math.sqrt(2.0))
