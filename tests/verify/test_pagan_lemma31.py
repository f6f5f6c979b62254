"""pagan.lemma3.1 at the quick budget: its verdict follows from its own numbers, and c* is what it says."""

import math

import pytest

from theory import numeric
from theory import pagan as th
from verify.pagan import LEMMA31_GRIDS, lemma3_1, lemma31_steps
from verify.privacy import with_replacement_epsilon
from verify.registry import REGISTRY


@pytest.fixture(scope="module")
def outcome():
    return lemma3_1("quick", 0)


def test_registered():
    c = REGISTRY["pagan.lemma3.1"]
    assert c.kind == "privacy" and c.paper == "pagan"
    assert c.theory == ("theory.pagan.lemma3_1_steps", "theory.pagan.noise_multiplier")


def test_verdict_is_the_one_its_numbers_imply(outcome):
    eps_levels = sorted(LEMMA31_GRIDS["quick"]["epsilon"])
    c_max = {e: outcome.figures[f"c_max_eps<={e:g}"] for e in eps_levels}
    # c_max is a running minimum: non-increasing in eps_bar
    assert all(c_max[a] >= c_max[b] for a, b in zip(eps_levels, eps_levels[1:]))
    expected = "holds" if c_max[eps_levels[0]] > 0 else "violated"
    assert outcome.verdict == expected
    assert outcome.verdict == "holds"  # what the quick grid finds (see the evidence)
    assert outcome.counterexample is None
    assert outcome.figures["c_at_eps_bar"] == c_max[outcome.figures["eps_bar"]] > 0
    assert outcome.figures["points_evaluated"] == 6
    assert outcome.figures["paper_point_eps_accountant"] <= 1.0
    assert "c_max" in outcome.evidence and "\n" not in outcome.evidence
    (fig,) = outcome.plots
    (panel,) = fig.panels
    assert panel.xscale == panel.yscale == "log"
    assert len(panel.series) == len(LEMMA31_GRIDS["quick"]["b"]) + 1


def test_c_star_at_one_point_independently(outcome):
    # the paper's point: n=5000, b=70, delta=1e-5, eps=1; its c* is the smallest c* among eps=1 points here
    n, b, delta, eps = 5000, 70, 1e-5, 1.0
    c_star = outcome.plots[0].panels[0].series[0]
    assert c_star.label == "n=5000, b=70, δ=1e-05"
    c = dict(zip(c_star.x, c_star.y))[eps]
    assert c >= outcome.figures["c_max_eps<=1"]
    sigma = math.sqrt(math.log(1 / delta)) / eps
    assert float(numeric(th.noise_multiplier())(delta=delta, epsilon=eps)) == pytest.approx(sigma)
    t_star = lemma31_steps(c, n, b)
    assert t_star == round(c * n**2 / b**2)
    assert with_replacement_epsilon(n, b, sigma, t_star, delta) <= eps
    t_more = lemma31_steps(c * 1.05, n, b)
    assert t_more > t_star
    assert with_replacement_epsilon(n, b, sigma, t_more, delta) > eps
