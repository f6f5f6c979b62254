"""Shared helpers of the ``noisy_adagrad`` claims (Kairouz, Diaz, Rush, Thakurta, COLT 2021).

What several of the package's modules use: the paper key, the sweep through :func:`verify.runner.sweep`, the
one-sided expectation decisions of the regret checks, the theory mutants of a ``*_sides`` inequality, the exact
privacy decision of a DP-GD σ (:func:`sigma_promise`, Theorem 5.1 and its audit), the (ε/2, δ/2) Gaussian
calibration of one phase (:func:`half_budget_multiplier`, Corollary 6 and the noisy AdaGrad audit), the
kernel-conformance probe of the regret claims (Algorithm 1's kernel against its NumPy twin) and a seeded
orthonormal basis.  It imports no other module of the package.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from kernels import noisy_adagrad as kn
from kernels import noisy_adagrad_reference as kn_ref
from theory import noisy_adagrad as tn
from verify import decide
from verify.mutants import Mutant, declare_equivalent, substituted
from verify.privacy import calibrate_multiplier, gaussian_epsilon, gaussian_epsilon_exact
from verify.runner import sweep
from verify.stats import clopper_pearson, mean_ci

PAPER = "noisy_adagrad"


def _sweep(fn, tasks, label):
    return sweep(fn, tasks, label)


def _fmt_ci(iv) -> str:
    return f"{iv.estimate:.3g} [{iv.lo:.3g}, {iv.hi:.3g}]"


def mean_lower_nonnegative(x, level: float = 0.95) -> float:
    """A distribution-free lower confidence bound on E[X] for X ≥ 0 (heavy tails allowed): for a threshold q,
    E[X] ≥ q·P(X ≥ q) ≥ q·(Clopper–Pearson lower end of the frequency of X ≥ q); q runs over the sample minimum,
    lower quartile and median, with a Bonferroni split of the level.  (A t-interval is not valid for the
    heavy-tailed bound terms that Tr G_t⁺ produces.)

    Parameters
    ----------
    x : array_like
        The non-negative sample.
    level : float
        The confidence level.

    Returns
    -------
    float
        The lower bound.

    Raises
    ------
    ValueError
        When a sample is negative.
    """
    x = np.sort(np.asarray(x, dtype=float))
    if np.any(x < 0):
        raise ValueError("mean_lower_nonnegative needs non-negative samples")
    qs = (x[0], float(np.quantile(x, 0.25)), float(np.median(x)))
    lvl = 1 - (1 - level) / len(qs)
    return max(q * clopper_pearson(int(np.sum(x >= q)), x.size, 2 * lvl - 1).lo for q in qs)


def expectation_below(regret, bound) -> tuple[str, float, float]:
    """Is E[regret] ≤ E[bound]?  holds: the lower bound of E[bound] (:func:`mean_lower_nonnegative`) exceeds the
    t-interval's upper end of E[regret]; violated: the t-interval of E[bound] lies below that of E[regret] and no
    single trial's bound reaches the regret's lower end; else inconclusive.  Returns (verdict, lower E[bound],
    regret CI upper end).

    Parameters
    ----------
    regret : array_like
        The measured regret per trial.
    bound : array_like
        The bound per trial (non-negative).

    Returns
    -------
    verdict : str
        "holds", "violated" or "inconclusive".
    bound_lo : float
        The lower bound of E[bound].
    regret_hi : float
        The upper end of E[regret]'s t-interval.
    """
    r = mean_ci(regret)
    b_lo = mean_lower_nonnegative(bound)
    b = mean_ci(bound)
    if b_lo > r.hi:
        return "holds", b_lo, r.hi
    if b.hi < r.lo and float(np.max(bound)) < r.lo:
        return "violated", b_lo, r.hi
    return "inconclusive", b_lo, r.hi


def _rhs_constant_mutant(fn_name: str, factor: float, what: str) -> Mutant:
    """A theory mutant of a ``*_sides`` function (returning (lhs, rhs)): only the right-hand side scaled, i.e. the
    inequality's constant off by ``factor`` (the generic ×10/×0.1 mutants scale both sides: equivalent)."""
    path = f"theory.noisy_adagrad.{fn_name}"
    original = getattr(tn, fn_name)

    def mutated(*args, **kwargs):
        lhs, rhs = original(*args, **kwargs)
        return lhs, rhs * factor

    return Mutant(f"{fn_name}:rhs*{factor:g}", f"{path}: {what}", "theory", lambda: substituted(path, mutated))


