r"""AdaDPS of ``adadps`` (Li, Zaheer, Reddi, Smith, ICML 2022) and its baselines, on the GLM problems of
:mod:`kernels.adadps_problems` (re-exported here).

Every problem is a generalised linear model: record i has features xᵢ ∈ R^d and a label yᵢ, and
its gradient is c(xᵢ; w)·xᵢ (the form the paper's Section 5.1.1 analyses):

* ``"squared"``  f = ½(⟨w, x⟩ − y)²,           c = ⟨w, x⟩ − y
* ``"logistic"`` f = log(1 + exp(−y⟨w, x⟩)),   c = −y/(1 + exp(y⟨w, x⟩)),  y ∈ {−1, +1}

Centralised methods (one fused kernel, :func:`run_central`), per step t (Algorithm 1 and App. B):

1. a private batch: Poisson sampling at rate q = b/n (``sampling="poisson"``, what the RDP accountant
   of the paper's experiments assumes) or b records uniformly without replacement (``"fixed"``, what
   Algorithm 1 writes); both by a partial Fisher–Yates shuffle of a persistent index permutation;
2. methods with public data draw b_pub public records uniformly with replacement and update the
   public statistics from their mean gradient ĝ: v ← β₂v + (1 − β₂)ĝ² (RMSProp / Adam / DP-R-Pub),
   v ← v + ĝ² (AdaGrad), M ← β₁M + (1 − β₁)ĝ (Adam); A = √v + ε_a;
3. per record: ``adadps_*`` transform first — g/A (RMSProp, AdaGrad, fixed side information A),
   ((1 − β₁)g + β₁M)/A (Adam: the paper's 𝒜 with β^t = 1 − β₁) — then every method clips to C;
4. g̃ = (Σ clipped + σC·N(0, I))/b (b the expected batch size under Poisson sampling);
5. the step: w ← w − α g̃ (DP-SGD and all AdaDPS variants); DP-Adam (App. Alg. 2, bias-corrected
   moments of g̃); DP-RMSProp (v ← β₂v + (1 − β₂)g̃², w ← w − α g̃/(√v + ε_a)); DP-R-Pub
   (w ← w − α g̃/A with A from the public v, i.e. privatise then precondition).

Federated AdaDPS (App. Alg. 3, :func:`run_federated`): per round, users are sampled (Poisson at rate
b/U or b uniformly), each runs s local steps w ← w − η ∇f_batch/A from the global model, the model
delta is clipped to C, the server adds σC·N(0, I) to the sum (the paper's code and the usual DP-FedAvg;
``device_noise=True`` adds it per device as Algorithm 3 writes) and averages over b into Δ.  The server
steps w ← w + η_s Δ (``server="sgd"``) or, ``server="adam"`` (FedAdam of Reddi et al. 2021, Alg. 2),
m ← β₁m + (1 − β₁)Δ, v ← β₂v + (1 − β₂)Δ², w ← w + η_s m/(√v + τ) (no bias correction).  A ≡ 1 is
DP-FedAvg; A ≡ 1 with ``server="adam"`` is DP-FedAdam.  Clipping the whole delta bounds each *user's*
contribution: user-level DP.

σ = 0 and C = ∞ give the non-private optimizers (SGD, Adam, RMSProp, "AdaS").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

import dpvalidate as V
from kernels import _cpu, faults
from kernels.adadps_problems import (  # noqa: F401  (the problems are part of this module's API)
    LOSSES,
    GLMProblem,
    aligned_no_signal_logistic,
    collinear_regression,
    sparse_linear_regression,
    zipf_bow_logistic,
)

METHODS = {"dp_sgd": 0, "adadps_fixed": 1, "adadps_rmsprop": 2, "adadps_adam": 3, "adadps_adagrad": 4,
           "dp_adam": 5, "dp_rmsprop": 6, "dp_r_pub": 7}
PUBLIC_METHODS = ("adadps_rmsprop", "adadps_adam", "adadps_adagrad", "dp_r_pub")
SAMPLINGS = {"poisson": 0, "fixed": 1}


@dataclass(frozen=True)
class CentralOptions:
    """The settings of a centralised run that most runs leave at their defaults: the ``options`` of
    :func:`run_central` and of :func:`kernels.adadps_reference.central_reference` (which uses neither
    ``track_weights`` nor ``n_log``).  Immutable; :func:`dataclasses.replace` makes a variant.

    Attributes
    ----------
    beta1, beta2 : float
        The moment rates of the adaptive methods (β₁ ∈ [0, 1), β₂ ∈ (0, 1)).
    eps_a : float
        The stabiliser ε of the adaptive methods and of A = √v + ε (> 0).
    public_batch : int or None
        Public records per step of the public-batch preconditioners; None for the private batch size.
    harmonic_beta2 : bool
        β₂ᵗ = 1 − 1/t for the public statistics (Theorem 2's schedule with γ = 1) instead of ``beta2``.
    lr_decay : bool
        αₜ = lr/√t (Theorems 2–3).
    noise_clip : float or None
        The C in the noise σC when it differs from the clipping threshold (rate checks run with ``clip`` = inf,
        where Assumption 2 holds by construction, and a finite noise scale); None for the clipping threshold.
    track_weights : ndarray of float, shape (d,), or None
        Also return "grad_avg" = (1/T)Σ_{t<T} ‖∇F(wᵗ)‖²_M, M = diag(track_weights), over every iterate
        (full-data gradients; O(nd) per step).
    w0 : ndarray of float, shape (d,), or None
        The starting point; None for 0.
    n_log : int
        The number of logged steps (≥ 2).
    """

    beta1: float = 0.9
    beta2: float = 0.99
    eps_a: float = 1e-8
    public_batch: int | None = None
    harmonic_beta2: bool = False
    lr_decay: bool = False
    noise_clip: float | None = None
    track_weights: np.ndarray | None = None
    w0: np.ndarray | None = None
    n_log: int = 41


@dataclass(frozen=True)
class FederatedOptions:
    """The settings of a federated run that most runs leave at their defaults: the ``options`` of
    :func:`run_federated` and of :func:`kernels.adadps_reference.federated_reference` (which does not use
    ``n_log``).  Immutable; :func:`dataclasses.replace` makes a variant.

    Attributes
    ----------
    server_lr : float
        The server's stepsize η_s (> 0).
    sampling : str
        ``"poisson"`` (users at rate b/U, what the accountant assumes) or fixed-size user batches.
    device_noise : bool
        Each user adds its own noise rather than the server once per round.
    w0 : ndarray of float, shape (d,), or None
        The starting point; None for 0.
    n_log : int
        The number of logged rounds (≥ 2).
    server : str
        The server's update of the averaged noisy delta Δ: ``"sgd"``, w ← w + η_s Δ, or ``"adam"``, FedAdam
        (Reddi et al. 2021) m ← β₁m + (1 − β₁)Δ, v ← β₂v + (1 − β₂)Δ², w ← w + η_s m/(√v + τ).
    server_beta1, server_beta2, server_tau : float
        FedAdam's β₁ ∈ [0, 1), β₂ ∈ [0, 1) and τ > 0 (unused with ``server="sgd"``).
    """

    server_lr: float = 1.0
    sampling: str = "poisson"
    device_noise: bool = False
    w0: np.ndarray | None = None
    n_log: int = 21
    server: str = "sgd"
    server_beta1: float = 0.9
    server_beta2: float = 0.99
    server_tau: float = 1e-3


def _options(options, kind: type):
    """``options`` (None: the defaults) checked to be a ``kind`` record."""
    if options is None:
        return kind()
    if not isinstance(options, kind):
        raise V.InvalidParameter("options", f"a kernels.adadps.{kind.__name__} record or None", options)
    return options


class CentralParams(NamedTuple):
    """The scalar settings of :func:`_central_loop` (one argument of the jitted loop), built by :func:`run_central`."""

    kind: int  # the GLM loss code (LOSSES)
    method: int  # the method code (METHODS)
    lr: float  # the stepsize (decayed as lr/√t when lr_decay)
    C: float  # the per-record clipping threshold (may be inf)
    noise_scale: float  # the std of the noise added to the summed clipped gradients
    b: int  # the expected (Poisson) or exact (fixed) batch size
    sampling: int  # SAMPLINGS code
    beta1: float
    beta2: float
    eps_a: float  # the preconditioner's stabiliser
    b_pub: int  # the public batch size
    harmonic: bool  # the public statistics use β₂ᵗ = 1 − 1/t
    lr_decay: bool
    steps: int


class FedParams(NamedTuple):
    """The scalar settings of :func:`_fed_loop` (one argument of the jitted loop), built by :func:`run_federated`."""

    kind: int  # the GLM loss code (LOSSES)
    server_lr: float
    local_lr: float
    local_steps: int
    local_batch: int
    C: float  # the user-level clipping threshold of model deltas (may be inf)
    sigma: float  # the noise multiplier
    b: int  # users per round (expected, with Poisson sampling)
    sampling: int  # SAMPLINGS code
    device_noise: bool  # each user adds its own noise
    steps: int  # rounds
    server_opt: int  # 0 SGD, 1 FedAdam
    sb1: float  # FedAdam's β₁
    sb2: float  # FedAdam's β₂
    tau: float  # FedAdam's τ


# ======================================================================================
# Jitted pieces
# ======================================================================================
@njit(cache=True, nogil=True)
def _coef_of_margin(kind, z, y):
    """The gradient coefficient c of a record with ⟨w, x⟩ = z and label y (the module docstring's c)."""
    if kind == 0:
        return z - y
    m = y * z
    if m > 35.0:
        return -y * math.exp(-m)
    return -y / (1.0 + math.exp(m))


@njit(cache=True, nogil=True)
def _loss_of_margin(kind, z, y):
    """The loss f of a record with ⟨w, x⟩ = z and label y."""
    if kind == 0:
        return 0.5 * (z - y) ** 2
    m = -y * z
    return m + math.log1p(math.exp(-m)) if m > 0 else math.log1p(math.exp(m))


@njit(cache=True, nogil=True)
def _coef(kind, x, y, w):
    z = 0.0
    for j in range(w.shape[0]):
        z += x[j] * w[j]
    return _coef_of_margin(kind, z, y)


@njit(cache=True, nogil=True)
def _mean_loss(kind, X, Y, w):
    n, d = X.shape
    s = 0.0
    for i in range(n):
        z = 0.0
        for j in range(d):
            z += X[i, j] * w[j]
        s += _loss_of_margin(kind, z, Y[i])
    return s / n


# Rows stored by their nonzero entries (CSR: row i is idx[ptr[i]:ptr[i + 1]], val[...], columns increasing) for the
# sparse records of zipf_bow_logistic.  The sums run over the same terms in the same order as the dense loops with the
# zero terms left out; a zero term x_j·w_j or c·x_j is ±0 while w and c are finite, and adding ±0 to a running sum
# that starts at +0 leaves it unchanged (it is never −0), so the results are the dense loops' bits.
@njit(cache=True, nogil=True)
def _csr_rows(X, max_density):
    """(ptr, idx, val): the nonzero entries of the rows of ``X`` (n, d), columns in increasing order; three empty
    arrays when more than ``max_density``·n·d entries are nonzero."""
    n, d = X.shape
    ptr = np.zeros(n + 1, dtype=np.int64)
    nnz = 0
    for i in range(n):
        for j in range(d):
            if X[i, j] != 0.0:
                nnz += 1
        ptr[i + 1] = nnz
    if nnz > max_density * n * d:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    idx = np.empty(nnz, dtype=np.int64)
    val = np.empty(nnz)
    k = 0
    for i in range(n):
        for j in range(d):
            if X[i, j] != 0.0:
                idx[k] = j
                val[k] = X[i, j]
                k += 1
    return ptr, idx, val


@njit(cache=True, nogil=True)
def _margin_csr(idx, val, lo, hi, w):
    """⟨w, x⟩ over the stored entries lo:hi of one CSR row (the dense loop's sum without its zero terms)."""
    z = 0.0
    for k in range(lo, hi):
        z += val[k] * w[idx[k]]
    return z


@njit(cache=True, nogil=True)
def _mean_loss_csr(kind, ptr, idx, val, Y, w):
    """:func:`_mean_loss` on CSR rows (the same bits)."""
    n = ptr.shape[0] - 1
    s = 0.0
    for i in range(n):
        s += _loss_of_margin(kind, _margin_csr(idx, val, ptr[i], ptr[i + 1], w), Y[i])
    return s / n


@njit(cache=True, nogil=True)
def _full_grad_norm_weighted(kind, X, Y, w, weights, acc):
    """‖∇F(w)‖²_M with M = diag(weights) (e.g. weights = 1/A for Theorem 5's ‖·‖_{A⁻¹})."""
    n, d = X.shape
    for j in range(d):
        acc[j] = 0.0
    for i in range(n):
        c = _coef(kind, X[i], Y[i], w)
        for j in range(d):
            acc[j] += c * X[i, j]
    s = 0.0
    for j in range(d):
        g = acc[j] / n
        s += weights[j] * g * g
    return s


@njit(cache=True, nogil=True)
def _user_mean_loss(kind, X, Y, ptr, w):
    U = ptr.shape[0] - 1
    s = 0.0
    k = 0
    for u in range(U):
        if ptr[u + 1] > ptr[u]:
            s += _mean_loss(kind, X[ptr[u]:ptr[u + 1]], Y[ptr[u]:ptr[u + 1]], w)
            k += 1
    return s / k


@njit(cache=True, nogil=True)
def _draw_batch(rng, perm, n, sampling, q, b):
    """Size of this step's batch; its members are perm[:size] (partial Fisher–Yates)."""
    size = rng.binomial(n, q) if sampling == 0 else b
    for k in range(size):
        j = k + rng.integers(0, n - k)
        tmp = perm[k]
        perm[k] = perm[j]
        perm[j] = tmp
    return size


@njit(cache=True, nogil=True)
def _central_loop(X, Y, Xp, Yp, A_fixed, prm, rng, log_steps, losses, w, clip_frac, track_weights, track_out, rows,
                  prows):
    # rows, prows: X's and Xp's CSR rows (_csr_rows), or three empty arrays each for the dense loops; the sparse loops
    # skip only zero terms (the same bits), and are not used by AdaDPS-Adam, whose transformed gradient
    # (1 − β₁)g + β₁M is nonzero where x is zero
    kind, method, lr, C, noise_scale, b, sampling = prm.kind, prm.method, prm.lr, prm.C, prm.noise_scale, prm.b, \
        prm.sampling
    beta1, beta2, eps_a, b_pub, harmonic, lr_decay, steps = prm.beta1, prm.beta2, prm.eps_a, prm.b_pub, prm.harmonic, \
        prm.lr_decay, prm.steps
    n, d = X.shape
    n_pub = Xp.shape[0]
    q = b / n
    perm = np.arange(n)
    A = np.ones(d)
    for j in range(d):
        A[j] = A_fixed[j]
    v = np.zeros(d)
    m = np.zeros(d)
    mp = np.zeros(d)  # public first moment (AdaDPS-Adam)
    gh = np.empty(d)
    gi = np.empty(d)
    acc = np.empty(d)
    public = method == 2 or method == 3 or method == 4 or method == 7
    ptr, idx, val = rows
    pptr, pidx, pval = prows
    sparse = ptr.shape[0] == n + 1 and pptr.shape[0] == n_pub + 1 and method != 3
    lo, hi = 0, 0
    li = 0
    n_clipped = 0
    n_records = 0
    for t in range(steps + 1):
        while li < log_steps.shape[0] and log_steps[li] == t:
            losses[li] = _mean_loss_csr(kind, ptr, idx, val, Y, w) if sparse else _mean_loss(kind, X, Y, w)
            li += 1
        if t == steps:
            break
        if track_weights.shape[0] == d:  # Σ_t ‖∇F(wᵗ)‖²_M over the iterates w¹..wᵀ (Theorems 4–5's left side)
            track_out[0] += _full_grad_norm_weighted(kind, X, Y, w, track_weights, gh)
        size = _draw_batch(rng, perm, n, sampling, q, b)
        tt = t + 1
        b2p = 1.0 - 1.0 / tt if harmonic else beta2  # the public statistics' β₂ᵗ
        lr_t = lr / math.sqrt(tt) if lr_decay else lr
        if public:
            for j in range(d):
                gh[j] = 0.0
            for k in range(b_pub):
                i = rng.integers(0, n_pub)
                if sparse:
                    lo, hi = pptr[i], pptr[i + 1]
                    c = _coef_of_margin(kind, _margin_csr(pidx, pval, lo, hi, w), Yp[i])
                    for kk in range(lo, hi):
                        gh[pidx[kk]] += c * pval[kk]
                else:
                    c = _coef(kind, Xp[i], Yp[i], w)
                    for j in range(d):
                        gh[j] += c * Xp[i, j]
            for j in range(d):
                g = gh[j] / b_pub
                if method == 4:
                    v[j] += g * g
                else:
                    v[j] = b2p * v[j] + (1.0 - b2p) * g * g
                if method == 3:
                    mp[j] = beta1 * mp[j] + (1.0 - beta1) * g
                A[j] = math.sqrt(v[j]) + eps_a
        for j in range(d):
            acc[j] = 0.0
        for k in range(size):
            i = perm[k]
            if sparse:
                lo, hi = ptr[i], ptr[i + 1]
                c = _coef_of_margin(kind, _margin_csr(idx, val, lo, hi, w), Y[i])
                nrm2 = 0.0
                for kk in range(lo, hi):
                    g = c * val[kk]
                    if method >= 1 and method <= 4:
                        g = g / A[idx[kk]]
                    gi[kk - lo] = g
                    nrm2 += g * g
            else:
                c = _coef(kind, X[i], Y[i], w)
                nrm2 = 0.0
                for j in range(d):
                    g = c * X[i, j]
                    if method >= 1 and method <= 4:
                        if method == 3:
                            g = (1.0 - beta1) * g + beta1 * mp[j]
                        g = g / A[j]
                    gi[j] = g
                    nrm2 += g * g
            f = 1.0
            if nrm2 > C * C:
                f = C / math.sqrt(nrm2)
                n_clipped += 1
            n_records += 1
            if sparse:
                for kk in range(lo, hi):
                    acc[idx[kk]] += f * gi[kk - lo]
            else:
                for j in range(d):
                    acc[j] += f * gi[j]
        bc1, bc2 = 1.0 - beta1**tt, 1.0 - beta2**tt  # DP-Adam's bias corrections (once per step, not per coordinate)
        for j in range(d):
            g = acc[j]
            if noise_scale > 0.0:
                g += noise_scale * rng.standard_normal()
            g /= b
            if method <= 4:
                w[j] -= lr_t * g
            elif method == 5:
                m[j] = beta1 * m[j] + (1.0 - beta1) * g
                v[j] = beta2 * v[j] + (1.0 - beta2) * g * g
                mh = m[j] / bc1
                vh = v[j] / bc2
                w[j] -= lr_t * mh / (math.sqrt(vh) + eps_a)
            elif method == 6:
                v[j] = beta2 * v[j] + (1.0 - beta2) * g * g
                w[j] -= lr_t * g / (math.sqrt(v[j]) + eps_a)
            else:
                w[j] -= lr_t * g / A[j]
    clip_frac[0] = n_clipped / max(n_records, 1)


@njit(cache=True, nogil=True)
def _fed_loop(X, Y, ptr, A, prm, rng, log_steps, losses, w):
    kind, server_lr, local_lr, local_steps, local_batch = prm.kind, prm.server_lr, prm.local_lr, prm.local_steps, \
        prm.local_batch
    C, sigma, b, sampling, device_noise, steps = prm.C, prm.sigma, prm.b, prm.sampling, prm.device_noise, prm.steps
    server_opt, sb1, sb2, tau = prm.server_opt, prm.sb1, prm.sb2, prm.tau
    d = X.shape[1]
    sm = np.zeros(d)  # the server's Adam moments (server_opt = 1)
    sv = np.zeros(d)
    U = ptr.shape[0] - 1
    q = b / U
    perm = np.arange(U)
    wl = np.empty(d)
    g = np.empty(d)
    acc = np.empty(d)
    li = 0
    for t in range(steps + 1):
        while li < log_steps.shape[0] and log_steps[li] == t:
            losses[li] = _user_mean_loss(kind, X, Y, ptr, w)
            li += 1
        if t == steps:
            break
        size = _draw_batch(rng, perm, U, sampling, q, b)
        for j in range(d):
            acc[j] = 0.0
        for k in range(size):
            u = perm[k]
            lo, hi = ptr[u], ptr[u + 1]
            for j in range(d):
                wl[j] = w[j]
            if hi > lo:
                for s in range(local_steps):
                    for j in range(d):
                        g[j] = 0.0
                    for r in range(local_batch):
                        i = rng.integers(lo, hi)
                        c = _coef(kind, X[i], Y[i], wl)
                        for j in range(d):
                            g[j] += c * X[i, j]
                    for j in range(d):
                        wl[j] -= local_lr * g[j] / local_batch / A[j]
            nrm2 = 0.0
            for j in range(d):
                wl[j] -= w[j]
                nrm2 += wl[j] * wl[j]
            f = 1.0
            if nrm2 > C * C:
                f = C / math.sqrt(nrm2)
            for j in range(d):
                acc[j] += f * wl[j]
                if device_noise and sigma > 0.0:
                    acc[j] += sigma * C * rng.standard_normal()
        for j in range(d):
            a = acc[j]
            if (not device_noise) and sigma > 0.0:
                a += sigma * C * rng.standard_normal()
            if server_opt == 0:
                w[j] += server_lr * a / b
            else:  # FedAdam (Reddi et al. 2021): Adam on the averaged noisy delta, no bias correction
                a = a / b
                sm[j] = sb1 * sm[j] + (1.0 - sb1) * a
                sv[j] = sb2 * sv[j] + (1.0 - sb2) * a * a
                w[j] += server_lr * sm[j] / (math.sqrt(sv[j]) + tau)


# ======================================================================================
# Public wrappers
# ======================================================================================
def log_points(steps: int, n_log: int) -> np.ndarray:
    """The steps at which the loss is recorded: ``n_log`` (at most ``steps`` + 1) evenly spaced in [0, steps].

    Parameters
    ----------
    steps : int
        The run's length.
    n_log : int
        The number of checkpoints wanted.

    Returns
    -------
    numpy.ndarray
        Sorted distinct int64 steps, rounded to the nearest integer; 0 and ``steps`` included.
    """
    return np.unique(np.linspace(0, steps, min(n_log, steps + 1)).round().astype(np.int64))


def _problem(problem) -> GLMProblem:
    if not isinstance(problem, GLMProblem):
        raise V.InvalidParameter("problem", "a kernels.adadps.GLMProblem (sparse_linear_regression or "
                                 "zipf_bow_logistic)", type(problem).__name__)
    X, y = problem.features, problem.labels
    ok = (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.ndim == 2 and min(X.shape) >= 1
          and X.flags.c_contiguous and np.all(np.isfinite(X)) and isinstance(y, np.ndarray)
          and y.dtype == np.float64 and y.shape == (X.shape[0],) and np.all(np.isfinite(y)) and problem.loss in LOSSES)
    for Xo, yo in ((problem.public_features, problem.public_labels), (problem.test_features, problem.test_labels)):
        if Xo is not None:
            ok = ok and (isinstance(Xo, np.ndarray) and Xo.dtype == np.float64 and Xo.ndim == 2
                         and Xo.shape[0] >= 1 and Xo.shape[1] == X.shape[1] and Xo.flags.c_contiguous
                         and np.all(np.isfinite(Xo)) and isinstance(yo, np.ndarray) and yo.shape == (Xo.shape[0],)
                         and np.all(np.isfinite(yo)))
    ptr = problem.user_ptr
    if ptr is not None:
        ok = ok and (isinstance(ptr, np.ndarray) and ptr.dtype == np.int64 and ptr.ndim == 1 and ptr.size >= 2
                     and ptr[0] == 0 and ptr[-1] == X.shape[0] and bool(np.all(np.diff(ptr) >= 0)))
    if not ok:
        raise V.InvalidParameter("problem", "a GLMProblem with finite float64 features (n, d) and labels (n,), "
                                 "matching public/test splits and a user partition 0 = ptr[0] <= ... <= ptr[U] = n",
                                 getattr(X, "shape", type(X).__name__))
    return problem


def side_information(problem: GLMProblem, side_info) -> np.ndarray:
    """A named side-information vector of ``problem`` or a user's own (d,) positive vector.

    Parameters
    ----------
    problem : GLMProblem
        The problem; its ``side_info`` dict holds the named vectors.
    side_info : str or array_like
        A key of ``problem.side_info``, or a (d,) vector of finite positive numbers.

    Returns
    -------
    numpy.ndarray
        (d,) float64 C-contiguous.

    Raises
    ------
    dpvalidate.InvalidParameter
        An unknown name, or a vector of the wrong shape, non-finite or with a non-positive entry.
    """
    if isinstance(side_info, str):
        V.choice("side_info", side_info, tuple(problem.side_info))
        return _inverted_if_faulty(np.ascontiguousarray(problem.side_info[side_info], dtype=np.float64))
    A = V.finite_array("side_info", side_info, shape=(problem.d,))
    if np.any(A <= 0):
        raise V.InvalidParameter("side_info", "a vector of positive numbers", "a non-positive entry")
    return _inverted_if_faulty(A)


def _inverted_if_faulty(A: np.ndarray) -> np.ndarray:
    """``A``, or G²/A under the ``preconditioner_inverse`` fault (kernels/faults.py; G = A's geometric mean)."""
    if not faults.preconditioner_inverse():
        return A
    log_g = float(np.mean(np.log(A)))
    return np.exp(2.0 * log_g - np.log(A))


#: the largest fraction of nonzero private features with which :func:`run_central` runs its sparse loops (CSR rows);
#: denser problems run the dense loops.  Both give the same bits (see :func:`_csr_rows`): this only picks the faster.
SPARSE_ROWS_MAX_DENSITY = 0.25


def _central_rows(X: np.ndarray, Xp: np.ndarray, code: int) -> tuple:
    """The ``rows``, ``prows`` arguments of :func:`_central_loop`: the CSR rows of the private and public features when
    the private ones are sparse enough (SPARSE_ROWS_MAX_DENSITY) and the method is not AdaDPS-Adam, else empty arrays
    (the dense loops)."""
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
    if code == METHODS["adadps_adam"]:
        return empty, empty
    rows = _csr_rows(X, SPARSE_ROWS_MAX_DENSITY)
    return (rows, _csr_rows(Xp, 1.0)) if rows[0].shape[0] else (empty, empty)


@njit(cache=True, nogil=True)
def _central_trials_one_stream(X, Y, Xp, Yp, A_fixed, prm, rng, log_steps, losses, w, w0, clip_frac, track_weights,
                               track_out, rows, prows):
    # run_central's per-trial loop in one call, every trial drawing in turn from ``rng``
    cf = np.zeros(1)
    tr = np.zeros(1)
    for k in range(w.shape[0]):
        w[k, :] = w0
        cf[0] = 0.0
        tr[0] = 0.0
        _central_loop(X, Y, Xp, Yp, A_fixed, prm, rng, log_steps, losses[k], w[k], cf, track_weights, tr, rows, prows)
        clip_frac[k] = cf[0]
        track_out[k] = tr[0]


def run_central(problem: GLMProblem, method: str, *, lr: float, clip: float = 1.0, sigma: float = 1.0,
                batch_size: int = 64, steps: int = 1000, sampling: str = "poisson", side_info="paper",
                options: CentralOptions | None = None, trials: int = 1, seed: int = 0,
                one_stream: bool = False) -> dict:
    """Run a centralised method for ``trials`` seeded trials (one SeedSequence child per trial, or one stream).

    ``method``: dp_sgd, adadps_fixed (``side_info``: a name in ``problem.side_info`` or a (d,) positive
    vector), adadps_rmsprop / adadps_adam / adadps_adagrad (public-batch preconditioner), dp_adam,
    dp_rmsprop, dp_r_pub.  ``clip`` = inf and ``sigma`` = 0 give the non-private optimizer.
    The other settings (moment rates, stabiliser, public batch, schedules, noise scale, tracked gradient norm,
    starting point, logged steps) are the fields of ``options`` (:class:`CentralOptions`).
    Features with at most SPARSE_ROWS_MAX_DENSITY of their entries nonzero (zipf_bow_logistic) run over their
    nonzero entries only (CSR rows), except AdaDPS-Adam: the same numbers as the dense loops, bit for bit.
    Returns {"steps": (m,), "loss": (trials, m) training loss, "w": (trials, d), "clip_fraction": (trials,)}.

    Parameters
    ----------
    problem : GLMProblem
    method : str
        As above.
    lr : float
        The stepsize.
    clip, sigma : float, optional
        The per-record clipping threshold and the noise multiplier (noise σC).
    batch_size, steps : int, optional
        The (expected) batch size b and the number of steps.
    sampling : str, optional
        ``"poisson"`` (rate b/n, what the accountant assumes) or fixed-size batches.
    side_info : str or array, optional
        adadps_fixed's preconditioner.
    options : CentralOptions, optional
        The remaining settings; None for :class:`CentralOptions`' defaults.
    trials, seed : int, optional
        Trials (one spawned stream each) and their root seed.
    one_stream : bool, optional
        Draw every trial, in order, from one stream seeded by ``seed`` in one jitted call (for many short trials,
        e.g. privacy audits: no per-trial Python), instead of a stream per trial (the default).  Other numbers than
        the default's, equally reproducible.

    Returns
    -------
    dict
        ``run_central``'s arrays, listed above.

    Raises
    ------
    dpvalidate.InvalidParameter
        An unknown method or a parameter outside what it accepts.
    """
    problem = _problem(problem)
    o = _options(options, CentralOptions)
    beta1, beta2, eps_a, public_batch = o.beta1, o.beta2, o.eps_a, o.public_batch
    harmonic_beta2, lr_decay, noise_clip = o.harmonic_beta2, o.lr_decay, o.noise_clip
    track_weights, w0, n_log = o.track_weights, o.w0, o.n_log
    code = METHODS[V.choice("method", method, tuple(METHODS))]
    lr = V.positive("lr", lr)
    clip = V.positive("clip", clip, allow_inf=True)
    sigma = V.nonnegative("sigma", sigma)
    batch_size = V.count("batch_size", batch_size)
    if batch_size > problem.n:
        raise V.InvalidParameter("batch_size", f"an integer in [1, n = {problem.n}]", batch_size)
    steps = V.count("steps", steps)
    samp = SAMPLINGS[V.choice("sampling", sampling, tuple(SAMPLINGS))]
    beta1 = V.nonnegative("beta1", beta1)
    if beta1 >= 1:
        raise V.InvalidParameter("beta1", "in [0, 1)", beta1)
    beta2 = V.open_unit("beta2", beta2)
    eps_a = V.positive("eps_a", eps_a)
    harmonic_beta2, lr_decay = V.flag("harmonic_beta2", harmonic_beta2), V.flag("lr_decay", lr_decay)
    if method in PUBLIC_METHODS:
        if problem.public_features is None:
            raise V.InvalidParameter("method", "a method without public data (this problem has no public split)",
                                     method)
        Xp, Yp = problem.public_features, problem.public_labels
    else:
        Xp, Yp = np.zeros((1, problem.d)), np.zeros(1)
    b_pub = batch_size if public_batch is None else V.count("public_batch", public_batch)
    A = side_information(problem, side_info) if method == "adadps_fixed" else np.ones(problem.d)
    w0 = np.zeros(problem.d) if w0 is None else V.finite_array("w0", w0, shape=(problem.d,))
    trials = V.count("trials", trials)
    log_steps = log_points(steps, V.count("n_log", n_log, 2))
    V.memory("trials, n_log", trials, log_steps.size)
    V.memory("trials", trials, problem.d)
    out_l = np.empty((trials, log_steps.size))
    out_w = np.empty((trials, problem.d))
    clip_frac = np.empty(trials)
    kind = LOSSES[problem.loss]
    nc = clip if noise_clip is None else V.positive("noise_clip", noise_clip)
    noise_scale = sigma * nc if sigma > 0 else 0.0
    if not math.isfinite(noise_scale):
        raise V.InvalidParameter("noise_clip", "finite when clip is inf and sigma > 0", noise_clip)
    # fault hooks for mutation analysis (kernels/faults.py); a skipped clipping keeps the noise's scale σC
    # (a one-arm fault, faults.Faults.only_methods, hits only the listed methods: the method's name is passed on)
    noise_scale, lr = noise_scale * faults.noise_factor(noise_scale, method=method), \
        lr * faults.stepsize_scale(method=method)
    clip = math.inf if faults.clipping_skipped(clip) else clip
    tw = np.zeros(0) if track_weights is None else V.finite_array("track_weights", track_weights, shape=(problem.d,))
    grad_avg = np.zeros(trials)
    prm = CentralParams(kind, code, lr, clip, noise_scale, batch_size, samp, beta1, beta2, eps_a, b_pub,
                        bool(harmonic_beta2), bool(lr_decay), steps)
    rows, prows = _central_rows(problem.features, Xp, code)
    if V.flag("one_stream", one_stream):
        rng = np.random.default_rng(V.integer("seed", seed, 0))
        _central_trials_one_stream(problem.features, problem.labels, Xp, Yp, A, prm, rng, log_steps, out_l, out_w,
                                   w0, clip_frac, tw, grad_avg, rows, prows)
        grad_avg /= steps
    else:
        children = np.random.SeedSequence(V.integer("seed", seed, 0)).spawn(trials)
        for k, rng in enumerate(_cpu.reseeded_generators(children)):  # default_rng(child)'s streams, one object
            out_w[k] = w0
            cf = np.zeros(1)
            tr = np.zeros(1)
            _central_loop(problem.features, problem.labels, Xp, Yp, A, prm, rng, log_steps, out_l[k], out_w[k], cf,
                          tw, tr, rows, prows)
            clip_frac[k] = cf[0]
            grad_avg[k] = tr[0] / steps
    V.finite_output("lr, sigma, noise_clip, w0, side_info", out_l, out_w, grad_avg)
    out = {"steps": log_steps, "loss": out_l, "w": out_w, "clip_fraction": clip_frac}
    if track_weights is not None:
        out["grad_avg"] = grad_avg
    return out


def federated_method_name(side_info, server: str = "sgd") -> str:
    """The name under which :func:`run_federated` passes a run to the fault hooks (kernels/faults.py).

    A one-arm fault (``kernels.faults.Faults.only_methods``) lists these names to hit one federated method only.

    Parameters
    ----------
    side_info : str or array
        ``run_federated``'s side information (``"ones"``: no preconditioner).
    server : str, optional
        ``run_federated``'s server update, ``"sgd"`` or ``"adam"``.

    Returns
    -------
    str
        ``"dp_fedavg"`` (ones, sgd), ``"dp_fedadam"`` (ones, adam), ``"fed_adadps"`` (side information, sgd) or
        ``"fed_adadps_adam"`` (side information, adam).

    Raises
    ------
    dpvalidate.InvalidParameter
        ``server`` not "sgd" or "adam".
    """
    server = V.choice("server", server, ("sgd", "adam"))
    plain = isinstance(side_info, str) and side_info == "ones"
    if plain:
        return "dp_fedavg" if server == "sgd" else "dp_fedadam"
    return "fed_adadps" if server == "sgd" else "fed_adadps_adam"


def run_federated(problem: GLMProblem, *, local_lr: float, clip: float = 1.0, sigma: float = 1.0,
                  users_per_round: int = 10, rounds: int = 100, local_steps: int = 5, local_batch: int = 10,
                  side_info="frequency", options: FederatedOptions | None = None, trials: int = 1,
                  seed: int = 0) -> dict:
    """Federated AdaDPS (App. Alg. 3); ``side_info="ones"`` is DP-FedAvg.  User-level clipping of model deltas.

    The server's stepsize and update (SGD or FedAdam), the user sampling, device noise, starting point and logged
    rounds are the fields of ``options`` (:class:`FederatedOptions`).
    Returns {"rounds": (m,), "loss": (trials, m) user-averaged training loss, "w": (trials, d)}.

    Parameters
    ----------
    problem : GLMProblem
    local_lr : float
        The users' stepsize.
    clip, sigma : float, optional
        The user-level clipping threshold of model deltas and the noise multiplier.
    users_per_round, rounds, local_steps, local_batch : int, optional
    side_info : str or array, optional
        The preconditioner (``"ones"``: DP-FedAvg).
    options : FederatedOptions, optional
        The remaining settings; None for :class:`FederatedOptions`' defaults.
    trials, seed : int, optional

    Returns
    -------
    dict
        ``run_federated``'s arrays, listed above.

    Raises
    ------
    dpvalidate.InvalidParameter
        A parameter of ``run_federated`` outside what it accepts.
    """
    problem = _problem(problem)
    o = _options(options, FederatedOptions)
    server_lr, sampling, device_noise, w0, n_log = o.server_lr, o.sampling, o.device_noise, o.w0, o.n_log
    server, server_beta1, server_beta2, server_tau = o.server, o.server_beta1, o.server_beta2, o.server_tau
    if problem.user_ptr is None:
        raise V.InvalidParameter("problem", "a problem with a user partition (zipf_bow_logistic)", "none")
    local_lr = V.positive("local_lr", local_lr)
    clip = V.positive("clip", clip, allow_inf=True)
    sigma = V.nonnegative("sigma", sigma)
    users_per_round = V.count("users_per_round", users_per_round)
    if users_per_round > problem.n_users:
        raise V.InvalidParameter("users_per_round", f"an integer in [1, {problem.n_users}]", users_per_round)
    rounds = V.count("rounds", rounds)
    local_steps, local_batch = V.count("local_steps", local_steps), V.count("local_batch", local_batch)
    server_lr = V.positive("server_lr", server_lr)
    device_noise = V.flag("device_noise", device_noise)
    server_opt = {"sgd": 0, "adam": 1}[V.choice("server", server, ("sgd", "adam"))]
    sb1, sb2 = V.nonnegative("server_beta1", server_beta1), V.nonnegative("server_beta2", server_beta2)
    if sb1 >= 1.0:
        raise V.InvalidParameter("server_beta1", "in [0, 1)", sb1)
    if sb2 >= 1.0:
        raise V.InvalidParameter("server_beta2", "in [0, 1)", sb2)
    tau = V.positive("server_tau", server_tau)
    # fault hooks (kernels/faults.py), with the run's method name for a one-arm fault (faults.Faults.only_methods)
    name = federated_method_name(side_info, server)
    local_lr, sigma = local_lr * faults.stepsize_scale(method=name), sigma * faults.noise_factor(sigma, method=name)
    samp = SAMPLINGS[V.choice("sampling", sampling, tuple(SAMPLINGS))]
    A = np.ones(problem.d) if isinstance(side_info, str) and side_info == "ones" else side_information(problem,
                                                                                                      side_info)
    w0 = np.zeros(problem.d) if w0 is None else V.finite_array("w0", w0, shape=(problem.d,))
    trials = V.count("trials", trials)
    log_steps = log_points(rounds, V.count("n_log", n_log, 2))
    V.memory("trials, n_log", trials, log_steps.size)
    V.memory("trials", trials, problem.d)
    out_l = np.empty((trials, log_steps.size))
    out_w = np.empty((trials, problem.d))
    prm = FedParams(LOSSES[problem.loss], server_lr, local_lr, local_steps, local_batch, clip, sigma, users_per_round,
                    samp, bool(device_noise), rounds, server_opt, sb1, sb2, tau)
    children = np.random.SeedSequence(V.integer("seed", seed, 0)).spawn(trials)
    for k, rng in enumerate(_cpu.reseeded_generators(children)):  # default_rng(child)'s streams, one object
        out_w[k] = w0
        _fed_loop(problem.features, problem.labels, problem.user_ptr, A, prm, rng, log_steps, out_l[k], out_w[k])
    V.finite_output("local_lr, server_lr, sigma, w0, side_info", out_l, out_w)
    return {"rounds": log_steps, "loss": out_l, "w": out_w}
