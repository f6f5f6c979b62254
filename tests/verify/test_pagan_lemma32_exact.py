"""pagan.lemma3.2 (issue 25): the exact parts — Markov bounds on the Gaussian cells' failure probability, and the
two-point laws whose failure probability is a binomial tail, evaluated exactly."""

import math

import numpy as np
import pytest

from theory import numeric
from theory import pagan as tp
from verify import mutants, registry
from verify.papers import pagan
from verify.runner import SerialRunner, using

CID = "pagan.lemma3.2"


def test_markov_bound_matches_chi_square_moments_in_closed_form():
    # d = 1, p = 2: Y = N², S = Σ N_i² ~ χ²_n, E[S^m] = n(n + 2)···(n + 2m − 2)
    n, a, orders = 7, 3.0, 6
    moments = pagan.weighted_chi2_moments_series(np.array([1.0]), orders)  # E[N^{2k}] = (2k − 1)!!
    assert np.allclose(moments, [math.prod(range(1, 2 * k, 2)) for k in range(1, orders + 1)], rtol=1e-13)
    got, m = pagan.lemma32_failure_bound(moments, 2, a, n, orders=orders)
    closed = [math.prod(n + 2 * i for i in range(mm)) / (n * a) ** mm for mm in range(1, orders + 1)]
    assert got == pytest.approx(min(closed), rel=1e-12) and m == int(np.argmin(closed)) + 1
    assert pagan.lemma32_failure_bound(moments, 2, 0.0, n, orders=orders) == (1.0, 0)
    with pytest.raises(ValueError):
        pagan.lemma32_failure_bound(moments, 3, a, n, orders=orders)


def test_two_point_failure_of_the_papers_threshold_in_closed_form():
    # p = 2, n = 10: the breakpoint q solves 10·(√q + q^{1/4})² = 1, i.e. x² + x = 1/√10 with x = q^{1/4}; there the
    # failure is "some point is the outlier": 1 − (1 − q)^10 ≈ 0.0399 (≤ 1/n = 0.1, > 0.1/n = 0.01)
    x = (-1 + math.sqrt(1 + 4 / math.sqrt(10))) / 2
    q = x**4
    fail, at = pagan.lemma32_two_point_failure(numeric(tp.lemma3_2_bound()), 2, 10)
    assert at["j"] == 1 and at["q"] == pytest.approx(q, rel=2e-6) and at["threshold_count"] < 1.0
    assert fail == pytest.approx(1 - (1 - q) ** 10, rel=1e-5)
    assert 0.01 < fail < 0.1


def _mutant(name: str):
    registry.load_all()
    (c,) = registry.select([CID])
    (m,) = [m for m in list(c.mutants) + mutants.theory_mutants(c) if m.name == name]
    return c, m


def test_quick_holds_with_every_cell_certified_exactly():
    registry.load_all()
    mutants.reset_caches()
    with using(SerialRunner()):
        out = registry.REGISTRY[CID].check("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["cells"] == 12 and out.numbers["cells_certified_exactly"] == 12
    assert 0.0 < out.numbers["exact_failure_bound_over_declared_max"] < 1e-3
    assert 0.5 < out.numbers["two_point_failure_over_declared_max"] < 1.0


@pytest.mark.parametrize("name", ["lemma3_2_probability:x0.1", "lemma3_2_probability:pow1.25"])
def test_a_smaller_failure_probability_is_refuted_by_a_two_point_law(name):
    c, m = _mutant(name)
    mutants.reset_caches()
    with using(SerialRunner()), m.apply():
        out = c.check("quick", 0)
    assert out.verdict == "violated" and out.numbers["two_point_failure_over_declared_max"] > 1.0
    assert out.counterexample["law"].startswith("two-point") and out.counterexample["failure"] > \
        out.counterexample["declared"]
