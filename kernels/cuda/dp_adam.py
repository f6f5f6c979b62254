r"""Batched DP-Adam rounds on the GPU: one thread per (trial, coordinate), all rounds in one launch.

The per-record gradients are the same in every round (a fixed batch, as in the negative-v̂
experiments of ``dp_adam_design`` §4.4 where the clean average is held constant), so the clip
factors are computed once on the host and each coordinate evolves independently: thread
(k, j) runs m, v, θ of coordinate j in trial k through ``rounds`` rounds with its own
xoroshiro128+ stream, and counts the rounds in which its corrected v̂ is negative (atomic
adds into a per-round counter).  The update is ``kernels._shared.adam_coordinate``, the source the CPU round
:func:`kernels.dp_adam._round` compiles too, for
the variants whose clipping does not depend on the state: ``post_processing``, ``ime``,
``bias_correction``, ``noiseless`` and ``sgd_momentum`` with independent noise (DP-MF
correlation and scale-then-privatize stay on the CPU).
"""

from __future__ import annotations

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float64

from kernels import validate as V
from kernels._compile import compile_helpers
from kernels.dp_adam import OPTIMIZERS, VARIANTS, RoundConfig, bias_schedule, noise_stds

dev = compile_helpers(cuda.jit(device=True))
GPU_VARIANTS = ("post_processing", "ime", "bias_correction", "noiseless", "sgd_momentum")
THREADS_PER_BLOCK = 256


@cuda.jit
def _rounds(gbar, rounds, variant, opt, lr, beta1, beta2, xi, std_m, std_v, bias, floor, states, theta, m, v,
            neg):
    tid = cuda.grid(1)
    trials = theta.shape[0]
    d = theta.shape[1]
    if tid >= trials * d:
        return
    k = tid // d
    j = tid - k * d
    acc = gbar[j]
    th = theta[k, j]
    mm = m[k, j]
    vv = v[k, j]
    for t in range(rounds):
        tt = t + 1
        g = acc
        if std_m > 0.0:
            g = acc + std_m * xoroshiro128p_normal_float64(states, tid)
        nv = 0.0
        if variant == 1:
            nv = xoroshiro128p_normal_float64(states, tid)
        th, mm, vv, vh = dev.adam_coordinate(variant, opt, acc, g, nv, std_v, th, mm, vv, lr, beta1, beta2, xi,
                                             1.0 - beta1**tt, 1.0 - beta2**tt, bias[t], floor)
        if vh < 0.0:
            cuda.atomic.add(neg, t, 1)
    theta[k, j] = th
    m[k, j] = mm
    v[k, j] = vv


def clipped_average(grads: np.ndarray, clip_norm: float) -> np.ndarray:
    """ḡ = (1/B) Σ_i g_i·min(1, C/‖g_i‖) (host; the same clip as the CPU round)."""
    norms = np.sqrt(np.sum(grads * grads, axis=1))
    fac = np.where(norms > clip_norm, clip_norm / np.where(norms > 0, norms, 1.0), 1.0)
    return (fac[:, None] * grads).sum(axis=0) / grads.shape[0]


def run_rounds_batch(cfg: RoundConfig, grads, rounds: int, *, trials: int = 1024, seed: int = 0) -> dict:
    """``rounds`` rounds of ``cfg`` on the fixed per-record gradients ``grads`` (B, d) for ``trials`` noise streams.

    Returns {"theta", "m", "v": (trials, d), "neg_frac": (rounds,) fraction of (trial, coordinate) pairs whose
    corrected v̂ is negative in each round, "gbar": (d,) the clipped average}.  Same seed ⇒ same numbers.
    """
    from kernels.cuda import require

    require()
    cfg = cfg.validated()
    if cfg.variant not in GPU_VARIANTS:
        raise V.InvalidParameter("variant", "one of " + ", ".join(GPU_VARIANTS) + " on the CUDA path "
                                 "(scale-then-privatize clips in a state-dependent geometry: CPU only)", cfg.variant)
    grads = V.finite_array("grads", grads, ndim=2)
    if grads.shape[0] != cfg.batch_size:
        raise V.InvalidParameter("grads", f"{cfg.batch_size} rows (the batch size)", f"shape {grads.shape}")
    rounds = V.integer("rounds", rounds, 1)
    trials = V.integer("trials", trials, 1)
    seed = V.integer("seed", seed, 0)
    d = grads.shape[1]
    gbar = clipped_average(grads, cfg.clip_norm)
    std_m, std_v = noise_stds(cfg)
    bias = bias_schedule(cfg, None, rounds) if cfg.variant == "bias_correction" else np.zeros(rounds)
    n = trials * d
    states = create_xoroshiro128p_states(n, seed=seed)
    theta, m, v = (cuda.to_device(np.zeros((trials, d))) for _ in range(3))
    neg = cuda.to_device(np.zeros(rounds, dtype=np.int64))
    blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    _rounds[blocks, THREADS_PER_BLOCK](cuda.to_device(gbar), rounds, VARIANTS[cfg.variant], OPTIMIZERS[cfg.optimizer],
                                       cfg.lr, cfg.beta1, cfg.beta2, cfg.xi, std_m, std_v, cuda.to_device(bias),
                                       cfg.floor, states, theta, m, v, neg)
    return {"theta": theta.copy_to_host(), "m": m.copy_to_host(), "v": v.copy_to_host(),
            "neg_frac": neg.copy_to_host() / n, "gbar": gbar}
