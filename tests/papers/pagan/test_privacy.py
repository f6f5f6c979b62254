"""Lemma 3.1 (:mod:`verify.papers.pagan.privacy`): the quick verdict follows from its numbers, c* is what it says,
and the kernel's noise multiplier is the theory's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import kernels
from kernels.pagan import optimal_ellipsoid, pagan_noise_multiplier
from tests.papers.pagan.support import claim_by_id, generic_mutant, run_under
from theory import numeric
from theory import pagan as tp
from verify.papers.pagan import privacy
from verify.papers.pagan._common import lemma31_steps
from verify.papers.pagan.privacy import LEMMA31_GRIDS, lemma3_1
from verify.privacy import with_replacement_epsilon
from verify.registry import REGISTRY


@pytest.fixture(scope="module")
def outcome():
    return lemma3_1("quick", 0)



def test_kernel_calibration_and_geometry_agree_with_theory():
    """kernels cannot import theory (docs/design.md), so the two copies of line 6's noise multiplier and of
    §3.2's C_jj = σ_j^(-4/3) are tied together here."""

    for eps, delta in [(0.1, 1e-5), (1.0, 1e-8), (4.0, 0.3)]:
        assert pagan_noise_multiplier(eps, delta) == pytest.approx(
            float(numeric(tp.noise_multiplier())(epsilon=eps, delta=delta)), rel=1e-14)
    ds = kernels.make_problem("abs_regression", seed=0, n=50, d=7)
    a, info = optimal_ellipsoid(ds)
    C_theory = numeric(tp.pagan_optimal_C())(sigma_j=ds.sigma)
    np.testing.assert_allclose(a * info["B"] ** 2, C_theory, rtol=1e-13)



def test_uniformity_rule_flags_a_decaying_c():
    """Negative control: a c* falling like (n/b)^-1/2 over a decade is flagged; a flat one is not."""
    pts = [dict(n=5000, b=b, delta=1e-5, epsilon=0.1) for b in (250, 70, 25)]
    nb = [5000 / p["b"] for p in pts]
    _, decays = privacy.lemma31_uniformity(pts, [1.2 * (20.0 / x) ** 0.5 for x in nb], [0.1])
    assert len(decays) == 1 and decays[0]["slope"] == pytest.approx(-0.5)
    fits, decays = privacy.lemma31_uniformity(pts, [1.2] * 3, [0.1])
    assert not decays and fits[0]["span"] == pytest.approx(1.0)



def test_registered():
    c = REGISTRY["pagan.lemma3.1"]
    assert c.kind == "privacy" and c.paper == "pagan"
    assert c.theory == ("theory.pagan.lemma3_1_steps", "theory.pagan.noise_multiplier")



def test_verdict_is_the_one_its_numbers_imply(outcome):
    eps_levels = sorted(LEMMA31_GRIDS["quick"]["epsilon"])
    c_max = {e: outcome.numbers[f"c_max_eps<={e:g}"] for e in eps_levels}
    # c_max is a running minimum: non-increasing in eps_bar
    assert all(c_max[a] >= c_max[b] for a, b in zip(eps_levels, eps_levels[1:]))
    slopes = {k: v for k, v in outcome.numbers.items() if k.startswith("c_slope_in_n_over_b_")}
    assert slopes, "the uniformity of c in n/b was not evaluated"
    # the smallest ε's series spans a decade of n/b (20 .. 200), so it decides
    decays = any(v < -privacy.LEMMA31_SLOPE_MARGIN for k, v in slopes.items() if "eps0.1_" in k or "eps1_" in k)
    in_eps = {k: v for k, v in outcome.numbers.items() if k.startswith("c_slope_in_eps_")}
    assert len(in_eps) == 3  # (n, b) = (1000, 5), (5000, 70), (5000, 250): each has ε = 0.1 and 1
    shrinks = any(v > privacy.LEMMA31_SLOPE_MARGIN for v in in_eps.values())
    expected = "violated" if (c_max[eps_levels[0]] <= 0 or decays or shrinks) else "holds"
    assert outcome.verdict == expected
    assert outcome.verdict == "holds"  # what the quick grid finds (see the evidence)
    assert abs(slopes["c_slope_in_n_over_b_eps0.1_delta1e-05"]) < privacy.LEMMA31_SLOPE_MARGIN
    assert outcome.counterexample is None
    assert outcome.numbers["c_at_eps_bar"] == c_max[outcome.numbers["eps_bar"]] > 0
    assert outcome.numbers["points_evaluated"] == 6 + len(privacy.LEMMA31_UNIFORM)
    assert outcome.numbers["paper_point_eps_accountant"] <= 1.0
    assert "c_max" in outcome.evidence and "\n" not in outcome.evidence
    (fig,) = outcome.plots
    (panel,) = fig.panels
    assert panel.xscale == panel.yscale == "log"
    assert len(panel.series) == len(LEMMA31_GRIDS["quick"]["b"]) + 2  # + the n = 1000, b = 5 series



