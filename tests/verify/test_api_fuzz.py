"""Hypothesis fuzzing of public Python entry points: any input either gives a finite answer or raises
InvalidParameter/ValueError whose message names the offending parameter — never another exception."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import InvalidParameter
from kernels.adp import run_adp, smooth_nonconvex
from theory import dp_adam_design as td

junk = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5), st.sampled_from(
    [None, "1", "abc", True, [], [1.0], -0.0, 1e300, -1e-300]))
maybe_good = lambda good: st.one_of(good, good, junk)  # noqa: E731


def _names_a_parameter(exc: Exception, names) -> bool:
    msg = str(exc)
    return any(n in msg for n in names)


@settings(max_examples=60)
@given(sigma=maybe_good(st.floats(0, 10)), steps=maybe_good(st.integers(1, 4)), eta=maybe_good(st.floats(1e-3, 2)),
       b_rule=st.sampled_from(["poly", "adaptive", "cubic"]), alpha_rule=st.sampled_from(["dp", "adp", "x"]),
       seed=maybe_good(st.integers(0, 9)))
def test_run_adp(sigma, steps, eta, b_rule, alpha_rule, seed):
    prob = smooth_nonconvex(n=10, d=2, seed=0)
    try:
        out = run_adp(prob, steps=steps, eta=eta, b_rule=b_rule, alpha_rule=alpha_rule, sigma=sigma, seed=seed,
                      n_log=2)
    except InvalidParameter as exc:
        assert _names_a_parameter(exc, ("sigma", "steps", "eta", "b_rule", "alpha_rule", "seed")), str(exc)
        return
    assert np.all(np.isfinite(out["grad_norm2"]))


@settings(max_examples=80)
@given(signal=maybe_good(st.floats(-3, 3)), noise_std=maybe_good(st.floats(0, 3)),
       beta2=maybe_good(st.floats(0, 0.999)), steps=maybe_good(st.integers(1, 200)))
def test_negative_probability(signal, noise_std, beta2, steps):
    try:
        p = td.negative_probability(signal, noise_std, beta2, steps)
    except ValueError as exc:
        assert _names_a_parameter(exc, ("signal", "noise_std", "beta2", "steps")), str(exc)
        return
    assert 0.0 <= p <= 1.0 and math.isfinite(p)
