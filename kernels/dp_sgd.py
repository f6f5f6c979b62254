"""DP-SGD with per-example clipping on dense logistic regression: one fused pass per record.

Each step draws a batch of ``B`` distinct records (a partial Fisher–Yates shuffle), computes each record's
margin ⟨xᵢ, w⟩, its gradient cᵢ·xᵢ and that gradient's norm |cᵢ|·‖xᵢ‖ (the squared row norms are stored
with the problem), clips it to ``clip``, adds it into the sum, then adds N(0, (σ·clip)²·I) and takes
w ← w − lr·(sum + noise)/B.  A record's row is read from memory once: the margin is a dot product over
the row and the clipped row is added right after, while the row is still in cache.  This is the operation
the peer libraries (Opacus, jax-privacy) implement with per-example gradients, so the benchmark
``dp_sgd_d1e4`` and the peer-agreement test compare the same update.

The batch's records are summed in :data:`CHUNKS` fixed chunks that Numba's threads share (``prange``); the
chunk sums are added in order, so the numbers do not depend on the thread count.  In float64 the margin
is ``kernels._shared.dot``'s fixed-order sum (the same bits on any CPU); in float32 the compiler may
reorder it into the CPU's vector lanes (as BLAS does), so float32 results are the same for a seed on one
machine and may differ in the last bits on a CPU with other vector widths.  The
NumPy twin :func:`kernels.dp_sgd_reference.dp_sgd_reference` draws the same batches and the same noise
from the same generator and agrees to rounding.  ``sigma = 0`` and ``clip = inf`` give plain minibatch SGD.
Features may be float32 or float64: margins, the clipped rows' sums and ``w`` are in the features' dtype
(as the peers compute them), the clipping factor and the chunks' total are formed in float64.

Memory: a step is bound by reading the B rows (``minimum_bytes_per_step``).  A row's margin streams it from
memory; its update then runs out of cache, and without help memory would sit idle meanwhile.  In float32 the
update hints the cache lines of the chunk's next row (``llvm.prefetch``; the first row is hinted while the
chunk's sum is zeroed), so that row arrives while the current one is added; in float64 (twice the bytes per
row) the hints measured slower on the two-core benchmark machine and the update is the plain loop.  Rows are
read through borrowed views (no reference count on the features' memory, which both threads would otherwise
update for every record) and the draws come from ``rng.bit_generator`` read once per call (the same draws as
``rng.integers`` / ``rng.standard_normal``).  None of this changes a number: the arithmetic and its order are
the same in both dtypes.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

import dpvalidate as V
from kernels import _cpu
from kernels.dp_sgd_problems import DTYPES, LogisticProblem, dense_logistic

__all__ = ["LogisticProblem", "dense_logistic", "run_dp_sgd", "minimum_bytes_per_step"]


#: the batch is split into this many fixed chunks of records, each summed into its own accumulator and the
#: accumulators then added in order: the result does not depend on how many threads run the chunks
CHUNKS = 8


def _margin(x, w):
    """⟨x, w⟩ (a Python stand-in; jitted code gets the implementation chosen by dtype below)."""
    return float(np.dot(np.asarray(x, np.float64), np.asarray(w, np.float64)))


@overload(_margin, inline="always")
def _margin_overload(x, w):
    if x.dtype == types.float64:
        def impl(x, w):  # the fixed order of kernels._shared.dot: the same bits on any CPU
            return _cpu.dot(x, w)
    else:
        def impl(x, w):
            return _dot_reassociated(x, w)
    return impl


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _dot_reassociated(x, w):
    """⟨x, w⟩ in the arrays' dtype, the sum reordered by the compiler into the CPU's vector lanes."""
    s = x[0] * w[0]
    for j in range(1, x.shape[0]):
        s += x[j] * w[j]
    return s


#: cache line size assumed by the prefetch hints (64 bytes on every x86-64 and most ARM cores; a wrong value only
#: makes the hint cover more or fewer lines, never changes a number)
_LINE_BYTES = 64

#: elements per block of the row update; each block also hints the next record's lines at the same offsets
_BLOCK = 256


@intrinsic
def _prefetch_span(typingctx, arr, start, stop):
    """Hint the CPU to load the cache lines of ``arr[start:stop]`` (a C-contiguous vector): ``llvm.prefetch``,
    one per 64 bytes from ``&arr[start]``.  A hint only: it reads nothing into any value and cannot fault."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        A = context.make_array(signature.args[0])(context, builder, args[0])
        i64, i32, i8p = ir.IntType(64), ir.IntType(32), ir.IntType(8).as_pointer()
        lo = context.cast(builder, args[1], signature.args[1], types.int64)
        hi = context.cast(builder, args[2], signature.args[2], types.int64)
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        nbytes = builder.mul(builder.sub(hi, lo), ir.Constant(i64, itemsize))
        lines = builder.sdiv(builder.add(nbytes, ir.Constant(i64, _LINE_BYTES - 1)), ir.Constant(i64, _LINE_BYTES))
        base = builder.bitcast(builder.gep(A.data, [lo]), i8p)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)  # the name llvmlite mangles
        with cgutils.for_range(builder, lines) as loop:  # no iteration when stop <= start
            p = builder.gep(base, [builder.mul(loop.index, ir.Constant(i64, _LINE_BYTES))])
            # read (0), keep in all cache levels (3), data cache (1)
            builder.call(fn, [p, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, start, stop), codegen


@intrinsic
def _borrowed_row(typingctx, X, i):
    """Row ``i`` of the C-contiguous matrix ``X`` as a 1-D view that holds no reference to ``X``'s memory.

    ``X[i]`` takes a reference to the matrix's memory (an atomic increment, and a decrement when the view dies);
    both threads do that on the same counter for every record, so the counter's cache line moves between the
    cores twice per record.  The caller keeps ``X`` alive for as long as it uses the row (the loop's argument).
    No bounds check, as ``X[i]`` in jitted code (``i`` must be in [0, n)).
    """
    if not (isinstance(X, types.Array) and X.ndim == 2 and X.layout == "C" and isinstance(i, types.Integer)):
        return None
    row_type = types.Array(X.dtype, 1, "C", readonly=not X.mutable)

    def codegen(context, builder, signature, args):
        M = context.make_array(signature.args[0])(context, builder, args[0])
        row = context.make_array(signature.return_type)(context, builder)
        d = builder.extract_value(M.shape, 1)
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(X.dtype)))
        populate_array(row, data=builder.gep(M.data, [builder.mul(index, d)]), shape=[d], strides=[itemsize],
                       itemsize=itemsize, meminfo=None)  # no meminfo: the view's references are no-ops
        return row._getvalue()

    return row_type(X, i), codegen


