"""Projection kernels: exact properties (hypothesis) and agreement with the references."""

import numpy as np
import pytest
from hypothesis import example, given, target
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from kernels import projections as kj
from kernels.pagan_reference import ellipsoid_projection, project_domain

finite = st.floats(-1e3, 1e3, allow_nan=False)
positive = st.floats(1e-3, 1e3, allow_nan=False)


@st.composite
def vec_and_weights(draw):
    d = draw(st.integers(1, 12))
    x = draw(arrays(np.float64, d, elements=finite))
    a = draw(arrays(np.float64, d, elements=positive))
    return x, a


@given(vec_and_weights())
@example((np.array([3.0, 4.0]), np.array([1.0, 1.0])))
@example((np.array([0.0]), np.array([1.0])))
def test_ellipsoid_projection_is_feasible_and_optimal(xa):
    x, a = xa
    y = kj.project_ellipsoid(x[None, :], a)[0]
    q = float(a @ y**2)
    assert q <= 1.0 + 1e-12
    if a @ x**2 <= 1.0:
        np.testing.assert_array_equal(y, x)
        return
    # KKT: y = x/(1+μa) for one μ ≥ 0, on the boundary
    assert q == pytest.approx(1.0, rel=1e-9)
    with np.errstate(divide="ignore", invalid="ignore"):
        mus = (x / y - 1.0) / a
    mus = mus[np.abs(x) > 1e-9 * np.abs(x).max()]
    assert np.all(mus >= -1e-9)
    np.testing.assert_allclose(mus, mus[0], rtol=1e-6, atol=1e-9)
    # no feasible random point is closer (optimality spot check)
    rng = np.random.default_rng(0)
    cand = rng.standard_normal((64, x.size))
    cand /= np.sqrt((a * cand**2).sum(axis=1, keepdims=True))
    dist = np.linalg.norm(x - y)
    target(float(np.min(np.linalg.norm(x - cand, axis=1)) - dist), label="margin over random boundary points")
    assert np.all(np.linalg.norm(x - cand, axis=1) >= dist - 1e-9 * (1 + dist))


@given(vec_and_weights())
def test_kernel_ellipsoid_matches_reference(xa):
    x, a = xa
    np.testing.assert_allclose(kj.project_ellipsoid(x[None, :], a), ellipsoid_projection(x[None, :], a),
                               rtol=1e-10, atol=1e-12)


@given(arrays(np.float64, st.integers(1, 10), elements=finite), st.floats(1e-3, 1e2))
def test_uniform_ellipsoid_equals_l2_clipping(x, C):
    a = np.full(x.size, 1.0 / C**2)
    np.testing.assert_allclose(kj.project_ellipsoid(x[None, :], a), kj.clip_rows(x[None, :], C), rtol=1e-12,
                               atol=1e-12)


@given(vec_and_weights(), st.floats(0.1, 10.0))
def test_hnorm_ball_projection_matches_reference(xa, R):
    x, h = xa
    y = kj.project_ball(x, R, h=h)
    assert np.linalg.norm(y) <= R * (1 + 1e-12)
    np.testing.assert_allclose(y, project_domain(x, 2, R, 1.0 / h), rtol=1e-7, atol=1e-10)


def test_box_projection():
    np.testing.assert_array_equal(kj.project_box(np.array([-3.0, 0.2, 5.0]), 1.0), [-1.0, 0.2, 1.0])


def test_bad_inputs():
    with pytest.raises(ValueError, match="a must be positive"):
        kj.project_ellipsoid(np.ones((1, 2)), np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="G must be finite"):
        kj.clip_rows(np.array([[np.nan, 1.0]]), 1.0)
    with pytest.raises(ValueError, match="shape"):
        kj.project_ellipsoid(np.ones((1, 3)), np.ones(2))
