"""pagan.example1 and pagan.lemma3.2: quick verdicts, exact moments vs Monte Carlo, negative controls."""

import math

import numpy as np
import pytest
from scipy import special

from verify import pagan, stats


def test_gaussian_norm_moments_match_monte_carlo():
    w = np.array([0.6, 0.3, 0.1, 0.05])
    exact = pagan.gaussian_norm_moments(w, 3)
    rng = np.random.default_rng(0)
    Q = (rng.standard_normal((400_000, 4)) ** 2 * w).sum(axis=1) / w.sum()
    for k in range(1, 4):
        ci = stats.mean_ci(Q**k, level=0.999)
        assert ci.lo <= exact[k - 1] <= ci.hi


def test_example1_quick_holds_with_ratio_at_most_one():
    out = pagan.example1("quick", 0)
    assert out.verdict == "holds"
    assert out.figures["K_hat"] == pytest.approx(1 / math.sqrt(2))  # attained at p = 2: √(E Q)/√2
    assert out.figures["steepest_slope_p_hi"] < 0


def test_example1_boundedness_check_flags_non_subgaussian_growth():
    """Negative control: Laplace coordinates have G_p ≈ p/e, so G_p/√p grows and the check says violated."""
    ps = 2 * np.arange(1, 21)
    laplace_gp = special.gamma(ps + 1.0) ** (1.0 / ps)  # E|Z|^p = Γ(p+1) for Laplace(0, 1)
    verdict, fit = stats.ratio_bounded(ps, laplace_gp / np.sqrt(ps))
    assert verdict == "violated" and fit.slope.lo > 0


def test_lemma3_2_quick_holds_and_numbers_agree():
    out = pagan.lemma3_2("quick", 0)
    assert out.verdict == "holds"
    assert out.figures["cells_holding"] == out.figures["cells"]
    assert out.counterexample is None


def test_lemma3_2_detection_with_a_too_tight_bound():
    """Negative control: against G_p alone (no G_2p slack) Ĝ_p exceeds the bound in a sizeable fraction of
    datasets, so the Clopper–Pearson interval sits above 1/n: the frequency check can fail."""
    n, d = 100, 20
    o = pagan._lemma32_task(n=n, d=d, datasets=300, ps=[2], seed=1)
    sigma = np.arange(1, d + 1) ** -1.5
    w = sigma**2  # C = I
    gp = math.sqrt(w.sum()) * pagan.gaussian_norm_moments(w, 1)[0] ** 0.5
    fails = int(np.sum(o["G_hat"][:, 0, 0] > gp))
    assert stats.clopper_pearson(fails, 300).lo > 1 / n


def test_algorithm3_privacy_quick_is_violated_with_pinned_counterexample():
    out = pagan.algorithm3("quick", 0)
    assert out.verdict == "violated"
    ce = out.counterexample
    assert (ce["d"], ce["epsilon"], ce["delta"], ce["rounds"]) == (10, 1.0, 1e-5, 5)
    assert ce["accountant_eps_lower"] > ce["epsilon"]


def test_algorithm3_pinned_counterexample_recomputed():
    """d = 10 ⇒ T = 5 rounds, multiplier √(5·log(5/δ))/ε; five composed Gaussians exceed ε = 1 at δ = 1e-5
    (dp-accounting's optimistic PLD, a lower bound on the true ε)."""
    from verify.privacy import gaussian_epsilon_interval

    z = math.sqrt(5 * math.log(5 / 1e-5)) / 1.0
    lo, hi = gaussian_epsilon_interval(z, 1e-5, 5)
    assert lo > 1.0 and hi >= lo  # even the lower bound breaks the promise ε = 1
    # and with ε = 0.1 at the same δ the promise is kept
    assert gaussian_epsilon_interval(math.sqrt(5 * math.log(5 / 1e-5)) / 0.1, 1e-5, 5)[1] <= 0.1
