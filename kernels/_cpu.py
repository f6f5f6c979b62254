"""The shared helpers compiled for the CPU (inlined into the kernels that call them, except the per-step
projections and ``rows_combination``: see ``_called``)."""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from kernels._compile import compile_helpers

cpu = compile_helpers(njit(inline="always", cache=False, nogil=True))

shrink_mu = cpu.shrink_mu
project_ellipsoid = cpu.project_ellipsoid
clip_factor = cpu.clip_factor
dot_scalar = cpu.dot  # the shared source compiled as written (the reference for :func:`dot`)


# The projections a loop runs once per step are compiled as functions the kernel calls, not inlined.  Inlined (at
# Numba's IR level), each array argument is bound to a new variable: a reference taken and released per call, an
# atomic increment and decrement of the array's meminfo (two full memory barriers on x86), which Numba's
# reference-count pruning left in place once LLVM had merged the blocks around them -- in PAGAN's loop at d = 4 the
# barriers of these calls and of ``rows_combination`` took about a third of the time.  A called function borrows its
# arguments (its own entry/exit references are pruned), and runs the same operations: the same bits.
def _called(helper):
    return njit(nogil=True, cache=False)(helper.py_func)


project_box = _called(cpu.project_box)
project_ball_euclidean = _called(cpu.project_ball_euclidean)
project_ball_hnorm = _called(cpu.project_ball_hnorm)
adp_scales = cpu.adp_scales
adam_coordinate = cpu.adam_coordinate


# --------------------------------------------------------------------------------------
# dot: the sixteen lanes of ``_shared.dot`` as four 4-wide vectors
# --------------------------------------------------------------------------------------
# LLVM does not vectorise ``_shared.dot`` by itself (its sixteen scalar chains stay scalar), and
# fastmath would let the CPU's vector width choose the summation order.  This intrinsic emits the
# same lanes explicitly: accumulator k holds lanes 4k..4k+3, so lane l sums the products j ≡ l
# (mod 16), and the combination is the source's tree — the same IEEE operations in the same order,
# hence the same bits on any CPU (``tests/kernels/test_cpu.py`` checks it against
# ``dot_scalar``).  Contiguous float64 vectors only; anything else runs ``dot_scalar``.
_LANES = 4


def _contiguous(a, ndim: int, dtype=types.float64) -> bool:
    """Whether the Numba type ``a`` is a C-contiguous array of ``ndim`` dimensions and ``dtype``."""
    return isinstance(a, types.Array) and a.ndim == ndim and a.layout == "C" and a.dtype == dtype


def _dot_vectorisable(u, v) -> bool:
    return _contiguous(u, 1) and _contiguous(v, 1)


def _rows_vectorisable(out, mat, idx, coef, count) -> bool:
    return (_contiguous(out, 1) and _contiguous(mat, 2) and _contiguous(idx, 1, types.int64)
            and _contiguous(coef, 1) and isinstance(count, types.Integer))


