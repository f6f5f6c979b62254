"""Hypothesis fuzzing of the numeric public functions of ``theory`` and the privacy front ends of
``verify``: every call returns finite output or raises a ValueError whose message names the
function's parameters (``kernels.InvalidParameter`` for ``verify``, whose ``name`` lists them; plain
``ValueError`` starting with the name for ``theory``, which may not import ``kernels``).

Good values are drawn most of the time and zero to two parameters are replaced by junk (NaN, ±inf,
negatives, zero, 1e±300, huge counts, strings, None, booleans, wrong-shaped arrays) or by valid but
extreme values (σ = 1e-6, δ = 1e-300, 10⁹ steps) at the edge of dp-accounting's arithmetic.  ``@example``
pins each input that once gave an unnamed error, overflow or huge allocation.
"""

import re

import numpy as np
import pytest
import sympy as sp
from dp_accounting import dp_event as dpe
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kernels import InvalidParameter
from tests.verify.fuzz_support import (
    JUNK_ANY,
    JUNK_ARRAY,
    JUNK_COUNT,
    JUNK_NAME,
    JUNK_REAL,
    all_finite,
    examples,
    fuzzed,
    names_a_parameter,
    outcome,
    parameter_names,
    reals,
    small,
    watchdog,
)
from theory import adp as tadp
from theory import dp_adam_design as td
from theory import noisy_adagrad as tn
from theory import pagan as tp
from verify import privacy as _privacy

NAN, INF = float("nan"), float("inf")


def check_verify(fn, kw, params):
    try:
        with watchdog(fn, kw):
            out = fn(**kw)
    except InvalidParameter as exc:
        outcome("InvalidParameter")
        assert names_a_parameter(exc, params), f"{fn.__qualname__}({kw}) -> {exc!r}"
        return None
    outcome("returned")
    assert all_finite(out), f"{fn.__qualname__}({kw}) returned non-finite output {out!r}"
    return out


def check_theory(fn, kw, params):
    try:
        with watchdog(fn, kw):
            out = fn(**kw)
    except ValueError as exc:
        outcome("ValueError")
        msg = str(exc)
        assert any(re.match(rf"{re.escape(p)}\b", msg) for p in params), f"{fn.__qualname__}({kw}) -> {exc!r}"
        return None
    outcome("returned")
    assert all_finite(out), f"{fn.__qualname__}({kw}) returned non-finite output {out!r}"
    return out


# ---------------------------------------------------------------------------- privacy front ends
EXTREME_Q = st.sampled_from([1e-300, 1e-100, 1.0, 1e-12])
EXTREME_SIGMA = st.sampled_from([1e-300, 1e-100, 1e-6, 1e-3, 0.01, 1e12, 1e20, 1e300])
EXTREME_DELTA = st.sampled_from([1e-300, 1e-100, 0.999999, 1e-30])
EXTREME_STEPS = st.sampled_from([10**9, 10**6, 10**9 + 1, 10**18])
EXTREME_VDI = st.sampled_from([1e-8, 1e-6, 1.0, 2.0, 1e-300])
JUNK_VDI = st.sampled_from([NAN, INF, -1.0, 0.0, 1e300, "abc", True, [1e-3], 10**400])  # None is the valid default
ACCOUNTANTS = st.sampled_from(["rdp", "pld"])
VDI = reals(2e-3, 2e-2)  # coarse PLD grids keep each call in milliseconds
GOOD = dict(sampling_rate=reals(1e-4, 1), noise_multiplier=reals(0.5, 5), steps=small(1, 40),
            delta=reals(1e-9, 0.1), accountant=ACCOUNTANTS, value_discretization_interval=VDI)
JUNK = dict(sampling_rate=st.one_of(JUNK_REAL, EXTREME_Q), noise_multiplier=st.one_of(JUNK_REAL, EXTREME_SIGMA),
            steps=st.one_of(JUNK_COUNT, EXTREME_STEPS), delta=st.one_of(JUNK_REAL, EXTREME_DELTA),
            accountant=JUNK_NAME, value_discretization_interval=st.one_of(JUNK_VDI, EXTREME_VDI))


