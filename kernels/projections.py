"""Standalone projection and clipping kernels (row-wise over a batch), for users and tests.

They call the same compiled helpers as the fused loops (``kernels._cpu``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import dpvalidate as V
from kernels import _cpu


@njit(cache=True, nogil=True)
def _ellipsoid_rows(G, a, out):
    k = 0
    for i in range(G.shape[0]):
        if _cpu.project_ellipsoid(G[i], a, out[i]):
            k += 1
    return k


@njit(cache=True, nogil=True)
def _clip_rows(G, clip_norm, out):
    k = 0
    for i in range(G.shape[0]):
        s = 0.0
        for j in range(G.shape[1]):
            s += G[i, j] * G[i, j]
        f = _cpu.clip_factor(np.sqrt(s), clip_norm)
        if f < 1.0:
            k += 1
        for j in range(G.shape[1]):
            out[i, j] = G[i, j] * f
    return k


@njit(cache=True, nogil=True)
def _ball_hnorm(x, inv_h, radius):
    y = x.copy()
    _cpu.project_ball_hnorm(y, inv_h, radius)
    return y


def _squared_norms_finite(names: str, x: np.ndarray, weights=None) -> None:
    """Refuse rows whose (weighted) squared norm overflows float64: the kernels' norms would be inf and the
    projection silently 0 (entries beyond about 1e154)."""
    with np.errstate(over="ignore", invalid="ignore"):
        q = np.sum(x * x if weights is None else weights * x * x, axis=-1)
    if not np.all(np.isfinite(q)):
        raise V.InvalidParameter(names, "small enough that every (weighted) squared row norm is finite in float64 "
                                 "(entries below about 1e154)")


def project_ellipsoid(G, a) -> np.ndarray:
    """Euclidean projection of each row of G onto {y : Σ a_j y_j² ≤ 1} (a > 0); Σ a_j g_j² must be finite."""
    G = V.finite_array("G", np.atleast_2d(V.finite_array("G", G)), ndim=2)
    a = V.finite_array("a", a, shape=(G.shape[1],))
    if np.any(a <= 0):
        raise V.InvalidParameter("a", "positive in every coordinate", "a non-positive entry")
    _squared_norms_finite("G, a", G, a)
    out = np.empty_like(G)
    _ellipsoid_rows(G, a, out)
    V.finite_output("G, a", out)
    return out


def clip_rows(G, clip_norm: float) -> np.ndarray:
    """ℓ₂ clipping of each row: g·min(1, C/‖g‖) (‖g‖² must be finite)."""
    G = V.finite_array("G", np.atleast_2d(V.finite_array("G", G)), ndim=2)
    clip_norm = V.positive("clip_norm", clip_norm)
    _squared_norms_finite("G", G)
    out = np.empty_like(G)
    _clip_rows(G, clip_norm, out)
    return out


def project_ball(x, radius: float = 1.0, h=None) -> np.ndarray:
    """Projection onto the ℓ₂ ball of radius R, Euclidean or in the norm ‖·‖_H with H = diag(h) (‖x‖² finite)."""
    x = V.finite_array("x", x, ndim=1)
    radius = V.positive("radius", radius)
    _squared_norms_finite("x", x)
    if h is None:
        n = np.linalg.norm(x)
        return x * (radius / n) if n > radius else x.copy()
    h = V.finite_array("h", h, shape=x.shape)
    if np.any(h <= 0):
        raise V.InvalidParameter("h", "positive in every coordinate", "a non-positive entry")
    with np.errstate(over="ignore", divide="ignore"):
        inv_h = 1.0 / h
    if not np.all(np.isfinite(inv_h)):
        raise V.InvalidParameter("h", "entries whose reciprocals are finite (above about 1e-308)", "a subnormal entry")
    out = _ball_hnorm(x, inv_h, radius)
    V.finite_output("x, h", out)
    return out


def project_box(x, radius: float = 1.0) -> np.ndarray:
    """Projection onto [−R, R]^d (the same in every diagonal norm)."""
    x = V.finite_array("x", x, ndim=1)
    radius = V.positive("radius", radius)
    return np.clip(x, -radius, radius)