@intrinsic
def _dot16_blocks(typingctx, u, v):
    """Σ u_j v_j (C-contiguous float64) with the lanes, tree and tail order of ``_shared.dot``."""
    if not _dot_vectorisable(u, v):
        return None

    def codegen(context, builder, signature, args):
        U = context.make_array(signature.args[0])(context, builder, args[0])
        W = context.make_array(signature.args[1])(context, builder, args[1])
        i64 = ir.IntType(64)
        vec = ir.VectorType(ir.DoubleType(), _LANES)
        n = builder.extract_value(U.shape, 0)
        acc = [cgutils.alloca_once_value(builder, ir.Constant(vec, [0.0] * _LANES)) for _ in range(4)]
        with cgutils.for_range(builder, builder.sdiv(n, ir.Constant(i64, 16))) as loop:
            base = builder.mul(loop.index, ir.Constant(i64, 16))
            for k in range(4):
                j = builder.add(base, ir.Constant(i64, _LANES * k))
                a = builder.load(builder.bitcast(builder.gep(U.data, [j]), vec.as_pointer()), align=8)
                b = builder.load(builder.bitcast(builder.gep(W.data, [j]), vec.as_pointer()), align=8)
                builder.store(builder.fadd(builder.load(acc[k]), builder.fmul(a, b)), acc[k])
        t = builder.fadd(builder.fadd(builder.load(acc[0]), builder.load(acc[1])),
                         builder.fadd(builder.load(acc[2]), builder.load(acc[3])))
        e = [builder.extract_element(t, ir.Constant(ir.IntType(32), lane)) for lane in range(_LANES)]
        r = cgutils.alloca_once_value(builder, builder.fadd(builder.fadd(e[0], e[1]), builder.fadd(e[2], e[3])))
        m = builder.sub(n, builder.srem(n, ir.Constant(i64, 16)))
        # the last d mod 16 products, in order
        with cgutils.for_range_slice(builder, m, n, ir.Constant(i64, 1), inc=True) as (j, _):
            x = builder.fmul(builder.load(builder.gep(U.data, [j])), builder.load(builder.gep(W.data, [j])))
            builder.store(builder.fadd(builder.load(r), x), r)
        return builder.load(r)

    return types.float64(u, v), codegen


def dot(u, v):
    """Σ u_j v_j with the fixed order of ``kernels._shared.dot`` (in jitted code: vectorised, same bits).

    Called from Python, it converts both vectors to C-contiguous float64 and runs ``dot_scalar`` (the shared
    source compiled as written).  Inside jitted code the overload replaces it: contiguous float64 vectors
    use the explicit 4×4-lane intrinsic, anything else ``dot_scalar``; both sum in the same order.

    Parameters
    ----------
    u, v : array_like of float, shape (d,)
        The two vectors, of the same length d (converted to float64).

    Returns
    -------
    float
        The inner product, summed in sixteen interleaved lanes combined as a tree, then the last d mod 16
        products in order.
    """
    return float(dot_scalar(np.ascontiguousarray(u, dtype=np.float64), np.ascontiguousarray(v, dtype=np.float64)))


@overload(dot, inline="always")
def _dot_overload(u, v):
    if _dot_vectorisable(u, v):
        def impl(u, v):
            return _dot16_blocks(u, v)
    else:
        def impl(u, v):
            return dot_scalar(u, v)
    return impl


# --------------------------------------------------------------------------------------
# Uniform record index: the draw of ``rng.integers(0, n)``, without its per-call array
# --------------------------------------------------------------------------------------
# Numba's scalar ``Generator.integers`` allocates a length-1 array per call (about 40 ns,
# which dominated the mini-batch loops).  NumPy's algorithm for a range below 2³²−1 is
# Lemire's bounded draw on buffered 32-bit outputs; Numba implements it as a jitable
# function, which we call directly.  Same stream as ``rng.integers(0, n)`` (a test checks
# it against NumPy); larger ranges fall back to ``integers`` itself.
try:
    from numba.np.random.random_methods import buffered_bounded_lemire_uint32 as _lemire32
except ImportError:  # pragma: no cover - a Numba without it: the slower, identical path
    _lemire32 = None

if _lemire32 is not None:

    @njit(inline="always", nogil=True)
    def randint_below(rng, n):
        """A uniform integer in [0, n), n ≥ 1: the same draw as ``rng.integers(0, n)``.

        Parameters
        ----------
        rng : numpy.random.Generator
            The generator (inside jitted code); advanced exactly as ``rng.integers(0, n)`` would advance it.
        n : int
            Size of the range, n ≥ 1 (n = 1 returns 0 without drawing).

        Returns
        -------
        int
            The draw, in [0, n).
        """
        r = n - 1
        if r == 0:
            return 0
        if r < 0xFFFFFFFF:
            return np.int64(_lemire32(rng.bit_generator, np.int64(r)))
        return rng.integers(0, n)

