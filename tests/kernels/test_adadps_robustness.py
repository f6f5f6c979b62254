"""No NaN or inf from the adadps kernels at the edges: noise for ε ∈ [1e-3, 1e3] and δ ∈ [1e-12, 0.5]
(σ = √(2 log(1.25/δ))/ε, the Gaussian mechanism's calibration, as a map onto the σ range), zero records,
duplicate records, d = 1, every centralised method and the federated variant."""

import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kernels import adadps as ka


def _sigma(log_eps: float, log_delta: float) -> float:
    return math.sqrt(2.0 * math.log(1.25 / 10.0**log_delta)) / 10.0**log_eps


def _problem(loss: str, d: int, shape: str, seed: int, n: int = 8) -> ka.GLMProblem:
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.5).astype(float) * rng.uniform(0.5, 3.0, (n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0) if loss == "logistic" else 3.0 * rng.standard_normal(n)
    Xp = (rng.random((4, d)) < 0.5).astype(float)
    yp = np.where(rng.random(4) < 0.5, -1.0, 1.0) if loss == "logistic" else rng.standard_normal(4)
    if shape == "zero":
        X[:], Xp[:] = 0.0, 0.0
        if loss == "squared":
            y[:], yp[:] = 0.0, 0.0
    elif shape == "duplicate":
        X[:], y[:] = X[0], y[0]
    side = {"a": rng.uniform(1e-3, 1.0, d)}
    return ka.GLMProblem(X, y, loss, side, {}, Xp, yp, user_ptr=np.array([0, 3, 3, n], dtype=np.int64))


LOG_EPS = st.floats(-3, 3)
LOG_DELTA = st.floats(-12, math.log10(0.5))


@settings(max_examples=60, deadline=None)
@given(method=st.sampled_from(list(ka.METHODS)), loss=st.sampled_from(["squared", "logistic"]),
       d=st.sampled_from([1, 3]), shape=st.sampled_from(["data", "zero", "duplicate"]),
       sampling=st.sampled_from(["poisson", "fixed"]), log_eps=LOG_EPS, log_delta=LOG_DELTA,
       lr=st.sampled_from([1e-3, 0.5, 2.0]), seed=st.integers(0, 5))
@example(method="dp_r_pub", loss="squared", d=1, shape="zero", sampling="poisson", log_eps=-3.0, log_delta=-12.0,
         lr=2.0, seed=0)  # the largest σ, and A = √0 + ε_a = 1e-8 dividing the noise
@example(method="dp_adam", loss="logistic", d=1, shape="duplicate", sampling="fixed", log_eps=3.0, log_delta=-0.30103,
         lr=2.0, seed=1)  # the smallest σ: v̂ ≈ 0 in DP-Adam's denominator
def test_central_outputs_are_finite(method, loss, d, shape, sampling, log_eps, log_delta, lr, seed):
    prob = _problem(loss, d, shape, seed)
    out = ka.run_central(prob, method, lr=lr, clip=1.0, sigma=_sigma(log_eps, log_delta), batch_size=3, steps=3,
                         sampling=sampling, side_info="a", options=ka.CentralOptions(n_log=3), trials=2, seed=seed)
    for key in ("loss", "w", "clip_fraction"):
        assert np.all(np.isfinite(out[key])), (key, method, loss, d, shape, log_eps, log_delta)


@settings(max_examples=30, deadline=None)
@given(loss=st.sampled_from(["squared", "logistic"]), d=st.sampled_from([1, 3]),
       shape=st.sampled_from(["data", "zero", "duplicate"]), side=st.sampled_from(["a", "ones"]),
       device_noise=st.booleans(), log_eps=LOG_EPS, log_delta=LOG_DELTA, seed=st.integers(0, 5))
def test_federated_outputs_are_finite(loss, d, shape, side, device_noise, log_eps, log_delta, seed):
    prob = _problem(loss, d, shape, seed)  # users: 3 records, none (an empty user), 5 records
    out = ka.run_federated(prob, local_lr=0.5, clip=1.0, sigma=_sigma(log_eps, log_delta), users_per_round=2,
                           rounds=3, local_steps=2, local_batch=2, side_info=side,
                           options=ka.FederatedOptions(device_noise=device_noise, n_log=3), trials=2, seed=seed)
    assert np.all(np.isfinite(out["loss"])) and np.all(np.isfinite(out["w"]))