def _update_row(a, s, x, nxt):
    """a += s·x (a Python stand-in; jitted code gets the implementation chosen by dtype below).  ``nxt`` is the
    row the caller reads next; the float32 implementation hints its cache lines while it runs."""
    a += s * x


def _zero_row(a, nxt):
    """a[:] = 0 (a Python stand-in, as :func:`_update_row`); ``nxt`` is the row the caller reads next."""
    a[:] = 0.0


@njit(inline="always", nogil=True)
def _axpy_span(a, s, x, lo, hi):
    """a[lo:hi] += s·x[lo:hi], coordinate by coordinate (vectorised: no coordinate depends on another)."""
    for j in range(lo, hi):
        a[j] += s * x[j]


@njit(inline="always", nogil=True)
def _axpy_hinting(a, s, x, nxt):
    """a += s·x (the same operations, in the same order per coordinate, as the plain loop) while hinting the
    lines of ``nxt``, the next record's row: its margin, computed next, then finds the row in cache instead of
    waiting for memory while this row's update runs out of cache."""
    d = a.shape[0]
    full = d - d % _BLOCK
    for j0 in range(0, full, _BLOCK):
        _prefetch_span(nxt, j0, j0 + _BLOCK)
        _axpy_span(a, s, x, j0, j0 + _BLOCK)
    _prefetch_span(nxt, full, d)
    _prefetch_span(nxt, d - 1, d)  # the row's last line (the spans step 64 bytes from an unaligned start)
    _axpy_span(a, s, x, full, d)