else:  # pragma: no cover

    @njit(inline="always", nogil=True)
    def randint_below(rng, n):
        """A uniform integer in [0, n), n ≥ 1: ``rng.integers(0, n)``.

        Parameters
        ----------
        rng : numpy.random.Generator
            The generator (inside jitted code).
        n : int
            Size of the range, n ≥ 1.

        Returns
        -------
        int
            The draw, in [0, n).
        """
        return rng.integers(0, n)


# The same draws from the bit generator itself.  ``rng.bit_generator`` read inside a loop (as ``randint_below`` and
# ``rng.standard_normal()`` do per call) takes and releases a reference to the Generator each time: two atomic
# read-modify-writes, which x86 runs as full memory barriers, so every draw stalled the loads of the records after
# it.  A loop that reads ``bg = rng.bit_generator`` once and calls these draws the same numbers without them.
try:
    from numba.np.random.distributions import random_standard_normal as _std_normal
except ImportError:  # pragma: no cover
    _std_normal = None

BITGEN_DRAWS = _lemire32 is not None and _std_normal is not None  # whether the two helpers below are usable

if BITGEN_DRAWS:

    @njit(inline="always", nogil=True)
    def randint_below_bitgen(bitgen, n):
        """A uniform integer in [0, n), 1 ≤ n ≤ 2³² − 1: the draw of ``rng.integers(0, n)`` (and of
        :func:`randint_below`), from ``bitgen = rng.bit_generator``.

        Parameters
        ----------
        bitgen : numpy.random.BitGenerator
            ``rng.bit_generator`` of the generator (inside jitted code), advanced as ``rng.integers(0, n)`` would
            advance ``rng``.
        n : int
            Size of the range, 1 ≤ n ≤ 2³² − 1 (larger ranges: :func:`randint_below`); n = 1 returns 0 without
            drawing.

        Returns
        -------
        int
            The draw, in [0, n).
        """
        r = n - 1
        if r == 0:
            return 0
        return np.int64(_lemire32(bitgen, np.int64(r)))

    @njit(inline="always", nogil=True)
    def standard_normal_bitgen(bitgen):
        """A standard normal: the draw of ``rng.standard_normal()``, from ``bitgen = rng.bit_generator``.

        Parameters
        ----------
        bitgen : numpy.random.BitGenerator
            ``rng.bit_generator`` of the generator (inside jitted code).

        Returns
        -------
        float
            The draw (NumPy's ziggurat, as Numba's ``Generator.standard_normal`` runs it).
        """
        return _std_normal(bitgen)

else:  # pragma: no cover - never called: the callers test BITGEN_DRAWS first

    @njit(inline="always", nogil=True)
    def randint_below_bitgen(bitgen, n):
        """Unavailable in this Numba (see ``BITGEN_DRAWS``).

        Parameters
        ----------
        bitgen : numpy.random.BitGenerator
            Unused.
        n : int
            Unused.

        Returns
        -------
        int
            0.
        """
        return 0

    @njit(inline="always", nogil=True)
    def standard_normal_bitgen(bitgen):
        """Unavailable in this Numba (see ``BITGEN_DRAWS``).

        Parameters
        ----------
        bitgen : numpy.random.BitGenerator
            Unused.

        Returns
        -------
        float
            0.0.
        """
        return 0.0


# --------------------------------------------------------------------------------------
# rows_combination: out = Σ_b coef[b]·mat[idx[b]], register-blocked
# --------------------------------------------------------------------------------------
# The mini-batch sum of a loop's records, ``for b: out[j] += coef[b]·mat[idx[b], j]``, keeps ``out`` in
# memory: every record reloads and stores all d sums (a store-to-load chain per coordinate).  Here
# thirty-two coordinates at a time stay in eight 4-wide registers while the records stream past; each
# coordinate still sums its records in order b = 0, 1, … from +0.0, so the result is the loop's, bit for
# bit (``rows_combination_scalar`` is that loop; a test compares them).
_RC_VECTORS = 8  # 4-wide vectors per block: 32 coordinates in eight registers


