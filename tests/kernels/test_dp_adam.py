"""kernels.dp_adam: fused rounds vs the NumPy references, degenerate limits, DP-MF filters, the logistic problem's
run, bad input; and the threaded rounds against round_with and the NumPy reference (the last section)."""

import math

import numpy as np
import pytest
from numba import njit

from dpvalidate import InvalidParameter
from kernels import _shared
from kernels import dp_adam as kd
from kernels import dp_adam_problems as kdp
from kernels import dp_adam_reference as R

#: the NumPy reference's settings of the rounds compared with it (the kernels' lr, β₁, β₂, ξ, C and floor)
REF = R.ReferenceSettings(lr=0.1, beta1=0.9, beta2=0.99, xi=1e-3, clip_norm=1.0, floor=1e-4)


@pytest.mark.parametrize("variant", list(kd.VARIANTS))
@pytest.mark.parametrize("optimizer", list(kd.OPTIMIZERS))
def test_round_matches_reference_with_the_same_noise(variant, optimizer):
    rng = np.random.default_rng(7)
    d, B = 9, 5
    cfg = kd.RoundConfig(variant=variant, optimizer=optimizer, lr=0.1, beta1=0.9, beta2=0.99, xi=1e-3, clip_norm=1.0,
                        sigma=0.7, batch_size=B, floor=1e-4)
    st = kd.State.zeros(d)
    th, rs = np.zeros(d), R.adam_init(d)
    sm, sv = kd.noise_stds(cfg)
    for _ in range(6):
        G = rng.standard_normal((B, d)) * rng.uniform(0.1, 3)
        zm, zv = rng.standard_normal(d), rng.standard_normal(d)
        n1 = kd.step(cfg, st, G, zm, zv, bc_sub=0.01)
        th, n2 = R.reference_round(variant, optimizer, th, rs, G, zm, zv, REF, std_m=sm, std_v=sv, bc_sub=0.01)
        assert n1 == n2
    np.testing.assert_allclose(st.theta, th, rtol=1e-12, atol=1e-14)


def _adam(grads_seq, lr, b1, b2, xi):
    d = grads_seq[0].shape[1]
    th, m, v = np.zeros(d), np.zeros(d), np.zeros(d)
    for t, G in enumerate(grads_seq, start=1):
        g = G.mean(axis=0)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        th = th - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + xi)
    return th


@pytest.mark.parametrize("variant", [v for v in kd.VARIANTS if v != "sgd_momentum"])
def test_no_noise_no_clipping_is_non_private_adam(variant):
    rng = np.random.default_rng(3)
    seq = [rng.standard_normal((4, 6)) for _ in range(12)]
    cfg = kd.RoundConfig(variant=variant, lr=0.05, beta1=0.8, beta2=0.95, xi=1e-6, clip_norm=math.inf, sigma=0.0,
                        batch_size=4)
    st = kd.State.zeros(6)
    for G in seq:
        kd.step(cfg, st, G, rng.standard_normal(6), rng.standard_normal(6))  # σ = 0: the noise has zero weight
    np.testing.assert_allclose(st.theta, _adam(seq, 0.05, 0.8, 0.95, 1e-6), rtol=1e-10)


def test_sgd_momentum_without_noise_is_heavy_ball():
    rng = np.random.default_rng(4)
    seq = [rng.standard_normal((3, 5)) for _ in range(10)]
    cfg = kd.RoundConfig(variant="sgd_momentum", lr=0.1, beta1=0.9, clip_norm=math.inf, sigma=0.0, batch_size=3)
    st = kd.State.zeros(5)
    th, m = np.zeros(5), np.zeros(5)
    for G in seq:
        kd.step(cfg, st, G, np.zeros(5))
        m = 0.9 * m + G.mean(0)
        th = th - 0.1 * m
    np.testing.assert_allclose(st.theta, th, rtol=1e-12)