@njit(inline="always", nogil=True)
def _zero_hinting(a, nxt):
    """a[:] = 0 while hinting the lines of ``nxt`` (the chunk's first row)."""
    d = a.shape[0]
    for j0 in range(0, d, _BLOCK):
        hi = min(j0 + _BLOCK, d)
        _prefetch_span(nxt, j0, hi)
        for j in range(j0, hi):
            a[j] = 0.0
    _prefetch_span(nxt, d - 1, d)


@overload(_update_row, inline="always")
def _update_row_overload(a, s, x, nxt):
    if x.dtype == types.float32:
        def hinting(a, s, x, nxt):
            _axpy_hinting(a, s, x, nxt)
        return hinting

    def impl(a, s, x, nxt):  # float64: the plain loop (hints measured slower there: module docstring)
        for j in range(a.shape[0]):
            a[j] += s * x[j]
    return impl


@overload(_zero_row, inline="always")
def _zero_row_overload(a, nxt):
    if a.dtype == types.float32:
        def hinting(a, nxt):
            _zero_hinting(a, nxt)
        return hinting

    def impl(a, nxt):
        for j in range(a.shape[0]):
            a[j] = 0.0
    return impl


@njit(cache=True, nogil=True)
def _logistic_coef(y, z):
    """dℓ/dz of log(1 + exp(−y z)) = −y / (1 + exp(y z)), without overflow."""
    m = y * z
    if m > 35.0:
        return -y * math.exp(-m)
    return -y / (1.0 + math.exp(m))


@njit(inline="always", nogil=True)
def _draw_below(rng, bg, m):
    """rng.integers(0, m) for 1 ≤ m < 2³² − 1 (the same draw), from ``bg = rng.bit_generator`` when Numba has it."""
    if _cpu.BITGEN_DRAWS and m - 1 < 0xFFFFFFFF:
        return _cpu.randint_below_bitgen(bg, m)
    return _cpu.randint_below(rng, m)


@njit(inline="always", nogil=True)
def _normal(rng, bg):
    """rng.standard_normal() (the same draw), from ``bg = rng.bit_generator`` when Numba has it."""
    if _cpu.BITGEN_DRAWS:
        return _cpu.standard_normal_bitgen(bg)
    return rng.standard_normal()


class DpSgdParams(NamedTuple):
    """The scalar settings of :func:`_loop` (one argument of the jitted loop), built by :func:`run_dp_sgd`."""

    steps: int
    batch: int  # distinct records per step
    lr: float  # the step size
    clip: float  # the per-example clipping threshold (may be inf)
    noise_std: float  # the standard deviation of the noise added to the clipped sum (σ·C, or 0)


@njit(cache=True, nogil=True, parallel=True)
def _loop(X, y, sq, w, prm, rng, perm, acc, factor, clipped):
    steps, batch, lr, clip, noise_std = prm.steps, prm.batch, prm.lr, prm.clip, prm.noise_std
    n, d = X.shape
    chunks = acc.shape[0]
    bg = rng.bit_generator  # read once: a draw through ``rng`` takes and drops a reference per call (_cpu)
    for _ in range(steps):
        for k in range(batch):  # the batch is perm[:batch]
            j = k + _draw_below(rng, bg, n - k)
            tmp = perm[k]
            perm[k] = perm[j]
            perm[j] = tmp
        for c in prange(chunks):
            a = acc[c]
            k0, k1 = c * batch // chunks, (c + 1) * batch // chunks
            _zero_row(a, _borrowed_row(X, perm[k0]))
            for k in range(k0, k1):
                i = perm[k]
                x = _borrowed_row(X, i)
                g = _logistic_coef(float(y[i]), float(_margin(x, w)))
                norm = abs(g) * math.sqrt(sq[i])
                f = 1.0
                if norm > clip:
                    f = clip / norm
                    clipped[c] += 1
                factor[c] = f * g  # stored in the features' dtype: the row update below stays in that dtype
                s = factor[c]
                _update_row(a, s, x, _borrowed_row(X, perm[min(k + 1, k1 - 1)]))  # the last row names itself
        scale = lr / batch
        for j in range(d):
            t = 0.0
            for c in range(chunks):
                t += float(acc[c, j])
            if noise_std > 0.0:
                t += noise_std * _normal(rng, bg)
            w[j] -= scale * t


