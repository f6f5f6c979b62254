r"""Private Adam / AdaGrad variants of ``dp_adam_design`` (Ganesh, McMahan, Thakurta 2025), streaming rounds.

One round t (docs/catalogue.md; per-record gradients g_{t,i}, i = 1..B, clip norm C, multiplier σ):

    ḡ_t = (1/B) Σ_i clip(g_{t,i}, C),   z̃_t = σ·Δ·(C/B)·ζ̃_t  (ζ̃ the unit noise, correlated by DP-MF)

and the variants (``VARIANTS``), each a fused pass over the coordinates:

* ``post_processing`` (Alg. 5): Adam on g̃ = ḡ + z̃.
* ``ime`` (Alg. 6, independent moment estimation): [ḡ, ḡ²] privatised as one 2d-vector;
  m from ḡ + z̃_m, v from ḡ² + z̃_v; the v-part can be negative, the preconditioner uses
  √max(v̂, floor) + ξ.  Noise stds come from the zero-out sensitivities (Δ₁ = C/B,
  Δ₂ = (2B − 1)C²/B², :func:`ime_noise_stds`).
* ``bias_correction`` (Alg. 7, DP-AdamBC): post-processing, then v̂ − bias (the bias is
  passed per round), √max(·, floor) + ξ.
* ``scale_then_privatize`` (Alg. 8): s = 1/(√v̂_{t−1} + ξ) (s = 1 in round 1), records
  clipped as s⊙g, isotropic noise added, unscaled by 1/s, then Adam.
* ``noiseless`` (Alg. 9): m from the noisy gradient, v from the clean ḡ (non-private).
* ``noiseless_stp``: scale-then-privatize for m, v from the clean scaled-then-unscaled average.
* ``sgd_momentum``: DP-SGD with heavy-ball momentum, m = β₁m + g̃, θ −= η m.

``optimizer``: ``adam`` (bias-corrected m̂, v̂) or ``adagrad`` (v = Σ g̃², no normalisation).
With σ = 0 and C = ∞ every private variant reduces to the non-private optimizer.

DP-MF (Alg. 1): the unit noise ζ̃_t = Σ_{s≤t} (C⁻¹)_{ts} ζ_s for a lower-triangular Toeplitz
noise-correlating matrix, streamed as a linear filter (:class:`Strategy`, :func:`strategy`):
``identity`` (DP-SGD), ``half`` (add ζ_t, subtract ½ζ_{t−1}), ``banded`` (banded Toeplitz C
optimised for prefix-sum RMSE), ``sqrt`` (C = A^{1/2} of the prefix-sum matrix A; the
unconstrained near-optimal single-epoch factorisation).  Single participation: the
sensitivity is the largest column norm of C.

Layout: jitted kernels fill caller-allocated arrays (``_round_with``, ``_filter_noise``, ``_logistic_1d_loop``,
``_const_signal_vhat``, ``_stream_trials_one_stream``); :func:`run_stream`, :func:`run_logistic_1d` and
:func:`constant_signal_vhat` are the public wrappers (they validate and spawn one stream per trial from a
SeedSequence; ``run_stream(..., one_stream=True)`` runs all its trials in one jitted call, drawing in turn from one
stream).  The rounds ``round_with`` and
``round_parallel_*_with`` are thin public wrappers of their jitted kernels (``_round_with``, …) that take the
round's arrays as one :class:`RoundArrays` record and unpack it once per call.  ``round_with`` makes two passes
over the B×d gradients: per-record norms first (``_cpu.dot(g, g)``: sixteen fixed lanes, vectorised, the same
bits on any CPU), then one blocked pass (512 coordinates at a time) that averages the clipped records, draws or
reads the noise and updates m, v, θ — the d = 10⁶ round of ``verify/bench.py``.  Threaded: ``round_parallel_with``
(records, then coordinate chunks, records summed four at a time: the gradients read twice) and
``round_parallel_blocked_with`` (the same, drawing the noise during the norms), ``round_parallel_row_major_with``
(each thread owns coordinates and takes every norm itself, records in pairs: the gradients read once from memory and
again from the last-level cache), all three bit-identical to ``round_with``, and ``round_parallel_row_sweeps_with``
(the norms split over the threads too, one barrier per record; agrees to rounding).  No fastmath.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit, prange

import dpvalidate as V
from kernels import _cpu, faults

VARIANTS = {"post_processing": 0, "ime": 1, "bias_correction": 2, "scale_then_privatize": 3, "noiseless": 4,
            "noiseless_stp": 5, "sgd_momentum": 6}
OPTIMIZERS = {"adam": 0, "adagrad": 1}
STRATEGIES = ("identity", "half", "banded", "sqrt")
STRATEGY_MAX_T = 10**4  # a strategy's series are O(T²) to build; run_logistic_1d forms the T×T matrix C⁻¹
STRATEGY_MAX_BANDS = 64  # "banded" optimises bands − 1 coefficients, each gradient one O(T²) evaluation per band
MAX_NOISE_STD = 1e150  # σ·C/B: squared into the second moment, which must stay finite
_BLOCK = 512  # coordinates per block of the fused pass (B·512 doubles stay in L1/L2)


class AdamParams(NamedTuple):
    """The scalar settings of a round that stay fixed over a run, as the jitted round takes them (one argument).

    Built from a validated :class:`RoundConfig` and its noise standard deviations by :func:`adam_params` (or by
    hand, as ``verify/bench.py`` does); the round index t and the bias-correction amount change per round and are
    passed beside it.
    """

    variant: int  # VARIANTS code
    opt: int  # OPTIMIZERS code
    lr: float
    beta1: float
    beta2: float
    xi: float  # the denominator's stabiliser ξ
    clip: float  # the per-record clipping threshold C (may be inf)
    std_m: float  # the std of the gradient (m-part) noise, in gradient units
    std_v: float  # the std of IME's v-part noise
    floor: float  # the floor of the corrected v̂


class RoundArrays(NamedTuple):
    """The arrays one round reads and writes in place (one argument of the public rounds :func:`round_with`,
    :func:`round_parallel_with`, :func:`round_parallel_row_major_with`, :func:`round_parallel_row_sweeps_with`,
    :func:`round_parallel_blocked_with`; unpacked once per call into the jitted kernels' arguments).

    Attributes
    ----------
    theta, m, v, vclean : numpy.ndarray
        (d,) the state θ, m, v and the noiseless v, updated in place.
    fac : numpy.ndarray
        (B,) scratch for the records' clip factors.
    gbar_out : numpy.ndarray
        (d,) receives the clean clipped average (unscaled geometry).
    """

    theta: np.ndarray
    m: np.ndarray
    v: np.ndarray
    vclean: np.ndarray
    fac: np.ndarray
    gbar_out: np.ndarray


# ======================================================================================
# DP-MF strategies (NumPy/SciPy: built once per run, offline)
# ======================================================================================
@dataclass(frozen=True)
class Strategy:
    """A lower-triangular Toeplitz noise-correlating matrix C⁻¹ as a causal filter.

    ζ̃_t = Σ_k num[k] ζ_{t−k} − Σ_{k≥1} den[k−1] ζ̃_{t−k}.  ``c`` are the first T Toeplitz
    coefficients of the strategy C, ``cinv`` those of C⁻¹; ``sensitivity`` = max column
    norm of C (single participation) and ``rmse`` the prefix-sum RMSE per unit multiplier.
    """

    name: str
    T: int
    num: np.ndarray
    den: np.ndarray
    c: np.ndarray
    cinv: np.ndarray
    sensitivity: float
    rmse: float

    def row_norms2(self) -> np.ndarray:
        """‖row_t(C⁻¹)‖², t = 1..T (the variance of ζ̃_t).

        Returns
        -------
        numpy.ndarray
            (T,) the cumulative sums of ``cinv``².
        """
        return np.cumsum(self.cinv**2)


def series_inverse(c: np.ndarray, T: int) -> np.ndarray:
    """Coefficients of 1/c(x) up to x^{T−1} (c[0] ≠ 0).

    Parameters
    ----------
    c : array_like
        The power-series coefficients of c(x), c[0] ≠ 0 (truncated or zero-padded to T).
    T : int
        The number of coefficients wanted.

    Returns
    -------
    numpy.ndarray
        (T,) the coefficients r of 1/c(x): the first column of the inverse of the lower-triangular Toeplitz
        matrix with first column c.
    """
    c = np.concatenate([np.asarray(c, float), np.zeros(max(0, T - len(c)))])[:T]
    r = np.zeros(T)
    r[0] = 1.0 / c[0]
    for n in range(1, T):
        r[n] = -np.dot(c[1:n + 1], r[n - 1::-1][:n]) / c[0]
    return r


def prefix_rmse(c: np.ndarray, T: int) -> tuple[float, float]:
    """(sensitivity, RMSE) of prefix sums for the Toeplitz strategy with coefficients c (unit multiplier).

    ‖A C⁻¹‖_F² = Σ_n (T − n) P_n², P_n = Σ_{k≤n} (C⁻¹)_k; RMSE = sens·‖A C⁻¹‖_F/√T.

    Parameters
    ----------
    c : numpy.ndarray
        The Toeplitz coefficients of the strategy C (at least T of them; c[0] ≠ 0).
    T : int
        The number of rounds.

    Returns
    -------
    sensitivity : float
        ‖c[:T]‖₂, the column norm of C.
    rmse : float
        The prefix-sum RMSE per unit noise multiplier.
    """
    cinv = series_inverse(c, T)
    P = np.cumsum(cinv)
    frob2 = float(np.sum((T - np.arange(T)) * P**2))
    sens = float(np.sqrt(np.sum(np.asarray(c[:T], float) ** 2)))
    return sens, sens * math.sqrt(frob2 / T)


def _banded_opt(T: int, bands: int) -> np.ndarray:
    from scipy.optimize import minimize

    if bands == 1:
        return np.ones(1)
    # start from the truncated square-root coefficients (a good banded guess)
    k = np.arange(bands)
    x0 = np.exp(np.cumsum(np.log(np.maximum(2 * k - 1, 1) / np.maximum(2 * k, 1))))[1:]

    def f(x):
        return prefix_rmse(np.concatenate([[1.0], x]), T)[1]

    res = minimize(f, x0, method="L-BFGS-B")
    return np.concatenate([[1.0], res.x])


_STRATEGY_CACHE: dict = {}


def strategy(kind: str, T: int, bands: int = 4) -> Strategy:
    """The DP-MF strategy ``kind`` for T rounds (single participation).

    * ``identity``: C = I (DP-SGD).
    * ``half``: C⁻¹ = I − ½·(sub-diagonal): each round adds ζ_t and subtracts ½ζ_{t−1}
      (the paper's example); C has coefficients 2^{−k}.
    * ``banded``: C banded lower-triangular Toeplitz with ``bands`` coefficients (c₀ = 1),
      minimising the prefix-sum RMSE sens(C)·‖A C⁻¹‖_F/√T (L-BFGS-B from the truncated
      square root); C⁻¹ is then an all-pole filter.
    * ``sqrt``: C = C⁻¹·A = A^{1/2}, coefficients binom(2k, k)/4^k; C⁻¹ has those of (1 − x)^{1/2}.

    Limits: ``T`` ≤ :data:`STRATEGY_MAX_T` = 10⁴, ``bands`` ≤ :data:`STRATEGY_MAX_BANDS` = 64.

    Parameters
    ----------
    kind : str
        One of :data:`STRATEGIES`.
    T : int
        The number of rounds.
    bands : int, optional
        ``banded`` only: the number of coefficients of C.

    Returns
    -------
    Strategy
        The strategy (cached: the same object for the same (kind, T, bands)).
    """
    V.choice("kind", kind, STRATEGIES)
    T = V.integer("T", T, 1, STRATEGY_MAX_T)
    bands = V.integer("bands", bands, 1, STRATEGY_MAX_BANDS)
    key = (kind, T, bands if kind == "banded" else 0)
    if key not in _STRATEGY_CACHE:  # deterministic; built once per (kind, T, bands)
        _STRATEGY_CACHE[key] = _build_strategy(kind, T, bands)
    return _STRATEGY_CACHE[key]


def _build_strategy(kind: str, T: int, bands: int) -> Strategy:
    if kind == "identity":
        c = np.ones(1)
        num, den = np.ones(1), np.zeros(0)
    elif kind == "half":
        num, den = np.array([1.0, -0.5]), np.zeros(0)
        c = 0.5 ** np.arange(T)
    elif kind == "banded":
        c = _banded_opt(T, min(bands, T))
        num, den = np.array([1.0 / c[0]]), c[1:] / c[0]
    else:
        k = np.arange(1, T)
        c = np.concatenate([[1.0], np.cumprod((2 * k - 1) / (2 * k))])
        num = series_inverse(c, T)
        den = np.zeros(0)
    cfull = np.concatenate([c, np.zeros(max(0, T - len(c)))])[:T]
    sens, rmse = prefix_rmse(cfull, T)
    cinv = series_inverse(cfull, T)
    return Strategy(kind, T, np.ascontiguousarray(num, float), np.ascontiguousarray(den, float), cfull, cinv,
                    sens, rmse)


@njit(cache=True, nogil=True)
def _filter_noise(zeta, num, den, hist_z, hist_out, pos, out):
    """One round of ζ̃ = C⁻¹ζ per coordinate.  hist_z: (p−1, d) past ζ, hist_out: (q, d) past ζ̃ (ring, slot pos)."""
    d = zeta.shape[0]
    p = num.shape[0]
    q = den.shape[0]
    hz = hist_z.shape[0]
    ho = hist_out.shape[0]
    for j in range(d):
        acc = num[0] * zeta[j]
        for k in range(1, p):
            acc += num[k] * hist_z[(pos - k) % hz, j]
        for k in range(1, q + 1):
            acc -= den[k - 1] * hist_out[(pos - k) % ho, j]
        out[j] = acc
    if hz > 0:
        for j in range(d):
            hist_z[pos % hz, j] = zeta[j]
    if ho > 0:
        for j in range(d):
            hist_out[pos % ho, j] = out[j]


# ======================================================================================
# Sensitivities and noise calibration
# ======================================================================================
def ime_sensitivities(clip_norm: float, batch_size: int) -> tuple[float, float]:
    """Zero-out sensitivities of ḡ (C/B) and of ḡ⊙ḡ ((2B − 1)C²/B²) (paper §3.2).

    Parameters
    ----------
    clip_norm : float
        C > 0.
    batch_size : int
        B ≥ 1.

    Returns
    -------
    delta1 : float
        C/B.
    delta2 : float
        (2B − 1)C²/B².

    Raises
    ------
    dpvalidate.InvalidParameter
        ``clip_norm`` so small or large that C² under- or overflows (Δ₂ not in (0, inf)).
    """
    B = V.count("batch_size", batch_size)
    C = V.positive("clip_norm", clip_norm)
    try:
        d2 = (2 * B - 1) * C**2 / B**2
    except OverflowError:
        d2 = math.inf
    if not 0 < d2 < math.inf:  # C² under- or overflows: the noise split γ = Δ₁/Δ₂ would divide by 0 or inf
        raise V.InvalidParameter("clip_norm", "between about 1e-150 and 1e150 (its square enters Δ₂)", clip_norm)
    return C / B, d2


def ime_noise_stds(sigma: float, clip_norm: float, batch_size: int, gamma: float | None = None,
                   split: bool = True) -> tuple[float, float]:
    """Noise stds (m-part, v-part) of independent moment estimation with multiplier σ for the 2d-vector.

    The vector [ḡ, γ ḡ²] has sensitivity Δ = √(Δ₁² + γ²Δ₂²); adding N(0, (σΔ)²) to it and dividing
    the second half by γ gives stds σΔ and σΔ/γ.  Default γ = Δ₁/Δ₂ balances the two (each part then
    has multiplier √2σ: 1/σ² = 1/σ₁² + 1/σ₂²).  ``split=False`` is the "for free" baseline (each part
    at multiplier σ, i.e. not the same privacy).

    Parameters
    ----------
    sigma : float
        σ ≥ 0.
    clip_norm : float
        C > 0.
    batch_size : int
        B ≥ 1.
    gamma : float, optional
        γ > 0 (default Δ₁/Δ₂).
    split : bool, optional
        False for the baseline above.

    Returns
    -------
    std_m : float
        The standard deviation of the noise on ḡ.
    std_v : float
        The standard deviation of the noise on ḡ⊙ḡ.
    """
    s = V.nonnegative("sigma", sigma)
    d1, d2 = ime_sensitivities(clip_norm, batch_size)
    if not split:
        return s * d1, s * d2
    g = d1 / d2 if gamma is None else V.positive("gamma", gamma)
    delta = math.sqrt(d1**2 + (g * d2) ** 2)
    return s * delta, s * delta / g


# ======================================================================================
# The fused round
# ======================================================================================
@njit(cache=True, nogil=True, inline="always")
def _record_factor(g, v, t, stp, opt, c2p, xi, clip, B):
    """The clip factor of one record divided by B: min(1, C/‖g‖)/B (with STP, ‖s⊙g‖, s from v̂_{t−1})."""
    s2 = 0.0
    if stp and t > 0:
        for j in range(g.shape[0]):
            vh = v[j] / c2p if opt == 0 else v[j]
            sc = 1.0 / (math.sqrt(vh if vh > 0.0 else 0.0) + xi)
            x = g[j] * sc
            s2 += x * x
    else:
        s2 = _cpu.dot(g, g)
    nrm = math.sqrt(s2)
    f = 1.0
    if nrm > clip:
        f = clip / nrm
    return f / B


@njit(cache=True, nogil=True, inline="always")
def _adam_plain_loop(acc, nz, theta, m, v, prm, c1, c2, bc_sub):
    """The update loop of :func:`_adam_plain_block` for a ``prm`` whose variant and optimizer codes are constants."""
    std_m = prm.std_m
    neg = 0
    for k in range(acc.shape[0]):
        a = acc[k]
        th, mk, vk, vh = _cpu.adam_coordinate(prm, a, a + std_m * nz[k], 0.0, theta[k], m[k], v[k], c1, c2, bc_sub)
        theta[k] = th
        m[k] = mk
        v[k] = vk
        if vh < 0.0:
            neg += 1
    return neg


@njit(cache=True, nogil=True, error_model="numpy")
def _adam_plain_block(acc, nz, theta, m, v, prm, c1, c2, bc_sub):
    """:func:`_update_block`'s coordinate loop for post-processing (variant 0) and bias correction (variant 2) with
    Adam: g = ḡ + σ_m·z, then ``_cpu.adam_coordinate`` — the same operations in the same order, so the same bits.

    A separate function for two reasons: the variant and optimizer codes are rebuilt here as constants, so the
    compiler drops the other variants' branches, and it is compiled with NumPy's error model (a zero divisor gives
    inf instead of raising), without which the divisions keep the loop scalar.  The caller takes this path only
    when no divisor can be 0 (c1, c2 ≠ 0 and ξ > 0 or a floor > 0, so √max(v̂, floor) + ξ > 0), i.e. where the
    Python error model would raise nothing either.  Returns the count of negative corrected v̂."""
    if prm.variant == 2:
        p = AdamParams(2, 0, prm.lr, prm.beta1, prm.beta2, prm.xi, prm.clip, prm.std_m, prm.std_v, prm.floor)
        return _adam_plain_loop(acc, nz, theta, m, v, p, c1, c2, bc_sub)
    p = AdamParams(0, 0, prm.lr, prm.beta1, prm.beta2, prm.xi, prm.clip, prm.std_m, prm.std_v, prm.floor)
    return _adam_plain_loop(acc, nz, theta, m, v, p, c1, c2, bc_sub)


@njit(cache=True, nogil=True, inline="always")
def _update_block(grads, fac, j0, blk, nbm, nbv, theta, m, v, vclean, t, prm, bc_sub, gbar_out, averaged=False):
    """Coordinates j0 .. j0+len(blk)−1: average the clipped records into ``blk`` (records summed in order; skipped
    when ``averaged``: ``blk`` is then ``gbar_out[j0:j1]``, holding the average already), add the block's unit noise
    ``nbm``/``nbv`` and update m, v, θ.  ``prm`` is the run's :class:`AdamParams`.  Returns the count of negative
    corrected v̂."""
    variant, opt, beta1, beta2, xi, std_m = prm.variant, prm.opt, prm.beta1, prm.beta2, prm.xi, prm.std_m
    B = grads.shape[0]
    n = blk.shape[0]
    j1 = j0 + n
    tt = t + 1
    stp = variant == 3 or variant == 5
    c1 = 1.0 - beta1**tt
    c2 = 1.0 - beta2**tt
    c2p = 1.0 - beta2**t
    if not averaged:
        for jj in range(n):
            blk[jj] = 0.0
        for i in range(B):
            fi = fac[i]
            row = grads[i, j0:j1]
            for jj in range(n):
                blk[jj] += fi * row[jj]
    if (variant == 0 or variant == 2) and opt == 0 and c1 != 0.0 and c2 != 0.0 and (xi > 0.0 or prm.floor > 0.0):
        # post-processing / bias correction with Adam: the same arithmetic in a loop the compiler vectorises
        # (_adam_plain_block); no divisor can be 0 here, so it raises nothing the loop below would raise
        if not averaged:
            for jj in range(n):
                gbar_out[j0 + jj] = blk[jj]
        return _adam_plain_block(blk, nbm[:n], theta[j0:j1], m[j0:j1], v[j0:j1], prm, c1, c2, bc_sub)
    neg = 0
    for j in range(j0, j1):
        acc = blk[j - j0]
        gbar_out[j] = acc
        nm = nbm[j - j0]
        nv = nbv[j - j0] if variant == 1 else 0.0
        if stp:
            sc = 1.0
            if t > 0:
                vh = v[j] / c2p if opt == 0 else v[j]
                sc = 1.0 / (math.sqrt(vh if vh > 0.0 else 0.0) + xi)
            g = acc + std_m * nm / sc  # (s·ḡ + z)/s
        else:
            g = acc + std_m * nm
        th, mj, vj, vh = _cpu.adam_coordinate(prm, acc, g, nv, theta[j], m[j], v[j], c1, c2, bc_sub)
        theta[j] = th
        m[j] = mj
        v[j] = vj
        if variant == 4 or variant == 5:
            vclean[j] = vh
        if vh < 0.0:
            neg += 1
    return neg


@njit(cache=True, nogil=True, inline="always")
def _add_clipped_rows(grads, i, fa, fb, gbar_out, lo, hi):
    """Coordinates lo .. hi−1 of records i and (if i + 1 < B) i + 1, clipped by fa and fb, added into ``gbar_out``
    in one sweep: ((ḡ_j + fa·g_ij) + fb·g_{i+1,j}), starting from 0.0 + fa·g_0j for i = 0 (what zeroing ``gbar_out``
    and adding gives) — per coordinate the additions of one sweep per record, in record order, so the same bits."""
    ra = grads[i]
    if i + 1 < grads.shape[0]:
        rb = grads[i + 1]
        if i == 0:
            for j in range(lo, hi):
                gbar_out[j] = (0.0 + fa * ra[j]) + fb * rb[j]
        else:
            for j in range(lo, hi):
                gbar_out[j] = (gbar_out[j] + fa * ra[j]) + fb * rb[j]
    elif i == 0:
        for j in range(lo, hi):
            gbar_out[j] = 0.0 + fa * ra[j]
    else:
        for j in range(lo, hi):
            gbar_out[j] += fa * ra[j]


@njit(cache=True, nogil=True)
def _clip_pass(grads, v, t, prm, fac, gbar_out, row_major):
    # pass 1 of round_with / _round_given: per-record (scaled) norms -> clip factors ``fac`` (row-major: and the
    # clipped sum in ``gbar_out``, each row added right after its norm, while it is in cache)
    variant, opt, beta2, xi, clip = prm.variant, prm.opt, prm.beta2, prm.xi, prm.clip
    # Row-major, records go in pairs: the norms of rows i and i+1, then one sweep over gbar_out adds both clipped
    # rows, ((ḡ_j + f_i·g_ij) + f_{i+1}·g_{i+1,j}) — per coordinate the same additions in the same order as one sweep
    # per record, so the same bits, with half the sweeps over the d accumulators.  The first sweep starts from
    # 0.0 + f·g (what zeroing gbar_out and adding gives) instead of a separate zeroing pass.
    B, d = grads.shape
    stp = variant == 3 or variant == 5
    c2p = 1.0 - beta2**t
    if not row_major:
        for i in range(B):
            fac[i] = _record_factor(grads[i], v, t, stp, opt, c2p, xi, clip, B)
        return
    if B == 0:
        for j in range(d):
            gbar_out[j] = 0.0
    for i in range(0, B, 2):
        fa = _record_factor(grads[i], v, t, stp, opt, c2p, xi, clip, B)
        fac[i] = fa
        fb = 0.0
        if i + 1 < B:
            fb = _record_factor(grads[i + 1], v, t, stp, opt, c2p, xi, clip, B)
            fac[i + 1] = fb
        _add_clipped_rows(grads, i, fa, fb, gbar_out, 0, d)


@njit(cache=True, nogil=True)
def _round_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, rng, draw, fac, gbar_out, row_major=False):
    # the jitted kernel of :func:`round_with` (its docstring), the round's arrays unpacked
    variant = prm.variant
    if not draw:  # the given-noise path is step()'s (_round_given): one body for both
        return _round_given(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, fac, gbar_out, row_major)
    d = grads.shape[1]
    _clip_pass(grads, v, t, prm, fac, gbar_out, row_major)
    # pass 2: fused update over coordinates, in cache-sized blocks (records summed block by block), each block's
    # noise drawn first (m part, then v part), so the update loop stays a plain loop
    neg = 0
    blk = np.empty(_BLOCK)
    nbm = np.empty(_BLOCK)
    nbv = np.empty(_BLOCK)
    for j0 in range(0, d, _BLOCK):
        n = min(d, j0 + _BLOCK) - j0
        if row_major:
            avg = gbar_out[j0:j0 + n]
        else:
            avg = blk[:n]
        for jj in range(n):
            nbm[jj] = rng.standard_normal()
        if variant == 1:
            for jj in range(n):
                nbv[jj] = rng.standard_normal()
        neg += _update_block(grads, fac, j0, avg, nbm, nbv, theta, m, v, vclean, t, prm, bc_sub, gbar_out,
                             row_major)
    return neg


def round_with(grads, arrays, t, prm, bc_sub, zm, zv, rng, draw, row_major=False):
    """One round on caller-owned state (theta, m, v, vclean updated in place); t = rounds done before.

    ``prm`` holds the run's fixed settings (:class:`AdamParams`), ``bc_sub`` this round's bias-correction amount.
    grads (B, d); zm, zv (d) unit noise (ignored, and drawn in-kernel, when ``draw``); ``arrays``
    (:class:`RoundArrays`) holds the state, the (B) scratch for clip factors and the (d) clean clipped average
    (unscaled geometry) the round writes.
    Returns the number of coordinates whose corrected v̂ (before the floor) is negative.

    Two orders of the same arithmetic (bit-identical results; every coordinate sums its records in order):
    ``row_major=False`` takes each record's norm, then averages block by block over coordinates (the gradients
    are read from memory twice); ``row_major=True`` takes the norms of records i and i + 1 and at once adds both
    clipped rows into ``gbar_out`` in one sweep (record i first), while the rows are still in cache — the gradients
    are read from memory once, if a row and ``gbar_out`` (2·d·8 bytes) fit in the last-level cache
    (:func:`row_major_fits`).

    Parameters
    ----------
    grads : numpy.ndarray
        (B, d) per-record gradients.
    arrays : RoundArrays
        θ, m, v, v_clean ((d,) state, updated in place), ``fac`` ((B,) scratch) and ``gbar_out`` ((d,) receives
        the clean clipped average).
    t : int
        Rounds done before this one.
    prm : AdamParams
        The run's settings.
    bc_sub : float
        This round's bias-correction amount.
    zm, zv : numpy.ndarray
        (d,) given unit noise (ignored when ``draw``).
    rng : numpy.random.Generator
        Draws the noise when ``draw``.
    draw : bool
        Draw the unit noise in the kernel.
    row_major : bool, optional
        The order of the arithmetic, as above.

    Returns
    -------
    int
        The number of coordinates whose corrected v̂ (before the floor) is negative.
    """
    theta, m, v, vclean, fac, gbar_out = arrays
    return _round_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, rng, draw, fac, gbar_out, row_major)


@njit(cache=True, nogil=True)
def _round_given(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, fac, gbar_out, row_major):
    # round_with(..., draw=False) without its Generator argument (round_with calls it): :func:`step`'s route.
    # Numba unboxes a Generator on every call (several ctypes casts), which cost step() more than its round at
    # small d.
    d = grads.shape[1]
    _clip_pass(grads, v, t, prm, fac, gbar_out, row_major)
    neg = 0
    blk = np.empty(_BLOCK)
    for j0 in range(0, d, _BLOCK):
        n = min(d, j0 + _BLOCK) - j0
        if row_major:
            avg = gbar_out[j0:j0 + n]
        else:
            avg = blk[:n]
        neg += _update_block(grads, fac, j0, avg, zm[j0:], zv[j0:], theta, m, v, vclean, t, prm, bc_sub,
                             gbar_out, row_major)
    return neg


def _finite_vector(name: str, arr, d: int) -> np.ndarray:
    """``dpvalidate.finite_array(name, arr, shape=(d,))``, answered at once for a finite C-contiguous float64 (d,)
    array (which it returns as is)."""
    if (type(arr) is np.ndarray and arr.dtype == np.float64 and arr.shape == (d,) and arr.flags.c_contiguous
            and np.isfinite(arr).all()):
        return arr
    return V.finite_array(name, arr, shape=(d,))


@functools.lru_cache(maxsize=1)
def _last_level_cache_bytes() -> int:
    """The largest CPU cache this machine reports (Linux sysfs), or 8 MiB when it reports none."""
    import glob

    best = 0
    for path in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size"):
        try:
            text = open(path).read().strip().upper()
            mult = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
            best = max(best, int(text.rstrip("KMG")) * mult)
        except (OSError, ValueError):
            continue
    return best or 8 * 2**20


def row_major_fits(d: int) -> bool:
    """Whether a round at dimension d should run row-major.

    True when one record row plus the average (2·d·8 bytes) fit in the last-level cache.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    bool
    """
    return 2 * d * 8 <= _last_level_cache_bytes()


_ROW_CHUNK = 2**14  # coordinates per chunk of the threaded row-major round (a multiple of 16; 128 KiB of a row)
DRAWER_SHARE = 0.35  # the drawing thread's share of the chunks in a 2-thread round (it draws the noise too); a guess
# set on a loaded machine, to be tuned on a quiet one (it changes the speed only, never the numbers)


@njit(cache=True, nogil=True, inline="always")
def _sum_clipped_chunk(grads, fac, blk, j0, n):
    """blk[0:n] = Σ_i fac_i·grads[i, j0:j0+n], records added in order four at a time:
    ((((blk + f_i g_i) + f_{i+1} g_{i+1}) + …), starting from 0.0 — per coordinate the additions of
    :func:`_update_block`'s one-record loop in the same order, so the same bits, with a quarter of its sweeps over
    ``blk``."""
    B = grads.shape[0]
    for j in range(n):
        blk[j] = 0.0
    i = 0
    while i + 4 <= B:
        fa, fb, fc, fd = fac[i], fac[i + 1], fac[i + 2], fac[i + 3]
        ra, rb = grads[i, j0:j0 + n], grads[i + 1, j0:j0 + n]
        rc, rd = grads[i + 2, j0:j0 + n], grads[i + 3, j0:j0 + n]
        for j in range(n):
            blk[j] = (((blk[j] + fa * ra[j]) + fb * rb[j]) + fc * rc[j]) + fd * rd[j]
        i += 4
    while i < B:
        f = fac[i]
        r = grads[i, j0:j0 + n]
        for j in range(n):
            blk[j] += f * r[j]
        i += 1


@njit(cache=True, parallel=True)
def _blocked_update_pass(grads, fac, zm, zv, theta, m, v, vclean, t, prm, bc_sub, gbar_out, workers):
    """Pass 2 of the threaded blocked rounds: each of ``workers`` parallel iterations takes a contiguous run of
    coordinate chunks (``_ROW_CHUNK`` each); per chunk the clipped average is summed into the worker's buffer
    (:func:`_sum_clipped_chunk`), copied to ``gbar_out``, and m, v, θ are updated from it while it is in cache.
    Returns the count of negative corrected v̂."""
    d = grads.shape[1]
    nch = (d + _ROW_CHUNK - 1) // _ROW_CHUNK
    nw = max(1, min(workers, nch))
    negs = np.zeros(nch, np.int64)
    for w in prange(nw):
        blk = np.empty(min(d, _ROW_CHUNK))
        for c in range(w * nch // nw, (w + 1) * nch // nw):
            j0 = c * _ROW_CHUNK
            n = min(d, j0 + _ROW_CHUNK) - j0
            avg = blk[:n]
            _sum_clipped_chunk(grads, fac, avg, j0, n)
            for j in range(n):
                gbar_out[j0 + j] = avg[j]
            negs[c] = _update_block(grads, fac, j0, avg, zm[j0:], zv[j0:], theta, m, v, vclean, t, prm, bc_sub,
                                    gbar_out, True)
    return negs.sum()


@njit(cache=True, parallel=True)
def _round_parallel_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, fac, gbar_out, workers):
    # the jitted kernel of :func:`round_parallel_with` (its docstring), the round's arrays unpacked
    variant, opt, beta2, xi, clip = prm.variant, prm.opt, prm.beta2, prm.xi, prm.clip
    B, d = grads.shape
    stp = variant == 3 or variant == 5
    c2p = 1.0 - beta2**t
    for i in prange(B):
        fac[i] = _record_factor(grads[i], v, t, stp, opt, c2p, xi, clip, B)
    return _blocked_update_pass(grads, fac, zm, zv, theta, m, v, vclean, t, prm, bc_sub, gbar_out, workers)


def round_parallel_with(grads, arrays, t, prm, bc_sub, zm, zv, workers):
    """:func:`round_with` with given noise, both passes split over Numba's threads.

    Records in pass 1 (each thread takes whole rows), coordinate chunks in pass 2 (each thread a contiguous run
    of chunks, each chunk's records summed four at a time in a buffer the thread keeps in cache:
    :func:`_blocked_update_pass`).  Every output element is computed by one thread in the serial order, so the
    result is bit-identical to ``round_with(..., draw=False)`` for any thread count.

    Parameters
    ----------
    grads, arrays, t, prm, bc_sub, zm, zv :
        As :func:`round_with`.
    workers : int
        The number of runs of chunks in pass 2, one per thread (e.g. ``threads`` of :func:`with_threads`); values
        below 1 count as 1.  It changes the speed only, never the numbers.

    Returns
    -------
    int
        The number of coordinates whose corrected v̂ (before the floor) is negative.
    """
    theta, m, v, vclean, fac, gbar_out = arrays
    return _round_parallel_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, fac, gbar_out, workers)


@njit(cache=True, nogil=True, inline="always")
def _chunk_norm2(row, v, j0, j1, t, stp, opt, c2p, xi):
    """Σ x_j² over coordinates j0 .. j1−1 of one record (x = g, or s⊙g with STP's scale from v̂_{t−1}), summed as
    :func:`_record_factor` sums a whole row (``_cpu.dot``'s lanes; STP: in order)."""
    if stp and t > 0:
        s2 = 0.0
        for j in range(j0, j1):
            vh = v[j] / c2p if opt == 0 else v[j]
            sc = 1.0 / (math.sqrt(vh if vh > 0.0 else 0.0) + xi)
            x = row[j] * sc
            s2 += x * x
        return s2
    seg = row[j0:j1]
    return _cpu.dot(seg, seg)


@njit(cache=True, nogil=True, inline="always")
def _draw_blocks(rng, zm, zv, b0, b1, d, ime):
    """Unit noise of the 512-coordinate blocks b0 .. b1−1 into zm (and zv), in :func:`round_with`'s order: per
    block its m part, then (IME) its v part."""
    for b in range(b0, b1):
        j0 = b * _BLOCK
        j1 = min(d, j0 + _BLOCK)
        for j in range(j0, j1):
            zm[j] = rng.standard_normal()
        if ime:
            for j in range(j0, j1):
                zv[j] = rng.standard_normal()


@njit(cache=True, nogil=True)
def _worker_chunks(nch, nw, draw, share):
    """(nw + 1) chunk bounds: worker w takes chunks bounds[w] .. bounds[w+1]−1; with ``draw`` worker 0 (the one that
    draws the noise) takes the share ``share`` of a 2-worker split (scaled for more workers), the rest split evenly."""
    bounds = np.zeros(nw + 1, np.int64)
    first = nch // nw
    if draw and nw > 1:
        first = min(nch, int(round(nch * share * 2.0 / nw)))
    bounds[1] = first
    for w in range(1, nw):
        bounds[w + 1] = first + (nch - first) * w // (nw - 1)
    return bounds


@njit(cache=True)
def _threaded_start(grads, prm, t, zm, zv, draw, workers, drawer_share):
    """The start of the threaded rounds: their argument checks (ValueError) — with IME drawing its two noise parts,
    ``zm`` and ``zv`` must be distinct arrays (writes through one would show through the other); ``workers`` ≥ 1;
    ``drawer_share`` in [0, 1] — and (B, d, stp, ime, c2p, nb): the batch and dimension, whether the norms are
    scale-then-privatize's, whether the noise has IME's two parts, 1 − β₂^t and the number of 512-coordinate noise
    blocks."""
    variant = prm.variant
    B, d = grads.shape
    stp = variant == 3 or variant == 5
    ime = variant == 1
    if draw and ime and d > 0:
        zm[0] = 0.0
        zv[0] = 1.0
        if zm[0] == 1.0:
            raise ValueError("zm and zv must be distinct arrays when IME draws its two noise parts")
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if not 0.0 <= drawer_share <= 1.0:
        raise ValueError("drawer_share must be in [0, 1]")
    return B, d, stp, ime, 1.0 - prm.beta2**t, (d + _BLOCK - 1) // _BLOCK


@njit(cache=True, parallel=True)
def _round_parallel_row_major_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, rng, draw, fac, gbar_out,
                                   workers, drawer_share=DRAWER_SHARE):
    # the jitted kernel of :func:`round_parallel_row_major_with` (its docstring), the round's arrays unpacked
    opt, xi, clip = prm.opt, prm.xi, prm.clip
    B, d, stp, ime, c2p, nb = _threaded_start(grads, prm, t, zm, zv, draw, workers, drawer_share)
    nch = (d + _ROW_CHUNK - 1) // _ROW_CHUNK
    nw = max(1, min(workers, nch))
    bounds = _worker_chunks(nch, nw, draw, drawer_share)
    # given noise, and no norm reading v (STP at t > 0 scales its norms by v̂_{t−1}, which the update overwrites):
    # each thread updates its own chunks right after its last sweep adds the last records into them, with no
    # barrier and no second pass over ḡ
    fuse = not draw and B > 0 and not (stp and t > 0)
    negs = np.zeros(nch, np.int64)
    for w in prange(nw):
        lo = bounds[w] * _ROW_CHUNK
        hi = min(d, bounds[w + 1] * _ROW_CHUNK)
        drawer = draw and w == 0
        if B == 0:
            for j in range(lo, hi):
                gbar_out[j] = 0.0
        for i in range(0, B, 2):  # records in pairs, as _clip_pass: two norms, then one sweep adding both rows
            i1 = min(B, i + 2)
            fa = _record_factor(grads[i], v, t, stp, opt, c2p, xi, clip, B)
            fb = 0.0
            if i + 1 < B:
                fb = _record_factor(grads[i + 1], v, t, stp, opt, c2p, xi, clip, B)
            if w == 0:
                fac[i] = fa
                if i + 1 < B:
                    fac[i + 1] = fb
            if fuse and i1 == B:
                for c in range(bounds[w], bounds[w + 1]):
                    j0 = c * _ROW_CHUNK
                    j1 = min(d, j0 + _ROW_CHUNK)
                    _add_clipped_rows(grads, i, fa, fb, gbar_out, j0, j1)
                    negs[c] = _update_block(grads, fac, j0, gbar_out[j0:j1], zm[j0:], zv[j0:], theta, m, v, vclean,
                                            t, prm, bc_sub, gbar_out, True)
            else:
                _add_clipped_rows(grads, i, fa, fb, gbar_out, lo, hi)
            if drawer:
                _draw_blocks(rng, zm, zv, i * nb // B, i1 * nb // B, d, ime)
        if drawer and B == 0:
            _draw_blocks(rng, zm, zv, 0, nb, d, ime)
    if fuse:
        return negs.sum()
    for c in prange(nch):
        j0 = c * _ROW_CHUNK
        j1 = min(d, j0 + _ROW_CHUNK)
        negs[c] = _update_block(grads, fac, j0, gbar_out[j0:j1], zm[j0:], zv[j0:], theta, m, v, vclean, t, prm,
                                bc_sub, gbar_out, True)
    return negs.sum()


def round_parallel_row_major_with(grads, arrays, t, prm, bc_sub, zm, zv, rng, draw, workers,
                                  drawer_share=DRAWER_SHARE):
    """:func:`round_with` in row-major order, split over Numba's threads by coordinates, with no barrier per record.

    Each of ``workers`` parallel iterations (one per thread) owns a contiguous run of coordinates (whole chunks of
    2¹⁴, ``_ROW_CHUNK``).  The records go in pairs, as in ``round_with``'s row-major order: every thread takes the
    whole norms of records i and i + 1 itself, exactly as ``round_with`` takes them, then adds both clipped records'
    parts in its own run into ``gbar_out`` in one sweep (record i first; half the sweeps over the average of one
    sweep per record).  The threads read each row at about the same time, so it comes from memory once and the
    second reader finds it in cache; no thread waits for another until the average is complete.  The fused update
    of m, v, θ then runs chunk by chunk: with given noise (and no scale-then-privatize norm at t > 0, which reads
    the v that the update overwrites), each thread updates its own chunks right after its last sweep adds the last
    records into them (no barrier, no second pass over ``gbar_out``); otherwise in a second parallel loop over the
    chunks.  Every number is computed as in ``round_with`` (each norm summed as there, each coordinate summing its
    records in order), so the result is bit-identical to ``round_with`` for any thread count, split or
    ``drawer_share``.  The norms are taken once per thread: B·d multiply-adds per thread, in exchange for no
    synchronisation between records.

    With ``draw`` the kernel draws the unit noise from ``rng`` into ``zm`` (and ``zv`` for IME) in the order
    ``round_with(..., draw=True)`` draws it (per 512-coordinate block, m part then v part), on one thread, a slice
    after each pair of records; that thread owns the smaller share ``drawer_share`` (of a 2-thread split) of the
    coordinates so that it keeps pace with the others.  Without ``draw``, ``zm``/``zv`` are the given noise.

    Parameters
    ----------
    grads, arrays, t, prm, bc_sub :
        As :func:`round_with`.
    zm, zv : numpy.ndarray
        (d,) the given unit noise, or with ``draw`` receive the drawn noise (then, for IME, arrays that do not
        overlap; the same array is refused).
    rng : numpy.random.Generator
        Draws the noise when ``draw``.
    draw : bool
        Draw the unit noise in the kernel.
    workers : int
        The number of runs of coordinates, one per thread (Numba's thread count, e.g. ``threads`` of
        :func:`with_threads`); at least 1.  It changes the speed only, never the numbers.
    drawer_share : float, optional
        With ``draw``, the drawing thread's share of the chunks in a 2-thread split (default
        :data:`DRAWER_SHARE`); it changes the speed only, never the numbers.

    Returns
    -------
    int
        The number of coordinates whose corrected v̂ (before the floor) is negative.

    Raises
    ------
    ValueError
        ``draw`` for IME with ``zm`` and ``zv`` the same array, ``workers`` < 1 or ``drawer_share`` not in [0, 1].
    """
    theta, m, v, vclean, fac, gbar_out = arrays
    return _round_parallel_row_major_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, rng, draw, fac, gbar_out,
                                          workers, drawer_share)


@njit(cache=True, parallel=True)
def _round_parallel_row_sweeps_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, rng, draw, fac, gbar_out,
                                    workers, drawer_share=DRAWER_SHARE):
    # the jitted kernel of :func:`round_parallel_row_sweeps_with` (its docstring), the round's arrays unpacked
    opt, xi, clip = prm.opt, prm.xi, prm.clip
    B, d, stp, ime, c2p, nb = _threaded_start(grads, prm, t, zm, zv, draw, workers, drawer_share)
    nch = (d + _ROW_CHUNK - 1) // _ROW_CHUNK
    nw = max(1, min(workers, nch))
    bounds = _worker_chunks(nch, nw, draw, drawer_share)
    even = _worker_chunks(nch, nw, False, drawer_share)  # the last sweep draws nothing: an even split
    part = np.zeros(nch)
    negs = np.zeros(nch, np.int64)
    if draw and B == 0:
        _draw_blocks(rng, zm, zv, 0, nb, d, ime)
    for i in range(B + 1):
        bnd = bounds if i < B else even
        for w in prange(nw):
            drawer = draw and w == 0 and i < B
            b0 = i * nb // B if drawer else 0  # the drawer's blocks this sweep, drawn a share after each chunk
            b1 = (i + 1) * nb // B if drawer else 0
            k0 = bnd[w + 1] - bnd[w]
            for c in range(bnd[w], bnd[w + 1]):
                j0 = c * _ROW_CHUNK
                j1 = min(d, j0 + _ROW_CHUNK)
                if i == 0:
                    for j in range(j0, j1):
                        gbar_out[j] = 0.0
                else:
                    fi = fac[i - 1]
                    prev = grads[i - 1]
                    for j in range(j0, j1):
                        gbar_out[j] += fi * prev[j]
                if i < B:
                    part[c] = _chunk_norm2(grads[i], v, j0, j1, t, stp, opt, c2p, xi)
                else:
                    negs[c] = _update_block(grads, fac, j0, gbar_out[j0:j1], zm[j0:], zv[j0:], theta, m, v, vclean,
                                            t, prm, bc_sub, gbar_out, True)
                if drawer:
                    q = c - bnd[w] + 1
                    _draw_blocks(rng, zm, zv, b0 + (b1 - b0) * (q - 1) // k0, b0 + (b1 - b0) * q // k0, d, ime)
            if drawer and k0 == 0:
                _draw_blocks(rng, zm, zv, b0, b1, d, ime)
        if i < B:
            s2 = 0.0
            for c in range(nch):
                s2 += part[c]
            nrm = math.sqrt(s2)
            f = 1.0
            if nrm > clip:
                f = clip / nrm
            fac[i] = f / B
    return negs.sum()


def round_parallel_row_sweeps_with(grads, arrays, t, prm, bc_sub, zm, zv, rng, draw, workers,
                                   drawer_share=DRAWER_SHARE):
    """:func:`round_with` in row-major order, split over Numba's threads by coordinates, one parallel sweep per record.

    Where :func:`round_parallel_row_major_with` has every thread take every norm (bit-identical, no barrier between
    records), this round splits each norm over the threads too and pays a barrier per record instead.

    The coordinates are cut into fixed chunks of 2¹⁴ (``_ROW_CHUNK``); each of ``workers`` parallel iterations
    (one per thread) owns a contiguous run of chunks.  Record i's squared norm is summed chunk by chunk (each
    chunk as ``round_with`` sums a row), the chunk sums added in chunk order, and its clip factor formed; in the
    same parallel sweep each thread adds record i − 1's clipped chunks into ``gbar_out`` (that part of the row was
    read in the previous sweep and is still in the last-level cache) and takes its chunk sums of record i.  So the
    B×d gradients are read from memory once, by all threads, in B + 1 parallel sweeps per round (the last one adds
    the last record and runs the fused update of m, v, θ on each chunk while its average is in cache).

    With ``draw`` the kernel draws the unit noise from ``rng`` into ``zm`` (and ``zv`` for IME), in the order
    ``round_with(..., draw=True)`` draws it (per 512-coordinate block, m part then v part), spread over the first
    B sweeps on one thread, which takes the smaller share ``drawer_share`` (of a 2-thread split) of the chunks so
    that the draws overlap the other threads' memory traffic.  Without ``draw``, ``zm``/``zv`` are the given noise.

    Agreement with :func:`round_with`: each coordinate sums its records in order, exactly as there, and the noise
    is the same numbers, so the only difference is the order of each norm's sum (chunk sums added, instead of one
    sum over the row).  The clip factors therefore agree to rounding (relative difference at most about γ_n,
    γ_n = n·u/(1 − n·u), n the longest chain of additions in either sum, u = 2⁻⁵³), and everything is
    bit-identical when a row has at most one chunk, when clipping is inactive (every factor 1/B), or when every
    partial sum is exact.  The chunking does not depend on the thread count or ``drawer_share``, so the result is
    the same bits for any number of threads.

    Parameters
    ----------
    grads, arrays, t, prm, bc_sub :
        As :func:`round_with` (``grads`` C-contiguous).
    zm, zv : numpy.ndarray
        (d,) the given unit noise, or with ``draw`` receive the drawn noise (then, for IME, arrays that do not
        overlap; the same array is refused).
    rng : numpy.random.Generator
        Draws the noise when ``draw``.
    draw : bool
        Draw the unit noise in the kernel.
    workers : int
        The number of contiguous runs of chunks, one per thread (Numba's thread count, e.g. ``threads`` of
        :func:`with_threads`); at least 1.  It changes the speed only, never the numbers.
    drawer_share : float, optional
        With ``draw``, the drawing thread's share of the chunks in a 2-thread split (default
        :data:`DRAWER_SHARE`); it changes the speed only, never the numbers.

    Returns
    -------
    int
        The number of coordinates whose corrected v̂ (before the floor) is negative.

    Raises
    ------
    ValueError
        ``draw`` for IME with ``zm`` and ``zv`` the same array, ``workers`` < 1 or ``drawer_share`` not in [0, 1].
    """
    theta, m, v, vclean, fac, gbar_out = arrays
    return _round_parallel_row_sweeps_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, rng, draw, fac, gbar_out,
                                           workers, drawer_share)


@njit(cache=True, parallel=True)
def _round_parallel_blocked_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, rng, draw, fac, gbar_out,
                                 workers, drawer_share=DRAWER_SHARE):
    # the jitted kernel of :func:`round_parallel_blocked_with` (its docstring), the round's arrays unpacked
    opt, xi, clip = prm.opt, prm.xi, prm.clip
    B, d, stp, ime, c2p, nb = _threaded_start(grads, prm, t, zm, zv, draw, workers, drawer_share)
    nw = max(1, min(workers, B))
    rows = _worker_chunks(B, nw, draw, drawer_share)
    for w in prange(nw):
        r0, r1 = rows[w], rows[w + 1]
        drawer = draw and w == 0
        for i in range(r0, r1):
            fac[i] = _record_factor(grads[i], v, t, stp, opt, c2p, xi, clip, B)
            if drawer:
                k = i - r0
                _draw_blocks(rng, zm, zv, k * nb // (r1 - r0), (k + 1) * nb // (r1 - r0), d, ime)
        if drawer and r1 == r0:
            _draw_blocks(rng, zm, zv, 0, nb, d, ime)
    return _blocked_update_pass(grads, fac, zm, zv, theta, m, v, vclean, t, prm, bc_sub, gbar_out, workers)


def round_parallel_blocked_with(grads, arrays, t, prm, bc_sub, zm, zv, rng, draw, workers,
                                drawer_share=DRAWER_SHARE):
    """:func:`round_with` in its two-pass order, split over Numba's threads, with the noise drawn during pass 1.

    Pass 1 takes the records' norms, each of ``workers`` parallel iterations a contiguous run of whole rows (summed
    exactly as ``round_with`` sums them).  With ``draw``, the first worker also draws the unit noise from ``rng``
    into ``zm`` (and ``zv`` for IME), in ``round_with(..., draw=True)``'s order (per 512-coordinate block, m part
    then v part), a slice after each of its rows; it takes the share ``drawer_share`` (of a 2-worker split) of
    the rows so that it keeps pace with the others.  Pass 2 is :func:`round_parallel_with`'s: each worker a
    contiguous run of coordinate chunks, each chunk's clipped records summed four at a time in a buffer kept in
    cache, then m, v, θ updated from it (:func:`_blocked_update_pass`).  The gradients are read from memory twice,
    with no traffic between records through the last-level cache (where :func:`round_parallel_row_major_with`
    re-reads each row and the average from that cache after every pair of records).

    Every number is computed as in ``round_with``, so the result is bit-identical to it (with the same noise, or
    the same generator with ``draw``) for any thread count, ``workers`` or ``drawer_share``.

    Parameters
    ----------
    grads, arrays, t, prm, bc_sub, zm, zv, rng, draw :
        As :func:`round_parallel_row_major_with`.
    workers : int
        The number of runs of rows (pass 1) and of chunks (pass 2), one per thread; at least 1.  It changes the
        speed only, never the numbers.
    drawer_share : float, optional
        With ``draw``, the drawing worker's share of the rows in a 2-worker split (default :data:`DRAWER_SHARE`);
        it changes the speed only, never the numbers.

    Returns
    -------
    int
        The number of coordinates whose corrected v̂ (before the floor) is negative.

    Raises
    ------
    ValueError
        As :func:`round_parallel_row_major_with`.
    """
    theta, m, v, vclean, fac, gbar_out = arrays
    return _round_parallel_blocked_with(grads, theta, m, v, vclean, t, prm, bc_sub, zm, zv, rng, draw, fac, gbar_out,
                                        workers, drawer_share)


@njit(cache=True, nogil=True)
def _logistic_1d_loop(x, y, theta0, prm, bc, zm, zv, rng):
    """One epoch, batch size 1, over records (x_t, y_t) of 1-D logistic regression; zm, zv (T,) unit noise
    (already DP-MF-correlated); bc (T,) bias-correction amounts.  Returns θ_T."""
    T = x.shape[0]
    theta = np.empty(1)
    theta[0] = theta0
    m = np.zeros(1)
    v = np.zeros(1)
    vc = np.zeros(1)
    grads = np.empty((1, 1))
    fac = np.empty(1)
    gb = np.empty(1)
    nm = np.empty(1)
    nv = np.empty(1)
    for t in range(T):
        grads[0, 0] = -y[t] * x[t] / (1.0 + math.exp(min(700.0, y[t] * theta[0] * x[t])))
        nm[0] = zm[t]
        nv[0] = zv[t]
        _round_with(grads, theta, m, v, vc, t, prm, bc[t], nm, nv, rng, False, fac, gb)
    return theta[0]


# ======================================================================================
# The public wrapper: streams of rounds
# ======================================================================================
@dataclass(frozen=True)
class RoundConfig:
    variant: str = "post_processing"
    optimizer: str = "adam"
    lr: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    xi: float = 1e-8
    clip_norm: float = 1.0
    sigma: float = 0.0
    batch_size: int = 1
    floor: float = 0.0
    ime_split: bool = True

    def fault_name(self) -> str:
        """The name under which this configuration's runs meet the fault hooks (kernels/faults.py).

        A one-arm fault (``kernels.faults.Faults.only_methods``) lists these names to hit one variant only.

        Returns
        -------
        str
            ``"ime_for_free"`` for the IME variant without the √2 split (``ime_split`` False), else ``variant``.
        """
        return "ime_for_free" if self.variant == "ime" and not self.ime_split else str(self.variant)

    def validated(self) -> "RoundConfig":
        """This configuration with every field checked and converted to its type (``batch_size`` ≤ 10⁹).

        The fault hooks of :mod:`kernels.faults` are applied here (factors of exactly 1 outside a mutation run),
        with :meth:`fault_name` as the method's name for a one-arm fault (``kernels.faults.Faults.only_methods``).

        Returns
        -------
        RoundConfig
            A new, validated configuration.

        Raises
        ------
        dpvalidate.InvalidParameter
            A field outside what it accepts: β₁ not in [0, 1), β₂ not in [0, 1) for Adam or not finite, ξ = 0 for
            scale-then-privatize, an infinite ``clip_norm`` with σ > 0, or a noise std σ·C/B above
            :data:`MAX_NOISE_STD` (the message names it).
        """
        V.choice("variant", self.variant, tuple(VARIANTS))
        V.choice("optimizer", self.optimizer, tuple(OPTIMIZERS))
        lr = V.positive("lr", self.lr)
        b1 = V.real("beta1", self.beta1)
        if not 0 <= b1 < 1:
            raise V.InvalidParameter("beta1", "in [0, 1)", self.beta1)
        b2 = V.real("beta2", self.beta2)
        if self.optimizer == "adam" and not 0 <= b2 < 1:
            raise V.InvalidParameter("beta2", "in [0, 1)", self.beta2)
        if not math.isfinite(b2):
            raise V.InvalidParameter("beta2", "a finite number", self.beta2)
        xi = V.nonnegative("xi", self.xi)
        clip_norm = V.positive("clip_norm", self.clip_norm, allow_inf=True)
        sigma = V.nonnegative("sigma", self.sigma)
        batch_size = V.count("batch_size", self.batch_size)
        floor = V.nonnegative("floor", self.floor)
        ime_split = V.flag("ime_split", self.ime_split)
        if self.variant == "scale_then_privatize" or self.variant == "noiseless_stp":
            if xi <= 0:
                raise V.InvalidParameter("xi", "> 0 for scale-then-privatize (the scale is 1/(√v̂ + ξ))", self.xi)
        if sigma > 0 and math.isinf(clip_norm):
            raise V.InvalidParameter("clip_norm", "finite when sigma > 0 (the noise is σ·C/B)", self.clip_norm)
        if sigma * clip_norm / batch_size > MAX_NOISE_STD:
            raise V.InvalidParameter("sigma, clip_norm", f"such that the noise std σ·C/B is at most {MAX_NOISE_STD:g} "
                                     "(its square enters v̂ and must stay finite)", sigma * clip_norm / batch_size)
        variant = self.variant
        # fault hooks for mutation analysis (kernels/faults.py): factors of exactly 1 outside a mutation run
        name = self.fault_name()
        sigma, lr = sigma * faults.noise_factor(sigma, method=name), lr * faults.stepsize_scale(method=name)
        if variant == "bias_correction" and faults.drop_bias_correction():
            variant = "post_processing"  # the noise-variance correction of v̂ left out
        return RoundConfig(variant, self.optimizer, lr, b1, b2, xi, clip_norm, sigma, batch_size, floor, ime_split)


def adam_params(cfg: RoundConfig, std_m: float, std_v: float) -> AdamParams:
    """The record of a run's fixed settings the jitted round takes.

    Parameters
    ----------
    cfg : RoundConfig
        A validated configuration (:meth:`RoundConfig.validated`).
    std_m, std_v : float
        The noise standard deviations of the m-part and IME's v-part (:func:`noise_stds`).

    Returns
    -------
    AdamParams
        ``cfg``'s fields, the variant and optimizer as their codes, and the two standard deviations.
    """
    return AdamParams(VARIANTS[cfg.variant], OPTIMIZERS[cfg.optimizer], cfg.lr, cfg.beta1, cfg.beta2, cfg.xi,
                      cfg.clip_norm, std_m, std_v, cfg.floor)


def noise_stds(cfg: RoundConfig, sensitivity: float = 1.0) -> tuple[float, float]:
    """(std of the m/gradient noise, std of the IME v-part noise) for one round, in gradient units.

    Parameters
    ----------
    cfg : RoundConfig
        A validated configuration.
    sensitivity : float, optional
        The strategy's sensitivity (1 without DP-MF); multiplies both.

    Returns
    -------
    std_m : float
        σC/B (IME: :func:`ime_noise_stds`'s first), times ``sensitivity``; 0 when σ = 0.
    std_v : float
        IME's v-part std times ``sensitivity``; 0 for the other variants.
    """
    if cfg.sigma == 0:
        return 0.0, 0.0
    if cfg.variant == "ime":
        a, b = ime_noise_stds(cfg.sigma, cfg.clip_norm, cfg.batch_size, split=cfg.ime_split)
        return a * sensitivity, b * sensitivity
    return cfg.sigma * cfg.clip_norm / cfg.batch_size * sensitivity, 0.0


def bias_schedule(cfg: RoundConfig, strat: Strategy | None, T: int) -> np.ndarray:
    """The amount bias correction subtracts in rounds 1..T: E[v̂] − clean v̂ of post-processing.

    Adam: (1−β₂)Σ_k β₂^{t−k} s²‖row_k(C⁻¹)‖² / (1 − β₂^t); AdaGrad: Σ_k s²‖row_k‖² (App. A).

    Parameters
    ----------
    cfg : RoundConfig
        A validated configuration (s = its m-part noise std).
    strat : Strategy or None
        The DP-MF strategy (None: independent noise, every ‖row_k‖² = 1).
    T : int
        The number of rounds (at most ``strat.T``).

    Returns
    -------
    numpy.ndarray
        (T,) the amounts for rounds 1..T.
    """
    s2 = noise_stds(cfg, 1.0 if strat is None else strat.sensitivity)[0] ** 2
    r = np.ones(T) if strat is None else strat.row_norms2()[:T]
    out = np.empty(T)
    acc = 0.0
    for k in range(T):
        if cfg.optimizer == "adam":
            acc = cfg.beta2 * acc + (1 - cfg.beta2) * s2 * r[k]
            out[k] = acc / (1 - cfg.beta2 ** (k + 1))
        else:
            acc += s2 * r[k]
            out[k] = acc
    return out


@dataclass
class State:
    theta: np.ndarray
    m: np.ndarray
    v: np.ndarray
    vclean: np.ndarray
    t: int = 0

    @staticmethod
    def zeros(d: int, theta0=None) -> "State":
        """A fresh state: θ = ``theta0`` (default 0), m = v = v_clean = 0, t = 0.

        Parameters
        ----------
        d : int
            The dimension.
        theta0 : array_like, optional
            The starting point (copied as float64).

        Returns
        -------
        State
        """
        th = np.zeros(d) if theta0 is None else np.array(theta0, dtype=np.float64)
        return State(th, np.zeros(d), np.zeros(d), np.zeros(d), 0)


class NoiseStream:
    """Unit noise ζ̃_t for one trial: standard normals from ``rng`` filtered by a DP-MF strategy."""

    def __init__(self, d: int, rng: np.random.Generator, strat: Strategy | None = None, parts: int = 1):
        self.d, self.rng, self.parts = d, rng, parts
        self.strat = strat
        if strat is not None and (strat.num.size > 1 or strat.den.size > 0):
            self.hz = [np.zeros((max(strat.num.size - 1, 1), d)) for _ in range(parts)]
            self.ho = [np.zeros((max(strat.den.size, 1), d)) for _ in range(parts)]
        else:
            self.hz = None
        self.pos = 0
        self.out = [np.empty(d) for _ in range(parts)]

    def next(self) -> list[np.ndarray]:
        """The next round's unit noise, one (d,) array per part (filtered when the strategy is not the identity).

        Returns
        -------
        list of numpy.ndarray
            ``parts`` arrays owned by the stream: overwritten by the next call.
        """
        for p in range(self.parts):
            z = self.rng.standard_normal(self.d)
            if self.hz is None:
                self.out[p][:] = z
            else:
                s = self.strat
                num = s.num
                den = s.den if s.den.size else np.zeros(0)
                _filter_noise(z, num, den, self.hz[p] if num.size > 1 else self.hz[p][:0],
                              self.ho[p] if den.size else self.ho[p][:0], self.pos, self.out[p])
        self.pos += 1
        return self.out


def step(cfg: RoundConfig, state: State, grads: np.ndarray, zm: np.ndarray, zv: np.ndarray | None = None,
         sensitivity: float = 1.0, bc_sub: float = 0.0, gbar_out: np.ndarray | None = None,
         threads: int = 1) -> int:
    """One validated round with given unit noise; updates ``state`` in place; returns the negative-v̂ count.

    ``threads`` > 1 splits the round over that many Numba threads (:func:`round_parallel_with`, worth it for
    large d); the result is bit-identical to ``threads=1``.

    ``grads`` (B, d) and the unit noise ``zm``, ``zv`` (d,) are checked (shape, finite noise); a gradient
    with NaN/inf raises InvalidParameter naming ``grads`` after the round (found, at O(d) cost, in its
    clean average, which clipping cannot make finite).

    Parameters
    ----------
    cfg : RoundConfig
        The round's configuration (validated by the caller: :meth:`RoundConfig.validated`).
    state : State
        θ, m, v, v_clean and t, updated in place (t incremented).
    grads : array_like
        (B, d) per-record gradients.
    zm : array_like
        (d,) unit noise of the m-part.
    zv : array_like, optional
        (d,) unit noise of IME's v-part (default ``zm``).
    sensitivity : float, optional
        The DP-MF strategy's sensitivity (scales the noise stds).
    bc_sub : float, optional
        This round's bias-correction amount (:func:`bias_schedule`).
    gbar_out : numpy.ndarray, optional
        (d,) C-contiguous float64: receives the clean clipped average.
    threads : int, optional
        As above.

    Returns
    -------
    int
        The number of coordinates whose corrected v̂ (before the floor) is negative.

    Raises
    ------
    dpvalidate.InvalidParameter
        ``state`` not a State, ``grads``/``zm``/``zv``/``gbar_out`` of the wrong shape or type, non-finite
        noise or gradients, ``threads`` < 1, or a round that overflows float64.
    """
    if not isinstance(state, State):
        raise V.InvalidParameter("state", "a kernels.dp_adam.State", type(state).__name__)
    d = state.theta.size
    try:
        grads = np.ascontiguousarray(grads, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise V.InvalidParameter("grads", f"a (batch, {d}) array of numbers", type(grads).__name__) from None
    if grads.ndim != 2 or grads.shape[1] != d:
        raise V.InvalidParameter("grads", f"a (batch, {d}) array", f"shape {grads.shape}")
    zm = _finite_vector("zm", zm, d)
    zv = zm if zv is None else _finite_vector("zv", zv, d)
    if gbar_out is not None and not (isinstance(gbar_out, np.ndarray) and gbar_out.dtype == np.float64
                                     and gbar_out.shape == (d,) and gbar_out.flags.c_contiguous):
        raise V.InvalidParameter("gbar_out", f"a C-contiguous float64 array of shape ({d},)", type(gbar_out).__name__)
    std_m, std_v = noise_stds(cfg, sensitivity)
    fac = np.empty(grads.shape[0])
    gb = np.empty(state.theta.size) if gbar_out is None else gbar_out
    args = (grads, state.theta, state.m, state.v, state.vclean, state.t, adam_params(cfg, std_m, std_v), bc_sub, zm,
            zv)
    threads = V.integer("threads", threads, 1)
    try:
        if threads == 1:
            neg = _round_given(*args, fac, gb, row_major_fits(d))
        else:
            neg = with_threads(threads, _round_parallel_with, *args, fac, gb, threads)
    except ZeroDivisionError:  # v̂ overflowed to inf, so a scale 1/(√v̂ + ξ) became 0 and the round divided by it
        raise V.InvalidParameter("grads, cfg", "small enough that the round stays within float64 range (its second "
                                 "moment overflowed; scale the gradients, sigma or clip_norm down)") from None
    state.t += 1
    if not np.isfinite(gb).all():  # NaN/inf in a record survives clipping into the clean average (O(d) check)
        raise V.InvalidParameter("grads", "finite (no NaN or inf)", "a non-finite entry")
    return int(neg)


_DUMMY_RNG = np.random.default_rng(0)


def with_threads(threads: int, fn, *args):
    """``fn(*args)`` with Numba's thread count set to ``threads`` (at most the configured maximum), then restored.

    Parameters
    ----------
    threads : int
        The thread count for the call.
    fn : callable
        The (parallel) jitted function.
    *args
        Its arguments.

    Returns
    -------
    object
        ``fn(*args)``.
    """
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        return fn(*args)
    finally:
        numba.set_num_threads(before)


class StreamStart(NamedTuple):
    """Where :func:`run_stream`'s trials start: θ₀, v₀ and the round count (default: θ = v = 0 at round 0).

    Attributes
    ----------
    theta0 : array_like or None
        (d,) the starting point (None: 0).
    v0 : array_like or None
        (d,) the starting second moment, entries ≥ 0 (None: 0).
    t0 : int
        The rounds counted as done before the first (a large t0 makes Adam's bias corrections ≈ 1).
    """

    theta0: np.ndarray | None = None
    v0: np.ndarray | None = None
    t0: int = 0


@njit(cache=True, nogil=True)
def _stream_rounds_given(G, r0, r1, theta, m, v, vclean, t, prm, bias, parts, rng, row_major, fac, z, neg_frac,
                         gb_hist, v_hist, theta_hist):
    # rounds r0..r1−1 of one trial of run_stream's per-trial path with independent noise and array gradients, in
    # one call: each round draws its unit noise part by part from the trial's noise stream ``rng`` (d normals per
    # part, as NoiseStream.next does) and runs step()'s round (_round_given) on G[r] (G[0] every round when G holds
    # one round's gradients).  Writes neg/d into neg_frac[r], the round's clean average into gb_hist[r − r0] (the
    # caller takes its norm as the per-round path does) and, when they have rows, v / θ into v_hist / theta_hist
    # [r − r0]; returns the round count t after the last round and −1, or at the first round whose clean average is
    # not finite (step() raises there) that round's t and index.
    d = theta.shape[0]
    last = G.shape[0] - 1
    for r in range(r0, r1):
        for p in range(parts):
            for j in range(d):
                z[p, j] = rng.standard_normal()
        neg = _round_given(G[min(r, last)], theta, m, v, vclean, t, prm, bias[r], z[0], z[parts - 1], fac,
                           gb_hist[r - r0], row_major)
        t += 1
        for j in range(d):
            if not np.isfinite(gb_hist[r - r0, j]):  # step()'s check: NaN/inf in a record survives into ḡ
                return t, r
        neg_frac[r] = neg / d
        if v_hist.shape[0] > 0:
            v_hist[r - r0] = v
        if theta_hist.shape[0] > 0:
            theta_hist[r - r0] = theta
    return t, -1


@njit(cache=True, nogil=True)
def _stream_trials_one_stream(G, theta0, v0, t0, prm, bias, num, den, filtered, parts, rng, row_major, theta_out,
                              v_out, neg_frac, gbar_norm, v_hist, theta_hist):
    # run_stream's trial loop in one call (one_stream=True), every trial drawing in turn from ``rng``: each trial
    # starts as the per-trial path's does (θ = theta0, m = 0, v = v0, v_clean = 0, t = t0, an empty DP-MF filter
    # history) and each round draws its unit noise part by part as NoiseStream.next does (d normals per part,
    # filtered when ``filtered``), then runs step()'s round (_round_given).  G (rounds, B, d) are the rounds'
    # gradients; v_hist / theta_hist with 0 trials record nothing.
    trials, d = theta_out.shape
    rounds = neg_frac.shape[1]
    last = G.shape[0] - 1  # 0: one round's gradients, used in every round
    m = np.empty(d)
    vclean = np.empty(d)
    fac = np.empty(G.shape[1])
    gb = np.empty(d)
    z = np.empty((parts, d))
    zt = np.empty((parts, d))
    hz = np.zeros((parts, max(num.shape[0] - 1, 0), d))
    ho = np.zeros((parts, den.shape[0], d))
    for k in range(trials):
        theta = theta_out[k]
        v = v_out[k]
        theta[:] = theta0
        m[:] = 0.0
        v[:] = v0
        vclean[:] = 0.0
        hz[:] = 0.0
        ho[:] = 0.0
        t = t0
        for r in range(rounds):
            for p in range(parts):
                for j in range(d):
                    z[p, j] = rng.standard_normal()
                if filtered:
                    _filter_noise(z[p], num, den, hz[p], ho[p], r, zt[p])
                else:
                    zt[p, :] = z[p]
            neg = _round_given(G[min(r, last)], theta, m, v, vclean, t, prm, bias[r], zt[0], zt[parts - 1], fac, gb,
                               row_major)
            t += 1
            neg_frac[k, r] = neg / d
            s2 = 0.0
            for j in range(d):
                s2 += gb[j] * gb[j]
            gbar_norm[k, r] = math.sqrt(s2)
            if v_hist.shape[0] > 0:
                v_hist[k, r] = v
            if theta_hist.shape[0] > 0:
                theta_hist[k, r] = theta


def run_stream(cfg: RoundConfig, grad_fn, d: int, rounds: int, *, trials: int = 1, seed: int = 0,
               strat_kind: str = "identity", bands: int = 4, start: StreamStart | None = None,
               record_v: bool = False, threads: int = 1, record_theta: bool = False,
               one_stream: bool = False) -> dict:
    """Run ``rounds`` rounds for ``trials`` seeded trials.

    ``grad_fn(t, theta, rng) -> (B, d)`` supplies each round's per-record gradients (it may use the
    trial's data stream ``rng``; a separate stream draws the privacy noise); or ``grad_fn`` is a (rounds, B, d)
    array: round t's gradients are ``grad_fn[t]`` in every trial, whatever θ (the same numbers as a function
    returning them), or a (B, d) array: the same gradients in every round (held once, not ``rounds`` times).
    With an array, independent noise (``strat_kind`` identity) and ``threads`` = 1 each trial's rounds run in
    jitted chunks (``_run_stream_given``), with the same numbers as the per-round path.  Returns
    {"theta": (trials, d), "v": (trials, d), "vhat": (trials, d) final bias-corrected v̂,
    "neg_frac": (trials, rounds) fraction of negative corrected v̂, "gbar_norm": (trials, rounds) ‖ḡ_t‖,
    with ``record_v`` "v_hist": (trials, rounds, d) v after each round and with ``record_theta``
    "theta_hist": (trials, rounds, d) θ after each round}.  ``start`` (:class:`StreamStart`)
    starts from a given θ₀, second moment v₀ and round count t0 (e.g. a large t0 makes Adam's bias corrections ≈ 1).
    ``threads`` > 1 runs each round on that many Numba threads (same numbers as ``threads=1``).

    By default each trial has its own SeedSequence child, split into a data and a noise stream, and each round is
    one Python-level :func:`step`.  ``one_stream=True`` runs every trial in one jitted call instead
    (``_stream_trials_one_stream``: no per-trial or per-round Python, for many short trials such as the privacy
    audits), each trial drawing its noise in turn from one ``np.random.default_rng(seed)`` where the previous trial
    left it; it needs ``grad_fn`` as an array (there is then no data stream) and ``threads`` = 1.  Other numbers
    than the default's, equally reproducible.

    Limits: ``d``, ``rounds``, ``trials``, ``t0`` ≤ 10⁹; the outputs ((trials, d), (trials, rounds) and with
    ``record_v`` or ``record_theta`` (trials, rounds, d)) ≤ 8 GiB; a DP-MF ``strat_kind`` other than identity needs
    ``rounds`` ≤ 10⁴ (:func:`strategy`).  ``grad_fn`` must return a finite (B, d) array; a run that
    overflows float64 (say ``lr`` = 1e300) raises InvalidParameter instead of returning NaN.

    Parameters
    ----------
    cfg : RoundConfig
        The round's optimizer, noise and clipping.
    grad_fn : callable or array_like
        As above: a function, a (rounds, B, d) array or a (B, d) array.
    d, rounds : int
    trials, seed : int, optional
    strat_kind : str, optional
        The DP-MF correlation strategy (``"identity"``: independent noise).
    bands : int, optional
        The number of bands of a banded strategy.
    start : StreamStart, optional
        θ₀, v₀ and t0 (default: zeros at round 0); their errors name ``theta0``, ``v0``, ``t0``.
    record_v : bool, optional
    threads : int, optional
        As above.
    record_theta : bool, optional
        Also return ``theta_hist``, θ after each round.
    one_stream : bool, optional
        Draw every trial, in order, from one stream seeded by ``seed`` in one jitted call (above), instead of a
        stream per trial (the default).

    Returns
    -------
    dict
        ``run_stream``'s arrays, listed above.

    Raises
    ------
    dpvalidate.InvalidParameter
        A parameter of ``run_stream`` outside what it accepts, outputs over the size limit, or a float64 overflow.
    """
    if not isinstance(cfg, RoundConfig):
        raise V.InvalidParameter("cfg", "a kernels.dp_adam.RoundConfig", type(cfg).__name__)
    cfg = cfg.validated()
    if start is None:
        start = StreamStart()
    elif not isinstance(start, StreamStart):
        raise V.InvalidParameter("start", "a kernels.dp_adam.StreamStart", type(start).__name__)
    theta0, v0, t0 = start
    d = V.count("d", d)
    rounds = V.count("rounds", rounds)
    one_stream = V.flag("one_stream", one_stream)
    if callable(grad_fn):
        if one_stream:
            raise V.InvalidParameter("grad_fn", "a (rounds, B, d) array of the rounds' gradients when one_stream is "
                                     "True (a function would be called from Python in every round)",
                                     type(grad_fn).__name__)
        G = None
    elif isinstance(grad_fn, (np.ndarray, list, tuple)):
        try:
            one_round = np.ndim(grad_fn) == 2
        except ValueError:  # a ragged nesting: finite_array names it
            one_round = False
        if one_round:  # (B, d): the same gradients in every round, held once
            G = np.ascontiguousarray(V.finite_array("grad_fn", grad_fn, shape=(None, d)))[None]
        else:
            G = np.ascontiguousarray(V.finite_array("grad_fn", grad_fn, shape=(rounds, None, d)))
    else:
        raise V.InvalidParameter("grad_fn", "a function (t, theta, rng) -> (B, d) gradients, a (rounds, B, d) "
                                 "array or a (B, d) array", type(grad_fn).__name__)
    trials = V.count("trials", trials)
    seed = V.integer("seed", seed, 0)
    threads = V.integer("threads", threads, 1)
    V.choice("strat_kind", strat_kind, STRATEGIES)
    V.memory("trials, d", trials, 8 * d)
    V.memory("trials, rounds", trials, rounds, 3)
    if V.flag("record_v", record_v):
        V.memory("trials, rounds, d", trials, rounds, d)
    if V.flag("record_theta", record_theta):
        V.memory("trials, rounds, d", trials, rounds, d, 1 + bool(record_v))
    if one_stream and threads != 1:
        raise V.InvalidParameter("threads", "1 when one_stream is True (the trials run in one serial call)", threads)
    theta0 = None if theta0 is None else V.finite_array("theta0", theta0, shape=(d,))
    v0 = None if v0 is None else V.finite_array("v0", v0, shape=(d,))
    if v0 is not None and np.any(v0 < 0):
        raise V.InvalidParameter("v0", "a second moment: entries >= 0", "a negative entry")
    if strat_kind != "identity" and rounds > STRATEGY_MAX_T:
        raise V.InvalidParameter("rounds, strat_kind", f"at most {STRATEGY_MAX_T} rounds for a DP-MF strategy other "
                                 "than identity (its O(T²) series)", rounds)
    strat = strategy(strat_kind, rounds, bands) if strat_kind != "identity" else None
    sens = 1.0 if strat is None else strat.sensitivity
    bias = bias_schedule(cfg, strat, rounds) if cfg.variant == "bias_correction" else np.zeros(rounds)
    parts = 2 if cfg.variant == "ime" else 1
    out = {"theta": np.empty((trials, d)), "v": np.empty((trials, d)), "vhat": np.empty((trials, d)),
           "neg_frac": np.empty((trials, rounds)), "gbar_norm": np.empty((trials, rounds))}
    if record_v:
        out["v_hist"] = np.empty((trials, rounds, d))
    if record_theta:
        out["theta_hist"] = np.empty((trials, rounds, d))
    t0 = V.count("t0", t0, 0)
    if one_stream:
        return _run_stream_one_stream(cfg, G, d, rounds, seed, strat, (theta0, v0, t0), bias, out)
    if G is not None and strat is None and threads == 1:
        return _run_stream_given(cfg, G, d, rounds, seed, (theta0, v0, t0), bias, out)
    if G is not None:
        def grad_fn(t, theta, rng, _G=G):
            return _G[min(t, _G.shape[0] - 1)]
    gb = np.empty(d)
    for k, ss in enumerate(np.random.SeedSequence(seed).spawn(trials)):
        data_ss, noise_ss = ss.spawn(2)
        data_rng, noise_rng = np.random.default_rng(data_ss), np.random.default_rng(noise_ss)
        st = State.zeros(d, theta0)
        st.t = t0
        if v0 is not None:
            st.v[:] = V.finite_array("v0", v0, shape=(d,))
        ns = NoiseStream(d, noise_rng, strat, parts)
        for t in range(rounds):
            grads = grad_fn(t, st.theta, data_rng)
            if not (isinstance(grads, np.ndarray) and grads.ndim == 2 and grads.shape[1] == d):
                raise V.InvalidParameter("grad_fn", f"a function returning a (B, {d}) array",
                                         getattr(grads, "shape", type(grads).__name__))
            z = ns.next()
            try:
                neg = step(cfg, st, grads, z[0], z[-1], sens, bias[t], gb, threads)
            except V.InvalidParameter as exc:
                if exc.name == "grads, cfg":  # an overflow: the gradients' or the noise's scale
                    raise V.InvalidParameter("grad_fn, lr, sigma, clip_norm", exc.accepted) from None
                if exc.name != "grads":
                    raise
                raise V.InvalidParameter("grad_fn", "a function returning finite gradients", f"round {t}: {exc}") \
                    from None
            out["neg_frac"][k, t] = neg / d
            out["gbar_norm"][k, t] = float(np.sqrt(gb @ gb))
            if record_v:
                out["v_hist"][k, t] = st.v
            if record_theta:
                out["theta_hist"][k, t] = st.theta
        out["theta"][k] = st.theta
        out["v"][k] = st.v
        c2 = 1 - cfg.beta2**st.t if cfg.optimizer == "adam" else 1.0
        out["vhat"][k] = st.v / c2 - bias[rounds - 1]
    V.finite_output("lr, sigma, theta0, v0", out["theta"], out["vhat"], out["gbar_norm"])
    return out


_GBAR_CHUNK_BYTES = 4 * 2**20  # _run_stream_given: the rounds' clean averages held at once


def _run_stream_given(cfg: RoundConfig, G: np.ndarray, d: int, rounds: int, seed: int, start: tuple,
                      bias: np.ndarray, out: dict) -> dict:
    """:func:`run_stream`'s default per-trial path for array gradients and independent noise, its rounds jitted.

    The same numbers as the per-round path (one :func:`step` per round): each trial's noise stream is the noise
    child of its SeedSequence child, drawn d normals per part per round in the same order, the round is step()'s
    kernel (``_round_given``) and ‖ḡ_t‖ is taken in Python from each round's clean average as there.  Only the
    per-round Python (validation, the call, NoiseStream) is gone: the rounds run in chunks of
    ``_stream_rounds_given``.

    Parameters
    ----------
    cfg : RoundConfig
        The validated configuration.
    G : numpy.ndarray
        (rounds, B, d) the rounds' gradients, or (1, B, d) the same in every round (finite, C-contiguous).
    d, rounds : int
        The dimension and the rounds.
    seed : int
        The root seed (one SeedSequence child per trial, as the per-round path spawns them).
    start : tuple
        (θ₀ or None, v₀ or None, t0), validated.
    bias : numpy.ndarray
        (rounds,) the bias-correction amounts.
    out : dict
        :func:`run_stream`'s output arrays (their first axis is the trials), filled here.

    Returns
    -------
    dict
        ``out``, filled.

    Raises
    ------
    dpvalidate.InvalidParameter
        A clean average that is not finite or a run that overflows float64, named as the per-round path names them.
    """
    theta0, v0, t0 = start
    prm = adam_params(cfg, *noise_stds(cfg, 1.0))
    parts = 2 if cfg.variant == "ime" else 1
    row_major = row_major_fits(d)
    trials = out["theta"].shape[0]
    chunk = max(1, min(rounds, _GBAR_CHUNK_BYTES // (8 * d)))
    gb_hist = np.empty((chunk, d))
    fac = np.empty(G.shape[1])
    z = np.empty((parts, d))
    m, vclean = np.empty(d), np.empty(d)
    empty = np.empty((0, d))
    v_hist, theta_hist = out.get("v_hist"), out.get("theta_hist")
    noise_children = [ss.spawn(2)[1] for ss in np.random.SeedSequence(seed).spawn(trials)]
    for k, rng in enumerate(_cpu.reseeded_generators(noise_children)):
        theta, v = out["theta"][k], out["v"][k]
        theta[:] = 0.0 if theta0 is None else theta0
        v[:] = 0.0 if v0 is None else v0
        m[:] = 0.0
        vclean[:] = 0.0
        t = t0
        for r0 in range(0, rounds, chunk):
            r1 = min(rounds, r0 + chunk)
            try:
                t, bad = _stream_rounds_given(G, r0, r1, theta, m, v, vclean, t, prm, bias, parts, rng, row_major,
                                              fac, z, out["neg_frac"][k], gb_hist,
                                              empty if v_hist is None else v_hist[k, r0:r1],
                                              empty if theta_hist is None else theta_hist[k, r0:r1])
            except ZeroDivisionError:  # as step() and the per-round path report it
                raise V.InvalidParameter("grad_fn, lr, sigma, clip_norm", "small enough that the round stays within "
                                         "float64 range (its second moment overflowed; scale the gradients, sigma or "
                                         "clip_norm down)") from None
            if bad >= 0:
                exc = V.InvalidParameter("grads", "finite (no NaN or inf)", "a non-finite entry")
                raise V.InvalidParameter("grad_fn", "a function returning finite gradients", f"round {bad}: {exc}")
            for i in range(r1 - r0):
                g = gb_hist[i]
                out["gbar_norm"][k, r0 + i] = float(np.sqrt(g @ g))
        c2 = 1 - cfg.beta2**t if cfg.optimizer == "adam" else 1.0
        out["vhat"][k] = v / c2 - bias[rounds - 1]
    V.finite_output("lr, sigma, theta0, v0", out["theta"], out["vhat"], out["gbar_norm"])
    return out


def _run_stream_one_stream(cfg: RoundConfig, G: np.ndarray, d: int, rounds: int, seed: int,
                           strat: Strategy | None, start: tuple, bias: np.ndarray, out: dict) -> dict:
    """:func:`run_stream` with ``one_stream=True`` after its validation: every trial in one jitted call.

    Parameters
    ----------
    cfg : RoundConfig
        The validated configuration.
    G : numpy.ndarray
        (rounds, B, d) the rounds' gradients (finite, C-contiguous).
    d, rounds : int
        The dimension and the rounds.
    seed : int
        Seeds the one generator every trial draws from in turn.
    strat : Strategy or None
        The DP-MF strategy (None: independent noise).
    start : tuple
        (θ₀ or None, v₀ or None, t0), validated.
    bias : numpy.ndarray
        (rounds,) the bias-correction amounts.
    out : dict
        :func:`run_stream`'s output arrays, filled here.

    Returns
    -------
    dict
        ``out``, filled.

    Raises
    ------
    dpvalidate.InvalidParameter
        A run that overflows float64.
    """
    theta0, v0, t0 = start
    sens = 1.0 if strat is None else strat.sensitivity
    prm = adam_params(cfg, *noise_stds(cfg, sens))
    filtered = strat is not None and (strat.num.size > 1 or strat.den.size > 0)
    num = np.ones(1) if strat is None else strat.num
    den = np.zeros(0) if strat is None else strat.den
    parts = 2 if cfg.variant == "ime" else 1
    empty = np.empty((0, rounds, d))
    try:
        _stream_trials_one_stream(G, np.zeros(d) if theta0 is None else theta0, np.zeros(d) if v0 is None else v0,
                                  t0, prm, bias, num, den, filtered, parts, np.random.default_rng(seed),
                                  row_major_fits(d), out["theta"], out["v"], out["neg_frac"], out["gbar_norm"],
                                  out.get("v_hist", empty), out.get("theta_hist", empty))
    except ZeroDivisionError:  # v̂ overflowed to inf, so a scale 1/(√v̂ + ξ) became 0 (as step() reports it)
        raise V.InvalidParameter("grad_fn, lr, sigma, clip_norm", "small enough that the round stays within "
                                 "float64 range (its second moment overflowed; scale the gradients, sigma or "
                                 "clip_norm down)") from None
    c2 = 1 - cfg.beta2 ** (t0 + rounds) if cfg.optimizer == "adam" else 1.0
    out["vhat"][:] = out["v"] / c2 - bias[rounds - 1]
    V.finite_output("lr, sigma, theta0, v0", out["theta"], out["vhat"], out["gbar_norm"])
    return out


def toeplitz_matrix(coeffs: np.ndarray, T: int) -> np.ndarray:
    """The dense T×T lower-triangular Toeplitz matrix with first column ``coeffs`` (padded with zeros).

    Parameters
    ----------
    coeffs : array_like
        The first column (truncated or zero-padded to T).
    T : int
        The size.

    Returns
    -------
    numpy.ndarray
        (T, T) float64.
    """
    c = np.concatenate([np.asarray(coeffs, float), np.zeros(max(0, T - len(coeffs)))])[:T]
    i, j = np.indices((T, T))
    return np.where(i >= j, c[np.clip(i - j, 0, T - 1)], 0.0)


_TOEPLITZ_CACHE: dict = {}


def _toeplitz_cached(strat: Strategy) -> np.ndarray:
    key = (strat.name, strat.T, strat.num.size, strat.den.size)
    if key not in _TOEPLITZ_CACHE:
        _TOEPLITZ_CACHE.clear()
        _TOEPLITZ_CACHE[key] = toeplitz_matrix(strat.cinv, strat.T)
    return _TOEPLITZ_CACHE[key]


def run_logistic_1d(x, y, cfg: RoundConfig, *, strat_kind: str = "identity", trials: int = 1, seed: int = 0,
                    theta0: float = 0.0, noise_stds_override: tuple[float, float] | None = None) -> np.ndarray:
    """One epoch of batch-size-1 private AdaGrad/Adam on 1-D logistic records (x_t, y_t); returns θ_T per trial.

    Each trial draws its unit noise (two parts: gradient and, for IME, square) from its own spawned
    stream and correlates it with the strategy's C⁻¹ (dense Toeplitz product), so for a given seed every
    variant and learning rate sees the same noise (common random numbers).

    ``noise_stds_override``: the per-round stds (gradient part, square part) in gradient units, taken from the
    caller (e.g. a closed form) instead of :func:`noise_stds` of ``cfg``; the DP-MF sensitivity and the
    ``noise_scale`` fault apply to them as to σ.

    Limits: ``trials`` ≤ 10⁹ with the (T, 2·trials) noise ≤ 8 GiB; a DP-MF ``strat_kind`` other than identity
    needs T = len(x) ≤ 10⁴ (:func:`strategy`).  A run that overflows float64 raises InvalidParameter.

    Parameters
    ----------
    x, y : array
        The records, in the order the epoch visits them.
    cfg : RoundConfig
    strat_kind : str, optional
        The DP-MF correlation strategy.
    trials, seed : int, optional
    theta0 : float, optional
        The starting point.
    noise_stds_override : tuple of float, optional
        As above.

    Returns
    -------
    numpy.ndarray
        θ_T, one per trial.

    Raises
    ------
    dpvalidate.InvalidParameter
        A parameter of ``run_logistic_1d`` outside what it accepts, outputs over the size limit, or a float64 overflow.
    """
    if not isinstance(cfg, RoundConfig):
        raise V.InvalidParameter("cfg", "a kernels.dp_adam.RoundConfig", type(cfg).__name__)
    cfg = cfg.validated()
    x = V.finite_array("x", x, ndim=1)
    y = V.finite_array("y", y, shape=(x.size,))
    T = x.size
    if T < 1:
        raise V.InvalidParameter("x", "at least one record", "an empty array")
    trials = V.count("trials", trials)
    V.memory("x, trials", T, 2 * trials)
    theta0 = V.real("theta0", theta0)
    if not math.isfinite(theta0):
        raise V.InvalidParameter("theta0", "a finite number", theta0)
    V.choice("strat_kind", strat_kind, STRATEGIES)
    if strat_kind != "identity" and T > STRATEGY_MAX_T:
        raise V.InvalidParameter("x, strat_kind", f"at most {STRATEGY_MAX_T} records for a DP-MF strategy other than "
                                 "identity (the T×T matrix C⁻¹)", T)
    strat = strategy(strat_kind, T) if strat_kind != "identity" else None
    sens = 1.0 if strat is None else strat.sensitivity
    if noise_stds_override is None:
        std_m, std_v = noise_stds(cfg, sens)
    else:
        try:
            pair = tuple(noise_stds_override)
        except TypeError:
            pair = ()
        if len(pair) != 2:
            raise V.InvalidParameter("noise_stds_override", "a pair (std of the gradient part, std of the square part)",
                                     noise_stds_override)
        vals = [V.nonnegative("noise_stds_override", s) * sens for s in pair]
        fault = faults.noise_factor(*vals, method=cfg.fault_name())
        std_m, std_v = (v * fault for v in vals)
    bc = bias_schedule(cfg, strat, T) if cfg.variant == "bias_correction" else np.zeros(T)
    M = None if strat is None else _toeplitz_cached(strat)
    out = np.empty(trials)
    prm = adam_params(cfg, std_m, std_v)
    Z = np.empty((T, 2 * trials))
    for k, ss in enumerate(np.random.SeedSequence(V.integer("seed", seed, 0)).spawn(trials)):
        Z[:, 2 * k:2 * k + 2] = np.random.default_rng(ss).standard_normal((T, 2))
    if M is not None:
        Z = M @ Z  # one product for all trials
    for k in range(trials):
        out[k] = _logistic_1d_loop(x, y, float(theta0), prm, bc, np.ascontiguousarray(Z[:, 2 * k]),
                                   np.ascontiguousarray(Z[:, 2 * k + 1]), _DUMMY_RNG)
    V.finite_output("lr, x, theta0", out)
    return out


# ======================================================================================
# Constant-signal streams (the setting of §4.4.1): v̂ of bias correction / IME, all coordinates at once
# ======================================================================================
@njit(cache=True, nogil=True)
def _const_signal_vhat(signal, noise_std, beta2, steps, mode, rng, neg_count, vhat_out):
    """v̂ after ``steps`` rounds for a constant clipped average ``signal`` (d,): mode 0 = bias correction
    (v from (g + z)², minus noise_std²), mode 1 = IME (v from g² + z).  Adds per-round negative counts
    into neg_count (steps,).  The bias corrections 1 − β₂^(t+1) are computed once per round, not once per round
    and coordinate (the same expression, so the same bits: the power cost more than the round's other work)."""
    d = signal.shape[0]
    corr = np.empty(steps)
    for t in range(steps):
        corr[t] = 1.0 - beta2 ** (t + 1)
    for j in range(d):
        v = 0.0
        g = signal[j]
        for t in range(steps):
            z = noise_std * rng.standard_normal()
            if mode == 0:
                x = g + z
                v = beta2 * v + (1.0 - beta2) * x * x
                vh = v / corr[t] - noise_std * noise_std
            else:
                v = beta2 * v + (1.0 - beta2) * (g * g + z)
                vh = v / corr[t]
            if vh < 0.0:
                neg_count[t] += 1
        vhat_out[j] = vh


def constant_signal_vhat(signal, noise_std: float, beta2: float, steps: int, *, mode: str = "bias_correction",
                         trials: int = 1, seed: int = 0) -> dict:
    """Monte Carlo of v̂_t for a constant per-coordinate signal (independent noise per coordinate and round).

    Returns {"vhat": (trials, d) at t = steps, "neg_frac": (steps,) fraction negative per round over all
    trials and coordinates}.  ``noise_std`` is the std of the noise on the gradient (bias correction) or on
    the squared gradient (IME).

    Parameters
    ----------
    signal : array_like
        (d,) the constant clean signal per coordinate, non-empty and finite.
    noise_std : float
        ≥ 0, as above.
    beta2 : float
        β₂ ∈ [0, 1).
    steps : int
        Rounds.
    mode : {"bias_correction", "ime"}, optional
        Bias correction (v from (g + z)², minus noise_std²) or IME (v from g² + z).
    trials, seed : int, optional
        Trials (one spawned stream each) and their root seed.

    Returns
    -------
    dict
        ``vhat`` and ``neg_frac`` as above.

    Raises
    ------
    dpvalidate.InvalidParameter
        An empty or non-finite ``signal``, β₂ outside [0, 1), or another parameter out of range.
    """
    signal = V.finite_array("signal", signal, ndim=1)
    if signal.size == 0:
        raise V.InvalidParameter("signal", "a non-empty 1-d array", "an empty array")
    noise_std = V.nonnegative("noise_std", noise_std)
    b2 = V.real("beta2", beta2)
    if not 0 <= b2 < 1:
        raise V.InvalidParameter("beta2", "in [0, 1)", beta2)
    steps = V.count("steps", steps)
    V.choice("mode", mode, ("bias_correction", "ime"))
    trials = V.count("trials", trials)
    V.memory("trials, signal", trials, signal.size)
    neg = np.zeros(steps, dtype=np.int64)
    vh = np.empty((trials, signal.size))
    children = np.random.SeedSequence(V.integer("seed", seed, 0)).spawn(trials)
    for k, rng in enumerate(_cpu.reseeded_generators(children)):  # default_rng(child)'s streams, one object
        _const_signal_vhat(signal, noise_std, b2, steps, 0 if mode == "bias_correction" else 1, rng, neg, vh[k])
    V.finite_output("signal, noise_std", vh)
    return {"vhat": vh, "neg_frac": neg / (trials * signal.size)}
