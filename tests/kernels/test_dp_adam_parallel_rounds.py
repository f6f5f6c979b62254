"""kernels.dp_adam's threaded rounds against round_with and the NumPy reference.

``round_parallel_row_major_with`` (every thread takes every norm) and ``round_parallel_blocked_with`` (whole rows
per thread, then coordinate chunks) compute every number as ``round_with`` does, so they must give the same bits.
``round_parallel_row_sweeps_with`` sums each record's squared norm chunk by chunk (chunks of ``kd._ROW_CHUNK``
coordinates) and adds the chunk sums, where ``round_with`` sums the whole row in one pass, so its clip factors agree
to float64 rounding, not bit for bit; every other operation is the same in the same order.  Its tolerances below
are derived from that:

* a sum of n terms computed in two orders differs by at most 2·γ_n relative (γ_n = n·u/(1 − n·u), u = 2⁻⁵³,
  n ≤ d bounds the longest chain of additions of either order, for the sixteen-lane dot and STP's in-order sum);
  the factor min(1, C/√s)/B halves that and adds a few roundings: rtol_f = γ_d + 8u;
* ḡ_j = Σ_i f_i g_ij in the same order with factors perturbed by rtol_f: |Δḡ_j| ≤ (rtol_f + 2Bu)·Σ_i f_i|g_ij|
  (the second term: the roundings of the sum itself may move with its inputs), doubled for slack;
* θ, m, v, v_clean are elementwise functions of ḡ_j and the (identical) state and noise; we allow a relative
  condition number of KAPPA = 10³ for one update on this data (with atol scaled by the largest magnitude, for
  coordinates near zero).
"""

import math

import numpy as np
import pytest

from kernels import dp_adam as kd
from kernels import dp_adam_reference as R

U = 2.0**-53
KAPPA = 1e3
D = 3 * kd._ROW_CHUNK + 37  # four chunks, the last one short and not a multiple of 16
EXACT = kd.round_parallel_row_major_with
BLOCKED = kd.round_parallel_blocked_with
SWEEPS = kd.round_parallel_row_sweeps_with
EXACTS = (EXACT, BLOCKED)  # every number computed as round_with computes it: the same bits
PATHS = pytest.mark.parametrize("fn", [EXACT, BLOCKED, SWEEPS], ids=["row_major", "blocked", "row_sweeps"])


def gamma(n):
    return n * U / (1 - n * U)


def _prm(variant, opt, clip):
    return kd.AdamParams(variant, opt, 0.1, 0.9, 0.99, 1e-3, clip, 0.3, 0.2, 1e-4)


def _state(d, seed):
    r = np.random.default_rng(seed)
    return [r.standard_normal(d) * 0.1, r.standard_normal(d) * 0.01, r.uniform(0.0, 0.5, d), np.zeros(d)]


def _both(fn, G, prm, t, zm, zv, threads=2):
    """(neg, [θ, m, v, v_clean, fac, ḡ]) from round_with (row-major) and from the threaded round ``fn``."""
    B, d = G.shape
    outs = []
    for parallel in (False, True):
        st = _state(d, 5)
        fac, gb = np.empty(B), np.empty(d)
        if parallel:
            neg = kd.with_threads(threads, fn, G, *st, t, prm, 0.05, zm, zv, np.random.default_rng(0), False, fac,
                                  gb, threads)
        else:
            neg = kd.round_with(G, *st, t, prm, 0.05, zm, zv, np.random.default_rng(0), False, fac, gb, True)
        outs.append((neg, st + [fac, gb]))
    return outs


def _assert_same(a, b):
    assert a[0] == b[0]
    for x, y in zip(a[1], b[1]):
        np.testing.assert_array_equal(x, y)


