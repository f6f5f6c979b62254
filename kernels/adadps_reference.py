"""NumPy references of the ``adadps`` kernels, composed in the optax idiom (test oracles).

A centralised method is a chain of pure (init, update) pieces (:class:`kernels.pagan_reference.Transform`):
``update`` returns the step and a new state and changes nothing in place.

    precondition (AdaDPS only) → clip → noise → optimizer step (SGD / Adam / RMSProp / public A)

The references draw random numbers in the same order as the fused kernels (batch size, the
Fisher–Yates indices, the public indices, then d normals per step), so that given the same
Generator they reproduce the kernel to floating-point tolerance.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from kernels.adadps import LOSSES, PUBLIC_METHODS, GLMProblem
from kernels.pagan_reference import Transform


def glm_grads(kind: str, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per-record gradients c(x; w)·x, shape (m, d)."""
    z = X @ w
    c = z - y if LOSSES[kind] == 0 else -y / (1.0 + np.exp(y * z))
    return c[:, None] * X


def clip_rows(G: np.ndarray, C: float) -> np.ndarray:
    norms = np.linalg.norm(G, axis=1)
    return G * np.where(norms > C, C / np.where(norms > 0, norms, 1.0), 1.0)[:, None]


def sgd(lr: float) -> Transform:
    return Transform(lambda d: None, lambda g, s, A=None: (-lr * g, None))


class AdamState(NamedTuple):
    m: np.ndarray
    v: np.ndarray
    t: int


def adam(lr: float, b1: float, b2: float, eps: float) -> Transform:
    def init(d):
        return AdamState(np.zeros(d), np.zeros(d), 0)

    def update(g, s, A=None):
        t = s.t + 1
        m = b1 * s.m + (1 - b1) * g
        v = b2 * s.v + (1 - b2) * g * g
        return -lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps), AdamState(m, v, t)

    return Transform(init, update)


def rmsprop(lr: float, b2: float, eps: float) -> Transform:
    def init(d):
        return np.zeros(d)

    def update(g, v, A=None):
        v = b2 * v + (1 - b2) * g * g
        return -lr * g / (np.sqrt(v) + eps), v

    return Transform(init, update)


def scale_by_public(lr: float) -> Transform:
    """DP-R-Pub: step along g̃/A with A from the public statistics (privatise, then precondition)."""
    return Transform(lambda d: None, lambda g, s, A=None: (-lr * g / A, None))


class PublicState(NamedTuple):
    v: np.ndarray  # the second-moment statistic of the public mean gradients
    M: np.ndarray  # Adam's first moment of them


def public_stats(rule: str, beta1: float, eps: float) -> Transform:
    """A = √v + ε from public-batch mean gradients ĝ: EMA (RMSProp/Adam) or sum (AdaGrad); Adam's M.

    ``update(ĝ, state, beta2)`` returns (A, new state); β₂ is an argument because Theorem 2's schedule
    changes it every step."""
    def init(d):
        return PublicState(np.zeros(d), np.zeros(d))

    def update(gh, s, beta2):
        v = s.v + gh * gh if rule == "adagrad" else beta2 * s.v + (1 - beta2) * gh * gh
        M = beta1 * s.M + (1 - beta1) * gh if rule == "adam" else s.M
        return np.sqrt(v) + eps, PublicState(v, M)

    return Transform(init, update)


def draw_batch(rng: np.random.Generator, perm: np.ndarray, sampling: str, q: float, b: int) -> np.ndarray:
    n = perm.size
    size = int(rng.binomial(n, q)) if sampling == "poisson" else b
    for k in range(size):
        j = k + int(rng.integers(0, n - k))
        perm[k], perm[j] = perm[j], perm[k]
    return perm[:size].copy()