@intrinsic
def _rows_combination16(typingctx, out, mat, idx, coef, count):
    """out[j] = Σ_{b<count} coef[b]·mat[idx[b], j], records in order from +0.0 (C-contiguous float64 / int64).

    Blocks of 32 coordinates (eight 4-wide accumulators: enough independent sums to hide the add latency), then
    the remaining whole 4-wide vectors one at a time, then the last d mod 4 coordinates one at a time; every
    coordinate sums its records in the same order whichever block holds it.
    """
    if not _rows_vectorisable(out, mat, idx, coef, count):
        return None

    def codegen(context, builder, signature, args):
        Out = context.make_array(signature.args[0])(context, builder, args[0])
        M = context.make_array(signature.args[1])(context, builder, args[1])
        Ix = context.make_array(signature.args[2])(context, builder, args[2])
        Cf = context.make_array(signature.args[3])(context, builder, args[3])
        n_rec = context.cast(builder, args[4], signature.args[4], types.int64)
        i64, i32 = ir.IntType(64), ir.IntType(32)
        dbl = ir.DoubleType()
        vec = ir.VectorType(dbl, _LANES)
        d = builder.extract_value(M.shape, 1)

        def block(j0, n_acc, ty, width):
            # coordinates j0 .. j0 + n_acc·width − 1 (width 1: ty is the scalar type), summed over the records
            acc = [cgutils.alloca_once(builder, ty) for _ in range(n_acc)]
            zero = ir.Constant(ty, 0.0) if width == 1 else ir.Constant(ty, [0.0] * width)
            for k in range(n_acc):
                builder.store(zero, acc[k])
            with cgutils.for_range(builder, n_rec) as rec:
                row = builder.load(builder.gep(Ix.data, [rec.index]))
                c = builder.load(builder.gep(Cf.data, [rec.index]))
                cv = c
                if width > 1:
                    cv = ir.Constant(ty, ir.Undefined)
                    for lane in range(width):
                        cv = builder.insert_element(cv, c, ir.Constant(i32, lane))
                base = builder.add(builder.mul(row, d), j0)
                for k in range(n_acc):
                    p = builder.gep(M.data, [builder.add(base, ir.Constant(i64, width * k))])
                    x = builder.load(p) if width == 1 else builder.load(builder.bitcast(p, ty.as_pointer()), align=8)
                    builder.store(builder.fadd(builder.load(acc[k]), builder.fmul(cv, x)), acc[k])
            for k in range(n_acc):
                q = builder.gep(Out.data, [builder.add(j0, ir.Constant(i64, width * k))])
                if width == 1:
                    builder.store(builder.load(acc[k]), q)
                else:
                    builder.store(builder.load(acc[k]), builder.bitcast(q, ty.as_pointer()), align=8)

        w = _RC_VECTORS * _LANES
        with cgutils.for_range(builder, builder.sdiv(d, ir.Constant(i64, w))) as blk:
            block(builder.mul(blk.index, ir.Constant(i64, w)), _RC_VECTORS, vec, _LANES)
        m = builder.sub(d, builder.srem(d, ir.Constant(i64, w)))
        n_vec = builder.sdiv(builder.sub(d, m), ir.Constant(i64, _LANES))
        with cgutils.for_range(builder, n_vec) as t:  # the remaining whole vectors
            block(builder.add(m, builder.mul(t.index, ir.Constant(i64, _LANES))), 1, vec, _LANES)
        m4 = builder.add(m, builder.mul(n_vec, ir.Constant(i64, _LANES)))
        with cgutils.for_range_slice(builder, m4, d, ir.Constant(i64, 1), inc=True) as (j, _):  # the last d mod 4
            block(j, 1, dbl, 1)
        return context.get_dummy_value()

    return types.void(out, mat, idx, coef, count), codegen