@PATHS
@pytest.mark.parametrize("variant", list(kd.VARIANTS))
@pytest.mark.parametrize("opt", [0, 1])
def test_agrees_with_round_with_when_clipping_is_active(fn, variant, opt):
    rng = np.random.default_rng(21)
    B = 3
    G = rng.standard_normal((B, D)) * 0.01  # norms ≈ 0.01·√D ≈ 2.2 > C = 1: every record is clipped
    zm, zv = rng.standard_normal(D), rng.standard_normal(D)
    code = kd.VARIANTS[variant]
    for t in (0, 2):  # t > 0: scale-then-privatize scales the norm by v̂_{t−1}
        one, par = _both(fn, G, _prm(code, opt, 1.0), t, zm, zv)
        f1, g1, f2, g2 = one[1][4], one[1][5], par[1][4], par[1][5]
        assert np.all(f1 < 1.0 / B)  # clipping active
        if fn in EXACTS:
            _assert_same(one, par)
            continue
        rtol_f = gamma(D) + 8 * U
        np.testing.assert_allclose(f2, f1, rtol=rtol_f, atol=0)
        bound = 2 * (rtol_f + 2 * B * U) * (f1[:, None] * np.abs(G)).sum(axis=0)
        assert np.all(np.abs(g2 - g1) <= bound)
        tol = KAPPA * rtol_f
        for a, b in zip(one[1][:4], par[1][:4]):
            np.testing.assert_allclose(b, a, rtol=tol, atol=tol * np.max(np.abs(a)))
        assert one[0] == par[0]


@PATHS
@pytest.mark.parametrize("variant", list(kd.VARIANTS))
def test_bit_identical_to_round_with_when_clipping_is_inactive(fn, variant):
    # C = inf: every factor is exactly 1/B whatever the norm's rounding, so nothing else can differ
    rng = np.random.default_rng(22)
    G = rng.standard_normal((4, D))
    zm, zv = rng.standard_normal(D), rng.standard_normal(D)
    for t in (0, 3):
        _assert_same(*_both(fn, G, _prm(kd.VARIANTS[variant], 0, math.inf), t, zm, zv))


@PATHS
@pytest.mark.parametrize("variant", [v for v in kd.VARIANTS if v not in ("scale_then_privatize", "noiseless_stp")])
def test_bit_identical_to_round_with_when_every_partial_sum_is_exact(fn, variant):
    # entries k·2⁻⁸ with |k| ≤ 8: every product and partial sum of the squared norm is a multiple of 2⁻¹⁶ below 2³⁷,
    # so both orders give the exact norm, the same clip factor and (clipping active) the same bits everywhere
    rng = np.random.default_rng(23)
    G = rng.integers(-8, 9, (3, D)) * 2.0**-8
    zm, zv = rng.standard_normal(D), rng.standard_normal(D)
    for opt in (0, 1):
        one, par = _both(fn, G, _prm(kd.VARIANTS[variant], opt, 1.0), 2, zm, zv)
        assert np.all(one[1][4] < 1.0 / 3)
        _assert_same(one, par)


@PATHS
@pytest.mark.parametrize("d", [1, 17, 1500, kd._ROW_CHUNK])
def test_bit_identical_to_round_with_within_one_chunk(fn, d):
    # a row of at most one chunk is summed exactly as round_with sums it: every variant, clipping active
    rng = np.random.default_rng(24)
    G = rng.standard_normal((3, d)) * 3.0
    zm, zv = rng.standard_normal(d), rng.standard_normal(d)
    for code in kd.VARIANTS.values():
        _assert_same(*_both(fn, G, _prm(code, 0, 1.0), 2, zm, zv))


@PATHS
def test_the_same_bits_for_one_two_and_three_workers(fn):
    rng = np.random.default_rng(25)
    G = rng.standard_normal((5, D)) * 0.01
    zm = rng.standard_normal(D)
    runs = [_both(fn, G, _prm(3, 0, 1.0), 2, zm, zm, threads)[1] for threads in (1, 2, 3)]
    _assert_same(runs[0], runs[1])
    _assert_same(runs[0], runs[2])


