"""verify.papers.adp.adaptive_stepsize: the adaptive stepsize's privacy at the quick budget — the exact
hockey-stick divergences against their closed forms, the pinned counterexample, the public-stepsize mutant and the
finding at the paper's dimension."""

import re

import numpy as np
import pytest

from tests.verify.evidence_support import lost_numbers
from verify.papers.adp import adaptive_stepsize
from verify.privacy import gaussian_epsilon


def test_hockey_stick_matches_the_gaussian_closed_form():
    from scipy.stats import norm

    for mu, eps in ((1.0, 0.5), (0.5, 2.0), (2.0, 1.0)):
        exact = norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)
        assert adaptive_stepsize.gaussian_hockey_stick(mu, 1.0, 0.0, 1.0, eps) == pytest.approx(exact, rel=1e-9,
                                                                                          abs=1e-300)
    assert adaptive_stepsize.gaussian_hockey_stick(0.0, 1.0, 0.0, 1.0, 0.1) == 0.0


def test_adaptive_stepsize_summary_and_points_keep_every_number_of_its_evidence():
    out = adaptive_stepsize.adaptive_stepsize_privacy("quick", 0)
    s = out.summary
    assert s.endswith(".") and not re.search(r"\. [A-Z]", s) and len(s) <= 250  # one short sentence
    assert s.startswith("violated (exact)") and "never does" in s
    assert sum(p.get("exceeds", False) for p in out.points) == int(out.numbers["points_broken"])
    assert lost_numbers(out.evidence, out.summary, out.points) == []


def test_adaptive_stepsize_counterexample_pinned():
    """Pinned: b_0² = 1, ν = 1e-5, z = 1, replace-one. The accountant gives one Gaussian step ε ≈ 10.0 at
    δ = 1e-5; the clean-gradient stepsize makes the update's variance differ between neighbours (b₁² = 2 vs
    1 + 1e-5), and the exact δ at that ε is ≈ 3.4e-4 ≫ 1e-5. With b₁ public the same pair is within the promise."""
    eps = adaptive_stepsize.replace_one_gaussian_epsilon(1.0, 1e-5)
    assert eps == pytest.approx(gaussian_epsilon(0.5, 1e-5), abs=1e-2)
    d = adaptive_stepsize.adaptive_step_delta(1.0, 1.0, eps)
    assert d == pytest.approx(3.366e-4, rel=1e-2) and d > 1e-5
    assert adaptive_stepsize.adaptive_step_delta(1.0, 1.0, eps, adaptive=False) <= 1e-5
    out = adaptive_stepsize.adaptive_stepsize_privacy("quick", 0)
    assert out.verdict == "violated" and out.counterexample["delta_exact"] > out.counterexample["delta"]
    assert out.numbers["control_max_delta"] <= 1e-5 and out.decisions == []


def test_adaptive_stepsize_privacy_mutant_with_a_public_stepsize_turns_the_verdict():
    """The declared mutant drops b₁'s dependence on the clean gradient: the exact δ then stays within the promise
    at every point (the control's numbers), so the claim is no longer violated."""
    from verify.registry import load_all

    (m,) = load_all()["adp.algorithm1.adaptive_stepsize_privacy"].mutants
    assert adaptive_stepsize.adaptive_stepsize_privacy("quick", 0).verdict == "violated"
    with m.apply():
        assert adaptive_stepsize.adaptive_stepsize_privacy("quick", 0).verdict == "holds"
    assert adaptive_stepsize.adaptive_stepsize_privacy("quick", 0).verdict == "violated"


@pytest.fixture(scope="module")
def adaptive_quick():
    return adaptive_stepsize.adaptive_stepsize_privacy("quick", 0)


def test_adaptive_stepsize_finding_at_the_papers_dimension(adaptive_quick):
    """Along the differing gradient alone the paper's b_0² = 20 leaks only δ ≈ 1e-8; at §6's d = 7850 every noise
    coordinate carries the stepsize's dependence and δ reaches 0.71 (z = 4); b₁ made public repairs it."""
    f = adaptive_quick.finding
    assert f.scope == "in_regime" and (f.region.explored, f.region.failing) == (8, 3)
    assert f.at_paper_setting.fails and f.at_paper_setting.size == pytest.approx(0.708, abs=0.005)
    assert "d = 7850" in f.at_paper_setting.where and "b_0² = 20" in f.at_paper_setting.where
    assert f.repair.verdict == "holds"
    assert adaptive_quick.numbers["delta_paper_dimension[z=4]"] == pytest.approx(f.at_paper_setting.size)


def test_isotropic_hockey_stick_reduces_to_the_one_dimensional_pair():
    """d = 1 is the closed form of gaussian_hockey_stick; equal variances make the other d − 1 coordinates moot;
    unequal variances make δ grow with d."""
    for s2 in (0.5, 0.55):  # the larger of the two orderings
        one = max(adaptive_stepsize.gaussian_hockey_stick(0.3, 0.5, 0.0, s2, 1.0),
                  adaptive_stepsize.gaussian_hockey_stick(0.0, s2, 0.3, 0.5, 1.0))
        assert one > 0.01
        assert adaptive_stepsize.gaussian_hockey_stick_isotropic(0.3, 0.5, s2, 1.0, 1) == pytest.approx(one, rel=1e-5)
    assert adaptive_stepsize.gaussian_hockey_stick_isotropic(0.3, 0.5, 0.5, 1.0, 500) == pytest.approx(
        adaptive_stepsize.gaussian_hockey_stick(0.3, 0.5, 0.0, 0.5, 1.0), rel=1e-5)
    ds = [adaptive_stepsize.gaussian_hockey_stick_isotropic(0.3, 0.5, 0.55, 1.0, d) for d in (1, 10, 100, 1000)]
    assert ds == sorted(ds) and ds[-1] > 10 * ds[0]


def test_replace_one_epsilon_is_built_once_per_multiplier_and_is_the_accountants_float():
    """The claim asks for each z at every b_0² and again at the paper's dimension: the PLD is built once per (z, δ),
    and the kept ε is the float a fresh build gives."""
    f = adaptive_stepsize.replace_one_gaussian_epsilon
    f.cache_clear()
    adaptive_stepsize.adaptive_stepsize_privacy("quick", 0)
    zs = adaptive_stepsize.ADAPTIVE_POINTS["quick"]["z"]
    assert f.cache_info().misses == len(set(zs)) and f.cache_info().hits > 0
    assert f(2.0, 1e-5) == f.__wrapped__(2.0, 1e-5)