_BOTH_SIDES = "{fn} returns both sides; ×{f} scales lhs and rhs alike, so lhs ≤ rhs is unchanged for every input"


def _declare_both_sides_equivalent(claim_id: str, fn: str) -> None:
    for f in ("10", "0.1"):
        declare_equivalent(claim_id, f"{fn}:x{f}", _BOTH_SIDES.format(fn=fn, f=f))


def sigma_promise(multiplier: float, steps: int, epsilon: float, delta: float, what: str) -> decide.Decision:
    """Is a DP-GD σ the (ε, δ)-DP one it is said to be?  Exact (no runs): the ε of ``steps`` composed Gaussians of
    noise multiplier ``multiplier`` (= one Gaussian of multiplier/√steps: Gaussian composition is exact), from
    dp-accounting's closed-form δ(ε) (:func:`verify.privacy.gaussian_epsilon_exact`), against the promised ε.

    Violated when even the lower end of the ε bracket exceeds the promise, holds when its upper end is within it,
    inconclusive in between (a bracket of relative width about 2e-9: bisection and rounding guard).

    Parameters
    ----------
    multiplier : float
        σn/L, the noise of one step in units of one record's bound L/n, > 0.
    steps : int
        T, the composed steps, >= 1.
    epsilon : float
        The promised ε.
    delta : float
        The δ, in (0, 1).
    what : str
        Names the decision.

    Returns
    -------
    verify.decide.Decision
        With estimate = the upper ε, holds_bound = upper ε, violated_bound = lower ε (no statistical level: exact).

    Raises
    ------
    verify.privacy.InvalidParameter
        For a multiplier or δ out of the accountant's range.
    """
    lo, hi = gaussian_epsilon_exact(float(multiplier), float(delta), int(steps))
    ctrl = decide.Control(f"{what}: dp-accounting's closed-form Gaussian ε of the σ vs the promised ε (exact, no runs)",
                          0.0,
                          "none (exact)", None, None)
    if lo > epsilon:
        v, why = decide.Verdict.VIOLATED, f"{what}: accountant ε ≥ {lo:.4g} > promised {epsilon:g}"
    elif hi <= epsilon:
        v, why = decide.Verdict.HOLDS, f"{what}: accountant ε ≤ {hi:.4g} ≤ promised {epsilon:g}"
    else:
        v, why = decide.Verdict.INCONCLUSIVE, f"{what}: accountant ε in [{lo:.4g}, {hi:.4g}] around {epsilon:g}"
    return decide.Decision(v, ctrl, hi, hi, lo, why)


#: the kernel-conformance probe of the regret claims (Theorem 3.1, Corollary 3, the O-form): a short run of
#: run_noisy_adagrad against the NumPy twin given the same noise and the declared η, σ_b, σ_B (fixed before any data)
NA_PROBE_STEPS = 20
#: largest relative difference of the per-step losses that still counts as the same run (rounding: the two agree
#: to ~1e-9 over 20 steps where σ_B > 0 makes H_t full rank on Ṽ; a changed noise or stepsize gives O(1))
NA_PROBE_RTOL = 1e-6


class _Probe(NamedTuple):
    ok: bool
    rel_diff: float
    text: str