def test_in_kernel_draws_equal_predrawn_noise_from_the_same_generator():
    rng = np.random.default_rng(0)
    d, B = 1500, 3
    G = rng.standard_normal((B, d))
    outs = []
    for draw in (True, False):
        st = kd.State.zeros(d)
        zm = np.random.default_rng(42).standard_normal(d)
        prm = kd.AdamParams(2, 0, 0.1, 0.9, 0.99, 1e-8, 1.0, 0.3, 0.0, 0.0)
        arrays = kd.RoundArrays(st.theta, st.m, st.v, st.vclean, np.empty(B), np.empty(d))
        kd.round_with(G, arrays, 0, prm, 0.05, zm, zm, np.random.default_rng(42), draw)
        outs.append(st.theta.copy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_row_major_and_two_pass_orders_are_bit_identical():
    # the same sums in the same order per coordinate: every variant, optimizer, in-kernel draws, round 0 and later
    rng = np.random.default_rng(11)
    d, B = 1300, 4
    for variant in range(7):
        for opt in (0, 1):
            G = rng.standard_normal((B, d)) * rng.uniform(0.1, 3)
            G[0, 0] = -0.0
            outs = []
            for row_major in (False, True):
                st = [np.full(d, 0.1), np.full(d, 0.01), np.full(d, 0.5), np.zeros(d)]
                fac, gb = np.empty(B), np.empty(d)
                prm = kd.AdamParams(variant, opt, 0.1, 0.9, 0.99, 1e-3, 1.0, 0.3, 0.2, 1e-4)
                neg = kd.round_with(G, kd.RoundArrays(*st, fac, gb), 2, prm, 0.05, gb, gb, np.random.default_rng(4),
                                    True, row_major)
                outs.append((neg, st, fac, gb))
            assert outs[0][0] == outs[1][0]
            for a, b in zip(outs[0][1] + [outs[0][2], outs[0][3]], outs[1][1] + [outs[1][2], outs[1][3]]):
                np.testing.assert_array_equal(a, b)


def test_vectorised_adam_update_is_the_scalar_arithmetic_bit_for_bit():
    # post-processing and bias correction with Adam run _adam_plain_block (a vectorised loop): every coordinate must
    # carry exactly the bits of kernels._shared.adam_coordinate evaluated one coordinate at a time in Python, in the
    # vector body and the remainder of a block (d = 2·512 + 13), with ξ > 0 or only a floor > 0
    rng = np.random.default_rng(12)
    d, B, std, bc = 1037, 3, 0.3, 0.05
    for variant in (0, 2):
        for xi, floor in ((1e-8, 0.0), (0.0, 1e-6), (1e-3, 1e-4)):
            for row_major in (False, True):
                G = rng.standard_normal((B, d)) * 0.05
                th, m, v, vc = rng.standard_normal(d), rng.standard_normal(d) * 0.1, rng.random(d) * 1e-4, np.zeros(d)
                th0, m0, v0 = th.copy(), m.copy(), v.copy()
                z = rng.standard_normal(d)
                prm = kd.AdamParams(variant, 0, 0.1, 0.9, 0.99, xi, 1.0, std, 0.0, floor)
                fac, gb = np.empty(B), np.empty(d)
                neg = kd.round_with(G, kd.RoundArrays(th, m, v, vc, fac, gb), 0, prm, bc, z, z,
                                    np.random.default_rng(0), False, row_major)
                want = [_shared.adam_coordinate(prm, gb[j], gb[j] + std * z[j], 0.0, th0[j], m0[j], v0[j], 1.0 - 0.9,
                                                1.0 - 0.99, bc) for j in range(d)]
                for k, got in enumerate((th, m, v)):
                    assert np.array([w[k] for w in want]).tobytes() == got.tobytes()
                assert neg == sum(w[3] < 0.0 for w in want)
                assert 0 < neg < d or variant == 0


def test_row_major_is_chosen_when_a_row_and_the_average_fit_in_cache():
    llc = kd._last_level_cache_bytes()
    assert llc > 0
    assert kd.row_major_fits(llc // 16) and not kd.row_major_fits(llc // 16 + 1)


@pytest.mark.parametrize("threads", [1, 2])
def test_threaded_round_is_bit_identical_to_the_serial_round(threads):
    # every variant and optimizer, round 0 and a later round (STP scales by v̂), d not a multiple of the block; the
    # last size has three coordinate chunks (split over the threads) and its records are summed four at a time
    # (twice, then two one by one: a swap inside the second group of four changes bits, one inside the first may not)
    rng = np.random.default_rng(3)
    for d, B in ((1, 1), (1500, 3), (2 * kd._ROW_CHUNK + 37, 10)):
        for variant in kd.VARIANTS:
            for optimizer in kd.OPTIMIZERS:
                cfg = kd.RoundConfig(variant=variant, optimizer=optimizer, lr=0.1, beta1=0.9, beta2=0.99, xi=1e-3,
                                    clip_norm=1.0, sigma=0.7, batch_size=B, floor=1e-4)
                states = [kd.State.zeros(d), kd.State.zeros(d)]
                for _ in range(3):
                    G = rng.standard_normal((B, d)) * rng.uniform(0.1, 3)
                    zm, zv = rng.standard_normal(d), rng.standard_normal(d)
                    gbs = [np.empty(d), np.empty(d)]
                    negs = [kd.step(cfg, st, G, zm, zv, bc_sub=0.01, gbar_out=gb, threads=th)
                            for st, gb, th in zip(states, gbs, (1, threads))]
                    assert negs[0] == negs[1]
                    np.testing.assert_array_equal(gbs[0], gbs[1])
                for name in ("theta", "m", "v", "vclean"):
                    np.testing.assert_array_equal(getattr(states[0], name), getattr(states[1], name))


def test_run_stream_threads_give_the_same_numbers():
    d = 2000
    cfg = kd.RoundConfig(variant="ime", beta2=0.99, sigma=1.0, clip_norm=1.0, batch_size=4)
    grad_fn = lambda t, th, r: r.standard_normal((4, d))  # noqa: E731
    a = kd.run_stream(cfg, grad_fn, d, 3, trials=2, seed=5)
    b = kd.run_stream(cfg, grad_fn, d, 3, trials=2, seed=5, threads=2)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    with pytest.raises(InvalidParameter, match="threads"):
        kd.run_stream(cfg, grad_fn, d, 3, threads=0)


def _stream_reference_in_turn(cfg, G, kind, trials, seed, theta0, t0):
    """run_stream's trials as the NumPy reference runs them one after the other with one generator: per round d
    normals per noise part (m, then IME's v), correlated by the strategy's dense C⁻¹, then reference_round."""
    cfg = cfg.validated()
    rounds, _, d = G.shape
    strat = kd.strategy(kind, rounds) if kind != "identity" else None
    sm, sv = kd.noise_stds(cfg, 1.0 if strat is None else strat.sensitivity)
    bias = kd.bias_schedule(cfg, strat, rounds) if cfg.variant == "bias_correction" else np.zeros(rounds)
    parts = 2 if cfg.variant == "ime" else 1
    settings = R.ReferenceSettings(cfg.lr, cfg.beta1, cfg.beta2, cfg.xi, cfg.clip_norm, cfg.floor)
    rng = np.random.default_rng(seed)
    thetas, vs = [], []
    for _ in range(trials):
        Z = rng.standard_normal((rounds, parts, d))
        if strat is not None:
            Z = np.stack([R.filter_reference(strat.cinv, Z[:, p]) for p in range(parts)], axis=1)
        st = R.adam_init(d)
        st.count = t0
        th = np.array(theta0, dtype=float)
        hist, vh = [], []
        for t in range(rounds):
            th, _ = R.reference_round(cfg.variant, cfg.optimizer, th, st, G[t], Z[t, 0], Z[t, -1], settings,
                                      std_m=sm, std_v=sv, bc_sub=bias[t])
            hist.append(th)
            vh.append(st.v)
        thetas.append(hist)
        vs.append(vh)
    return np.array(thetas), np.array(vs)


@pytest.mark.parametrize("variant,kind,optimizer", [("post_processing", "identity", "adam"),
                                                    ("ime", "identity", "adam"), ("post_processing", "half", "adam"),
                                                    ("bias_correction", "sqrt", "adam"),
                                                    ("scale_then_privatize", "identity", "adagrad")])
def test_stream_trials_from_one_stream_are_the_reference_run_in_turn(variant, kind, optimizer):
    """one_stream: trial k is the NumPy reference run with the one generator where trial k − 1 left it (every trial
    restarting from θ₀ and the round count t0, with an empty DP-MF filter history)."""
    d, B, rounds, trials = 3, 4, 4, 3
    G = 1.5 * np.random.default_rng(2).standard_normal((rounds, B, d))  # norms ≈ 3 > C: clipping active
    cfg = kd.RoundConfig(variant=variant, optimizer=optimizer, lr=REF.lr, beta1=REF.beta1, beta2=REF.beta2,
                         xi=REF.xi, clip_norm=REF.clip_norm, floor=REF.floor, sigma=0.7, batch_size=B)
    theta0, t0 = np.array([0.5, -1.0, 2.0]), 2
    out = kd.run_stream(cfg, G, d, rounds, trials=trials, seed=5, strat_kind=kind, record_v=True, record_theta=True,
                        start=kd.StreamStart(theta0=theta0, t0=t0), one_stream=True)
    th_ref, v_ref = _stream_reference_in_turn(cfg, G, kind, trials, 5, theta0, t0)
    np.testing.assert_allclose(out["theta_hist"], th_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out["v_hist"], v_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(out["theta"], out["theta_hist"][:, -1])
    np.testing.assert_array_equal(out["v"], out["v_hist"][:, -1])
    assert not np.allclose(th_ref[0], th_ref[1])  # the trials drew different noise


def test_gradient_array_is_the_function_returning_it():
    """The default (per-trial) path gives the same bits whether the rounds' gradients come as an array or from a
    function returning its rows; one_stream needs the array and one thread."""
    d, rounds = 3, 3
    G = np.random.default_rng(4).standard_normal((rounds, 2, d))
    cfg = kd.RoundConfig(variant="ime", sigma=0.5, batch_size=2)
    a = kd.run_stream(cfg, G, d, rounds, trials=2, seed=1, record_v=True, record_theta=True)
    b = kd.run_stream(cfg, lambda t, th, r: G[t], d, rounds, trials=2, seed=1, record_v=True, record_theta=True)
    assert a.keys() == b.keys() and "theta_hist" in a
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    with pytest.raises(InvalidParameter, match="grad_fn"):
        kd.run_stream(cfg, lambda t, th, r: G[t], d, rounds, one_stream=True)
    with pytest.raises(InvalidParameter, match="grad_fn"):
        kd.run_stream(cfg, G[:, :, :2], d, rounds, one_stream=True)
    with pytest.raises(InvalidParameter, match="threads"):
        kd.run_stream(cfg, G, d, rounds, one_stream=True, threads=2)
    with pytest.raises(InvalidParameter, match="one_stream"):
        kd.run_stream(cfg, G, d, rounds, one_stream="yes")


@pytest.mark.parametrize("variant", ["bias_correction", "ime", "post_processing"])
def test_one_round_of_gradients_is_the_function_returning_it(variant, monkeypatch):
    """A (B, d) gradient array (the same records every round) gives the bits of a function returning it, through
    the jitted per-trial path, also when its rounds run in several chunks and from a given start; (rounds, B, d)
    likewise."""
    d, rounds, B = 7, 9, 3
    rng = np.random.default_rng(11)
    recs, G = rng.standard_normal((B, d)), rng.standard_normal((rounds, B, d))
    cfg = kd.RoundConfig(variant=variant, lr=0.05, beta1=0.9, beta2=0.95, sigma=0.7, clip_norm=1.0, batch_size=B)
    start = kd.StreamStart(np.linspace(-1.0, 1.0, d), np.full(d, 0.1), 4)
    kw = dict(trials=3, seed=2, record_v=True, record_theta=True, start=start)
    for chunk_bytes in (kd._GBAR_CHUNK_BYTES, 8 * d * 2):  # one chunk; chunks of 2 rounds (the last one short)
        monkeypatch.setattr(kd, "_GBAR_CHUNK_BYTES", chunk_bytes)
        for arr, fn in ((recs, lambda t, th, r: recs), (G, lambda t, th, r: G[t])):
            a = kd.run_stream(cfg, arr, d, rounds, **kw)
            b = kd.run_stream(cfg, fn, d, rounds, **kw)
            assert a.keys() == b.keys()
            for key in a:
                np.testing.assert_array_equal(a[key], b[key])
    assert not np.array_equal(a["theta"][0], a["theta"][1])  # the trials drew different noise


def test_array_gradients_report_errors_as_the_function_path():
    """The jitted array path reports a run that overflows float64 as the per-round path does, and rejects a (B, d)
    array of the wrong width naming grad_fn."""
    d, B = 2, 2
    recs = np.ones((B, d))
    cfg = kd.RoundConfig(variant="bias_correction", lr=1e308, sigma=0.5, clip_norm=1e100, batch_size=B)
    msgs = []
    for gf in (recs, lambda t, th, r: recs):
        with pytest.raises(InvalidParameter, match="lr") as exc:
            kd.run_stream(cfg, gf, d, 5, seed=1)
        msgs.append(str(exc.value))
    assert msgs[0] == msgs[1]
    with pytest.raises(InvalidParameter, match="grad_fn"):
        kd.run_stream(cfg, np.ones((B, d + 1)), d, 3)


@pytest.mark.parametrize("kind", kd.STRATEGIES)
def test_dpmf_filter_equals_dense_noise_correlating_matrix(kind):
    T, d = 40, 3
    s = kd.strategy(kind, T, 4)
    z = np.random.default_rng(1).standard_normal((T, d))
    ns = kd.NoiseStream(d, None, s)
    got = []
    for t in range(T):
        ns.rng = type("R", (), {"standard_normal": lambda self, n, _t=t: z[_t]})()
        got.append(ns.next()[0].copy())
    np.testing.assert_allclose(np.array(got), R.filter_reference(s.cinv, z), atol=1e-12)
    # C·C⁻¹ = I and the sensitivity is C's largest column norm
    Cm, Ci = kd.toeplitz_matrix(s.c, T), kd.toeplitz_matrix(s.cinv, T)
    np.testing.assert_allclose(Cm @ Ci, np.eye(T), atol=1e-10)
    assert s.sensitivity == pytest.approx(np.max(np.linalg.norm(Cm, axis=0)), rel=1e-12)


def test_strategy_values():
    T = 200
    assert kd.strategy("identity", T).rmse == pytest.approx(math.sqrt((T + 1) / 2))
    half = kd.strategy("half", T)
    assert half.sensitivity == pytest.approx(math.sqrt(sum(4.0**-k for k in range(T))))
    sq = kd.strategy("sqrt", T)
    A = np.tril(np.ones((T, T)))
    Cm = kd.toeplitz_matrix(sq.c, T)
    np.testing.assert_allclose(Cm @ Cm, A, atol=1e-10)  # C = A^{1/2}
    band = kd.strategy("banded", T, 8)
    assert band.rmse < half.rmse < kd.strategy("identity", T).rmse
    assert sq.rmse < band.rmse


def test_ime_noise_split_and_bias_schedule():
    a, b = kd.ime_noise_stds(1.3, 2.0, 8)
    assert a == pytest.approx(math.sqrt(2) * 1.3 * 2.0 / 8)
    assert b == pytest.approx(math.sqrt(2) * 1.3 * 15 * 4.0 / 64)
    assert kd.ime_noise_stds(1.3, 2.0, 8, split=False) == pytest.approx((1.3 * 2 / 8, 1.3 * 15 * 4 / 64))
    cfg = kd.RoundConfig(variant="bias_correction", beta2=0.9, sigma=2.0, clip_norm=1.0, batch_size=4)
    np.testing.assert_allclose(kd.bias_schedule(cfg, None, 50), 0.25, rtol=1e-12)  # (σC/B)² every round


def test_constant_signal_kernel_matches_reference():
    sig = np.array([0.0, 0.1, -0.5, 2.0])
    steps = 25
    for mode in ("bias_correction", "ime"):
        out = kd.constant_signal_vhat(sig, 0.7, 0.9, steps, mode=mode, trials=1, seed=5)
        ss = np.random.SeedSequence(5).spawn(1)[0]
        draws = np.random.default_rng(ss).standard_normal(sig.size * steps).reshape(sig.size, steps).T
        ref = R.constant_signal_vhat_reference(sig, 0.7 * draws, 0.9, mode, 0.7)
        np.testing.assert_allclose(out["vhat"][0], ref, rtol=1e-12)


@njit
def _const_signal_vhat_plain(signal, noise_std, beta2, steps, mode, rng, neg_count, vhat_out):
    # the kernel as first written: the bias correction 1 − β₂^(t+1) computed per coordinate and round
    for j in range(signal.shape[0]):
        v = 0.0
        g = signal[j]
        for t in range(steps):
            z = noise_std * rng.standard_normal()
            if mode == 0:
                x = g + z
                v = beta2 * v + (1.0 - beta2) * x * x
                vh = v / (1.0 - beta2 ** (t + 1)) - noise_std * noise_std
            else:
                v = beta2 * v + (1.0 - beta2) * (g * g + z)
                vh = v / (1.0 - beta2 ** (t + 1))
            if vh < 0.0:
                neg_count[t] += 1
        vhat_out[j] = vh


@pytest.mark.parametrize("mode", ["bias_correction", "ime"])
def test_constant_signal_kernel_is_the_plain_loop_bit_for_bit(mode):
    """The kernel with its bias corrections computed once per round gives the plain loop's bits: v̂ and the
    per-round negative counts, over rounds long enough for β₂^t to matter and to vanish."""
    sig = np.linspace(-0.3, 0.4, 50)
    for beta2, steps, std in ((0.999, 3000, 0.05), (0.9, 60, 0.7), (0.5, 3, 0.0)):
        out = kd.constant_signal_vhat(sig, std, beta2, steps, mode=mode, trials=2, seed=9)
        neg = np.zeros(steps, dtype=np.int64)
        vh = np.empty((2, sig.size))
        for k, ss in enumerate(np.random.SeedSequence(9).spawn(2)):
            _const_signal_vhat_plain(sig, std, beta2, steps, 0 if mode == "bias_correction" else 1,
                                     np.random.default_rng(ss), neg, vh[k])
        np.testing.assert_array_equal(out["vhat"], vh)
        np.testing.assert_array_equal(out["neg_frac"], neg / (2 * sig.size))
        assert std == 0.0 or 0 < neg[-1] < 2 * sig.size  # both signs occur: the counts are exercised


def test_stream_handles_a_million_coordinates():
    d = 10**6
    G = np.random.default_rng(0).standard_normal((2, d)) * 1e-3
    cfg = kd.RoundConfig(variant="bias_correction", beta2=0.999, sigma=1.0, clip_norm=1.0, batch_size=2)
    out = kd.run_stream(cfg, lambda t, th, r: G, d, 2, seed=1)
    assert out["theta"].shape == (1, d) and np.all(np.isfinite(out["theta"]))
    assert 0.3 < out["neg_frac"][0, -1] < 0.7  # signal ≪ noise: about half the coordinates are negative


def test_logistic_1d_without_noise_is_plain_adagrad():
    prob = kdp.sparse_logistic_1d(n=200, seed=2)
    cfg = kd.RoundConfig(optimizer="adagrad", lr=0.5, beta1=0.0, xi=1e-8, clip_norm=1.0, sigma=0.0, batch_size=1)
    th = kd.run_logistic_1d(prob.x, prob.y, cfg)[0]
    ref, v = 0.0, 0.0
    for x, y in zip(prob.x, prob.y):
        g = -y * x / (1 + math.exp(y * ref * x))
        g *= min(1.0, 1.0 / abs(g)) if g != 0 else 1.0
        v += g * g
        ref -= 0.5 * g / (math.sqrt(v) + 1e-8)
    assert th == pytest.approx(ref, rel=1e-12)
    assert np.mean(prob.x == 0) == pytest.approx(0.9, abs=0.05)


def test_logistic_1d_noise_override_is_the_kernels_own_noise_when_equal():
    """noise_stds_override = noise_stds(cfg) gives the same bits; another pair changes θ; a bad pair is named."""
    prob = kdp.sparse_logistic_1d(n=300, seed=3)
    cfg = kd.RoundConfig(variant="ime", optimizer="adagrad", lr=0.3, beta1=0.0, xi=1e-8, clip_norm=1.0, sigma=0.5,
                        batch_size=1, floor=1.0)
    own = kd.run_logistic_1d(prob.x, prob.y, cfg, strat_kind="sqrt", trials=3, seed=4)
    same = kd.run_logistic_1d(prob.x, prob.y, cfg, strat_kind="sqrt", trials=3, seed=4,
                             noise_stds_override=kd.noise_stds(cfg.validated()))
    other = kd.run_logistic_1d(prob.x, prob.y, cfg, strat_kind="sqrt", trials=3, seed=4, noise_stds_override=(0.1, 0.1))
    assert np.array_equal(own, same) and not np.allclose(own, other)
    for bad in ((1.0,), (1.0, -1.0), 3.0):
        with pytest.raises(InvalidParameter, match="noise_stds_override"):
            kd.run_logistic_1d(prob.x, prob.y, cfg, noise_stds_override=bad)


def test_bad_input_names_the_parameter():
    with pytest.raises(InvalidParameter, match="variant"):
        kd.RoundConfig(variant="adamw").validated()
    with pytest.raises(InvalidParameter, match="beta2"):
        kd.RoundConfig(beta2=1.0).validated()
    with pytest.raises(InvalidParameter, match="clip_norm"):
        kd.RoundConfig(sigma=1.0, clip_norm=math.inf).validated()
    with pytest.raises(InvalidParameter, match="xi"):
        kd.RoundConfig(variant="scale_then_privatize", xi=0.0).validated()
    with pytest.raises(InvalidParameter, match="grads"):
        kd.step(kd.RoundConfig(), kd.State.zeros(3), np.zeros((2, 4)), np.zeros(3))
    with pytest.raises(InvalidParameter, match="kind"):
        kd.strategy("toeplitz", 10)
    with pytest.raises(InvalidParameter, match="signal"):
        kd.constant_signal_vhat([np.nan], 1.0, 0.9, 3)
    with pytest.raises(InvalidParameter, match="alignment"):
        kdp.synthetic_gradients(alignment=2.0)
    with pytest.raises(InvalidParameter, match="zero_fraction"):
        kdp.sparse_logistic_1d(zero_fraction=1.0)


def test_step_matches_round_with_given_noise_bit_for_bit():
    # step() runs its own Generator-free copy of round_with's given-noise path (_round_given): the same bits
    rng = np.random.default_rng(7)
    for variant in kd.VARIANTS:
        for opt in ("adam", "adagrad"):
            d = int(rng.choice([1, 3, 700, 1500]))  # 1500: several 512-coordinate blocks
            B = int(rng.integers(1, 9))
            cfg = kd.RoundConfig(variant=variant, optimizer=opt, lr=0.05, beta1=0.9, beta2=0.99, xi=1e-8,
                                 clip_norm=float(rng.choice([0.1, 10.0])), sigma=0.5, batch_size=B).validated()
            s1, s2 = kd.State.zeros(d), kd.State.zeros(d)
            for t in range(4):
                g = rng.standard_normal((B, d)) * 3
                zm, zv = rng.standard_normal(d), rng.standard_normal(d)
                gb1, gb2 = np.empty(d), np.empty(d)
                n1 = kd.step(cfg, s1, g, zm, zv, 1.3, 0.01 * t, gb1)
                prm = kd.adam_params(cfg, *kd.noise_stds(cfg, 1.3))
                arrays = kd.RoundArrays(s2.theta, s2.m, s2.v, s2.vclean, np.empty(B), gb2)
                n2 = kd.round_with(g, arrays, s2.t, prm, 0.01 * t, zm, zv, kd._DUMMY_RNG, False, kd.row_major_fits(d))
                s2.t += 1
                assert n1 == n2, (variant, opt, t)
                for k in ("theta", "m", "v", "vclean"):
                    assert np.array_equal(getattr(s1, k), getattr(s2, k)), (variant, opt, t, k)
                assert np.array_equal(gb1, gb2)


# ====================================================================================================
# threaded rounds
# ====================================================================================================
# kernels.dp_adam's threaded rounds against round_with and the NumPy reference.
#
# ``round_parallel_row_major_with`` (every thread takes every norm) and ``round_parallel_blocked_with`` (whole rows
# per thread, then coordinate chunks) compute every number as ``round_with`` does, so they must give the same bits.
# ``round_parallel_row_sweeps_with`` sums each record's squared norm chunk by chunk (chunks of ``kd._ROW_CHUNK``
# coordinates) and adds the chunk sums, where ``round_with`` sums the whole row in one pass, so its clip factors agree
# to float64 rounding, not bit for bit; every other operation is the same in the same order.  Its tolerances below
# are derived from that:
#
# * a sum of n terms computed in two orders differs by at most 2·γ_n relative (γ_n = n·u/(1 − n·u), u = 2⁻⁵³,
#   n ≤ d bounds the longest chain of additions of either order, for the sixteen-lane dot and STP's in-order sum);
#   the factor min(1, C/√s)/B halves that and adds a few roundings: rtol_f = γ_d + 8u;
# * ḡ_j = Σ_i f_i g_ij in the same order with factors perturbed by rtol_f: |Δḡ_j| ≤ (rtol_f + 2Bu)·Σ_i f_i|g_ij|
#   (the second term: the roundings of the sum itself may move with its inputs), doubled for slack;
# * θ, m, v, v_clean are elementwise functions of ḡ_j and the (identical) state and noise; we allow a relative
#   condition number of KAPPA = 10³ for one update on this data (with atol scaled by the largest magnitude, for
#   coordinates near zero).
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
            neg = kd.with_threads(threads, fn, G, kd.RoundArrays(*st, fac, gb), t, prm, 0.05, zm, zv,
                                  np.random.default_rng(0), False, threads)
        else:
            neg = kd.round_with(G, kd.RoundArrays(*st, fac, gb), t, prm, 0.05, zm, zv, np.random.default_rng(0), False,
                                True)
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
        n1 = kd.with_threads(2, fn, G, kd.RoundArrays(par.theta, par.m, par.v, par.vclean, fac, gb), t, prm, 0.01, zm,
                             zv, np.random.default_rng(0), False, 2)
        clipped += int(np.sum(fac < 1.0 / B))
        n0 = kd.round_with(G, kd.RoundArrays(ser.theta, ser.m, ser.v, ser.vclean, fac, gb), t, prm, 0.01, zm, zv,
                           np.random.default_rng(0), False, True)
        th, n2 = R.reference_round(variant, "adam", th, rs, G, zm, zv, REF, std_m=sm, std_v=sv, bc_sub=0.01)
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
        neg = kd.with_threads(threads, fn, G, kd.RoundArrays(*st, fac, gb), t, prm, 0.05, zm, zv, rng, True, threads,
                              share)
    else:
        neg = kd.round_with(G, kd.RoundArrays(*st, fac, gb), t, prm, 0.05, zm, zv, rng, True, True)
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
    arrays = kd.RoundArrays(*_state(40, 1), np.empty(2), np.empty(40))
    z = np.empty(40)
    with pytest.raises(ValueError, match="distinct"):
        fn(G, arrays, 0, _prm(1, 0, 1.0), 0.0, z, z, np.random.default_rng(0), True, 2)
    with pytest.raises(ValueError, match="drawer_share"):
        fn(G, arrays, 0, _prm(0, 0, 1.0), 0.0, z, z, np.random.default_rng(0), True, 2, 1.5)
    with pytest.raises(ValueError, match="workers"):
        fn(G, arrays, 0, _prm(0, 0, 1.0), 0.0, z, z, np.random.default_rng(0), True, 0)


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
                neg = kd.with_threads(2, EXACT, G, kd.RoundArrays(*st, fac, gb), t, prm, 0.05, zm, zv,
                                      np.random.default_rng(0), False, 2)
                _assert_same(drawn, (neg, st + [fac, gb]))