def junk_for(good, **extra):
    """The junk strategies of the parameters in ``good`` (plus ``extra``)."""
    return dict({k: JUNK[k] for k in good if k in JUNK}, **extra)


@settings(max_examples=examples(120))
@given(kw=fuzzed(GOOD, JUNK))
@example(kw=dict(sampling_rate=1e-300, noise_multiplier=1e-300, steps=1, delta=1e-5, accountant="rdp",
                 value_discretization_interval=None))  # RDP: ZeroDivisionError
@example(kw=dict(sampling_rate=1e-300, noise_multiplier=1e300, steps=1, delta=1e-5, accountant="rdp",
                 value_discretization_interval=None))  # RDP: OverflowError
@example(kw=dict(sampling_rate=1.0, noise_multiplier=1e-300, steps=1, delta=1e-5, accountant="rdp",
                 value_discretization_interval=None))  # RDP: ε = inf returned
@example(kw=dict(sampling_rate=0.4, noise_multiplier=1.5e269, steps=10, delta=1e-9, accountant="pld",
                 value_discretization_interval=None))  # PLD: OverflowError
@example(kw=dict(sampling_rate=0.04, noise_multiplier=401.0, steps=1, delta=2.4e-51, accountant="pld",
                 value_discretization_interval=None))  # PLD: ε = inf (δ below the truncated tail) returned
@example(kw=dict(sampling_rate=1.0, noise_multiplier=0.01, steps=1, delta=1e-5, accountant="pld",
                 value_discretization_interval=None))  # PLD grid: 12 GiB and 4 minutes, then MemoryError
@example(kw=dict(sampling_rate=1e-4, noise_multiplier=5.0, steps=10**9, delta=1e-5, accountant="pld",
                 value_discretization_interval=1e-2))  # PLD self-composition of 10⁹ steps: a hang
def test_dp_sgd_epsilon(kw):
    check_verify(_privacy.dp_sgd_epsilon, kw, parameter_names(_privacy.dp_sgd_epsilon))


@settings(max_examples=examples(40))
@given(kw=st.just(dict(noise_multiplier=reals(0.5, 5), delta=reals(1e-9, 0.1), steps=small(1, 40),
                       accountant=ACCOUNTANTS, value_discretization_interval=VDI)).flatmap(
    lambda good: fuzzed(good, junk_for(good))))
@example(kw=dict(noise_multiplier=0.1, delta=1e-5, steps=100, accountant="pld", value_discretization_interval=None))
def test_gaussian_epsilon(kw):  # the pin: PLD grid of ~10⁸ points (12 GiB, MemoryError after minutes)
    check_verify(_privacy.gaussian_epsilon, kw, parameter_names(_privacy.gaussian_epsilon))


@settings(max_examples=examples(30))
@given(kw=st.just(dict(noise_multiplier=reals(0.5, 5), delta=reals(1e-9, 0.1), steps=small(1, 20),
                       value_discretization_interval=reals(1e-3, 1e-2))).flatmap(
    lambda good: fuzzed(good, junk_for(good))))
@example(kw=dict(noise_multiplier=0.003, delta=1e-5, steps=1, value_discretization_interval=1e-4))  # grid blow-up
def test_gaussian_epsilon_interval(kw):
    out = check_verify(_privacy.gaussian_epsilon_interval, kw, parameter_names(_privacy.gaussian_epsilon_interval))
    if out is not None:
        assert out[0] <= out[1] + 1e-12


@settings(max_examples=examples(25))
@given(kw=fuzzed(dict(n=small(200, 5000), batch_size=small(1, 3), noise_multiplier=reals(1, 5), steps=small(1, 5),
                      delta=reals(1e-9, 0.1), accountant=st.just("pld"),
                      value_discretization_interval=reals(1e-2, 5e-2)),
                 dict(junk_for(dict(noise_multiplier=0, steps=0, delta=0, value_discretization_interval=0)),
                      n=st.one_of(JUNK_COUNT, st.sampled_from([1, 10**12])),
                      batch_size=st.one_of(JUNK_COUNT, st.sampled_from([10**8, 10**9])))))
@example(kw=dict(n=100, batch_size=10**9, noise_multiplier=1.0, steps=1, delta=1e-5, accountant="pld",
                 value_discretization_interval=None))  # the binomial of K tabulated over 10⁹ + 1 values
