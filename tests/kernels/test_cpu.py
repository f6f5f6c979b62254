"""CPU-only jitted helpers of kernels._cpu."""

import numpy as np
import pytest
from numba import njit

from kernels import _cpu


@njit
def _draws(rng, n, k, out):
    for i in range(k):
        out[i] = _cpu.randint_below(rng, n)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 1000, 5000, 2**31 + 5, 2**32 - 1, 2**32, 2**40 + 3])
def test_randint_below_is_the_numpy_stream(n):
    """Same seed ⇒ the draws of ``rng.integers(0, n)``, one at a time and as one vector call."""
    out = np.empty(500, dtype=np.int64)
    _draws(np.random.default_rng(11), n, out.size, out)
    rng = np.random.default_rng(11)
    assert np.array_equal(out, [rng.integers(0, n) for _ in range(out.size)])
    assert np.array_equal(out, np.random.default_rng(11).integers(0, n, size=out.size))
    assert out.min() >= 0 and out.max() < n


@njit
def _bitgen_draws(rng, n, k, out, normals):
    bg = rng.bit_generator
    for i in range(k):
        out[i] = _cpu.randint_below_bitgen(bg, n)
        normals[i] = _cpu.standard_normal_bitgen(bg)


@pytest.mark.skipif(not _cpu.BITGEN_DRAWS, reason="this Numba lacks the bit-generator draws")
@pytest.mark.parametrize("n", [1, 2, 3, 7, 1000, 5000, 2**31 + 5, 2**32 - 1])
def test_bitgen_draws_are_the_numpy_stream(n):
    """From ``rng.bit_generator``: the draws of ``rng.integers(0, n)`` and ``rng.standard_normal()``, interleaved."""
    out, normals = np.empty(500, dtype=np.int64), np.empty(500)
    _bitgen_draws(np.random.default_rng(12), n, out.size, out, normals)
    rng = np.random.default_rng(12)
    expect = [(rng.integers(0, n), rng.standard_normal()) for _ in range(out.size)]
    assert np.array_equal(out, [e[0] for e in expect])
    assert np.array_equal(normals, [e[1] for e in expect])
    assert out.min() >= 0 and out.max() < n


@njit
def _dot_fast(u, v):
    return _cpu.dot(u, v)


@njit
def _dot_source(u, v):
    return _cpu.dot_scalar(u, v)


@pytest.mark.parametrize("d", [0, 1, 3, 15, 16, 17, 31, 32, 33, 100, 257, 1000])
def test_vector_dot_gives_the_bits_of_the_shared_source(d):
    """The CPU dot (four 4-wide vectors) performs the IEEE operations of ``_shared.dot`` in the same order:
    equal bits over wide magnitudes, cancellation, signed zeros, inf and NaN, and on strided views (which run
    the shared source itself)."""
    for seed in range(40):
        r = np.random.default_rng(seed)
        u = r.standard_normal(d) * 10.0 ** r.uniform(-150, 150, d)
        v = r.standard_normal(d) * 10.0 ** r.uniform(-150, 150, d)
        if d and seed % 5 == 1:
            v = -u * (1 + 1e-15 * r.standard_normal(d))  # heavy cancellation: any reordering shows
        if d and seed % 7 == 2:
            u[r.integers(d)] = r.choice([np.inf, -np.inf, np.nan, -0.0])
        a, b = _dot_fast(u, v), _dot_source(u, v)
        assert (a == b and np.signbit(a) == np.signbit(b)) or (np.isnan(a) and np.isnan(b)), (d, seed, a, b)
        if d:
            M = r.standard_normal((d, 3))
            assert _dot_fast(M[:, 1], v) == _dot_source(np.ascontiguousarray(M[:, 1]), v)


def test_vector_dot_order_is_the_sixteen_lanes():
    """The order is the documented one, not a serial sum: 1e16 + 1 − 1e16 loses the 1 in one lane order
    and keeps it in another."""
    u = np.zeros(32)
    u[0], u[16], u[1] = 1e16, -1e16, 1.0  # lanes 0 (1e16, −1e16) and 1 (1): t = (0 + 1) → exactly 1
    assert _dot_fast(u, np.ones(32)) == 1.0
    w = np.zeros(32)
    w[0], w[4], w[1] = 1e16, 1.0, -1e16  # lane 0 = 1e16, 4 = 1, 1 = −1e16: t0 = 1e16 + 1 → 1e16, t1 = −1e16 → 0
    assert _dot_fast(w, np.ones(32)) == _dot_source(w, np.ones(32)) == 0.0


@njit
def _rc_fast(out, mat, idx, coef, count):
    _cpu.rows_combination(out, mat, idx, coef, count)


@njit
def _rc_loop(out, mat, idx, coef, count):
    _cpu.rows_combination_scalar(out, mat, idx, coef, count)


@pytest.mark.parametrize("d", [1, 3, 4, 5, 16, 17, 31, 32, 33, 36, 40, 63, 64, 100, 103])
def test_rows_combination_gives_the_bits_of_the_record_loop(d):
    """Σ_b coef[b]·mat[idx[b]] register-blocked equals adding the records one by one into a zeroed vector,
    bit for bit, including repeated rows, ±1 coefficients, count 0 and cancellation."""
    for seed in range(20):
        r = np.random.default_rng(seed)
        mat = r.standard_normal((12, d)) * 10.0 ** r.uniform(-100, 100, (12, d))
        idx = r.integers(0, 12, 30)
        coef = r.standard_normal(30) * 10.0 ** r.uniform(-3, 3, 30)
        coef[::4] = r.choice([-1.0, 1.0], coef[::4].size)
        count = int(r.integers(0, 31))
        a, b = np.full(d, np.nan), np.full(d, 5.0)
        _rc_fast(a, mat, idx, coef, count)
        _rc_loop(b, mat, idx, coef, count)
        assert np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b)), (d, seed)



def test_reseeded_generators_draw_the_default_rng_streams():
    """One object, reseeded per child, draws what ``default_rng(child)`` draws (jitted from its bit generator, as the
    kernels do, and in NumPy: integers, normals, binomials, uniforms), even after the previous child left a 32-bit
    half buffered; and it is one object (the point: its ctypes interface is kept)."""
    children = np.random.SeedSequence(2025).spawn(5)

    def draws(rng):
        ints, normals = np.empty(30, dtype=np.int64), np.empty(30)
        _bitgen_draws(rng, 7, ints.size, ints, normals)
        return ints, normals, rng.integers(0, 2**20, size=5), rng.binomial(50, 0.3, size=5), rng.random(3)

    got, objects = [], set()
    for rng in _cpu.reseeded_generators(children):
        objects.add(id(rng))
        got.append(draws(rng))
        rng.integers(0, 3)  # leaves a 32-bit half buffered, which the next child must not see
    assert len(objects) == 1 and len(got) == len(children)
    for child, mine in zip(children, got):
        want = draws(np.random.default_rng(child))
        assert all(np.array_equal(a, b) for a, b in zip(mine, want))