@PATHS
@pytest.mark.parametrize("variant", list(kd.VARIANTS))
def test_matches_the_numpy_reference_with_the_same_noise(fn, variant):
    # four rounds against the NumPy reference, beside round_with on the same inputs: the exact path gives
    # round_with's bits; the sweeps are as close to the reference as round_with is, up to the rounding bound of the
    # first test (KAPPA·rtol_f).  Bias correction's v̂ − bias near the floor makes round_with itself deviate from
    # the reference by ~1e-12 relative here, hence 1e-10 against the reference
    rng = np.random.default_rng(26)
    B, d = 4, 2 * kd._ROW_CHUNK + 5
    cfg = kd.RoundConfig(variant=variant, lr=0.1, beta1=0.9, beta2=0.99, xi=1e-3, clip_norm=1.0, sigma=0.7,
                         batch_size=B, floor=1e-4).validated()
    sm, sv = kd.noise_stds(cfg)
    prm = kd.adam_params(cfg, sm, sv)
    par, ser = kd.State.zeros(d), kd.State.zeros(d)
    th, rs = np.zeros(d), R.adam_init(d)
    fac, gb = np.empty(B), np.empty(d)
    clipped = 0
    for t in range(4):
        G = rng.standard_normal((B, d)) * (rng.uniform(0.3, 3) / math.sqrt(d))  # norms around C: some clipped
        zm, zv = rng.standard_normal(d), rng.standard_normal(d)
        n1 = kd.with_threads(2, fn, G, par.theta, par.m, par.v, par.vclean, t, prm, 0.01, zm, zv,
                             np.random.default_rng(0), False, fac, gb, 2)
        clipped += int(np.sum(fac < 1.0 / B))
        n0 = kd.round_with(G, ser.theta, ser.m, ser.v, ser.vclean, t, prm, 0.01, zm, zv, np.random.default_rng(0),
                           False, fac, gb, True)
        th, n2 = R.reference_round(variant, "adam", th, rs, G, zm, zv, lr=0.1, beta1=0.9, beta2=0.99, xi=1e-3,
                                   clip_norm=1.0, std_m=sm, std_v=sv, bc_sub=0.01, floor=1e-4)
        assert n1 == n0 == n2
    assert clipped > 0
    np.testing.assert_allclose(par.theta, th, rtol=1e-10, atol=1e-12)
    if fn in EXACTS:
        for name in ("theta", "m", "v", "vclean"):
            np.testing.assert_array_equal(getattr(par, name), getattr(ser, name))
    else:
        tol = KAPPA * (gamma(d) + 8 * U)
        assert np.all(np.abs(par.theta - th) <= np.abs(ser.theta - th) + tol * (np.abs(ser.theta) + np.max(np.abs(th))))


def _drawn(fn, G, prm, t, parallel, threads=2, share=kd.DRAWER_SHARE):
    """round_with / the threaded round ``fn`` with the noise drawn in the kernel from a generator seeded 42:
    (neg, [θ, m, v, v_clean, fac, ḡ]), zm, zv and the generator's next draw."""
    B, d = G.shape
    st = _state(d, 6)
    fac, gb, zm, zv = np.empty(B), np.empty(d), np.full(d, np.nan), np.full(d, np.nan)
    rng = np.random.default_rng(42)
    if parallel:
        neg = kd.with_threads(threads, fn, G, *st, t, prm, 0.05, zm, zv, rng, True, fac, gb, threads, share)
    else:
        neg = kd.round_with(G, *st, t, prm, 0.05, zm, zv, rng, True, fac, gb, True)
    return (neg, st + [fac, gb]), zm, zv, rng.standard_normal()


