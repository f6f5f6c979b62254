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

from kernels.adadps import LOSSES, PUBLIC_METHODS, CentralOptions, FederatedOptions, GLMProblem
from kernels.pagan_reference import Transform


def glm_grads(kind: str, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per-record gradients c(x; w)·x, shape (m, d).

    Parameters
    ----------
    kind : str
        The loss, a key of ``LOSSES``: ``"squared"`` (c = ⟨x, w⟩ − y) or ``"logistic"``
        (c = −y/(1 + exp(y⟨x, w⟩)), labels ±1).
    X : ndarray of float, shape (m, d)
        The records.
    y : ndarray of float, shape (m,)
        Their labels.
    w : ndarray of float, shape (d,)
        The iterate.

    Returns
    -------
    ndarray of float64, shape (m, d)
        Row i is the gradient of record i's loss at ``w``.

    Raises
    ------
    KeyError
        When ``kind`` is not a key of ``LOSSES`` (not validated here).
    """
    z = X @ w
    c = z - y if LOSSES[kind] == 0 else -y / (1.0 + np.exp(y * z))
    return c[:, None] * X


def clip_rows(G: np.ndarray, C: float) -> np.ndarray:
    """ℓ₂ clipping of each row: g·min(1, C/‖g‖) (a zero row stays zero).

    Parameters
    ----------
    G : ndarray of float, shape (m, d)
        The rows (per-record gradients, or model deltas in the federated reference).
    C : float
        The clipping threshold (``inf``: no clipping).

    Returns
    -------
    ndarray of float64, shape (m, d)
        The clipped rows (a new array).
    """
    norms = np.linalg.norm(G, axis=1)
    return G * np.where(norms > C, C / np.where(norms > 0, norms, 1.0), 1.0)[:, None]


def sgd(lr: float) -> Transform:
    """Plain SGD as a stateless transform: the step −lr·g.

    Parameters
    ----------
    lr : float
        The stepsize.

    Returns
    -------
    Transform
        ``init(d)`` gives None; ``update(g, state, A=None)`` gives (−lr·g, None), ``A`` ignored.
    """
    return Transform(lambda d: None, lambda g, s, A=None: (-lr * g, None))


class AdamState(NamedTuple):
    m: np.ndarray
    v: np.ndarray
    t: int


def adam(lr: float, b1: float, b2: float, eps: float) -> Transform:
    """Adam with bias correction (the DP-Adam baseline's optimizer step).

    Step t (1-based): m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g², step = −lr·(m/(1 − β₁ᵗ))/(√(v/(1 − β₂ᵗ)) + ε).

    Parameters
    ----------
    lr : float
        The stepsize.
    b1, b2 : float
        The moment rates β₁ and β₂.
    eps : float
        The stabiliser ε added to the square root.

    Returns
    -------
    Transform
        ``init(d)`` gives an :class:`AdamState` of zeros with t = 0; ``update(g, state, A=None)`` gives
        (step, new state), ``A`` ignored.
    """
    def init(d):
        return AdamState(np.zeros(d), np.zeros(d), 0)

    def update(g, s, A=None):
        t = s.t + 1
        m = b1 * s.m + (1 - b1) * g
        v = b2 * s.v + (1 - b2) * g * g
        return -lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps), AdamState(m, v, t)

    return Transform(init, update)


def rmsprop(lr: float, b2: float, eps: float) -> Transform:
    """RMSProp (the DP-RMSProp baseline's optimizer step): v ← β₂v + (1 − β₂)g², step = −lr·g/(√v + ε).

    Parameters
    ----------
    lr : float
        The stepsize.
    b2 : float
        The second-moment rate β₂.
    eps : float
        The stabiliser ε.

    Returns
    -------
    Transform
        ``init(d)`` gives a (d,) array of zeros (v); ``update(g, v, A=None)`` gives (step, new v), ``A`` ignored.
    """
    def init(d):
        return np.zeros(d)

    def update(g, v, A=None):
        v = b2 * v + (1 - b2) * g * g
        return -lr * g / (np.sqrt(v) + eps), v

    return Transform(init, update)


def scale_by_public(lr: float) -> Transform:
    """DP-R-Pub: step along g̃/A with A from the public statistics (privatise, then precondition).

    Parameters
    ----------
    lr : float
        The stepsize.

    Returns
    -------
    Transform
        ``init(d)`` gives None; ``update(g, state, A)`` gives (−lr·g/A, None); ``A`` (d,) must be passed.
    """
    return Transform(lambda d: None, lambda g, s, A=None: (-lr * g / A, None))


class PublicState(NamedTuple):
    v: np.ndarray  # the second-moment statistic of the public mean gradients
    M: np.ndarray  # Adam's first moment of them


def public_stats(rule: str, beta1: float, eps: float) -> Transform:
    """A = √v + ε from public-batch mean gradients ĝ: EMA (RMSProp/Adam) or sum (AdaGrad); Adam's M.

    ``update(ĝ, state, beta2)`` returns (A, new state); β₂ is an argument because Theorem 2's schedule
    changes it every step.

    Parameters
    ----------
    rule : str
        ``"adagrad"``: v ← v + ĝ²; any other value: v ← β₂v + (1 − β₂)ĝ².  With ``"adam"`` the state also keeps
        M ← β₁M + (1 − β₁)ĝ (otherwise M stays 0).
    beta1 : float
        β₁ of Adam's first moment M.
    eps : float
        The stabiliser ε in A = √v + ε.

    Returns
    -------
    Transform
        ``init(d)`` gives a :class:`PublicState` of zeros; ``update(ĝ, state, beta2)`` gives (A, new state),
        A of shape (d,).
    """
    def init(d):
        return PublicState(np.zeros(d), np.zeros(d))

    def update(gh, s, beta2):
        v = s.v + gh * gh if rule == "adagrad" else beta2 * s.v + (1 - beta2) * gh * gh
        M = beta1 * s.M + (1 - beta1) * gh if rule == "adam" else s.M
        return np.sqrt(v) + eps, PublicState(v, M)

    return Transform(init, update)


def draw_batch(rng: np.random.Generator, perm: np.ndarray, sampling: str, q: float, b: int) -> np.ndarray:
    """A batch of distinct indices, drawn as the kernels draw it.

    The size is Binomial(n, q) for ``"poisson"`` (each index in with probability q) and ``b`` otherwise; the
    indices are the first ``size`` entries of ``perm`` after that many steps of a Fisher–Yates shuffle, one
    ``rng.integers`` draw each.

    Parameters
    ----------
    rng : numpy.random.Generator
        The trial's generator.
    perm : ndarray of int, shape (n,)
        A permutation of 0..n−1, shuffled in place and carried over from batch to batch.
    sampling : str
        ``"poisson"``, or any other value (the kernels' ``"fixed"``) for batches of exactly ``b``.
    q : float
        The sampling rate of Poisson batches.
    b : int
        The size of fixed batches, ≤ n.

    Returns
    -------
    ndarray of int, shape (size,)
        The batch (a copy of the start of ``perm``).
    """
    n = perm.size
    size = int(rng.binomial(n, q)) if sampling == "poisson" else b
    for k in range(size):
        j = k + int(rng.integers(0, n - k))
        perm[k], perm[j] = perm[j], perm[k]
    return perm[:size].copy()


def central_reference(problem: GLMProblem, method: str, rng: np.random.Generator, *, lr: float, clip: float,
                      sigma: float, batch_size: int, steps: int, sampling: str = "poisson", A_fixed=None,
                      options: CentralOptions | None = None, observe: Callable | None = None) -> np.ndarray:
    """One trial of a centralised method; returns w_T.

    ``observe(t, w, ghat, g, A, scaled)``, if given, is called at every step t = 1..T before the update with
    the iterate wᵗ, the public batch's mean gradient ĝᵗ (None without public data), the private batch's
    (1/b)Σ of raw gradients gᵗ, the preconditioner Aᵗ and the per-record rows that are clipped next
    (g_i/Aᵗ for AdaDPS, g_i otherwise).  It draws nothing: the run is the same with or without it.

    Per step t: draw the private batch (:func:`draw_batch`, rate b/n); for the public-data methods draw
    ``public_batch`` public indices with replacement and update the preconditioner A from their mean gradient
    (:func:`public_stats`); for AdaDPS precondition each record's gradient (g_i/A, after mixing in Adam's public
    first moment for adadps_adam); clip each row to ``clip``, sum, add N(0, (σC)² I_d) with C = ``noise_clip``
    or ``clip``, divide by b, and apply the optimizer step, scaled by 1/√t with ``lr_decay``.  No input is
    validated.

    Parameters
    ----------
    problem : GLMProblem
        The data (and the public split for the public-data methods).
    method : str
        A key of ``kernels.adadps.METHODS``: dp_sgd, adadps_fixed, adadps_rmsprop, adadps_adam, adadps_adagrad,
        dp_adam, dp_rmsprop, dp_r_pub.
    rng : numpy.random.Generator
        The trial's generator.
    lr : float
        The stepsize.
    clip : float
        The per-record clipping threshold (``inf``: none).
    sigma : float
        The noise multiplier (0: no noise drawn).
    batch_size : int
        The (expected) batch size b; the sum is always divided by b.
    steps : int
        The number of steps T.
    sampling : str, optional
        ``"poisson"`` (default) or fixed-size batches.
    A_fixed : array_like of float, shape (d,), optional
        The fixed preconditioner of adadps_fixed; None (default) for ones.
    options : kernels.adadps.CentralOptions, optional
        The moment rates, stabiliser, public batch, schedules (``harmonic_beta2``, ``lr_decay``), noise scale
        (``noise_clip``) and starting point, as in :func:`kernels.adadps.run_central` (``track_weights`` and
        ``n_log`` are not used); None for the defaults.
    observe : callable, optional
        ``observe(t, w, ghat, g, A, scaled)``, described above.

    Returns
    -------
    ndarray of float64, shape (d,)
        The last iterate w_T.
    """
    o = CentralOptions() if options is None else options
    beta1, beta2, eps_a, public_batch = o.beta1, o.beta2, o.eps_a, o.public_batch
    harmonic_beta2, lr_decay, noise_clip, w0 = o.harmonic_beta2, o.lr_decay, o.noise_clip, o.w0
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
                        options: FederatedOptions | None = None) -> np.ndarray:
    """One trial of federated AdaDPS (App. Alg. 3); returns w_T.

    The server steps along the averaged noisy delta Δ with ``server="sgd"``, or with FedAdam (Reddi et al.
    2021, no bias correction) on Δ with ``server="adam"``.

    Per round: draw users (:func:`draw_batch` over the U users, rate ``users_per_round``/U); each drawn user
    with records runs ``local_steps`` steps w ← w − local_lr·ḡ/A from the server's w, ḡ the mean gradient of
    ``local_batch`` of its records drawn with replacement; its delta is clipped to ℓ₂ norm ``clip``; the deltas
    are summed with N(0, (σ·clip)² I_d) noise (once per user with ``device_noise``, else once per round) and the
    sum divided by ``users_per_round`` is Δ.  No input is validated.

    Parameters
    ----------
    problem : GLMProblem
        The data, grouped by user through ``problem.user_ptr``.
    rng : numpy.random.Generator
        The trial's generator.
    A : ndarray of float, shape (d,)
        The preconditioner of the local steps (ones: DP-FedAvg).
    local_lr : float
        The users' stepsize.
    clip : float
        The user-level clipping threshold of model deltas.
    sigma : float
        The noise multiplier (0: no noise drawn).
    users_per_round : int
        The (expected) number of users per round.
    rounds : int
        The number of rounds.
    local_steps : int
        Local steps per user per round.
    local_batch : int
        Records per local step.
    options : kernels.adadps.FederatedOptions, optional
        The server's stepsize η_s and update (``server``: ``"sgd"``, w ← w + η_sΔ; any other value, ``"adam"``:
        FedAdam with ``server_beta1``, ``server_beta2``, ``server_tau``), the user ``sampling`` and
        ``device_noise`` (the noise added on every device rather than once at the server), as in
        :func:`kernels.adadps.run_federated` (``n_log`` is not used), and the starting point ``w0`` (None: 0);
        None for the defaults.

    Returns
    -------
    ndarray of float64, shape (d,)
        The last iterate w_T.
    """
    o = FederatedOptions() if options is None else options
    server_lr, sampling, device_noise = o.server_lr, o.sampling, o.device_noise
    server, server_beta1, server_beta2, server_tau = o.server, o.server_beta1, o.server_beta2, o.server_tau
    X, y, ptr, d = problem.features, problem.labels, problem.user_ptr, problem.d
    U = ptr.size - 1
    perm = np.arange(U)
    w = np.zeros(d) if o.w0 is None else np.array(o.w0, dtype=float)
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