def test_c_star_at_one_point_independently(outcome):
    # the paper's point: n=5000, b=70, delta=1e-5, eps=1; its c* is the smallest c* among eps=1 points here
    n, b, delta, eps = 5000, 70, 1e-5, 1.0
    (c_star,) = [s for s in outcome.plots[0].panels[0].series if s.label == "n=5000, b=70, δ=1e-05"]
    c = dict(zip(c_star.x, c_star.y))[eps]
    assert c >= outcome.numbers["c_max_eps<=1"]
    sigma = math.sqrt(math.log(1 / delta)) / eps
    assert float(numeric(tp.noise_multiplier())(delta=delta, epsilon=eps)) == pytest.approx(sigma)
    t_star = lemma31_steps(c, n, b)
    assert t_star == round(c * n**2 / b**2)
    assert with_replacement_epsilon(n, b, sigma, t_star, delta) <= eps
    t_more = lemma31_steps(c * 1.05, n, b)
    assert t_more > t_star
    assert with_replacement_epsilon(n, b, sigma, t_more, delta) > eps



def test_small_epsilon_rule_flags_a_vanishing_c():
    """Negative control: c* ∝ ε^0.3 over ε = 0.1..1 (c* → 0 as ε → 0) is flagged; c* ∝ ε^-0.2 is not."""
    pts = [dict(n=5000, b=70, delta=1e-5, epsilon=e) for e in (0.1, 0.3, 1.0, 4.0)]
    series, shrinking = privacy.lemma31_small_epsilon(pts, [0.5 * p["epsilon"] ** 0.3 for p in pts])
    assert len(series) == 1 and series[0]["slope"] == pytest.approx(0.3) and series[0]["eps_max"] == 1.0
    assert shrinking == series
    series, shrinking = privacy.lemma31_small_epsilon(pts, [0.5 * p["epsilon"] ** -0.2 for p in pts])
    assert not shrinking and series[0]["span"] == pytest.approx(1.0)



def test_c_star_is_solved_from_the_declared_step_count(monkeypatch):
    """c* inverts theory.pagan.lemma3_1_steps, so an exponent mutant of T changes how c* scales with n/b."""
    assert privacy.lemma31_c_of_steps(200, 1000, 5) == pytest.approx(200 * 5**2 / 1000**2)
    original = tp.lemma3_1_steps
    monkeypatch.setattr(tp, "lemma3_1_steps", lambda: original() ** sp.Rational(5, 4))
    assert privacy.lemma31_c_of_steps(200, 1000, 5) == pytest.approx(200 ** 0.8 * 5**2 / 1000**2)


def test_lemma3_1_a_step_count_with_a_wrong_exponent_is_violated_with_its_finding():
    """T = (c n²/b²)^{5/4} makes c* decay in n/b: violated; the finding counts the decaying (ε, δ) series and
    evaluates §6.1's point with the c found."""
    out = run_under(claim_by_id("pagan.lemma3.1"), generic_mutant("pagan.lemma3.1", "lemma3_1_steps:pow1.25"))
    assert out.verdict == "violated"
    f = out.finding
    assert f.scope == "in_regime" and f.region.failing >= 1 and f.repair is None
    assert "c* against n/b" in f.region.text or "c* as ε → 0" in f.region.text
    assert f.at_paper_setting.where.startswith("§6.1: n = 5000, b = 70")
