"""No NaN or inf from kernels.dp_adam at the edges: noise multipliers covering ε ∈ [1e-3, 1e3] at
δ ∈ [1e-12, 0.5] (σ from 1e-4 to 1e5, and σ = 0), zero gradients, duplicate records, d = 1, every variant,
both optimizers and every DP-MF strategy."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import dp_adam as kd


def _sigma(log_eps: float, log_delta: float) -> float:
    """The classical Gaussian calibration σ = √(2 ln(1.25/δ))/ε (the σ range these ε, δ span)."""
    return math.sqrt(2.0 * math.log(1.25 / 10.0**log_delta)) / 10.0**log_eps


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(list(kd.VARIANTS)), optimizer=st.sampled_from(list(kd.OPTIMIZERS)),
       kind=st.sampled_from(list(kd.STRATEGIES)), d=st.sampled_from([1, 3]), batch=st.sampled_from([1, 3]),
       shape=st.sampled_from(["data", "zero", "duplicate"]), log_eps=st.floats(-3, 3),
       log_delta=st.floats(-12, math.log10(0.5)), noiseless=st.booleans(), seed=st.integers(0, 5))
def test_run_stream_outputs_are_finite(variant, optimizer, kind, d, batch, shape, log_eps, log_delta, noiseless,
                                       seed):
    sigma = 0.0 if noiseless else _sigma(log_eps, log_delta)
    cfg = kd.RoundConfig(variant=variant, optimizer=optimizer, sigma=sigma, batch_size=batch, clip_norm=1.0)

    def grads(t, theta, rng):
        g = 3.0 * rng.standard_normal((batch, d))
        if shape == "zero":
            g[:] = 0.0
        elif shape == "duplicate":
            g[:] = g[0]
        return g

    out = kd.run_stream(cfg, grads, d, 5, trials=2, seed=seed, strat_kind=kind)
    for key, arr in out.items():
        assert np.all(np.isfinite(arr)), (key, variant, optimizer, kind, d, batch, shape, sigma)


@settings(max_examples=20, deadline=None)
@given(variant=st.sampled_from(["post_processing", "ime", "bias_correction", "scale_then_privatize"]),
       kind=st.sampled_from(list(kd.STRATEGIES)), log_eps=st.floats(-3, 3), log_delta=st.floats(-12, math.log10(0.5)),
       zero=st.booleans(), seed=st.integers(0, 3))
def test_logistic_1d_outputs_are_finite(variant, kind, log_eps, log_delta, zero, seed):
    rng = np.random.default_rng(seed)
    x = np.zeros(6) if zero else rng.standard_normal(6)
    cfg = kd.RoundConfig(variant=variant, optimizer="adagrad", beta1=0.0, sigma=_sigma(log_eps, log_delta),
                        clip_norm=1.0, lr=0.1)
    th = kd.run_logistic_1d(x, np.ones(6), cfg, strat_kind=kind, trials=2, seed=seed)
    assert np.all(np.isfinite(th))
