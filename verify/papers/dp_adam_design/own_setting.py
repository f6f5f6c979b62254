"""``dp_adam_design`` in a user's own setting: eq. (2)/(3)'s threshold, the exact and the simulated fraction of
negative bias-corrected v̂ coordinates, and the bias, for a given (d, B, σ, C, β₂, T) (:func:`negative_fraction`).
"""

from __future__ import annotations

import math

import numpy as np

import dpvalidate as V
from kernels import dp_adam as kd
from theory import dp_adam_design as td
from theory import numeric
from verify.stats import clopper_pearson


# ======================================================================================
# Your own setting: predicted, exact and simulated negative fraction, and the bias
# ======================================================================================
def negative_fraction(d: int, batch_size: int, sigma: float, clip_norm: float, beta2: float, steps: int,
                      case: str = "optimistic", trials: int = 20, seed: int = 0) -> dict:
    """For a user's (d, B, σ, C, β₂, T): the fraction of bias-corrected v̂ coordinates that are negative.

    ``case``: "optimistic" (aligned records, ‖ḡ‖ = C: every coordinate of ḡ is C/√d) or "pessimistic"
    (orthogonal records, ‖ḡ‖ = C/√B: C/√(Bd)).  Returns the threshold d* (eq. (2)/(3), general β₂ at t = T),
    the Gaussian mean-vs-std prediction, the exact probability (:func:`theory.dp_adam_design.negative_probability`),
    the simulated fraction over ``trials``·d coordinates with its Clopper–Pearson interval, and the bias of
    post-processing's v̂, (σC/B)² (section 3.1).

    Parameters
    ----------
    d : int
        The model dimension (>= 1).
    batch_size : int
        The batch size B (>= 1).
    sigma : float
        The noise multiplier σ (> 0).
    clip_norm : float
        The clipping norm C (> 0).
    beta2 : float
        Adam's second-moment decay β₂, in (0, 1).
    steps : int
        The round T at which v̂ is read (>= 1).
    case : str
        "optimistic" or "pessimistic".
    trials : int
        Simulated runs (>= 1).
    seed : int
        The simulation's seed (>= 0).

    Returns
    -------
    dict
        ``d``, ``d_star``, ``signal``, ``noise_std``, ``predicted_gaussian``, ``exact``, ``simulated`` with
        ``simulated_lo``/``simulated_hi``, ``bias_vhat`` ((σC/B)²) and ``bias_v`` ((1 − β₂ᵀ)(σC/B)²).

    Raises
    ------
    kernels.InvalidParameter
        When a parameter is out of range (β₂ outside (0, 1), T·(σC/B)² not finite in float64, …).
    """

    d = V.count("d", d)
    batch_size = V.count("batch_size", batch_size)
    sigma = V.positive("sigma", sigma)
    clip_norm = V.positive("clip_norm", clip_norm)
    beta2 = V.real("beta2", beta2)
    if not 0 < beta2 < 1:
        raise V.InvalidParameter("beta2", "in (0, 1)", beta2)
    steps = V.count("steps", steps)
    V.choice("case", case, ("optimistic", "pessimistic"))
    trials = V.count("trials", trials)
    V.integer("seed", seed, 0)
    V.memory("trials, d", trials, d)
    s = sigma * clip_norm / batch_size
    if not math.isfinite(s * s * steps):  # v̂ sums T squared noisy gradients of scale s
        raise V.InvalidParameter("sigma, clip_norm", "small enough that T·(σC/B)² is finite in float64",
                                  f"σC/B = {s:g}")
    signal = clip_norm / math.sqrt(d) if case == "optimistic" else clip_norm / math.sqrt(batch_size * d)
    expr = td.threshold_optimistic(True) if case == "optimistic" else td.threshold_pessimistic(True)
    dstar = float(numeric(expr)(B=batch_size, sigma=sigma, beta2=beta2, t=steps))
    sim = kd.constant_signal_vhat(np.full(d, signal), s, beta2, steps, trials=trials, seed=seed)
    k = int(round(sim["neg_frac"][-1] * trials * d))
    ci = clopper_pearson(k, trials * d)
    return {"d": d, "d_star": dstar, "signal": signal, "noise_std": s,
            "predicted_gaussian": float(td.negative_probability_gaussian(signal, s, beta2, steps)),
            "exact": float(td.negative_probability(signal, s, beta2, steps)),
            "simulated": ci.estimate, "simulated_lo": ci.lo, "simulated_hi": ci.hi,
            "bias_vhat": s**2, "bias_v": (1 - beta2**steps) * s**2}
