"""Short NumPy references: the test oracles and the benchmark baselines.

Written in the optax idiom: an algorithm is a chain of small transforms, each an
``(init, update)`` pair with an explicit state, applied to the batch's per-record
gradients: privatise (ellipsoid projection) → mean → noise → subspace → precondition.
Given the same ``Generator`` (same draws in the same order: the batch indices, then
the noise) a reference matches its fused kernel to floating-point tolerance.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from kernels.pagan import STEP_ADAGRAD, STEP_ADANORM, LoopConfig
from kernels.pagan_problems import LOSS_ABS, Dataset


class Transform(NamedTuple):
    """An optax-style piece: ``init(d)`` gives the initial state, ``update(g, state)`` gives (output, new state)."""

    init: Callable[[int], Any]
    update: Callable[[np.ndarray, Any], tuple[np.ndarray, Any]]


def chain(*transforms: Transform) -> Transform:
    """Compose transforms: each ``update`` feeds its output to the next.

    Parameters
    ----------
    *transforms : Transform
        The pieces, in the order they apply.

    Returns
    -------
    Transform
        Its state is the tuple of the pieces' states; ``update(g, states)`` returns the last piece's output and the
        tuple of new states.
    """
    def init(d):
        return tuple(t.init(d) for t in transforms)

    def update(g, states):
        new = []
        for t, s in zip(transforms, states):
            g, s = t.update(g, s)
            new.append(s)
        return g, tuple(new)

    return Transform(init, update)


def _stateless(fn) -> Transform:
    return Transform(lambda d: None, lambda g, s: (fn(g), None))


# ------------------------------------------------------------------ projections
def ellipsoid_projection(G: np.ndarray, a: np.ndarray, iters: int = 60, rtol: float = 1e-13) -> np.ndarray:
    """Row-wise Euclidean projection onto {y : Σ a_j y_j² ≤ 1} (Newton on q^{-1/2}, as in kernels._shared).

    Rows inside are copied; for the others Newton's method (vectorised over the rows) finds μ with
    Σ a_j g_j²/(1 + μa_j)² = 1, starting from the lower bound (√q − 1)/max a, and the result g/(1 + μa) is
    rescaled onto the ellipsoid if rounding left it outside.

    Parameters
    ----------
    G : ndarray of float, shape (m, d) or (d,)
        The rows to project.
    a : ndarray of float, shape (d,)
        The ellipsoid's coefficients, > 0.
    iters : int, optional
        The most Newton iterations (default 60).
    rtol : float, optional
        The relative tolerance on q − 1 and on the step (default 1e-13).

    Returns
    -------
    ndarray of float64, shape (m, d)
        The projected rows (2-d also for a 1-d ``G``).
    """
    G = np.atleast_2d(G)
    q = (a * G**2).sum(axis=1)
    out = G.copy()
    rows = np.nonzero(q > 1.0)[0]
    if rows.size == 0:
        return out
    X = G[rows]

    def q_and_slope(mu):
        t = 1.0 / (1.0 + mu[:, None] * a)
        w = a * X**2 * t**2
        return w.sum(axis=1), (-2.0 * w * a * t).sum(axis=1)

    mu = (np.sqrt(q[rows]) - 1.0) / a.max()  # lower bound on the root, as in kernels._shared
    qv, dq = q_and_slope(mu)
    active = np.abs(qv - 1.0) > rtol
    for _ in range(iters):
        if not active.any():
            break
        step = np.where(active, -(qv**-0.5 - 1.0) / (-dq / (2.0 * qv**1.5)), 0.0)
        mu = mu + step
        qv, dq = q_and_slope(mu)
        active &= ~((step <= rtol * mu) | (np.abs(qv - 1.0) <= rtol))
    Y = X / (1.0 + mu[:, None] * a)
    qy = (a * Y**2).sum(axis=1)
    Y[qy > 1.0] /= np.sqrt(qy[qy > 1.0])[:, None]
    out[rows] = Y
    return out


def project_domain(x: np.ndarray, domain: int, radius: float, inv_h: np.ndarray | None) -> np.ndarray:
    """Projection onto X (0 none, 1 box, 2 ball) in the norm ‖·‖_H, H = diag(1/inv_h) (Euclidean when None).

    The box projection is coordinate clipping in any diagonal norm; the ‖·‖_H projection onto the ball solves
    for μ in ‖x/(1 + μ·inv_h)‖₂ = R by Brent's method (SciPy) after doubling a bracket.

    Parameters
    ----------
    x : ndarray of float, shape (d,)
        The point.
    domain : int
        0 none (x returned as is), 1 the box [−R, R]^d, 2 the ℓ₂ ball of radius R.
    radius : float
        R.
    inv_h : ndarray of float, shape (d,), or None
        The inverse metric diag(H⁻¹) (from diagonal AdaGrad); None for the Euclidean projection.

    Returns
    -------
    ndarray of float64, shape (d,)
        The projection (``x`` itself when it is already inside or ``domain`` is 0).
    """
    if domain == 1:
        return np.clip(x, -radius, radius)
    if domain == 2 and x @ x > radius**2:
        if inv_h is None:
            return x * (radius / np.linalg.norm(x))
        from scipy.optimize import brentq

        def excess(mu):
            return np.sum((x / (1.0 + mu * inv_h)) ** 2) - radius**2

        hi = 1.0
        while excess(hi) > 0:
            hi *= 2.0
        y = x / (1.0 + brentq(excess, 0.0, hi, xtol=1e-300, rtol=1e-15) * inv_h)
        n2 = y @ y
        return y * (radius / np.sqrt(n2)) if n2 > radius**2 else y
    return x


# ------------------------------------------------------------------ transforms
def clip_to_ellipsoid(a: np.ndarray) -> Transform:
    """Privatise the per-record gradients by projecting each onto the ellipsoid {Σ a_j y_j² ≤ 1}.

    Parameters
    ----------
    a : ndarray of float, shape (d,)
        The ellipsoid's coefficients.

    Returns
    -------
    Transform
        Stateless; maps (B, d) gradients to (B, d) projected ones (:func:`ellipsoid_projection`).
    """
    return _stateless(lambda G: ellipsoid_projection(G, a))


def batch_mean() -> Transform:
    """Average the batch's rows.

    Returns
    -------
    Transform
        Stateless; maps (B, d) to (d,).
    """
    return _stateless(lambda G: G.mean(axis=0))


def add_noise(std: np.ndarray, rng: np.random.Generator) -> Transform:
    """Add Gaussian noise with per-coordinate standard deviations (drawn at each update).

    Parameters
    ----------
    std : float or ndarray of float, shape (d,)
        The noise standard deviation of each coordinate.
    rng : numpy.random.Generator
        The trial's stream (d standard normals per update).

    Returns
    -------
    Transform
        Stateless; maps g (d,) to g + std·ξ, ξ ~ N(0, I_d).
    """
    return _stateless(lambda g: g + std * rng.standard_normal(g.shape[0]))


def project_subspace(basis: np.ndarray) -> Transform:
    """Project onto the span of an orthonormal basis (PDP-SGD's public subspace).

    Parameters
    ----------
    basis : ndarray of float, shape (d, k)
        Orthonormal columns.

    Returns
    -------
    Transform
        Stateless; maps g (d,) to basis·(basisᵀ g).
    """
    return _stateless(lambda g: basis @ (basis.T @ g))


def precondition(step_rule: int, alpha: float, eps_stab: float) -> Transform:
    """Turns ĝ into (displacement, inverse metric).  Constant, AdaGrad-norm or diagonal AdaGrad.

    Constant: −αĝ.  AdaGrad-norm: acc ← acc + ‖ĝ‖², −α/(ε + √acc)·ĝ.  Diagonal AdaGrad: acc ← acc + ĝ²
    (coordinatewise), inv_h = α/(ε + √acc), −inv_h⊙ĝ.

    Parameters
    ----------
    step_rule : int
        ``STEP_CONSTANT`` (0), ``STEP_ADANORM`` (1) or ``STEP_ADAGRAD`` (2) of :mod:`kernels.pagan`.
    alpha : float
        The base stepsize α.
    eps_stab : float
        The stabiliser ε.

    Returns
    -------
    Transform
        ``init(d)`` gives the accumulator (a (d,) zero vector for diagonal AdaGrad, else 0.0); ``update(ĝ, acc)``
        gives ((displacement, inv_h), new acc), inv_h (d,) for diagonal AdaGrad and None otherwise (the
        projection is then Euclidean).
    """

    def init(d):
        return np.zeros(d) if step_rule == STEP_ADAGRAD else 0.0

    def update(g, acc):
        if step_rule == STEP_ADAGRAD:
            acc = acc + g**2
            inv_h = alpha / (eps_stab + np.sqrt(acc))
            return (-inv_h * g, inv_h), acc
        if step_rule == STEP_ADANORM:
            acc = acc + g @ g
            eta = alpha / (eps_stab + np.sqrt(acc))
        else:
            eta = alpha
        return (-eta * g, None), acc

    return Transform(init, update)


# ------------------------------------------------------------------ the loop
def per_record_gradients(ds: Dataset, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The subgradients s_i·a_i of the records ``idx`` at x.

    Parameters
    ----------
    ds : Dataset
        The data.
    x : ndarray of float, shape (d,)
        The point.
    idx : ndarray of int, shape (B,)
        Record indices (repeats allowed).

    Returns
    -------
    ndarray of float64, shape (B, d)
        sign(⟨a_i, x⟩ − y_i)·a_i (0 at a kink) for the absolute loss; a copy of a_i for the linear loss.
    """
    A = ds.features[idx]
    if ds.loss_kind == LOSS_ABS:
        return np.sign(A @ x - ds.targets[idx])[:, None] * A
    return A.copy()


def run_reference(cfg: LoopConfig, ds: Dataset, rng: np.random.Generator) -> dict:
    """One trial of the algorithm described by ``cfg``, in plain NumPy.

    Parameters
    ----------
    cfg : kernels.pagan.LoopConfig
        The algorithm (clipping ellipsoid, noise, subspace, step rule, domain), its steps, batch size, starting
        point and logged steps.
    ds : Dataset
        The data.
    rng : numpy.random.Generator
        The trial's stream, drawn in the kernel's order.

    Returns
    -------
    dict
        The same entries as :func:`kernels.pagan.run_config`.
    """
    pieces = []
    if cfg.clip:
        pieces.append(clip_to_ellipsoid(cfg.ellipsoid))
    pieces.append(batch_mean())
    if cfg.noise:
        pieces.append(add_noise(cfg.noise_std, rng))
    if cfg.subspace.shape[1] > 0:
        pieces.append(project_subspace(cfg.subspace))
    pieces.append(precondition(cfg.step_rule, cfg.alpha, cfg.eps_stab))
    opt = chain(*pieces)

    x = cfg.x0.astype(float).copy()
    xbar = x.copy()
    state = opt.init(ds.d)
    losses, avg_losses, clipped = [], [], 0
    logs = set(cfg.log_steps.tolist())
    for k in range(cfg.steps + 1):
        if k in logs:
            losses.append(ds.loss(x))
            avg_losses.append(ds.loss(xbar))
        if k == cfg.steps:
            break
        idx = rng.integers(0, ds.n, size=cfg.batch_size)
        G = per_record_gradients(ds, x, idx)
        if cfg.clip:
            clipped += int(((cfg.ellipsoid * G**2).sum(axis=1) > 1.0).sum())
        (dx, inv_h), state = opt.update(G, state)
        x = project_domain(x + dx, cfg.domain, cfg.radius, inv_h)
        xbar = xbar + (x - xbar) / (k + 1)
    frac = clipped / (cfg.steps * cfg.batch_size) if cfg.clip else 0.0
    return dict(losses=np.array(losses), avg_losses=np.array(avg_losses), x=x, xbar=xbar, clipped_fraction=frac)
