"""verify.papers.dp_adam_design.audits — the privacy audits of the paper's kernels (claims
``dp_adam_design.audit.*``): the score recovers the released noisy inputs exactly, the quick audits find no leak, a
kernel adding a quarter of its noise is caught; and the noise kernels.dp_adam injects is the noise the accountant is
told about, from both sides.

Noise against the accountant: same seed with σ on and σ = 0 (run_stream draws data and noise from separate spawned
streams, so both runs see the same per-record gradients): the noisy inputs (g̃_t, and IME's noisy square q_t)
recovered exactly from the released θ_t and v_t, minus the clean ones, are the injected noise.  Whitened by what
the accountant is told — multiplier σ times the sensitivity over the batch, the sensitivities computed here from the
paper's formulas, not from the kernel — the variance must be 1 within a two-sided 99.9% chi-square interval.  A
kernel off by ±10% in σ must fail (the interval has the power to see both under- and over-noising).
"""

import math

import numpy as np
import pytest
from scipy import stats

from kernels import dp_adam as kd
from verify.papers.dp_adam_design import audits
from verify.registry import load_all


def test_every_dp_adam_audit_is_registered():
    assert {f"dp_adam_design.audit.{m}" for m in audits.DPA_AUDITS} <= set(load_all())


@pytest.mark.parametrize("mech,B,T,sigma,shift", [
    ("post_processing", 4, 3, 1.5, 3 * 0.25),  # Σ_t (C/B) over T rounds
    ("ime", 4, 2, 1.5, 2 * (1.0 / 0.25 * 0.25 + (1.0 - 0.75**2) / (7 / 16))),  # Σ_t (Δḡ/Δ₁ + Δḡ²/Δ₂) = 2·2
    ("dpmf_half", 2, 3, 1.0, 0.5 * (1 + 0.25 + 0.0625)),  # (C/B)·‖c‖², c = (1, ½, ¼)
])
def test_score_recovers_the_noisy_inputs_exactly(mech, B, T, sigma, shift):
    """Without noise the recovered score is the clean likelihood-ratio shift between D' and D (to rounding)."""
    on = audits.dpa_audit_task(mech, B, T, sigma, True, 3, 0, noise_scale=0.0)["score"]
    off = audits.dpa_audit_task(mech, B, T, sigma, False, 3, 0, noise_scale=0.0)["score"]
    assert np.allclose(on - off, shift, rtol=1e-9, atol=1e-12)


def test_scores_are_reproducible_and_continuous():
    a = audits.dpa_audit_task("ime", 4, 1, 1.0, True, 300, 5)["score"]
    b = audits.dpa_audit_task("ime", 4, 1, 1.0, True, 300, 5)["score"]
    assert np.array_equal(a, b) and np.unique(a).size == a.size


@pytest.mark.parametrize("mech", list(audits.DPA_AUDITS))
def test_quick_audit_finds_no_leak_and_reports_both_numbers(mech):
    out = audits.audit_dp_adam(mech, "quick", 0)
    assert out.verdict == "holds", out.evidence
    f = out.numbers
    n = len(audits.DPA_AUDITS[mech][2])
    assert all(0 <= f[f"audit_epsilon_lb_{k}"] <= f[f"accountant_epsilon_{k}"] for k in range(n))
    assert max(f[f"audit_epsilon_lb_{k}"] for k in range(n)) > 0.3  # the test has power, not a vacuous pass
    assert "quick budget: no leak found" in out.evidence


@pytest.mark.parametrize("mech", list(audits.DPA_AUDITS))
def test_audit_catches_a_kernel_adding_a_quarter_of_its_noise(mech):
    """Negative control: σ/4 in the kernel while the accountant is told σ must be flagged as a leak (at 4000 runs
    per dataset: even then the bound reaches ≈ 5.9 > 4.4 for a shift of 4 noise stds)."""
    out = audits.audit_dp_adam(mech, "quick", 0, noise_scale=0.25, trials=4000)
    assert out.verdict == "violated" and out.evidence.startswith("LEAKS")
    c = out.counterexample
    assert c["audit_epsilon_lb"] > c["accountant_epsilon"]


def test_ime_audit_catches_a_naive_squared_part_sensitivity(monkeypatch):
    """Negative control aimed at §3.2: a kernel that calibrates the v-part with sensitivity C²/B² (as if ḡ⊙ḡ moved
    like ḡ) instead of (2B − 1)C²/B² under-noises the squares 7× at B = 4; the all-equal canary batch exposes it."""
    monkeypatch.setattr(kd, "ime_sensitivities", lambda clip_norm, batch_size: (clip_norm / batch_size,
                                                                              clip_norm**2 / batch_size**2))
    out = audits.audit_dp_adam("ime", "quick", 0, trials=4000)
    assert (out.verdict == "violated"
            and out.counterexample["audit_epsilon_lb"] > out.counterexample["accountant_epsilon"])


# ---- the injected noise against what the accountant is told -----------------------------------------------------
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
    return audits._dpa_released_inputs(cfg, thetas, out["v_hist"])


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
