"""theory.adp: M, M_adp, M_dp and their ratio; the polynomial schedule's brackets; Lemma 2.2's formula."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given
from hypothesis import strategies as st

from theory import adp
from verify.papers.adp import m_ratios
from verify.papers.adp._common import relative_tolerance

pos = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(st.lists(st.tuples(pos, pos), min_size=1, max_size=60))
@example([(1.0, 1.0)])
@example([(1e-6, 1e6), (1e6, 1e-6)])
def test_m_is_minimised_at_alpha_squared_equals_b(pairs):
    alpha = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    tol = relative_tolerance(b.size)
    madp = adp.m_adp(b)
    assert adp.m_value(alpha, b) >= madp * (1 - tol)
    assert adp.m_value(np.sqrt(b), b) == pytest.approx(madp, rel=tol)
    assert adp.m_ratio(b) >= 1 - tol


def test_m_ratio_pinned_values_and_invariances():
    assert adp.m_ratio([1.0, 2.0]) == pytest.approx(2 * 1.25 / 1.5**2)
    assert adp.m_ratio(np.full(1000, 3.7)) == pytest.approx(1.0, rel=1e-13)  # equality case of Cauchy–Schwarz
    b = adp.polynomial_schedule(1000, 2.0, 0.5)
    assert adp.m_ratio(7.0 * b) == pytest.approx(adp.m_ratio(b), rel=1e-13)
    assert adp.m_ratio(b) == pytest.approx(adp.m_ratio(b, exact=True), rel=1e-13)
    assert adp.m_dp(b) / adp.m_adp(b) == pytest.approx(adp.m_ratio(b), rel=1e-13)
    with pytest.raises(ValueError, match="b must"):
        adp.m_ratio([1.0, -1.0])
    with pytest.raises(ValueError, match="alpha must"):
        adp.m_value([1.0], [1.0, 2.0])


@pytest.mark.parametrize("T,a,c", [(10, 1.0, 1.0), (1000, 5.0, 0.1), (10**6, 1.0, 3.0)])
def test_polynomial_schedule_ratio_lies_in_the_closed_form_brackets(T, a, c):
    lo, hi = adp.poly_ratio_brackets()
    f = sp.lambdify((adp.T, adp.a, adp.c), (lo, hi))
    lo_v, hi_v = f(T, a, c)
    exact = adp.m_ratio(adp.polynomial_schedule(T, a, c))
    assert lo_v <= exact <= hi_v


def test_ratio_is_quarter_log_T_asymptotically():
    lo, hi = adp.poly_ratio_brackets()
    for bound in (lo, hi):
        assert sp.simplify(sp.limit(bound / sp.log(adp.T), adp.T, sp.oo) - sp.Rational(1, 4)) == 0
    assert sp.simplify(adp.proposition5_1_privacy_ratio() - 2 * sp.log(1 + adp.T * adp.c / adp.a)) == 0


def test_extended_advanced_composition_formula():
    e, d = adp.extended_advanced_composition([0.1] * 10, [1e-6] * 10, 1e-5)
    assert e == pytest.approx(math.sqrt(2 * 10 * math.log(1e5)) * 0.1 + 10 * 0.1 * math.tanh(0.05))
    assert d == pytest.approx(1 - (1 - 1e-6) ** 10 + 1e-5)
    with pytest.raises(ValueError, match="eps entries"):
        adp.extended_advanced_composition([1.5], [1e-6], 1e-5)


def test_remark41_claim_holds_quick_and_reports_its_search():
    out = m_ratios.remark4_1("quick", 0)
    assert out.verdict == "holds"
    assert out.numbers["min_slack_rounding_units"] >= -1.0
    assert out.numbers["evaluations"] > 400
