"""Searching for counterexamples to exact inequalities.

An exact claim is written as a *slack* function that is ≥ 0 wherever the claim
holds.  Two searches look for its minimum:

* :func:`hypothesis_search` — hypothesis generates inputs (edge values included),
  ``target()`` steers it towards small slack; nothing is asserted, the worst
  example is recorded and returned.
* :func:`adversarial_search` — scipy's bounded minimiser from several seeded starts.

The tolerance below which a negative slack counts as a violation is a
floating-point error bound (:func:`rounding_tolerance`), never a chosen constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

EPS = float(np.finfo(np.float64).eps)


@dataclass
class Worst:
    slack: float
    example: Any
    evaluated: int


def rounding_tolerance(n_terms: int, magnitude: float, ops_per_term: int = 4) -> float:
    """Error bound for a sum of ``n_terms`` terms of size ≤ ``magnitude``, each from a few flops.

    Standard backward-error bound for recursive summation: |error| ≤ (n + k)·u·Σ|terms|
    with u the unit roundoff; we use u = eps and Σ|terms| ≤ n·magnitude.
    """
    return (n_terms + ops_per_term) * EPS * n_terms * magnitude


def hypothesis_search(slack: Callable[[Any], float], strategy, max_examples: int, seed: int) -> Worst:
    """Minimise ``slack`` over examples drawn from a hypothesis ``strategy`` (no assertion made)."""
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import seed as hseed

    worst = Worst(np.inf, None, 0)

    @hseed(seed)
    @settings(max_examples=max_examples, deadline=None, database=None, derandomize=False,
              phases=[Phase.explicit, Phase.generate, Phase.target],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def probe(example):
        v = float(slack(example))
        worst.evaluated += 1
        if np.isfinite(v):
            target(-v, label="negated slack")
        if v < worst.slack or not np.isfinite(v):
            worst.slack, worst.example = v, example

    probe()
    return worst


def adversarial_search(slack_vec: Callable[[np.ndarray], float], dim: int, bounds: tuple[float, float],
                       starts: int, seed: int) -> Worst:
    """Minimise ``slack_vec`` over a box with L-BFGS-B from ``starts`` seeded random points."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed)
    worst = Worst(np.inf, None, 0)
    for _ in range(starts):
        x0 = rng.uniform(bounds[0], bounds[1], size=dim)
        res = minimize(slack_vec, x0, method="L-BFGS-B", bounds=[bounds] * dim)
        worst.evaluated += int(res.nfev)
        if res.fun < worst.slack:
            worst.slack, worst.example = float(res.fun), np.asarray(res.x)
    return worst
