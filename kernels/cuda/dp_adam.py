r"""Batched DP-Adam rounds on the GPU: every variant of :mod:`kernels.dp_adam`, all rounds in one launch.

The per-record gradients ``grads`` (B, d) are the same in every round (a fixed batch, as in the negative-v̂
experiments of ``dp_adam_design`` §4.4 where the clean average is held constant).  Two kernels run the rounds,
both with ``kernels._shared.adam_coordinate``, the source the CPU round :func:`kernels.dp_adam.round_with` compiles
too:

* ``_rounds``, one thread per (trial k, coordinate j), for the variants whose clipping does not depend on the
  state (``post_processing``, ``ime``, ``bias_correction``, ``noiseless``, ``sgd_momentum``): the clip factors,
  hence the clipped average ḡ, are computed once on the host and each coordinate evolves on its own.
* ``_rounds_block``, one block per trial, for ``scale_then_privatize`` and ``noiseless_stp``, whose clip factor
  min(1, C/‖s⊙g_i‖) depends on the trial's state (s_j = 1/(√v̂_{j,t−1} + ξ), s = 1 in round 1): the block's
  threads stride over the coordinates; each round reduces the B squared norms ‖s⊙g_i‖² through shared memory
  (a chunk of records per pair of barriers; B ≤ :data:`MAX_BLOCK_BATCH`), then every thread averages its
  coordinates' clipped records and updates them with g = ḡ + std·ζ̃/s, as the CPU round does.
  ``kernel="block"`` runs the other variants on it too.

Noise: coordinate (k, j) draws from xoroshiro128+ stream k·d + j in both kernels (the m part when its std is
positive, then the IME v part), so the two kernels give the same numbers for the same seed.  DP-MF
(``strat_kind``, ``bands``: the strategies of :func:`kernels.dp_adam.strategy`) filters each part of each
coordinate through its own history in global memory ((p − 1) past ζ and q past ζ̃, ring-indexed like
:func:`kernels.dp_adam._filter_noise`); the stds are scaled by the strategy's sensitivity and bias correction
subtracts the strategy's schedule, as in :func:`kernels.dp_adam.run_stream`.  ``unit_noise`` replaces the draws
by given ζ (before the filter), so the CPU and the GPU can be fed the same noise; with in-kernel draws the two
paths agree in distribution, not draw by draw (xoroshiro128+ here, PCG64 there).  Each coordinate counts the
rounds in which its corrected v̂ is negative (atomic adds into a per-round counter).
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, float64
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float64

import dpvalidate as V
from kernels._compile import compile_helpers
from kernels.cuda import require
from kernels.dp_adam import (
    STRATEGIES,
    STRATEGY_MAX_T,
    RoundConfig,
    adam_params,
    bias_schedule,
    noise_stds,
    strategy,
)

dev = compile_helpers(cuda.jit(device=True))
# bound to a module global: numba-cuda's typing resolves a device function global, not an attribute of a namespace
# (``dev.adam_coordinate`` inside a kernel is refused on a real GPU; the simulator, being Python, accepted it)
_adam_coordinate = dev.adam_coordinate
GPU_VARIANTS = ("post_processing", "ime", "bias_correction", "scale_then_privatize", "noiseless", "noiseless_stp",
                "sgd_momentum")
STATE_DEPENDENT = ("scale_then_privatize", "noiseless_stp")  # clip in the trial's scaled geometry: block kernel
KERNELS = ("auto", "coordinate", "block")
THREADS_PER_BLOCK = 256
MAX_BLOCK_BATCH = 1024  # records per round on the block kernel: their clip factors sit in shared memory
MAX_BLOCK_THREADS = 128  # threads per block of the block kernel
SHARED_PARTIALS = 4096  # per-thread partial norms of a chunk of records (SHARED_PARTIALS // threads records)


@cuda.jit(device=True)
def _unit(states, sid, use_unit, unit, t, k, part, j, p, q, num, den, hz, ho):
    """Unit noise of part ``part`` (0: m, 1: the IME v part) of coordinate j of trial k in round t: given
    (``unit[t, k, part, j]``) or drawn from stream ``sid`` = k·d + j, then, when p > 1 or q > 0, filtered by
    DP-MF with the history column ``sid``: ζ̃_t = Σ_i num[i] ζ_{t−i} − Σ_{i≥1} den[i−1] ζ̃_{t−i} (the arithmetic,
    in the order, of kernels.dp_adam._filter_noise; hz holds the p − 1 past ζ, ho the q past ζ̃, slot t mod size)."""
    if use_unit:
        z = unit[t, k, part, j]
    else:
        z = xoroshiro128p_normal_float64(states, sid)
    if p > 1 or q > 0:
        acc = num[0] * z
        for i in range(1, p):
            acc += num[i] * hz[part, (t - i + p - 1) % (p - 1), sid]
        for i in range(1, q + 1):
            acc -= den[i - 1] * ho[part, (t - i + q) % q, sid]
        if p > 1:
            hz[part, t % (p - 1), sid] = z
        if q > 0:
            ho[part, t % q, sid] = acc
        z = acc
    return z


@cuda.jit
def _rounds(gbar, prm, t0, rounds, bias, states, use_unit, unit, p, q, num, den, hz, ho, theta, m, v, neg):
    """One thread per (trial k, coordinate j), rounds t0 + 1 .. t0 + rounds; ``gbar`` (d) the clipped average
    (state-independent).  ``bias``, ``unit`` and ``neg`` are indexed by the round within this launch (0-based);
    the bias-correction factors 1 − β^t use the round's number t0 + t + 1, so rounds split over launches give the
    numbers of one launch (:class:`DeviceRounds`).

    ``prm`` is the run's :class:`kernels.dp_adam.AdamParams` (a NamedTuple of scalars: a kernel argument).
    """
    variant, beta1, beta2, std_m = prm.variant, prm.beta1, prm.beta2, prm.std_m
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
        tt = t0 + t + 1
        g = acc
        if std_m > 0.0:
            g = acc + std_m * _unit(states, tid, use_unit, unit, t, k, 0, j, p, q, num, den, hz, ho)
        nv = 0.0
        if variant == 1:
            nv = _unit(states, tid, use_unit, unit, t, k, 1, j, p, q, num, den, hz, ho)
        th, mm, vv, vh = _adam_coordinate(prm, acc, g, nv, th, mm, vv, 1.0 - beta1**tt, 1.0 - beta2**tt, bias[t])
        if vh < 0.0:
            cuda.atomic.add(neg, t, 1)
    theta[k, j] = th
    m[k, j] = mm
    v[k, j] = vv


@cuda.jit
def _rounds_block(grads, prm, rounds, bias, states, use_unit, unit, p, q, num, den, hz, ho, scale, theta, m, v, neg):
    """One block per trial k (blockDim ≤ MAX_BLOCK_THREADS threads), threads striding over the coordinates.

    Each round: the scales s_j (1 in round 1 and for the variants without scale-then-privatize) into ``scale``;
    then, for a chunk of records at a time, every thread writes its partial sums Σ_{own j} (g_ij s_j)² to shared
    memory, and after a barrier thread i mod blockDim adds record i's partials and stores its clip factor
    min(1, C/‖s⊙g_i‖)/B in shared ``fac``; after a second barrier every thread updates its coordinates:
    ḡ_j = Σ_i fac_i g_ij (records in order, as the CPU), g = ḡ_j + std_m ζ̃/s_j (scale-then-privatize) or
    ḡ_j + std_m ζ̃, and ``adam_coordinate``.  A thread reads and writes only its own coordinates' state, so the
    norms are the only synchronisation (two barriers per chunk of records, one chunk for B ≤ 32 at any d).
    ``prm`` is the run's :class:`kernels.dp_adam.AdamParams`.
    """
    variant, opt, beta1, beta2, xi, clip, std_m = prm.variant, prm.opt, prm.beta1, prm.beta2, prm.xi, prm.clip, \
        prm.std_m
    sh = cuda.shared.array(SHARED_PARTIALS, float64)
    fac = cuda.shared.array(MAX_BLOCK_BATCH, float64)
    k = cuda.blockIdx.x
    tx = cuda.threadIdx.x
    nt = cuda.blockDim.x
    rows = SHARED_PARTIALS // nt
    B = grads.shape[0]
    d = grads.shape[1]
    stp = variant == 3 or variant == 5
    for t in range(rounds):
        c2p = 1.0 - beta2**t
        for j in range(tx, d, nt):
            sc = 1.0
            if stp and t > 0:
                vh = v[k, j] / c2p if opt == 0 else v[k, j]
                sc = 1.0 / (math.sqrt(vh if vh > 0.0 else 0.0) + xi)
            scale[k, j] = sc
        for c0 in range(0, B, rows):  # records in chunks of ``rows``: two barriers per chunk
            ce = min(B, c0 + rows)
            for i in range(c0, ce):
                s2 = 0.0
                for j in range(tx, d, nt):
                    x = grads[i, j] * scale[k, j]
                    s2 += x * x
                sh[(i - c0) * nt + tx] = s2
            cuda.syncthreads()  # every partial sum of the chunk is in sh
            for i in range(c0 + tx, ce, nt):
                s2 = 0.0
                for r in range(nt):
                    s2 += sh[(i - c0) * nt + r]
                nrm = math.sqrt(s2)
                f = 1.0
                if nrm > clip:
                    f = clip / nrm
                fac[i] = f / B
            cuda.syncthreads()  # the chunk's clip factors are in fac, and sh may be overwritten
        tt = t + 1
        c1 = 1.0 - beta1**tt
        c2 = 1.0 - beta2**tt
        for j in range(tx, d, nt):
            sid = k * d + j
            acc = 0.0
            for i in range(B):
                acc += fac[i] * grads[i, j]
            nm = 0.0
            if std_m > 0.0:
                nm = _unit(states, sid, use_unit, unit, t, k, 0, j, p, q, num, den, hz, ho)
            nv = 0.0
            if variant == 1:
                nv = _unit(states, sid, use_unit, unit, t, k, 1, j, p, q, num, den, hz, ho)
            if stp:
                sc = scale[k, j]
                if sc > 0.0:
                    g = acc + std_m * nm / sc  # (s·ḡ + z)/s
                else:  # v̂ overflowed to inf (the CPU raises here); NaN makes the wrapper refuse the run
                    g = math.nan
            else:
                g = acc + std_m * nm
            th, mm, vv, vh = _adam_coordinate(prm, acc, g, nv, theta[k, j], m[k, j], v[k, j], c1, c2, bias[t])
            theta[k, j] = th
            m[k, j] = mm
            v[k, j] = vv
            if vh < 0.0:
                cuda.atomic.add(neg, t, 1)
        # no barrier needed here: fac is rewritten next round only after that round's first barrier


def clipped_average(grads: np.ndarray, clip_norm: float) -> np.ndarray:
    """ḡ = Σ_i g_i·min(1, C/‖g_i‖)/B (host; the clip of the CPU round, records added in order).

    Parameters
    ----------
    grads : numpy.ndarray
        (B, d) per-record gradients.
    clip_norm : float
        C > 0 (may be inf).

    Returns
    -------
    numpy.ndarray
        (d,) the clipped average.
    """
    norms = np.sqrt(np.sum(grads * grads, axis=1))
    fac = np.where(norms > clip_norm, clip_norm / np.where(norms > 0, norms, 1.0), 1.0) / grads.shape[0]
    return (fac[:, None] * grads).sum(axis=0)


def run_rounds_batch(cfg: RoundConfig, grads, rounds: int, *, trials: int = 1024, seed: int = 0,
                     strat_kind: str = "identity", bands: int = 4, unit_noise=None, kernel: str = "auto") -> dict:
    """``rounds`` rounds of ``cfg`` on the fixed per-record gradients ``grads`` (B, d) for ``trials`` noise streams.

    Every variant of :data:`kernels.dp_adam.VARIANTS` (:data:`GPU_VARIANTS`).  ``strat_kind``/``bands``: the DP-MF
    strategy, as in :func:`kernels.dp_adam.run_stream` (noise stds times its sensitivity; bias correction
    subtracts :func:`kernels.dp_adam.bias_schedule` of it; IME filters both parts).  ``unit_noise``: optional
    given unit noise ζ, before the DP-MF filter, used instead of the in-kernel draws: shape (rounds, trials, d),
    or (rounds, trials, 2, d) for ``ime`` ([..., 0, :] the m part, [..., 1, :] the v part).  ``kernel``:
    ``"auto"`` (the block kernel for scale-then-privatize and noiseless_stp, the per-coordinate one otherwise),
    ``"coordinate"`` or ``"block"`` (any variant; for tests and comparisons).

    Returns {"theta", "m", "v": (trials, d), "neg_frac": (rounds,) fraction of (trial, coordinate) pairs whose
    corrected v̂ is negative in each round, "gbar": (d,) the clipped average in the unscaled geometry (for
    scale-then-privatize that of round 1; later rounds clip in each trial's scaled geometry)}.  Same seed ⇒ same
    numbers, on either kernel; trial k's numbers do not depend on the trial count.

    Limits: ``rounds``, ``trials`` ≤ 10⁹ with the (trials, d) state ≤ 8 GiB; a DP-MF ``strat_kind`` other than
    identity needs ``rounds`` ≤ 10⁴, and its per-coordinate filter history ((p − 1 + q) values per part and
    coordinate; ``sqrt`` has p = rounds) ≤ 8 GiB; the block kernel takes B ≤ :data:`MAX_BLOCK_BATCH` records.
    A run that overflows float64 raises InvalidParameter instead of returning NaN.

    Parameters
    ----------
    cfg : RoundConfig
        The rounds' configuration (validated here).
    grads : array_like
        (B, d) finite per-record gradients, B = ``cfg.batch_size``.
    rounds : int
        The number of rounds.
    trials : int, optional
        Noise streams (one per trial and coordinate).
    seed : int, optional
        Seeds the xoroshiro128+ streams.
    strat_kind : str, optional
        One of :data:`kernels.dp_adam.STRATEGIES`.
    bands : int, optional
        ``banded`` only: the strategy's number of coefficients.
    unit_noise : array_like, optional
        Given unit noise, as above.
    kernel : {"auto", "coordinate", "block"}, optional
        As above.

    Returns
    -------
    dict
        The arrays listed above.

    Raises
    ------
    kernels.cuda.CudaUnavailable
        Neither a GPU nor the simulator is available.
    dpvalidate.InvalidParameter
        ``cfg`` not a RoundConfig or invalid, ``grads`` of the wrong shape, ``kernel="coordinate"`` for a
        state-dependent variant, too many records for the block kernel, too many rounds for a DP-MF strategy,
        outputs over the size limits, bad ``unit_noise``, or a float64 overflow.
    """

    require()
    if not isinstance(cfg, RoundConfig):
        raise V.InvalidParameter("cfg", "a kernels.dp_adam.RoundConfig", type(cfg).__name__)
    cfg = cfg.validated()
    grads = V.finite_array("grads", grads, ndim=2)
    B, d = grads.shape
    if B != cfg.batch_size:
        raise V.InvalidParameter("grads", f"{cfg.batch_size} rows (the batch size)", f"shape {grads.shape}")
    if d < 1:
        raise V.InvalidParameter("grads", "at least one column (coordinate)", f"shape {grads.shape}")
    rounds = V.count("rounds", rounds)
    trials = V.count("trials", trials)
    seed = V.integer("seed", seed, 0)
    V.choice("strat_kind", strat_kind, STRATEGIES)
    V.choice("kernel", kernel, KERNELS)
    state_dependent = cfg.variant in STATE_DEPENDENT
    if kernel == "coordinate" and state_dependent:
        raise V.InvalidParameter("kernel", "'auto' or 'block' for scale_then_privatize and noiseless_stp (their clip "
                                 "factor depends on the trial's state)", kernel)
    block = state_dependent or kernel == "block"
    if block and B > MAX_BLOCK_BATCH:
        raise V.InvalidParameter("grads, batch_size", f"at most {MAX_BLOCK_BATCH} records per round on the block "
                                 "kernel (scale_then_privatize, noiseless_stp or kernel='block': the clip factors sit "
                                 "in shared memory)", B)
    V.memory("trials, grads", trials, d, 6)  # θ, m, v, the block kernel's scales, the 16-byte stream states
    V.memory("rounds", rounds, 2)  # bias schedule and negative counts
    if strat_kind != "identity" and rounds > STRATEGY_MAX_T:
        raise V.InvalidParameter("rounds, strat_kind", f"at most {STRATEGY_MAX_T} rounds for a DP-MF strategy other "
                                 "than identity (its O(T²) series)", rounds)
    parts = 2 if cfg.variant == "ime" else 1
    strat = strategy(strat_kind, rounds, bands) if strat_kind != "identity" else None
    filt = strat is not None and (strat.num.size > 1 or strat.den.size > 0)  # as NoiseStream: else ζ̃ = ζ
    p = strat.num.size if filt else 1
    q = strat.den.size if filt else 0
    if filt:
        V.memory("trials, grads, rounds, strat_kind, bands", parts * (max(p - 1, 1) + max(q, 1)), trials, d)
    if unit_noise is None:
        unit = np.zeros((1, 1, 1, 1))
    else:
        shape = (rounds, trials, 2, d) if parts == 2 else (rounds, trials, d)
        unit = V.finite_array("unit_noise", unit_noise, shape=shape).reshape(rounds, trials, parts, d)
    sens = 1.0 if strat is None else strat.sensitivity
    std_m, std_v = noise_stds(cfg, sens)
    bias = bias_schedule(cfg, strat, rounds) if cfg.variant == "bias_correction" else np.zeros(rounds)
    num = strat.num if filt else np.ones(1)
    den = strat.den if q > 0 else np.zeros(1)
    gbar = clipped_average(grads, cfg.clip_norm)
    n = trials * d
    states = create_xoroshiro128p_states(n, seed=seed)
    hz = cuda.to_device(np.zeros((parts, max(p - 1, 1), n) if filt else (1, 1, 1)))
    ho = cuda.to_device(np.zeros((parts, max(q, 1), n) if filt else (1, 1, 1)))
    theta, m, v = (cuda.to_device(np.zeros((trials, d))) for _ in range(3))
    neg = cuda.to_device(np.zeros(rounds, dtype=np.int64))
    common = (adam_params(cfg, std_m, std_v), rounds, cuda.to_device(bias))
    noise = (states, unit_noise is not None, cuda.to_device(unit), p, q, cuda.to_device(num), cuda.to_device(den), hz,
             ho)
    if block:
        nt = min(MAX_BLOCK_THREADS, d)
        scale = cuda.device_array((trials, d))
        _rounds_block[trials, nt](cuda.to_device(grads), *common, *noise, scale, theta, m, v, neg)
    else:
        blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        _rounds[blocks, THREADS_PER_BLOCK](cuda.to_device(gbar), common[0], 0, *common[1:], *noise, theta, m, v, neg)
    out = {"theta": theta.copy_to_host(), "m": m.copy_to_host(), "v": v.copy_to_host(),
           "neg_frac": neg.copy_to_host() / n, "gbar": gbar}
    V.finite_output("grads, lr, sigma, clip_norm", out["theta"], out["m"], out["v"])
    return out


class DeviceRounds:
    """Trials of one DP-Adam configuration whose state stays on the GPU, advanced some rounds per call.

    The streaming use of the per-coordinate kernel: each :meth:`advance` launches it for the next rounds (noise
    drawn in the kernel, identity strategy), reading θ, m, v and the noise streams from device memory and writing
    them back, so calls of 2 and 3 rounds give the numbers of one :func:`run_rounds_batch` of 5 rounds with the
    same seed.  Launches are asynchronous; :meth:`synchronize` waits, :meth:`state` copies the state to the host.
    For the variants whose clipping does not depend on the state (not scale_then_privatize / noiseless_stp).

    Parameters
    ----------
    cfg : RoundConfig
        The rounds' configuration (validated here).
    grads : array_like
        (B, d) finite per-record gradients, B = ``cfg.batch_size``.
    trials : int
        Noise streams (one per trial and coordinate).
    seed : int, optional
        Seeds the xoroshiro128+ streams.
    max_rounds : int, optional
        The most rounds all calls together may advance (the per-round negative-v̂ counters).

    Raises
    ------
    kernels.cuda.CudaUnavailable
        Neither a GPU nor the simulator is available.
    dpvalidate.InvalidParameter
        ``cfg`` not a RoundConfig or invalid, a state-dependent variant, ``grads`` of the wrong shape, or the
        state over the size limits.
    """

    def __init__(self, cfg: RoundConfig, grads, trials: int, seed: int = 0, max_rounds: int = 10**4):
        require()
        if not isinstance(cfg, RoundConfig):
            raise V.InvalidParameter("cfg", "a kernels.dp_adam.RoundConfig", type(cfg).__name__)
        cfg = cfg.validated()
        if cfg.variant in STATE_DEPENDENT:
            raise V.InvalidParameter("cfg.variant", "a variant whose clipping does not depend on the state (not "
                                     + " or ".join(STATE_DEPENDENT) + ")", cfg.variant)
        grads = V.finite_array("grads", grads, ndim=2)
        if grads.shape[0] != cfg.batch_size or grads.shape[1] < 1:
            raise V.InvalidParameter("grads", f"{cfg.batch_size} rows (the batch size) and at least one column",
                                     f"shape {grads.shape}")
        self.trials = V.count("trials", trials)
        self.max_rounds = V.count("max_rounds", max_rounds)
        V.memory("trials, grads", self.trials, grads.shape[1], 6)
        self.cfg, self.d, self.rounds_done = cfg, grads.shape[1], 0
        self.coordinates = self.trials * self.d
        std_m, std_v = noise_stds(cfg, 1.0)
        self._prm = adam_params(cfg, std_m, std_v)
        self._bias = bias_schedule(cfg, None, self.max_rounds) if cfg.variant == "bias_correction" \
            else np.zeros(self.max_rounds)
        self._bias_dev = cuda.to_device(self._bias)
        self._gbar = cuda.to_device(clipped_average(grads, cfg.clip_norm))
        self._states = create_xoroshiro128p_states(self.coordinates, seed=V.integer("seed", seed, 0))
        one, zero = cuda.to_device(np.ones(1)), cuda.to_device(np.zeros(1))
        self._noise = (self._states, False, cuda.to_device(np.zeros((1, 1, 1, 1))), 1, 0, one, zero,
                       cuda.to_device(np.zeros((1, 1, 1))), cuda.to_device(np.zeros((1, 1, 1))))
        self._theta, self._m, self._v = (cuda.to_device(np.zeros((self.trials, self.d))) for _ in range(3))
        self._neg = cuda.to_device(np.zeros(self.max_rounds, dtype=np.int64))
        self._blocks = (self.coordinates + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK

    def advance(self, rounds: int = 1) -> None:
        """Launch the next ``rounds`` rounds (asynchronous).

        Parameters
        ----------
        rounds : int, optional
            Rounds to add; all calls together at most ``max_rounds``.

        Raises
        ------
        dpvalidate.InvalidParameter
            ``rounds`` not a positive integer, or past ``max_rounds``.
        """
        rounds = V.count("rounds", rounds)
        t0 = self.rounds_done
        if t0 + rounds > self.max_rounds:
            raise V.InvalidParameter("rounds", f"at most {self.max_rounds - t0} more (max_rounds = "
                                     f"{self.max_rounds})", rounds)
        _rounds[self._blocks, THREADS_PER_BLOCK](self._gbar, self._prm, t0, rounds, self._bias_dev[t0:], *self._noise,
                                                 self._theta, self._m, self._v, self._neg[t0:])
        self.rounds_done = t0 + rounds

    def synchronize(self) -> None:
        """Wait for the launched rounds to finish."""
        cuda.synchronize()

    def state(self) -> dict:
        """The state after the rounds done so far, copied to the host.

        Returns
        -------
        dict
            {"theta", "m", "v": (trials, d), "neg_frac": (rounds done,) as in :func:`run_rounds_batch`}.
        """
        neg = self._neg.copy_to_host()[:self.rounds_done]
        return {"theta": self._theta.copy_to_host(), "m": self._m.copy_to_host(), "v": self._v.copy_to_host(),
                "neg_frac": neg / self.coordinates}