@example(kw=dict(n=1000, batch_size=10, noise_multiplier=0.02, steps=5, delta=1e-5, accountant="pld",
                 value_discretization_interval=None))  # mixture PLD grid blow-up
@example(kw=dict(n=1000, batch_size=2, noise_multiplier=1.0, steps=3, delta=1e-300, accountant="pld",
                 value_discretization_interval=0.02))  # ε = inf returned
def test_with_replacement_epsilon(kw):
    check_verify(_privacy.with_replacement_epsilon, kw, parameter_names(_privacy.with_replacement_epsilon))


PHASE = st.tuples(reals(1e-4, 1), reals(0.5, 5), small(1, 20))
JUNK_PHASE = st.one_of(st.tuples(JUNK_REAL, reals(0.5, 5), small(1, 5)),
                       st.tuples(reals(1e-3, 1), JUNK_REAL, small(1, 5)),
                       st.tuples(reals(1e-3, 1), reals(0.5, 5), JUNK_COUNT), st.just((0.1, 1.0)), st.just("abc"),
                       st.just(None))


@settings(max_examples=examples(40))
@given(kw=fuzzed(dict(phases=st.lists(PHASE, min_size=1, max_size=3), delta=reals(1e-9, 0.1), accountant=ACCOUNTANTS,
                      value_discretization_interval=VDI),
                 dict(junk_for(dict(delta=0, accountant=0, value_discretization_interval=0)),
                      phases=st.one_of(st.lists(JUNK_PHASE, min_size=1, max_size=2), st.just([]), st.just(3),
                                       st.just(None)))))
@example(kw=dict(phases=3, delta=1e-5, accountant="rdp", value_discretization_interval=None))  # list(3): TypeError
@example(kw=dict(phases=[(1e-300, 1e-300, 2)], delta=1e-5, accountant="rdp", value_discretization_interval=None))
def test_composed_epsilon(kw):  # a phase's fields carry the names of the docstring's triple
    names = parameter_names(_privacy.composed_epsilon, ("sampling_rate", "noise_multiplier", "steps"))
    check_verify(_privacy.composed_epsilon, kw, names)


@settings(max_examples=examples(40))
@given(kw=fuzzed(dict(epsilons=st.lists(reals(0, 2), min_size=3, max_size=3),
                      deltas=st.lists(reals(0, 1e-3), min_size=3, max_size=3), delta=reals(1e-9, 0.1),
                      value_discretization_interval=reals(1e-3, 1e-2)),
                 dict(junk_for(dict(delta=0, value_discretization_interval=0)),
                      epsilons=st.one_of(JUNK_ARRAY, st.just([1e300, 1.0, 1.0]), st.just([1e6, 1e6, 1e6])),
                      deltas=JUNK_ARRAY)))
@example(kw=dict(epsilons=[1e6, 1e6, 1e6], deltas=[0.0, 0.0, 0.0], delta=1e-5, value_discretization_interval=1e-4))
def test_optimal_composition_epsilon(kw):  # the pin: dp-accounting's OverflowError (math range error)
    check_verify(_privacy.optimal_composition_epsilon, kw, parameter_names(_privacy.optimal_composition_epsilon))


MECH_GOOD = dict(sampling=st.sampled_from(_privacy.SAMPLINGS), noise_multiplier=reals(1, 5), steps=small(1, 5),
                 sampling_rate=reals(1e-3, 1), n=small(200, 1000), batch_size=small(1, 3))
MECH_JUNK = dict(sampling=JUNK_NAME, noise_multiplier=JUNK["noise_multiplier"], steps=JUNK["steps"],
                 sampling_rate=JUNK["sampling_rate"], n=JUNK_COUNT, batch_size=JUNK_COUNT)


@settings(max_examples=examples(40))
@given(mech=fuzzed(MECH_GOOD, MECH_JUNK, max_bad=1),
       call=fuzzed(dict(delta=reals(1e-9, 0.1), accountant=ACCOUNTANTS, value_discretization_interval=reals(1e-2, 5e-2),
                        epsilon=reals(0.1, 20)),
                   junk_for(dict(delta=0, accountant=0, value_discretization_interval=0), epsilon=JUNK_REAL),
                   max_bad=1),
       private=st.booleans())