def _check(problem, steps, batch_size, lr, clip, sigma, w0):
    if not isinstance(problem, LogisticProblem):
        raise V.InvalidParameter("problem", "a kernels.dp_sgd.LogisticProblem (kernels.dp_sgd.dense_logistic)",
                                 type(problem).__name__)
    X = problem.features
    if X.dtype.name not in DTYPES or problem.labels.dtype != X.dtype or not X.flags.c_contiguous:
        raise V.InvalidParameter("problem", "C-contiguous float32 or float64 features with labels of the same dtype",
                                 f"{X.dtype.name} features, {problem.labels.dtype.name} labels")
    steps = V.count("steps", steps)
    batch = V.integer("batch_size", batch_size, 1, problem.n)
    lr = V.positive("lr", lr)
    clip = V.positive("clip", clip, allow_inf=True)
    sigma = V.nonnegative("sigma", sigma)
    if math.isinf(clip) and sigma > 0:
        raise V.InvalidParameter("sigma", "0 when clip is inf (the noise is sigma * clip)", sigma)
    if w0 is None:
        w = np.zeros(problem.d, dtype=X.dtype)
    else:
        w = V.finite_array("w0", w0, ndim=1, shape=(problem.d,)).astype(X.dtype, copy=True)
    return X, steps, batch, lr, clip, sigma, w


def run_dp_sgd(problem: LogisticProblem, *, steps: int, batch_size: int = 256, lr: float = 0.5, clip: float = 1.0,
               sigma: float = 1.0, seed: int = 0, w0: np.ndarray | None = None) -> dict:
    """Run ``steps`` DP-SGD steps from ``w0`` (default 0) with the generator ``np.random.default_rng(seed)``.

    Parameters
    ----------
    problem : LogisticProblem
        From :func:`kernels.dp_sgd.dense_logistic`.
    steps : int
        Steps to take (at least 1).
    batch_size : int
        Distinct records per step, 1 ≤ B ≤ n.
    lr : float
        Step size, > 0.
    clip : float
        Per-example clipping threshold, > 0 (``inf``: no clipping; then ``sigma`` must be 0).
    sigma : float
        Noise multiplier ≥ 0: the noise added to the sum has standard deviation ``sigma * clip``.
    seed : int
        Seed of the generator that draws the batches and the noise.
    w0 : array (d,), optional
        Starting point.

    Returns
    -------
    dict
        ``w`` (d,) the last iterate in the features' dtype; ``clip_fraction`` the fraction of records clipped.

    Raises
    ------
    dpvalidate.InvalidParameter
        For a parameter outside the ranges above, naming it.
    """
    X, steps, batch, lr, clip, sigma, w = _check(problem, steps, batch_size, lr, clip, sigma, w0)
    rng = np.random.default_rng(V.integer("seed", seed, 0))
    perm = np.arange(problem.n, dtype=np.int64)
    acc = np.empty((CHUNKS, problem.d), dtype=X.dtype)
    factor = np.empty(CHUNKS, dtype=X.dtype)
    clipped = np.zeros(CHUNKS, dtype=np.int64)
    prm = DpSgdParams(steps, batch, lr, clip, sigma * clip if sigma > 0 else 0.0)
    _loop(X, problem.labels, problem.sqnorms, w, prm, rng, perm, acc, factor, clipped)
    V.finite_output("w", w)
    return {"w": w, "clip_fraction": int(clipped.sum()) / (steps * batch)}


def minimum_bytes_per_step(batch_size: int, d: int, itemsize: int) -> int:
    """The least memory traffic of one step: the B records' rows read once, w read and written once.

    Parameters
    ----------
    batch_size : int
        B, the records per step.
    d : int
        The dimension.
    itemsize : int
        Bytes per number (8 for float64, 4 for float32).

    Returns
    -------
    int
        (B·d + 2d)·itemsize bytes.
    """
    return (batch_size * d + 2 * d) * itemsize
