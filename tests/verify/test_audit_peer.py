"""Our audit estimators beside jax_privacy's (``jax_privacy.auditing.CanaryScoreAuditor``) on the same scores.

Exact Gaussian scores N(0,1) (without the canary) vs N(μ,1) (with it), μ such that the exact ε at δ = 1e-5 is 4,
10⁵ samples per side.  jax_privacy's ``epsilon_from_gdp`` and ``epsilon_clopper_pearson`` take the scores as
in-canary / out-canary arrays and a significance (1 − our level).  Skipped when jax-privacy (the ``peer`` extra)
is not installed.
"""

import numpy as np
import pytest
from scipy import stats

from verify.audit import epsilon_lower_bound, gdp_epsilon

auditing = pytest.importorskip("jax_privacy.auditing", reason="jax-privacy (the peer extra) is not installed")

DELTA, EPS, N, SEEDS = 1e-5, 4.0, 100_000, 8


def _mu():
    from scipy.optimize import brentq

    return brentq(lambda m: gdp_epsilon(m, DELTA) - EPS, 0.05, 20.0, xtol=1e-12)


def _side_by_side(mu):
    rows = []
    for s in range(SEEDS):
        rng = np.random.default_rng(s)
        out, inn = rng.standard_normal(N), mu + rng.standard_normal(N)
        peer = auditing.CanaryScoreAuditor(inn, out)
        rows.append(dict(ours_gdp=epsilon_lower_bound(out, inn, DELTA, method="gdp", seed=s).epsilon_lb,
                         ours_cp=epsilon_lower_bound(out, inn, DELTA, seed=s).epsilon_lb,
                         jax_gdp=float(peer.epsilon_from_gdp(0.05, DELTA)),
                         jax_cp=float(peer.epsilon_clopper_pearson(0.05, DELTA))))
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def test_gdp_estimator_is_as_tight_as_jax_privacys_on_the_same_gaussian_scores():
    """Non-inferiority with a margin fixed in advance (5 % of ε): the one-sided 95 % t upper bound of the mean
    paired difference jax − ours over 8 seeds is below 0.05·ε.  Both estimators reach ≥ 0.9·ε."""
    r = _side_by_side(_mu())
    print({k: np.round(v, 3).tolist() for k, v in r.items()})
    diff = r["jax_gdp"] - r["ours_gdp"]
    upper = diff.mean() + stats.t.ppf(0.95, SEEDS - 1) * diff.std(ddof=1) / np.sqrt(SEEDS)
    assert upper <= 0.05 * EPS
    assert r["ours_gdp"].min() >= 0.9 * EPS and r["jax_gdp"].mean() >= 0.9 * EPS
    assert np.all(r["ours_gdp"] <= EPS)  # below the true ε at every seed


def test_identical_distributions():
    """With no canary effect at all, our GDP bound stays near 0 (a valid lower bound of ε = 0)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(N), rng.standard_normal(N)
    ours = epsilon_lower_bound(a, b, DELTA, method="gdp").epsilon_lb
    peer = float(auditing.CanaryScoreAuditor(b, a).epsilon_from_gdp(0.05, DELTA))
    print(dict(ours_gdp=ours, jax_gdp=peer))
    assert ours <= 0.2