@njit(inline="always", nogil=True)
def rows_combination_scalar(out, mat, idx, coef, count):
    """out = Σ_{b<count} coef[b]·mat[idx[b]] as the plain loop: out zeroed, then each record added in order.

    Parameters
    ----------
    out : ndarray of float64, shape (d,)
        Overwritten in place with the combination.
    mat : ndarray of float64, shape (n, d)
        The records, one per row.
    idx : ndarray of int, shape (≥ count,)
        Row indices into ``mat``; the first ``count`` are used (repeats allowed).
    coef : ndarray of float64, shape (≥ count,)
        The coefficient of each selected row.
    count : int
        How many entries of ``idx`` / ``coef`` to use.
    """
    d = mat.shape[1]
    for j in range(d):
        out[j] = 0.0
    for b in range(count):
        c = coef[b]
        i = idx[b]
        for j in range(d):
            out[j] += c * mat[i, j]


def rows_combination(out, mat, idx, coef, count):
    """out[:] = Σ_{b<count} coef[b]·mat[idx[b]] (jitted code: register-blocked, the same bits as the plain loop).

    Called from Python it converts ``mat`` to C-contiguous float64, ``idx`` to int64 and ``coef`` to float64
    and runs :func:`rows_combination_scalar`.  Inside jitted code the overload replaces it: with C-contiguous
    float64 ``out``/``mat``/``coef``, int64 ``idx`` and an integer ``count`` it runs the register-blocked
    intrinsic (thirty-two coordinates per block), otherwise the scalar loop.

    Parameters
    ----------
    out : ndarray of float64, shape (d,)
        Overwritten in place with the combination (must already be float64; it is not converted).
    mat : array_like of float, shape (n, d)
        The records, one per row.
    idx : array_like of int, shape (≥ count,)
        Row indices into ``mat``; the first ``count`` are used.
    coef : array_like of float, shape (≥ count,)
        The coefficient of each selected row.
    count : int
        How many records to combine.
    """
    rows_combination_scalar(out, np.ascontiguousarray(mat, dtype=np.float64), np.asarray(idx, np.int64),
                            np.asarray(coef, np.float64), int(count))


@overload(rows_combination, inline="never")  # a call, not inlined: see _called above
def _rows_combination_overload(out, mat, idx, coef, count):
    if _rows_vectorisable(out, mat, idx, coef, count):
        def impl(out, mat, idx, coef, count):
            _rows_combination16(out, mat, idx, coef, count)
    else:
        def impl(out, mat, idx, coef, count):
            rows_combination_scalar(out, mat, idx, coef, count)
    return impl


# --------------------------------------------------------------------------------------
# One Generator object for many seeded trials
# --------------------------------------------------------------------------------------
def reseeded_generators(children):
    """For each ``SeedSequence`` in ``children``, a Generator that draws exactly ``np.random.default_rng(child)``'s
    stream: the same Generator object every time, its PCG64 state replaced by a fresh ``PCG64(child)``'s.

    A jitted loop that takes a Generator unboxes its bit generator's ``ctypes`` interface, which NumPy builds on
    the first access to a new bit generator (ctypes function types and casts: ~15 µs, more than many short trials
    take to run).  The object here keeps its interface, and the state copied in is all of a PCG64's state
    (``state``, ``inc`` and the buffered 32-bit half), so every draw is the same.  Use each one before taking the
    next: the next replaces its state.

    Parameters
    ----------
    children : iterable of numpy.random.SeedSequence
        One per trial (e.g. ``SeedSequence(seed).spawn(trials)``).

    Yields
    ------
    numpy.random.Generator
        The one object, once per child, seeded as ``default_rng(child)``.
    """
    bit_gen = np.random.PCG64(0)
    rng = np.random.Generator(bit_gen)
    for child in children:
        bit_gen.state = np.random.PCG64(child).state
        yield rng
