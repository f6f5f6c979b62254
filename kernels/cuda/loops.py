r"""Batched trials on the GPU: the PAGAN-family loop and ADP-SGD, one thread per trial.

Work arrays are laid out (d, trials): thread t owns column t, so a warp reading coordinate
j of its 32 trials reads 32 consecutive doubles (coalesced).  Per-record feature rows are
read at random indices (cached, not coalesced).  Losses are evaluated on the host from the
returned iterates (``Dataset.loss``), which keeps the device code to the optimizer itself.

Random streams: :func:`numba.cuda.random.create_xoroshiro128p_states` gives every trial its
own xoroshiro128+ stream from ``seed`` (jump-ahead by 2⁶⁴ per thread), so the same seed and
trial count give the same numbers; record indices are ⌊u·n⌋ for u uniform in [0, 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float64, xoroshiro128p_uniform_float64

import dpvalidate as V
from kernels._compile import compile_helpers
from kernels.adp import AdpSchedule, NonconvexProblem, check_run
from kernels.cuda._device import status
from kernels.pagan import STEP_ADAGRAD, STEP_ADANORM, config_from_keywords, loop_params
from kernels.pagan_problems import LOSS_ABS, Dataset

dev = compile_helpers(cuda.jit(device=True))
_project_ellipsoid = dev.project_ellipsoid
_dot = dev.dot
_project_box = dev.project_box
_project_ball_euclidean = dev.project_ball_euclidean
_project_ball_hnorm = dev.project_ball_hnorm
_adp_scales = dev.adp_scales

THREADS_PER_BLOCK = 128


@cuda.jit(device=True)
def _record_index(states, t, n):
    i = int(xoroshiro128p_uniform_float64(states, t) * n)
    return n - 1 if i >= n else i


@cuda.jit
def _pagan_batch(feat, targ, ell_a, noise_std, prm, states, g, gbar, proj, accum, inv_h, x, xbar, clipped):
    loss_kind, domain, radius, steps, batch = prm.loss_kind, prm.domain, prm.radius, prm.steps, prm.batch
    step_rule, alpha, eps_stab, clip, noise = prm.step_rule, prm.alpha, prm.eps_stab, prm.clip, prm.noise
    t = cuda.grid(1)
    if t >= x.shape[1]:
        return
    n = feat.shape[0]
    d = feat.shape[1]
    gt = g[:, t]
    gb = gbar[:, t]
    pr = proj[:, t]
    acc = accum[:, t]
    ih = inv_h[:, t]
    xt = x[:, t]
    xb = xbar[:, t]
    n_clipped = 0
    for k in range(steps):
        for j in range(d):
            gb[j] = 0.0
        for _ in range(batch):
            i = _record_index(states, t, n)
            sgn = 1.0
            if loss_kind == LOSS_ABS:
                r = -targ[i]
                for j in range(d):
                    r += feat[i, j] * xt[j]
                sgn = 1.0 if r > 0 else (-1.0 if r < 0 else 0.0)
            for j in range(d):
                gt[j] = sgn * feat[i, j]
            if clip:
                if _project_ellipsoid(gt, ell_a, pr):
                    if sgn != 0.0:
                        n_clipped += 1
                for j in range(d):
                    gb[j] += pr[j]
            else:
                for j in range(d):
                    gb[j] += gt[j]
        for j in range(d):
            gb[j] /= batch
            if noise:
                gb[j] += noise_std[j] * xoroshiro128p_normal_float64(states, t)
        if step_rule == STEP_ADAGRAD:
            for j in range(d):
                acc[j] += gb[j] * gb[j]
                ih[j] = alpha / (eps_stab + math.sqrt(acc[j]))
                xt[j] -= ih[j] * gb[j]
            if domain == 1:
                _project_box(xt, radius)
            elif domain == 2:
                _project_ball_hnorm(xt, ih, radius)
        else:
            eta = alpha
            if step_rule == STEP_ADANORM:
                s = 0.0
                for j in range(d):
                    s += gb[j] * gb[j]
                acc[0] += s
                eta = alpha / (eps_stab + math.sqrt(acc[0]))
            for j in range(d):
                xt[j] -= eta * gb[j]
            if domain == 1:
                _project_box(xt, radius)
            elif domain == 2:
                _project_ball_euclidean(xt, radius)
        inv_k = 1.0 / (k + 1)
        for j in range(d):
            xb[j] += (xt[j] - xb[j]) * inv_k
    clipped[t] = n_clipped


@dataclass
class BatchOutput:
    """Per-trial results of a batched run (host arrays)."""

    algorithm: str
    x_final: np.ndarray  # (trials, d)
    x_avg: np.ndarray  # (trials, d)
    final_loss: np.ndarray  # (trials,) f(x_T) (PAGAN family) or ‖∇F(θ_T)‖² (ADP-SGD)
    avg_loss: np.ndarray | None  # (trials,) f(x̄_T), PAGAN family only
    clipped_fraction: np.ndarray | None
    device: str


def _grid(trials: int) -> tuple[int, int]:
    return (trials + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK, THREADS_PER_BLOCK


def run_algorithm_batch(name: str, dataset: Dataset, *, trials: int = 1024, seed: int = 0, **params) -> BatchOutput:
    """``trials`` independent runs of a PAGAN-family algorithm on the GPU, one thread per trial.

    Same parameters as :func:`kernels.run_algorithm`; ``pdp_sgd``'s public subspace is CPU-only.  The loop takes
    the configuration's scalars as one :class:`kernels.pagan.LoopParams` kernel argument.

    Parameters
    ----------
    name : str
        One of :data:`kernels.ALGORITHMS` except ``pdp_sgd``.
    dataset : Dataset
        The problem.
    trials : int, optional
        Independent trials (threads), ≥ 1.
    seed : int, optional
        Seeds the per-thread xoroshiro128+ streams (trial t's stream does not depend on ``trials``).
    **params
        As :func:`kernels.pagan.config_from_keywords` (:func:`kernels.make_config`'s, its settings as flat keywords).

    Returns
    -------
    BatchOutput
        Final and averaged iterates, their losses and the clipped fraction, per trial.

    Raises
    ------
    dpvalidate.InvalidParameter
        ``dataset`` not a Dataset, ``pdp_sgd``, or a parameter outside what :func:`kernels.make_config` accepts.
    """

    if not isinstance(dataset, Dataset):
        raise V.InvalidParameter("dataset", "a kernels.Dataset (see kernels.make_problem)", type(dataset).__name__)
    trials = V.integer("trials", trials, 1)
    seed = V.integer("seed", seed, 0)
    cfg = config_from_keywords(name, dataset, **params)
    if cfg.subspace.shape[1] > 0:
        raise V.InvalidParameter("algorithm", "one without a public subspace on the CUDA path (pdp_sgd is CPU-only)",
                                 name)
    d = dataset.d
    x0 = np.ascontiguousarray(np.repeat(cfg.x0[:, None], trials, axis=1))
    work = [cuda.to_device(np.zeros((d, trials))) for _ in range(5)]  # g, gbar, proj, accum, inv_h
    x, xbar = cuda.to_device(x0), cuda.to_device(x0.copy())
    clipped = cuda.to_device(np.zeros(trials, dtype=np.int64))
    states = create_xoroshiro128p_states(trials, seed=seed)
    blocks, tpb = _grid(trials)
    _pagan_batch[blocks, tpb](cuda.to_device(dataset.features), cuda.to_device(dataset.targets),
                              cuda.to_device(cfg.ellipsoid), cuda.to_device(cfg.noise_std), loop_params(cfg, dataset),
                              states, *work, x, xbar, clipped)
    xf, xa = x.copy_to_host().T.copy(), xbar.copy_to_host().T.copy()
    frac = clipped.copy_to_host() / (cfg.steps * cfg.batch_size) if cfg.clip else np.zeros(trials)
    return BatchOutput(name, xf, xa, dataset.loss(xf), dataset.loss(xa), frac, status()[1])


# --------------------------------------------------------------------------------------
# ADP-SGD / DP-SGD on smooth_nonconvex (kernels.adp), one record per step
# --------------------------------------------------------------------------------------
@cuda.jit
def _adp_batch(X, Y, prm, states, g, theta):
    lam, steps, eta, b0, sigma, clip = prm.lam, prm.steps, prm.eta, prm.b0, prm.sigma, prm.clip
    t = cuda.grid(1)
    if t >= theta.shape[1]:
        return
    n = X.shape[0]
    d = X.shape[1]
    th = theta[:, t]
    gt = g[:, t]
    b2 = b0 * b0
    for s in range(steps):
        i = _record_index(states, t, n)
        m = 0.0
        for j in range(d):
            m += X[i, j] * th[j]
        m *= Y[i]
        w = -Y[i] / (1.0 + math.exp(m))
        gn2 = 0.0
        for j in range(d):
            u = th[j]
            gt[j] = w * X[i, j] + lam * 2.0 * u / ((1.0 + u * u) * (1.0 + u * u))
            gn2 += gt[j] * gt[j]
        if gn2 > clip * clip:
            f = clip / math.sqrt(gn2)
            for j in range(d):
                gt[j] *= f
            gn2 = clip * clip
        b, al, b2 = _adp_scales(prm, s, b2, gn2)
        step = eta / b
        for j in range(d):
            th[j] -= step * (gt[j] + al * sigma * xoroshiro128p_normal_float64(states, t))


def run_adp_batch(problem: NonconvexProblem, *, steps: int = 1000, eta: float = 1.0, b_rule: str = "poly",
                  alpha_rule: str = "adp", sigma: float = 0.0, schedule: AdpSchedule = AdpSchedule(),
                  clip: float | None = None, trials: int = 1024, seed: int = 0) -> BatchOutput:
    """``trials`` runs of ADP-SGD/DP-SGD (:func:`kernels.adp.run_adp`'s parameters) on the GPU.

    ``final_loss`` is ‖∇F(θ_T)‖².  The settings reach the kernel as one :class:`kernels.adp.AdpParams` (from
    :func:`kernels.adp.check_run`); unlike :func:`kernels.adp.run_adp`, no fault hook is applied.

    Parameters
    ----------
    problem : NonconvexProblem
        The problem.
    steps : int, optional
        Iterations.
    eta : float, optional
        The base stepsize.
    b_rule, alpha_rule : str, optional
        The b_t schedule and the α_t rule, as :func:`kernels.adp.run_adp`.
    sigma : float, optional
        The noise standard deviation (times α_t).
    schedule : AdpSchedule, optional
        The schedules' constants a, c, b0, nu, C (:class:`kernels.adp.AdpSchedule`; default ``AdpSchedule()``).
    clip : float, optional
        The per-record clipping threshold (default the problem's gradient bound).
    trials : int, optional
        Independent trials (threads), ≥ 1.
    seed : int, optional
        Seeds the per-thread xoroshiro128+ streams.

    Returns
    -------
    BatchOutput
        θ_T per trial (as both ``x_final`` and ``x_avg``) and ‖∇F(θ_T)‖².
    """

    prm = check_run(problem, steps=steps, eta=eta, b_rule=b_rule, alpha_rule=alpha_rule, sigma=sigma,
                    schedule=schedule, clip=clip)
    trials = V.integer("trials", trials, 1)
    seed = V.integer("seed", seed, 0)
    d = problem.d
    theta = cuda.to_device(np.zeros((d, trials)))
    g = cuda.to_device(np.zeros((d, trials)))
    states = create_xoroshiro128p_states(trials, seed=seed)
    blocks, tpb = _grid(trials)
    _adp_batch[blocks, tpb](cuda.to_device(problem.features), cuda.to_device(problem.labels), prm, states, g, theta)
    th = theta.copy_to_host().T.copy()
    gn2 = np.array([float(np.sum(problem.full_gradient(v) ** 2)) for v in th])
    return BatchOutput(f"adp_sgd[{alpha_rule},{b_rule}]", th, th, gn2, None, None, status()[1])