def test_mechanism(mech, call, private):
    params = parameter_names(_privacy.Mechanism) | parameter_names(_privacy.Mechanism.epsilon) | {"epsilon"}
    try:
        m = _privacy.Mechanism(**mech)
    except InvalidParameter as exc:
        assert names_a_parameter(exc, params), f"Mechanism({mech}) -> {exc!r}"
        return
    if private:
        kw = dict(call)
        check_verify(m.is_private, kw, params)
    else:
        kw = {k: v for k, v in call.items() if k != "epsilon"}
        check_verify(m.epsilon, kw, params)


EVENTS = st.sampled_from([dpe.GaussianDpEvent(1.0), dpe.PoissonSampledDpEvent(0.1, dpe.GaussianDpEvent(2.0)),
                          dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(3.0), 5), dpe.LaplaceDpEvent(1.0)])


@settings(max_examples=examples(30))
@given(kw=fuzzed(dict(event=EVENTS, delta=reals(1e-9, 0.1), accountant=ACCOUNTANTS, value_discretization_interval=VDI),
                 dict(junk_for(dict(delta=0, accountant=0, value_discretization_interval=0)),
                      event=st.one_of(JUNK_ANY, st.just(dpe.GaussianDpEvent(1e-9)),
                                            st.just(dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(0.05), 10**6))))))
@example(kw=dict(event="gaussian", delta=1e-5, accountant="rdp", value_discretization_interval=None))
def test_epsilon_of(kw):  # the pin: a string event was blamed on 'accountant'; now 'event' is named
    check_verify(_privacy.epsilon_of, kw, parameter_names(_privacy.epsilon_of))


# ---------------------------------------------------------------------------- verify functions
@settings(max_examples=examples(30))
@given(kw=fuzzed(dict(d=small(1, 16), batch_size=small(1, 8), sigma=reals(0.1, 5), clip_norm=reals(0.1, 5),
                      beta2=reals(0.5, 0.99), steps=small(1, 30), case=st.sampled_from(["optimistic", "pessimistic"]),
                      trials=small(1, 3), seed=small(0, 3)),
                 dict(d=JUNK_COUNT, batch_size=JUNK_COUNT, steps=JUNK_COUNT, trials=JUNK_COUNT, seed=JUNK_COUNT,
                      case=JUNK_NAME)))
def test_negative_fraction(kw):
    from verify.papers.dp_adam_design import negative_fraction

    check_verify(negative_fraction, kw, parameter_names(negative_fraction))


NEGATIVE_FRACTION_OPEN = dict(d=1, batch_size=1, sigma=1.0, clip_norm=1.0, beta2=0.5, steps=1, case="optimistic",
                              trials=1, seed=0)


@pytest.mark.parametrize("bad", [dict(clip_norm=1e300),  # kernel InvalidParameter naming signal, noise_std
                                 dict(d=10**10),  # a trials × 10¹⁰ allocation
                                 dict(batch_size=1e300)])  # OverflowError: int too large to convert to float
def test_negative_fraction_extreme_inputs_are_named(bad):
    from verify.papers.dp_adam_design import negative_fraction

    check_verify(negative_fraction, dict(NEGATIVE_FRACTION_OPEN, **bad), parameter_names(negative_fraction))


SCORES = st.integers(4, 40).map(lambda m: np.random.default_rng(m).standard_normal(m))


@settings(max_examples=examples(40))
@given(kw=fuzzed(dict(without=SCORES, with_canary=SCORES.map(lambda x: x + 1.0), delta=reals(0, 0.5),
                      level=reals(0.5, 0.99), seed=small(0, 3)),
                 dict(without=JUNK_ARRAY, with_canary=JUNK_ARRAY, delta=JUNK_REAL, level=JUNK_REAL, seed=JUNK_COUNT)))
def test_epsilon_lower_bound(kw):
    from verify.audit import epsilon_lower_bound

    check_verify(epsilon_lower_bound, kw, parameter_names(epsilon_lower_bound))


