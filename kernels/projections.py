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
    """Euclidean projection of each row of G onto {y : Σ a_j y_j² ≤ 1} (a > 0); Σ a_j g_j² must be finite.

    A row already inside is copied unchanged; a row outside becomes g_j/(1 + μ a_j) with μ > 0 found by
    Newton's method, then rescaled so the constraint holds up to rounding (``kernels._shared.project_ellipsoid``).

    Parameters
    ----------
    G : array_like of float, shape (m, d) or (d,)
        The rows to project (a single vector is treated as one row); finite.
    a : array_like of float, shape (d,)
        The ellipsoid's coefficients, each > 0 and finite.

    Returns
    -------
    ndarray of float64, shape (m, d)
        The projected rows (always 2-d, also for a 1-d ``G``).

    Raises
    ------
    InvalidParameter
        When ``G`` is not a finite real array of rank ≤ 2, ``a`` not a finite array of shape (d,), an entry of
        ``a`` is ≤ 0, a weighted squared row norm Σ a_j g_j² overflows float64, or the result is not finite.
    """
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
    """ℓ₂ clipping of each row: g·min(1, C/‖g‖) (‖g‖² must be finite).

    Parameters
    ----------
    G : array_like of float, shape (m, d) or (d,)
        The rows (e.g. per-example gradients; a single vector is one row); finite.
    clip_norm : float
        The clipping threshold C > 0, finite.

    Returns
    -------
    ndarray of float64, shape (m, d)
        The clipped rows: a row with ‖g‖ ≤ C unchanged, any other rescaled to norm C (always 2-d).

    Raises
    ------
    InvalidParameter
        When ``G`` is not a finite real array of rank ≤ 2, ``clip_norm`` is not a finite number > 0, or a
        squared row norm overflows float64.
    """
    G = V.finite_array("G", np.atleast_2d(V.finite_array("G", G)), ndim=2)
    clip_norm = V.positive("clip_norm", clip_norm)
    _squared_norms_finite("G", G)
    out = np.empty_like(G)
    _clip_rows(G, clip_norm, out)
    return out


def project_ball(x, radius: float = 1.0, h=None) -> np.ndarray:
    """Projection onto the ℓ₂ ball of radius R, Euclidean or in the norm ‖·‖_H with H = diag(h) (‖x‖² finite).

    With ``h`` None: x·R/‖x‖₂ when ‖x‖₂ > R, else a copy of x.  With ``h``: the point of {‖y‖₂ ≤ R} closest
    to x in ‖·‖_H, y_j = x_j/(1 + μ/h_j) with μ ≥ 0 from Newton's method, rescaled onto the sphere if
    rounding left it outside (``kernels._shared.project_ball_hnorm``).

    Parameters
    ----------
    x : array_like of float, shape (d,)
        The point to project; finite.
    radius : float, optional
        The ball's radius R > 0, finite (default 1).
    h : array_like of float, shape (d,), optional
        The diagonal of H (each entry > 0, with a finite reciprocal); None (default) for the Euclidean
        projection.

    Returns
    -------
    ndarray of float64, shape (d,)
        The projection (a new array).

    Raises
    ------
    InvalidParameter
        When ``x`` is not a finite 1-d real array, ``radius`` is not a finite number > 0, ‖x‖₂² overflows
        float64, ``h`` is not a finite array of x's shape, has an entry ≤ 0 or so small (subnormal) that its
        reciprocal is infinite, or the result is not finite.
    """
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
    """Projection onto [−R, R]^d (the same in every diagonal norm).

    Parameters
    ----------
    x : array_like of float, shape (d,)
        The point to project; finite.
    radius : float, optional
        The half-width R > 0 of the box, finite (default 1).

    Returns
    -------
    ndarray of float64, shape (d,)
        x with every coordinate clipped to [−R, R] (a new array).

    Raises
    ------
    InvalidParameter
        When ``x`` is not a finite 1-d real array or ``radius`` is not a finite number > 0.
    """
    x = V.finite_array("x", x, ndim=1)
    radius = V.positive("radius", radius)
    return np.clip(x, -radius, radius)