def _kernel_probe(prob, eta: float, radius: float, sigma_b, sigma_B, sigma_b_mode: str = "constant",
                  decay_alpha: float = 0.0, seed: int = 0) -> _Probe:
    """Does the Numba kernel run Algorithm 1 with the declared η, σ_b, σ_B?  (private: a calibration probe)

    ``NA_PROBE_STEPS`` steps of :func:`kernels.noisy_adagrad.run_noisy_adagrad` (exact oracle Ṽ = V, one trial)
    against :func:`kernels.noisy_adagrad_reference.noisy_adagrad`, the NumPy twin that forms every matrix
    explicitly, given the same pre-drawn noise and the same declared parameters.  The twin is the algorithm as
    the paper states it; a kernel whose losses differ by more than ``NA_PROBE_RTOL`` (relative) runs another
    mechanism (e.g. more noise than the accountant was told, or another stepsize), so a regret measured with it
    says nothing about the claim.  ``sigma_B`` must be positive on the first steps (H_t full rank on Ṽ: the
    pseudo-inverse of a rank-deficient H_t depends on a rank tolerance that kernel and twin set differently).
    """
    T = NA_PROBE_STEPS
    sb = np.broadcast_to(np.asarray(sigma_b, float), (T,)) if np.ndim(sigma_b) == 0 else np.asarray(sigma_b)[:T]
    sB = np.broadcast_to(np.asarray(sigma_B, float), (T,)) if np.ndim(sigma_B) == 0 else np.asarray(sigma_B)[:T]
    opts = kn.NoisyAdagradOptions(sigma_b_mode=sigma_b_mode, decay_alpha=decay_alpha)
    out = kn.run_noisy_adagrad(prob, T, eta, radius, sigma_b=np.ascontiguousarray(sb), sigma_B=np.ascontiguousarray(sB),
                               options=opts, trials=1, seed=seed)
    xi, gk = kn.draw_noise(seed, 1, T, prob.p, prob.V.shape[1])[0]
    ref = kn_ref.noisy_adagrad(prob, T, eta, radius, prob.V, sb, sigma_b_mode, sB, xi, gk, "abs", decay_alpha)
    diff = np.abs(out["losses"][0] - ref["losses"]) / np.maximum(np.abs(ref["losses"]), 1e-300)
    rel = float(np.max(diff))
    ok = bool(rel <= NA_PROBE_RTOL)
    text = (f"kernel probe: run_noisy_adagrad vs its NumPy twin, same noise, declared η = {eta:.4g}, {T} steps: "
            f"largest relative loss difference {rel:.2g} (≤ {NA_PROBE_RTOL:g} required)")
    if not ok:
        text += (" — the kernel does not run Algorithm 1 with the declared stepsize and noise (the mechanism whose "
                 "regret the claim states), so its runs decide nothing")
    return _Probe(ok, rel, text)


@lru_cache(maxsize=32)
def half_budget_multiplier(epsilon: float, delta: float) -> float:
    """Noise multiplier z of ONE Gaussian release that the accountant certifies (ε/2, δ/2)-DP (PLD;
    :func:`verify.privacy.calibrate_multiplier` to relative precision 1e-9).

    T releases of multiplier z√T compose to exactly this one (Gaussian composition), so a phase of T releases
    with multiplier z√T each is (ε/2, δ/2)-DP.

    Parameters
    ----------
    epsilon, delta : float
        The whole budget (ε, δ); the release gets half of each.

    Returns
    -------
    float
        z.
    """

    return calibrate_multiplier(lambda z: gaussian_epsilon(z, delta / 2, 1), epsilon / 2, guess=1.0, rel=1e-9)


def _orthonormal(rng: np.random.Generator, p: int, k: int) -> np.ndarray:
    """A Haar-random p×k matrix with orthonormal columns (k = 0: the empty p×0 matrix)."""
    if k == 0:
        return np.zeros((p, 0))
    q, r = np.linalg.qr(rng.standard_normal((p, k)))
    return q * np.sign(np.diag(r))