@settings(max_examples=examples(40))
@given(kw=fuzzed(dict(without=SCORES, with_canary=SCORES.map(lambda x: x + 1.0), delta=reals(0, 0.5),
                      level=reals(0.5, 0.99), seed=small(0, 3), method=st.just("gdp"), thresholds=small(1, 5)),
                 dict(without=JUNK_ARRAY, with_canary=JUNK_ARRAY, delta=JUNK_REAL, level=JUNK_REAL, seed=JUNK_COUNT,
                      method=st.sampled_from(["GDP", "", None, 3]), thresholds=JUNK_COUNT)))
def test_epsilon_lower_bound_gdp(kw):
    from verify.audit import epsilon_lower_bound

    check_verify(epsilon_lower_bound, kw, parameter_names(epsilon_lower_bound))


# ---------------------------------------------------------------------------- theory (table-driven)
VEC = st.lists(reals(0.1, 10), min_size=3, max_size=3)
UNIT_VEC = st.lists(reals(0.01, 0.99), min_size=3, max_size=3)
PSD = small(0, 5).map(lambda s: (lambda X: X @ X.T)(np.random.default_rng(s).standard_normal((3, 2))))
SPD = small(0, 5).map(lambda s: (lambda X: X @ X.T + np.eye(3))(np.random.default_rng(s).standard_normal((3, 3))))
GRADS = st.tuples(small(1, 5), small(1, 3)).map(lambda s: np.random.default_rng(sum(s)).standard_normal(s))
JUNK_VEC = st.one_of(JUNK_ARRAY, st.just([1e-300, 1.0, 1.0]), st.just([1e300, 1e-300, 1.0]), st.just([0.0, 1.0, 2.0]))
JUNK_MATRIX = st.one_of(JUNK_ARRAY, st.just(np.ones((2, 3))), st.just(np.zeros((3, 3))),
                        st.just(np.full((3, 3), 1e300)), st.just(np.eye(3) * 1e-320))
EXACT = st.booleans()

THEORY = {
    "adp.m_value": (tadp.m_value, dict(alpha=VEC, b=VEC, exact=EXACT), dict(alpha=JUNK_VEC, b=JUNK_VEC)),
    "adp.m_adp": (tadp.m_adp, dict(b=VEC, exact=EXACT), dict(b=JUNK_VEC)),
    "adp.m_dp": (tadp.m_dp, dict(b=VEC, exact=EXACT), dict(b=JUNK_VEC)),
    "adp.m_ratio": (tadp.m_ratio, dict(b=VEC, exact=EXACT), dict(b=JUNK_VEC)),
    "adp.polynomial_schedule": (tadp.polynomial_schedule,
                                dict(T_steps=small(1, 50), a_=reals(0.1, 5), c_=reals(0.1, 5)),
                                dict(T_steps=JUNK_COUNT)),
    "adp.extended_advanced_composition": (tadp.extended_advanced_composition,
                                          dict(eps=UNIT_VEC, deltas=st.lists(reals(1e-9, 0.1), min_size=3, max_size=3),
                                               delta_prime=reals(1e-12, 0.5)),
                                          dict(eps=JUNK_VEC, deltas=JUNK_VEC)),
    "dp_adam_design.dpmf_bias_numeric": (td.dpmf_bias_numeric, dict(row_norms2=VEC, beta2_value=reals(0, 0.999),
                                                                       s_value=reals(0, 5)), dict(row_norms2=JUNK_VEC)),
    "dp_adam_design.negative_probability_gaussian": (td.negative_probability_gaussian,
                                                     dict(signal=reals(-3, 3), noise_std=reals(0, 3),
                                                          beta2=reals(0, 0.999), steps=small(1, 200)),
                                                     dict(steps=JUNK_COUNT)),
    "dp_adam_design.vhat_weights": (td.vhat_weights, dict(beta2_value=reals(0, 0.999), steps=small(1, 200)),
                                    dict(steps=JUNK_COUNT)),
    "dp_adam_design.negative_probability": (td.negative_probability,
                                            dict(signal=reals(-3, 3), noise_std=reals(0, 3), beta2=reals(0, 0.999),
                                                 steps=small(1, 30)), dict(steps=JUNK_COUNT)),
    "noisy_adagrad.psd_sqrt_pinv": (tn.psd_sqrt_pinv, dict(S=PSD, rtol=reals(0, 1e-6)), dict(S=JUNK_MATRIX)),
    "noisy_adagrad.lemma13_sides": (tn.lemma13_sides, dict(grads=GRADS, rtol=reals(0, 1e-6)),
                                    dict(grads=st.one_of(JUNK_MATRIX, st.just(np.ones((10, 10**4)))))),
    "noisy_adagrad.lemma16_sides": (tn.lemma16_sides, dict(a=VEC), dict(a=JUNK_VEC)),
    "noisy_adagrad.lemma12_ratio": (tn.lemma12_ratio, dict(A=PSD, B=SPD, u=VEC, v=VEC),
                                    dict(A=JUNK_MATRIX, B=JUNK_MATRIX, u=JUNK_VEC, v=JUNK_VEC)),
    "noisy_adagrad.intrinsic_dimension": (tn.intrinsic_dimension, dict(A=SPD), dict(A=JUNK_MATRIX)),
    "noisy_adagrad.trace_growth_exponent": (tn.trace_growth_exponent,
                                            dict(a=st.one_of(reals(0, 0.49), st.just(tn.alpha))), {}),
    "pagan.power_sum": (tp.power_sum, dict(a=st.one_of(reals(0.1, 3), st.just(sp.Rational(2, 3)))), {}),
    "pagan.power_law_sums": (tp.power_law_sums, dict(exponent=reals(0.5, 2),
                                                       powers=st.just((1, sp.Rational(2, 3)))),
                             dict(powers=st.one_of(JUNK_ARRAY, st.just((1, -1)), st.just(3)))),
    "pagan.gaussian_norm_moment": (tp.gaussian_norm_moment, dict(k=small(0, 6)),
                                   dict(k=st.one_of(JUNK_COUNT, st.just(10**6), st.just([2])))),
}


