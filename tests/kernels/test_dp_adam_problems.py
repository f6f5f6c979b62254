"""kernels.dp_adam_problems: the quadratic example (§4.1) and its noiseless optimum under Adam, and the synthetic
gradient streams (aligned records, power-law coordinate scales)."""

import math

import numpy as np
import pytest

from kernels import dp_adam as kd
from kernels import dp_adam_problems as kdp


def test_problems():
    q = kdp.quadratic()
    assert q.h.tolist() == [100.0, 1.0]
    g = q.grads(np.zeros(2), np.array([[1.0, 2.0]]))
    np.testing.assert_allclose(g, [[-100.0, -2.0]])
    # noiseless data: non-private Adam reaches μ in both coordinates despite the 100× curvature difference
    # (Adam's steps are ~lr per coordinate, so it ends within a few lr of the optimum)
    qn = kdp.quadratic(s=[0.0, 0.0])
    cfg = kd.RoundConfig(lr=0.01, beta2=0.999, clip_norm=math.inf, batch_size=4)
    out = kd.run_stream(cfg, qn.grad_fn(4), 2, 3000, seed=0)
    assert np.all(np.abs(out["theta"][0] - qn.mu) < 5 * cfg.lr)
    sg = kdp.synthetic_gradients(d=50, batch=4, alignment=1.0, seed=1)
    G = sg.round(np.random.default_rng(0))
    np.testing.assert_allclose(G, np.tile(G[0], (4, 1)))  # aligned: all records equal
    heavy = kdp.synthetic_gradients(d=1000, scale="powerlaw", alpha=1.0, seed=1)
    assert heavy.scales.max() / heavy.scales.min() == pytest.approx(1000.0)
