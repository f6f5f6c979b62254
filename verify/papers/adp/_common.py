"""Shared helpers of ``adp``'s claims: M's rounding bound and the matched-accountant ADP-SGD runs.

Used by several modules of :mod:`verify.papers.adp`:

- :func:`relative_tolerance`: the rounding bound for comparing two M({α},{b}) values (Remark 4.1, its
  alternative relation, and the consistency of (7), (9) and (10));
- Proposition 5.1's problem constants (``P51_A``, ``P51_C``, ``P51_EPS``, ``P51_DELTA``), the σ that puts two
  α schedules at the same accountant ε (:func:`matched_sigma`, dp-accounting RDP over α blocks), and one
  sweep task running ADP-SGD or DP-SGD with b_t = √(a + ct) (``_p51_task``): Proposition 5.1's measured
  utilities and Table 1's trend both run it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from kernels import adp as kadp
from theory import adp as tadp
from theory import numeric
from verify.exact import EPS
from verify.privacy import (
    calibrate_multiplier,
    composed_epsilon,
)
from verify.registry import child_seed


def relative_tolerance(T: int) -> float:
    """Rounding bound for comparing two M values of length-T sequences, relative to their size.

    Each M is a product of two sums of T positive terms (relative error ≤ (T + 4)u each, u the unit
    roundoff, recursive-summation bound) and a quotient; a difference of two such is within 4(T + 4)u.

    Parameters
    ----------
    T : int
        The sequences' length.

    Returns
    -------
    float
        4(T + 4)u, u the unit roundoff.
    """
    return 4.0 * (T + 4) * EPS


P51_A, P51_C = 1.0, 1.0
P51_EPS, P51_DELTA = 1.0, 1e-5


#: blocks in which a heterogeneous α schedule is accounted (each at its smallest α: an upper bound on ε)
MATCHED_BLOCKS = 8
#: relative precision of the matched σ (the two methods' accountant ε then agree to well under 1%)
MATCHED_REL = 3e-3


def _schedule_phases(alpha: np.ndarray, sigma: float, n: int, blocks: int = MATCHED_BLOCKS) -> list:
    """(rate 1/n, multiplier, steps) phases of T one-record steps with multipliers α_t·σ (G = 1), in ≤ ``blocks``
    blocks each accounted at its smallest α (more privacy loss, so the ε is an upper bound)."""
    out: list = []
    for b in np.array_split(np.arange(alpha.size), min(blocks, alpha.size)):
        z = float(alpha[b].min()) * sigma
        if out and out[-1][1] == z:
            out[-1] = (out[-1][0], z, out[-1][2] + int(b.size))
        else:
            out.append((1.0 / n, z, int(b.size)))
    return out


def matched_sigma(alpha: np.ndarray, n: int, epsilon: float, delta: float) -> float:
    """The smallest σ (relative precision MATCHED_REL) whose T steps of multipliers α_t·σ the accountant (dp-accounting RDP,
    add/remove, the α blocks of :func:`_schedule_phases`) certifies (ε, δ)-DP: both methods of a comparison are run
    at this same accountant ε, whatever Theorem 4.1 would give them.

    Parameters
    ----------
    alpha : numpy.ndarray
        α_1..α_T.
    n : int
        Records.
    epsilon, delta : float
        The target (ε, δ).

    Returns
    -------
    float
        The multiplier σ (results are cached per argument values).
    """  # noqa: E501
    return _matched_sigma_cached(tuple(np.asarray(alpha, float).tolist()), int(n), float(epsilon), float(delta))


@lru_cache(maxsize=64)
def _matched_sigma_cached(alpha: tuple, n: int, epsilon: float, delta: float) -> float:
    alpha = np.asarray(alpha)
    return calibrate_multiplier(lambda s: composed_epsilon(_schedule_phases(alpha, s, n), delta, "rdp"), epsilon,
                                guess=0.5, rel=MATCHED_REL)


def _p51_task(alpha_rule: str, T: int, n: int, d: int, trials: int, seed: int, a: float = P51_A,
              epsilon: float = P51_EPS, noise: str = "matched") -> dict:
    """ADP-SGD or DP-SGD with b_t = √(a + ct); σ at a matched accountant ε (``noise="matched"``, the default) or from
    Theorem 4.1 (``"theorem4.1"``, which the suite's own theorem4.1 shows is not (ε, δ)-DP at these sizes);
    ‖∇F(θ_t)‖² traces."""
    prob = kadp.smooth_nonconvex(n=n, d=d, seed=seed % (2**31))
    b = tadp.polynomial_schedule(T, a, P51_C)
    alpha = np.sqrt(b) if alpha_rule == "adp" else np.ones(T)
    if noise == "matched":
        sigma = matched_sigma(alpha, n, epsilon, P51_DELTA) * prob.gradient_bound
    elif noise == "theorem4.1":
        sigma = float(numeric(tadp.theorem4_1_variance())(G=prob.gradient_bound,
                                                          S_inv_alpha2=float(np.sum(1 / alpha**2)),
                                                          T=T, delta=P51_DELTA, epsilon=epsilon, n=n)) ** 0.5
    else:
        raise ValueError(f"noise must be matched or theorem4.1 (got {noise!r})")
    out = kadp.run_adp(prob, steps=T, eta=1.0, b_rule="poly", alpha_rule=alpha_rule, sigma=sigma,
                       schedule=kadp.AdpSchedule(a=a, c=P51_C), trials=trials,
                       seed=child_seed(seed, "adp.proposition5.1", "runs"), n_log=41)
    return {"steps": out["steps"], "grad_norm2": out["grad_norm2"], "sigma": sigma}