def _theory_case(key):
    fn, good, junk = THEORY[key]
    return fuzzed(good, junk).map(lambda kw: (key, kw))


@settings(max_examples=examples(250))
@given(case=st.sampled_from(sorted(THEORY)).flatmap(_theory_case))
@example(case=("adp.m_ratio", dict(b=[1e-300, 1.0, 1.0])))  # 1/b² = inf: NaN ratio
@example(case=("adp.polynomial_schedule", dict(T_steps="abc", a_=1.0, c_=1.0)))  # int("abc"): unnamed ValueError
@example(case=("adp.polynomial_schedule", dict(T_steps=1e300, a_=1.0, c_=1.0)))  # np.arange of 1e300 elements
@example(case=("dp_adam_design.negative_probability_gaussian", dict(signal=0.0, noise_std=0.0, beta2=0.9, steps=3)))
@example(case=("dp_adam_design.vhat_weights", dict(beta2_value=0.9, steps=1e300)))  # np.arange of 1e300 elements
@example(case=("noisy_adagrad.lemma12_ratio", dict(A=np.zeros((3, 3)), B=np.zeros((3, 3)), u=[1.0, 0, 0],
                                                    v=[1.0, 0, 0])))  # singular A + B: LinAlgError
@example(case=("noisy_adagrad.intrinsic_dimension", dict(A=np.ones((2, 3)))))  # non-square: LinAlgError
@example(case=("pagan.gaussian_norm_moment", dict(k="abc")))  # int("abc"): unnamed ValueError
@example(case=("pagan.gaussian_norm_moment", dict(k=[2])))  # lru_cache: unhashable list, TypeError
@example(case=("pagan.power_law_sums", dict(exponent=10**400, powers=(1,))))  # float(10**400) overflows
@example(case=("dp_adam_design.negative_probability", dict(signal=1.0, noise_std=2.15e-260, beta2=0.5, steps=2)))
@example(case=("noisy_adagrad.lemma13_sides", dict(grads=np.full((3, 3), 1e300), rtol=1e-12)))  # named internal S
@example(case=("noisy_adagrad.trace_growth_exponent", dict(a=1e308)))  # (1 − 2a)/2 = −inf returned
def test_theory_numeric_functions(case):  # negative_probability pin: λ = (signal/noise_std)² overflowed, sin(inf)
    key, kw = case
    fn = THEORY[key][0]
    check_theory(fn, kw, parameter_names(fn))
