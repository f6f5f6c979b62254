"""theory.pagan: closed forms, their exact inequalities (hypothesis) and the numeric helper."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, target
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from theory import numeric
from theory import pagan as tp
from verify.exact import rounding_tolerance

sig = arrays(np.float64, st.integers(1, 50), elements=st.floats(0.0, 1e4, allow_nan=False))


def _chain(sigma):
    up, mid, low = (numeric(e) for e in tp.holder_chain())
    s1 = float(np.sum(sigma))
    s23 = float(np.sum(sigma ** (2.0 / 3.0)))
    return up(S_1=s1, d=sigma.size), mid(S_2_3=s23), low(S_1=s1)


@given(sig)
@example(np.ones(7))  # equality on the left: all σ equal
@example(np.array([0.0, 3.0, 0.0]))  # equality on the right: one nonzero σ
def test_holder_chain(sigma):
    up, mid, low = _chain(sigma)
    tol = rounding_tolerance(sigma.size, max(up, 1.0))
    target(float(min(up - mid, mid - low)) / max(up, 1e-300), label="relative slack")
    assert up >= mid - tol and mid >= low - tol


def test_holder_chain_equality_cases_are_tight():
    up, mid, low = _chain(np.ones(9))
    assert up == pytest.approx(mid, rel=1e-14)
    up, mid, low = _chain(np.array([0.0, 2.0]))
    assert mid == pytest.approx(low, rel=1e-14)


@given(arrays(np.float64, st.integers(1, 20), elements=st.floats(-1, 1, allow_nan=False)),
       arrays(np.float64, 20, elements=st.floats(-1e3, 1e3, allow_nan=False)))
@example(np.array([0.0, -0.0, 1.0]), np.array([-0.0, 0.0, 2.0] + [0.0] * 17))
def test_reduction_inequality(x, z):
    z = z[: x.size]
    slack = numeric(tp.reduction_slack_coordinate())(x_j=x, z_j=z)
    target(-float(np.min(slack)), label="negated worst slack")
    assert np.all(np.asarray(slack) >= -4 * np.finfo(float).eps * np.abs(z))


def test_noise_multiplier_and_steps():
    assert numeric(tp.noise_multiplier())(epsilon=2.0, delta=1e-5) == pytest.approx(math.sqrt(math.log(1e5)) / 2)
    assert numeric(tp.lemma3_1_steps())(c=0.5, n=5000, b=70) == pytest.approx(0.5 * 5000**2 / 70**2)


def test_power_law_profile_asymptotics():
    subs = tp.power_law_sums(sp.Rational(3, 2))
    up, mid, _ = tp.holder_chain()
    assert sp.limit(mid.subs(subs) / sp.log(tp.d) ** sp.Rational(3, 2), tp.d, sp.oo) == 1
    assert sp.limit(up.subs(subs) / sp.sqrt(tp.d), tp.d, sp.oo) == sp.zeta(sp.Rational(3, 2))


def test_eq7_below_eq9_on_box_for_decaying_profile():
    """PAGAN's factor (Σσ^(2/3))^(3/2) is below PASAN-on-the-box's √d Σσ (the chain), strictly for unequal σ."""
    sigma = np.arange(1, 101) ** -1.5
    up, mid, _ = _chain(sigma)
    assert mid < up


def test_numeric_helper_orders_arguments_by_name_and_checks_them():
    f = numeric(tp.eq7_rate())
    assert f.names == ("S_2_3", "d", "delta", "epsilon", "n")
    v = f(S_2_3=2.0, d=10, delta=1e-5, epsilon=1.0, n=100)
    assert v == pytest.approx(2.0**1.5 / 100 * math.log(10 / 1e-5))
    with pytest.raises(TypeError, match="missing values for n"):
        f(S_2_3=2.0, d=10, delta=1e-5, epsilon=1.0)
    hp = numeric(tp.eq7_rate(), backend="mpmath")
    assert float(hp(S_2_3=2, d=10, delta=1e-5, epsilon=1, n=100)) == pytest.approx(v, rel=1e-14)
    assert numeric(tp.eq7_rate()) is f  # cached


def test_symbols_carry_assumptions():
    assert tp.n.is_positive and tp.n.is_integer and tp.epsilon.is_positive and tp.delta.is_positive


def test_power_sum_exponents_given_exactly_are_taken_as_they_are():
    for a in (1, 2, np.int64(3), sp.Rational(2, 3), sp.Integer(4), 0.5, 1.5):
        got = tp._exponent("a", a)
        assert got == sp.nsimplify(a) and type(got) is type(sp.nsimplify(a))
    assert tp.power_sum(2) is tp.power_sum(sp.Integer(2)) is tp.power_sum(2.0)
    assert tp.power_sum(sp.Rational(2, 3)).name == "S_2_3"