def central_reference(problem: GLMProblem, method: str, rng: np.random.Generator, *, lr: float, clip: float,
                      sigma: float, batch_size: int, steps: int, sampling: str = "poisson", A_fixed=None,
                      beta1: float = 0.9, beta2: float = 0.99, eps_a: float = 1e-8, public_batch=None,
                      harmonic_beta2: bool = False, lr_decay: bool = False, noise_clip=None, w0=None,
                      observe: Callable | None = None) -> np.ndarray:
    """One trial of a centralised method; returns w_T.

    ``observe(t, w, ghat, g, A, scaled)``, if given, is called at every step t = 1..T before the update with
    the iterate wᵗ, the public batch's mean gradient ĝᵗ (None without public data), the private batch's
    (1/b)Σ of raw gradients gᵗ, the preconditioner Aᵗ and the per-record rows that are clipped next
    (g_i/Aᵗ for AdaDPS, g_i otherwise).  It draws nothing: the run is the same with or without it.
    """
    X, y, d, n = problem.features, problem.labels, problem.d, problem.n
    b_pub = batch_size if public_batch is None else public_batch
    opt = {"dp_adam": adam(lr, beta1, beta2, eps_a), "dp_rmsprop": rmsprop(lr, beta2, eps_a),
           "dp_r_pub": scale_by_public(lr)}.get(method, sgd(lr))
    state = opt.init(d)
    rule = {"adadps_adagrad": "adagrad", "adadps_adam": "adam"}.get(method, "rmsprop")
    pub = public_stats(rule, beta1, eps_a)
    pub_state = pub.init(d)
    A = np.ones(d) if A_fixed is None else np.asarray(A_fixed, float)
    perm = np.arange(n)
    w = np.zeros(d) if w0 is None else np.array(w0, float)
    noise = 0.0 if sigma == 0 else sigma * (clip if noise_clip is None else noise_clip)
    for t in range(1, steps + 1):
        beta2_t = 1.0 - 1.0 / t if harmonic_beta2 else beta2
        scale = 1.0 / np.sqrt(t) if lr_decay else 1.0
        batch = draw_batch(rng, perm, sampling, batch_size / n, batch_size)
        if method in PUBLIC_METHODS:
            idx = np.array([rng.integers(0, problem.public_features.shape[0]) for _ in range(b_pub)], dtype=np.int64)
            gh = glm_grads(problem.loss, problem.public_features[idx], problem.public_labels[idx], w).mean(axis=0)
            A, pub_state = pub.update(gh, pub_state, beta2_t)
        G = glm_grads(problem.loss, X[batch], y[batch], w)
        raw = G.sum(axis=0) / batch_size if observe is not None else None
        if method.startswith("adadps"):  # precondition before privatising
            if method == "adadps_adam":
                G = (1 - beta1) * G + beta1 * pub_state.M
            G = G / A
        if observe is not None:
            observe(t, w, gh if method in PUBLIC_METHODS else None, raw, A, G)
        total = clip_rows(G, clip).sum(axis=0)
        if noise > 0:
            total = total + noise * rng.standard_normal(d)
        step, state = opt.update(total / batch_size, state, A=A)
        w = w + scale * step
    return w


def federated_reference(problem: GLMProblem, rng: np.random.Generator, *, A, local_lr: float, clip: float,
                        sigma: float, users_per_round: int, rounds: int, local_steps: int, local_batch: int,
                        server_lr: float = 1.0, sampling: str = "poisson", device_noise: bool = False,
                        server: str = "sgd", server_beta1: float = 0.9, server_beta2: float = 0.99,
                        server_tau: float = 1e-3) -> np.ndarray:
    """One trial of federated AdaDPS (App. Alg. 3); returns w_T.

    The server steps along the averaged noisy delta Δ with ``server="sgd"``, or with FedAdam (Reddi et al.
    2021, no bias correction) on Δ with ``server="adam"``.
    """
    X, y, ptr, d = problem.features, problem.labels, problem.user_ptr, problem.d
    U = ptr.size - 1
    perm = np.arange(U)
    w = np.zeros(d)
    m, v = np.zeros(d), np.zeros(d)
    for _ in range(rounds):
        users = draw_batch(rng, perm, sampling, users_per_round / U, users_per_round)
        total = np.zeros(d)
        for u in users:
            lo, hi = ptr[u], ptr[u + 1]
            wl = w.copy()
            if hi > lo:
                for _s in range(local_steps):
                    idx = np.array([rng.integers(lo, hi) for _ in range(local_batch)], dtype=np.int64)
                    wl = wl - local_lr * glm_grads(problem.loss, X[idx], y[idx], wl).mean(axis=0) / A
            delta = clip_rows((wl - w)[None, :], clip)[0]
            total += delta
            if device_noise and sigma > 0:
                total += sigma * clip * rng.standard_normal(d)
        if not device_noise and sigma > 0:
            total += sigma * clip * rng.standard_normal(d)
        if server == "sgd":
            w = w + server_lr * total / users_per_round
        else:
            delta = total / users_per_round
            m = server_beta1 * m + (1 - server_beta1) * delta
            v = server_beta2 * v + (1 - server_beta2) * delta * delta
            w = w + server_lr * m / (np.sqrt(v) + server_tau)
    return w