@PATHS
@pytest.mark.parametrize("variant", list(kd.VARIANTS))
def test_in_kernel_draws_are_round_withs_draws(fn, variant):
    # clipping inactive (so the sweeps' factors are exact too): the same noise in the same order of draws gives the
    # same bits, and the generator ends in the same state; for one-part variants zm is NumPy's standard_normal(d)
    # from that seed, for IME the blocks of 512 alternate m part and v part
    rng = np.random.default_rng(27)
    for B, d in ((5, D), (3, 1500), (0, 700)):
        G = rng.standard_normal((B, d))
        prm = _prm(kd.VARIANTS[variant], 0, math.inf)
        one, _, _, after0 = _drawn(fn, G, prm, 2, False)
        par, zm, zv, after1 = _drawn(fn, G, prm, 2, True)
        _assert_same(one, par)
        assert after0 == after1
        if variant != "ime":
            np.testing.assert_array_equal(zm, np.random.default_rng(42).standard_normal(d))
        else:
            both = np.random.default_rng(42).standard_normal(2 * d)
            exp_m, exp_v, pos = np.empty(d), np.empty(d), 0
            for j in range(0, d, 512):
                n = min(d, j + 512) - j
                exp_m[j:j + n], exp_v[j:j + n] = both[pos:pos + n], both[pos + n:pos + 2 * n]
                pos += 2 * n
            np.testing.assert_array_equal(zm, exp_m)
            np.testing.assert_array_equal(zv, exp_v)


@PATHS
def test_the_drawers_share_and_thread_count_change_no_number(fn):
    rng = np.random.default_rng(28)
    G = rng.standard_normal((6, D)) * 0.01  # clipped
    prm = _prm(1, 0, 1.0)  # IME: two noise parts
    runs = [_drawn(fn, G, prm, 2, True, threads, share)
            for threads, share in ((2, 0.35), (2, 0.0), (2, 1.0), (1, 0.5), (3, 0.2))]
    for r in runs[1:]:
        _assert_same(runs[0][0], r[0])
        assert r[3] == runs[0][3]
    if fn in EXACTS:  # and the exact path's in-kernel draws give round_with's bits with clipping active
        _assert_same(_drawn(fn, G, prm, 2, False)[0], runs[0][0])


@PATHS
def test_bad_arguments_raise(fn):
    G = np.ones((2, 40))
    st = _state(40, 1)
    z = np.empty(40)
    with pytest.raises(ValueError, match="distinct"):
        fn(G, *st, 0, _prm(1, 0, 1.0), 0.0, z, z, np.random.default_rng(0), True, np.empty(2), np.empty(40), 2)
    with pytest.raises(ValueError, match="drawer_share"):
        fn(G, *st, 0, _prm(0, 0, 1.0), 0.0, z, z, np.random.default_rng(0), True, np.empty(2), np.empty(40), 2, 1.5)
    with pytest.raises(ValueError, match="workers"):
        fn(G, *st, 0, _prm(0, 0, 1.0), 0.0, z, z, np.random.default_rng(0), True, np.empty(2), np.empty(40), 0)


def test_exact_paths_fused_update_is_its_two_loop_update():
    # given noise (and no STP norm reading v), round_parallel_row_major_with updates each thread's chunks right after
    # its last sweep; with in-kernel draws it runs the update as a second parallel loop.  Fed the noise the drawing
    # run drew, the fused run must give that run's bits, for every variant, t = 0 and t > 0
    rng = np.random.default_rng(29)
    d = kd._ROW_CHUNK + 37  # two chunks, the last one short
    for B in (2, 3):  # the last sweep adds a pair from 0.0, and one record onto a pair's sums
        G = rng.standard_normal((B, d)) * 0.01  # clipped
        for code in kd.VARIANTS.values():
            for t in (0, 2):
                prm = _prm(code, 0, 1.0)
                drawn, zm, zv, _ = _drawn(EXACT, G, prm, t, True)
                st = _state(d, 6)
                fac, gb = np.empty(B), np.empty(d)
                neg = kd.with_threads(2, EXACT, G, *st, t, prm, 0.05, zm, zv, np.random.default_rng(0), False, fac,
                                      gb, 2)
                _assert_same(drawn, (neg, st + [fac, gb]))
