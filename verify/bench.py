"""Benchmarks: the fused kernels against their NumPy references, as ratios within one run.

Speed is never asserted in a test; ``dpverify bench`` measures and reports.  Each
benchmark warms the JIT first, then takes the best of several repeats (the least
disturbed measurement) for both implementations on the same configuration.

Rows: the PAGAN loops, the DP-SGD loop with Opacus (PyTorch CPU) as the peer when both are
installed (the ``peer`` extra; otherwise the peer column is empty and ``peer_note`` says why),
the bias-corrected DP-Adam round at d = 10⁶ with its bandwidth fraction against a STREAM copy
measured in the same run, noisy full-matrix AdaGrad at p = 200, ADP-SGD on
``smooth_nonconvex``, and DP-SGD on dense logistic regression at d = 10⁴ in float64 and float32 against
Opacus and jax-privacy (``peers``: our speed over each peer's; :mod:`verify.peers`), and, on a machine with an
NVIDIA GPU, the GPU path's DP-Adam round against the card's copy bandwidth (``cuda_dp_adam_round``).
``--json`` rows: name, unit, kernel, reference, peer,
speedup_vs_reference, speedup_vs_peer, bandwidth_fraction, limit_fraction (null where not applicable), config.

``limit_fraction`` (streaming rows) is the physical limit over the time taken: the least number of bytes any
implementation of the operation must move, divided by the STREAM bandwidth measured in the same run, divided by
the measured time.  ``bandwidth_fraction`` is the traffic the fastest path actually moves per second over that
bandwidth (it can exceed the limit fraction when a path moves more than the minimum).  The PAGAN loop rows time
kernel and reference back to back and report the median ratio of the pairs as ``speedup_vs_reference``
(``speedup_repeats`` lists them; ``speedup_of_bests`` is the ratio of the two best times).
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

import kernels
from dpvalidate import InvalidParameter
from kernels import cuda as kc
from kernels import dp_adam as kd
from kernels import dp_adam_reference as R
from kernels import noisy_adagrad as kn
from kernels import noisy_adagrad_reference as rf
from kernels.adp import run_adp, smooth_nonconvex
from kernels.adp_reference import adp_reference
from kernels.dp_sgd import dense_logistic, minimum_bytes_per_step, run_dp_sgd
from kernels.dp_sgd_reference import dp_sgd_reference
from kernels.pagan import run_config
from kernels.pagan_reference import run_reference

from . import peers as P


def _best_rate(fn: Callable[[], None], work: int, repeats: int) -> float:
    return work / min(_seconds(fn) for _ in range(repeats))


def _paired_ratios(kernel: Callable[[], None], kernel_work: int, reference: Callable[[], None], reference_work: int,
                   repeats: int) -> tuple[float, float, list[float]]:
    """Kernel and reference timed back to back ``repeats`` times: (best kernel rate, best reference rate, the ratio
    of each pair).  A pair shares the machine's state at that moment, so the median ratio is robust to a busy
    machine in a way the ratio of two bests taken minutes apart is not."""
    ks, rs = [], []
    for _ in range(repeats):
        ks.append(kernel_work / _seconds(kernel))
        rs.append(reference_work / _seconds(reference))
    return max(ks), max(rs), [k / r for k, r in zip(ks, rs)]


def _loop_benchmark(name: str, algorithm: str, kernel_steps: int, reference_steps: int, repeats: int) -> dict:
    ds = kernels.make_problem("abs_regression", seed=0, n=5000, d=100)
    kw = dict(epsilon=1.0, delta=1e-5) if kernels.SPECS[algorithm].private else {}

    def cfg(steps):
        return kernels.make_config(algorithm, ds, steps=steps, batch_size=70, alpha=0.1,
                                   settings=kernels.LoopSettings(n_log=2), **kw)

    run_config(cfg(5), ds, np.random.default_rng(0))  # compile (or load the cache)
    ck, cr = cfg(kernel_steps), cfg(reference_steps)
    k, r, ratios = _paired_ratios(lambda: run_config(ck, ds, np.random.default_rng(1)), kernel_steps,
                                  lambda: run_reference(cr, ds, np.random.default_rng(1)), reference_steps, repeats)
    row = _row(name, "steps/s", k, r, config="abs_regression n=5000 d=100 b=70, full-data loss at start and end only")
    # the headline ratio: the median over back-to-back pairs (the ratio of the two bests is kept beside it)
    row.update(speedup_vs_reference=float(np.median(ratios)), speedup_of_bests=k / r,
               speedup_repeats=[float(x) for x in ratios])
    return row


def _seconds(fn: Callable[[], None]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _stream_copy(n: int, threads: int = 1) -> Callable[[], float]:
    """A STREAM-style copy of n doubles, compiled and its pages touched: each call copies once and returns the bytes
    read + written per second."""
    import numba
    from numba import njit, prange

    @njit(cache=False, nogil=True)
    def copy(dst, src):
        for i in range(src.shape[0]):
            dst[i] = src[i]

    @njit(cache=False, parallel=True)
    def copy_parallel(dst, src):
        for i in prange(src.shape[0]):
            dst[i] = src[i]

    src = np.random.default_rng(0).standard_normal(n)
    dst = np.empty_like(src)
    if threads == 1:
        run = lambda: copy(dst, src)  # noqa: E731
    else:
        def run():
            before = numba.get_num_threads()
            numba.set_num_threads(threads)
            try:
                copy_parallel(dst, src)
            finally:
                numba.set_num_threads(before)
    run()  # compile and touch the pages
    return lambda: 2 * src.nbytes / _seconds(run)


def _dp_adam_round_benchmark(quick: bool) -> dict:
    """The bias-corrected DP-Adam round (dp_adam_design Alg. 7) at d = 10⁶, B = 64: fused kernel vs NumPy reference.

    Kernel: per-record norms first (one pass over the B×d gradients), then one blocked pass that averages the
    clipped records, adds the noise and updates m, v, θ.  Kernel paths timed: one thread with the noise drawn
    inside the kernel (numba's Generator) or pre-drawn by NumPy (its draw time included), each in the two-pass
    order and, where a row and the average fit in the last-level cache, in row-major order (each record's clipped
    row added to the average right after its norm, while it is in cache: the order ``step`` picks); the threaded
    round (``kernels.dp_adam.step(..., threads=N)``, N = Numba's thread count) with pre-drawn noise; and, where a
    row and the average fit, the threaded row-major round (``kernels.dp_adam.round_parallel_row_major_with``: each
    thread owns a coordinate range, takes the whole norms of each pair of records itself and adds both clipped
    records' parts in its range into the average in one sweep, with no barrier between records, and with given
    noise updates its own coordinates right after its last sweep; the threads read each row at about the same time,
    so the gradients come from memory once; bit-identical to ``round_with``), with pre-drawn noise and with the
    noise drawn in the kernel (numba's Generator, the numbers ``round_with`` draws, on one thread, a slice after
    each record, that thread owning fewer coordinates); and its variant with one parallel sweep per record
    (``round_parallel_row_sweeps_with``: each norm split over the threads too, a barrier per record, agreeing with
    ``round_with`` to rounding), with the noise drawn in the kernel; and the threaded blocked round
    (``kernels.dp_adam.round_parallel_blocked_with``: whole rows per thread for the norms, one thread drawing the
    noise meanwhile, then coordinate chunks whose records are summed four at a time in a buffer kept in cache, and
    m, v, θ updated from it; the gradients read from memory twice, bit-identical to ``round_with``).
    Each repeat times every path once and then the STREAM copies (one thread and N threads), back to back; a path's
    ``limit_fraction`` is the median over the repeats of its least bytes over the copy bandwidth measured beside it
    over its time, where the least bytes are those of an exact round on this machine: the gradients read twice (a
    record's norm is needed before it is added, and the B×d gradients do not stay in the last-level cache between
    the two), θ, m, v read and written once, (2·B + 6)·d·8 bytes; ``limit_fraction_one_read`` is the same against
    the ideal of one read, (B + 6)·d·8 bytes, which only a cache holding the gradients could reach (this VM's bandwidth moves between runs, so bests taken apart can pair a fast moment with a slow
    one: ``limit_fraction_of_bests`` keeps that ratio for comparison).
    Bytes moved per round (counted, not estimated from time): two-pass, the gradients read twice (2·B·d·8), θ, m,
    v read and written (6·d·8), the averaged gradient scratch written and read (2·d·8); row-major (one thread or
    threaded), the gradients read once and the average read once (B·d·8 + d·8) instead; plus the pre-drawn noise
    read (d·8) on those paths (the threaded in-kernel draws: written to a buffer and read, 2·d·8).  Each path's
    bandwidth fraction is its own traffic per second; the row reported is the fastest path.  The bandwidth fraction
    of the fastest path is against the best STREAM copy measured in the same run (one thread, and N threads), i.e.
    the machine's measured bandwidth; a read-mostly path can exceed 1 (reading alone runs faster than a copy).
    The reference is NumPy, whose matrix products use every BLAS thread.
    """  # noqa: E501
    import numba


    d, B = 10**6, 64
    repeats = 3 if quick else 7
    threads = numba.config.NUMBA_NUM_THREADS
    rng = np.random.default_rng(0)
    grads = rng.standard_normal((B, d)) * (2.0 / np.sqrt(d))  # record norms ≈ 2 > C: clipping is active
    lr, b1, b2, xi, C, sigma, floor = 1e-3, 0.9, 0.999, 1e-8, 1.0, 1.0, 1e-12
    std = sigma * C / B
    bias = std**2
    fac, gb = np.empty(B), np.empty(d)

    def state():
        return np.zeros(d), np.zeros(d), np.zeros(d), np.zeros(d)

    th, m, v, vc = state()
    krng = np.random.default_rng(1)
    zdummy = np.empty(d)
    prm = kd.AdamParams(2, 0, lr, b1, b2, xi, C, std, 0.0, floor)  # variant 2, Adam; std_v = 0

    arrays = kd.RoundArrays(th, m, v, vc, fac, gb)

    def kernel_inkernel(row_major=False):
        kd.round_with(grads, arrays, 10, prm, bias, zdummy, zdummy, krng, True, row_major)

    nrng = np.random.default_rng(2)

    def kernel_predrawn(row_major=False):
        z = nrng.standard_normal(d)
        kd.round_with(grads, arrays, 10, prm, bias, z, z, krng, False, row_major)

    def kernel_threaded():
        z = nrng.standard_normal(d)
        kd.with_threads(threads, kd.round_parallel_with, grads, arrays, 10, prm, bias, z, z, threads)

    def kernel_threaded_row_major():
        z = nrng.standard_normal(d)
        kd.with_threads(threads, kd.round_parallel_row_major_with, grads, arrays, 10, prm, bias, z, z, krng, False,
                        threads)

    zbuf_m = np.empty(d)

    def kernel_threaded_row_major_inkernel(fn=kd.round_parallel_row_major_with):
        kd.with_threads(threads, fn, grads, arrays, 10, prm, bias, zbuf_m, zbuf_m, krng, True, threads)

    rth, rm, rv, _ = state()
    rrng = np.random.default_rng(3)
    ref = R.ReferenceSettings(lr=lr, beta1=b1, beta2=b2, xi=xi, clip_norm=C, floor=floor)

    def reference():
        nonlocal rth, rm, rv
        z = rrng.standard_normal(d)
        rth, rm, rv = R.benchmark_round_reference(grads, rth, rm, rv, 10, z, ref, std=std, bias=bias)

    paths = {"in-kernel": kernel_inkernel, "pre-drawn": kernel_predrawn}
    if kd.row_major_fits(d):  # a row and the average fit in the last-level cache: the gradients are read once
        paths["in-kernel, row-major"] = lambda: kernel_inkernel(True)
        paths["pre-drawn, row-major"] = lambda: kernel_predrawn(True)
    if threads > 1:
        paths[f"threaded ({threads})"] = kernel_threaded
        if kd.row_major_fits(d):
            paths[f"threaded ({threads}), row-major"] = kernel_threaded_row_major
            paths[f"threaded ({threads}), row-major, in-kernel"] = kernel_threaded_row_major_inkernel
            paths[f"threaded ({threads}), row-major sweeps, in-kernel"] = \
                lambda: kernel_threaded_row_major_inkernel(kd.round_parallel_row_sweeps_with)
        paths[f"threaded ({threads}), blocked, in-kernel"] = \
            lambda: kernel_threaded_row_major_inkernel(kd.round_parallel_blocked_with)
    for fn in paths.values():
        fn()  # compile / load the cache
    # each repeat times every path, then the STREAM copies, back to back: the bandwidth of this VM moves between
    # runs (by ~1.7x here), so each path's limit fraction is taken against the copy measured beside it
    copy1 = _stream_copy(4 * 10**7, 1)
    copyn = _stream_copy(4 * 10**7, threads) if threads > 1 else copy1
    times = {name: [] for name in paths}
    bw_pairs = []
    for _ in range(repeats):
        for name, fn in paths.items():
            times[name].append(_seconds(fn))
        bw_pairs.append(max(copy1(), copyn()))
    rates = {name: d / min(ts) for name, ts in times.items()}
    rate_ref = _best_rate(reference, d, max(2, repeats // 2))
    # noise generation alone, both generators
    rate_np_noise = _best_rate(lambda: nrng.standard_normal(d), d, repeats)
    zbuf = np.empty(d)

    from numba import njit

    @njit(cache=False, nogil=True)
    def draw(r, out):
        for i in range(out.shape[0]):
            out[i] = r.standard_normal()

    draw(krng, zbuf[:4])
    rate_nb_noise = _best_rate(lambda: draw(krng, zbuf), d, repeats)
    bw1 = max(copy1() for _ in range(repeats))
    bwn = max(copyn() for _ in range(repeats)) if threads > 1 else bw1
    bw = max(bw1, bwn, *bw_pairs)
    bytes_in = (2 * B + 6 + 2) * d * 8
    # memory traffic per round of each path: row-major (one thread or threaded) reads the gradients from memory once
    # (the second read, and the running average, stay in the last-level cache) and the average once in the update
    per_round_bytes = {name: (bytes_in - (B + 1) * d * 8 if "row-major" in name else bytes_in)
                       + (0 if name.startswith("in-kernel") else d * 8) for name in paths}
    for name in paths:  # the threaded in-kernel draws go through a noise buffer: written, then read by the update
        if name.startswith("threaded") and name.endswith("in-kernel"):
            per_round_bytes[name] += d * 8
    fractions = {name: per_round_bytes[name] * rates[name] / d / bw for name in paths}
    # the physical limit: the least traffic any implementation of the round must move (the gradients read once;
    # θ, m, v read and written once; the noise drawn in registers) at the measured bandwidth, over the time taken
    min_bytes = (B + 6) * d * 8
    # the achievable limit here: an exact clipped round must know a record's norm before adding it, and 64 rows of
    # 8 MB do not stay in this machine's 32 MB last-level cache between the norm and the sum, so the gradients are
    # read twice (θ, m, v still read and written once)
    min_bytes_two_read = (2 * B + 6) * d * 8

    def paired(least):  # per path: the median over the repeats of (least / the copy bandwidth beside it) / its time
        return {name: float(np.median([least / b / t for b, t in zip(bw_pairs, ts)])) for name, ts in times.items()}

    limit_fractions, limit_fractions_one_read = paired(min_bytes_two_read), paired(min_bytes)
    best = max(rates, key=rates.get)
    # what bounds it: time of the gradient passes at copy bandwidth vs the noise generation
    t_grad_at_bw = 2 * B * d * 8 / bw
    t_noise = d / rate_nb_noise
    bound = ("memory traffic over the B×d gradients" if t_grad_at_bw > t_noise else "Gaussian generation")
    return {
        "name": "dp_adam_round_1e6",
        "unit": "coordinate-updates/s",
        "kernel": rates[best],
        "reference": rate_ref,
        "peer": None,
        "speedup_vs_reference": rates[best] / rate_ref,
        "speedup_vs_peer": None,
        "bandwidth_fraction": fractions[best],
        "limit_fraction": limit_fractions[best],
        "limit_fraction_one_read": limit_fractions_one_read[best],
        "limit_fractions": limit_fractions,
        "limit_fractions_one_read": limit_fractions_one_read,
        "limit_fraction_of_bests": min_bytes_two_read * rates[best] / d / bw,
        "minimum_bytes_per_round_two_read": min_bytes_two_read,
        "stream_copy_bytes_per_s_beside_each_repeat": bw_pairs,
        "seconds_per_round_each_repeat": times[best],
        "minimum_bytes_per_round": min_bytes,
        "fastest_path": best,
        "kernel_rates": rates,
        "bandwidth_fractions": fractions,
        "bytes_per_round": per_round_bytes,
        "speedup_vs_reference_one_thread": max(r for name, r in rates.items() if "threaded" not in name) / rate_ref,
        "threads": threads,
        "stream_copy_bytes_per_s": bw,
        "stream_copy_bytes_per_s_one_thread": bw1,
        "stream_copy_bytes_per_s_threads": bwn,
        "bytes_per_round_in_kernel": bytes_in,
        "noise_draws_per_s_numba": rate_nb_noise,
        "noise_draws_per_s_numpy": rate_np_noise,
        "seconds_per_round_kernel": d / rates[best],
        "seconds_per_round_reference": d / rate_ref,
        "gradient_passes_seconds_at_copy_bandwidth": t_grad_at_bw,
        "noise_seconds_numba": t_noise,
        "bound_by": bound,
        "config": f"dp_adam_design bias-corrected DP-Adam round, d=1e6, B=64, float64, clipping active; kernel paths: "
                  f"{', '.join(paths)}",
    }


def _opacus_dp_sgd_rate(ds, steps: int, batch_size: int, alpha: float, noise_multiplier: float,
                        clip_norm: float, repeats: int) -> tuple[float | None, str]:
    """Steps/s of Opacus DP-SGD (PyTorch CPU) on the same problem, or (None, why) when absent."""
    try:
        import torch
        from opacus import PrivacyEngine
    except ImportError as exc:
        from .peers import PEER_INSTALL

        return None, f"peer skipped: {exc.name} is not installed ({PEER_INSTALL})"
    import warnings

    torch.manual_seed(0)
    feats = torch.as_tensor(ds.features, dtype=torch.float64)
    targs = torch.as_tensor(ds.targets, dtype=torch.float64)
    data = torch.utils.data.TensorDataset(feats, targs)
    loader = torch.utils.data.DataLoader(data, batch_size=batch_size, shuffle=True, drop_last=True)
    model = torch.nn.Linear(ds.d, 1, bias=False).double()
    opt = torch.optim.SGD(model.parameters(), lr=alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, opt, loader = PrivacyEngine().make_private(module=model, optimizer=opt, data_loader=loader,
                                                          noise_multiplier=noise_multiplier,
                                                          max_grad_norm=clip_norm, poisson_sampling=False)

    def run(k):
        done = 0
        while done < k:
            for a, b in loader:
                opt.zero_grad()
                (model(a).squeeze(-1) - b).abs().mean().backward()
                opt.step()
                done += 1
                if done == k:
                    return

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(5)
        rate = _best_rate(lambda: run(steps), steps, repeats)
    return rate, (f"Opacus {__import__('opacus').__version__} on PyTorch {torch.__version__} "
                  f"CPU, {torch.get_num_threads()} threads, float64")


def _adp_benchmark(quick: bool) -> dict:

    prob = smooth_nonconvex(n=2000, d=20, seed=0)
    kw = dict(eta=1.0, b_rule="poly", alpha_rule="adp", sigma=1.0)
    ks, rs, reps = (20000, 2000, 3) if quick else (200000, 20000, 5)
    run_adp(prob, steps=10, n_log=2, **kw)  # compile (or load the cache)
    k = _best_rate(lambda: run_adp(prob, steps=ks, n_log=2, seed=1, **kw), ks, reps)
    r = _best_rate(lambda: adp_reference(prob, np.random.default_rng(1), steps=rs, **kw), rs, reps)
    return _row("adp_sgd_loop", "steps/s", k, r, config="smooth_nonconvex n=2000 d=20, one record per step, "
                "polynomial b_t, α_t² = b_t, σ = 1")


def _dp_sgd_benchmark(quick: bool) -> dict:
    row = _loop_benchmark("dp_sgd_loop", "dp_sgd", 2000 if quick else 10000, 200 if quick else 1000,
                          3 if quick else 5)
    ds = kernels.make_problem("abs_regression", seed=0, n=5000, d=100)
    z = kernels.pagan.pagan_noise_multiplier(1.0, 1e-5)
    peer, note = _opacus_dp_sgd_rate(ds, 100 if quick else 500, 70, 0.1, z, 1.0, 3 if quick else 5)
    row["peer"] = peer
    row["speedup_vs_peer"] = None if peer is None else row["kernel"] / peer
    row["peer_note"] = note
    return row


def _noisy_adagrad_benchmark(quick: bool) -> dict:

    prob = kn.low_rank_glm(n=200, p=200, k=5, seed=0)
    Vt = prob.V
    ks, rs, reps = (500, 100, 3) if quick else (2000, 300, 5)
    kw = dict(sigma_b=0.05, sigma_B=0.1, options=kn.NoisyAdagradOptions(sigma_b_mode="constant"))
    kn.run_noisy_adagrad(prob, 5, 0.5, 1.0, Vt=Vt, trials=1, seed=0, **kw)  # compile (or load the cache)
    k = _best_rate(lambda: kn.run_noisy_adagrad(prob, ks, 0.5, 1.0, Vt=Vt, trials=1, seed=1, **kw), ks, reps)
    (xi, gk), = kn.draw_noise(1, 1, rs, prob.p, Vt.shape[1])
    r = _best_rate(lambda: rf.noisy_adagrad(prob, rs, 0.5, 1.0, Vt, np.full(rs, 0.05), "constant", np.full(rs, 0.1),
                                            xi, gk), rs, max(2, reps - 1))
    return _row("noisy_adagrad_p200", "steps/s", k, r,
                config="low_rank_glm n=200 p=200 k=5 (absolute loss), exact-span oracle, σ_b = 0.05, σ_B = 0.1; "
                "the reference forms the p×p matrices, the kernel works in the span of the gradients seen")


def _dp_sgd_d1e4_benchmark(quick: bool, dtype: str = "float64") -> dict:
    """DP-SGD with per-example clipping on dense logistic regression, d = 10⁴, B = 256 (:mod:`kernels.dp_sgd`),
    against its NumPy twin and, when the ``peer`` extra is installed, Opacus and jax-privacy on the same data.

    Every implementation draws its own batches and noise; steps/s is the best of the repeats after a warm-up.
    ``peers`` maps each peer to our speed over its speed (null when the peer is not installed);
    ``limit_fraction`` is the least traffic of a step (the B rows read once, w read and written) over the STREAM
    copy bandwidth measured in this run, over our time per step: the median over the repeats, each repeat timing
    ours and then the copies back to back (``limit_fraction_of_bests``: the best time against the best copy).
    """
    n, d, B = 2048, 10**4, 256  # 8 batches of records: the rows do not stay in cache between steps
    lr, clip, sigma = 0.5, 1.0, 1.0
    steps, ref_steps, repeats = (20, 4, 3) if quick else (100, 10, 5)
    prob = dense_logistic(n, d, seed=0, dtype=dtype)
    kw = dict(batch_size=B, lr=lr, clip=clip, sigma=sigma)
    run_dp_sgd(prob, steps=2, **kw)  # compile (or load the cache)
    # ours and the STREAM copies back to back in each repeat (this VM's bandwidth moves between runs)
    copies = (_stream_copy(4 * 10**7, 1), _stream_copy(4 * 10**7, 2))
    ours, bw_pairs = [], []
    for _ in range(repeats):
        ours.append(_seconds(lambda: run_dp_sgd(prob, steps=steps, seed=1, **kw)))
        bw_pairs.append(max(c() for c in copies))
    k = steps / min(ours)
    r = _best_rate(lambda: dp_sgd_reference(prob, steps=ref_steps, seed=1, **kw), ref_steps, max(2, repeats - 2))
    rates: dict[str, float | None] = {}
    notes = []
    for name in P.PEERS:
        try:
            run = P.stepper(name, prob, seed=1, **kw)
        except P.PeerMissing as exc:
            rates[name] = None
            notes.append(f"{name} skipped: {exc}")
            continue
        run(3)  # compile / warm up
        rates[name] = _best_rate(lambda: run(steps), steps, repeats)
    bw = max(bw_pairs)
    itemsize = np.dtype(dtype).itemsize
    min_bytes = minimum_bytes_per_step(B, d, itemsize)
    limit = float(np.median([min_bytes * steps / (b * t) for b, t in zip(bw_pairs, ours)]))
    present = {name: v for name, v in rates.items() if v is not None}
    strongest = max(present, key=present.get) if present else None
    if present:
        notes.insert(0, "ours over " + ", ".join(f"{name} {k / v:.3g}x" for name, v in present.items()))
    return _row(f"dp_sgd_d1e4{'_f32' if dtype == 'float32' else ''}", "steps/s", k, r,
                config=f"dense logistic regression n={n} d={d}, B={B} distinct records per step, clip {clip}, "
                       f"sigma {sigma}, {dtype}",
                peer=present.get(strongest) if strongest else None,
                limit_fraction=limit, limit_fraction_of_bests=min_bytes * k / bw,
                stream_copy_bytes_per_s_beside_each_repeat=bw_pairs, seconds_each_repeat=ours, steps_per_repeat=steps,
                peers={name: (None if v is None else k / v) for name, v in rates.items()},
                peer_rates=rates, minimum_bytes_per_step=min_bytes, stream_copy_bytes_per_s=bw,
                peer_note="; ".join(notes))


def _cuda_dp_adam_benchmark(quick: bool, sizes: tuple[int, int, int, int] | None = None) -> dict:
    """The GPU path's DP-Adam round against the card's memory bandwidth (``cuda_dp_adam_round``).

    :class:`kernels.cuda.dp_adam.DeviceRounds` advances trials × d coordinates of the bias-corrected round one
    round per launch (the state streams through device memory each round), timed with CUDA events over repeated
    launches; the card's bandwidth is a device-to-device copy kernel's (bytes read + written per second, best of
    the repeats), measured in the same run.  ``limit_fraction``: the least traffic of a round, θ, m, v read and
    written (48 bytes per coordinate; the noise can be drawn in registers), at that bandwidth, over the time taken.
    ``bandwidth_fraction``: the kernel's own traffic (plus its 16-byte noise-stream state read and written, 80
    bytes per coordinate) per second over the bandwidth.  ``multi_round_rate``: coordinate-rounds per second when
    one launch runs many rounds with the state in registers (the noise generation bounds it).  Without a GPU the
    row is empty and ``note`` says why; the simulator is never timed.  ``sizes`` (trials, d, B, copy length)
    replaces the default sizes (tests).
    """
    row = {"name": "cuda_dp_adam_round", "unit": "coordinate-updates/s", "kernel": None, "reference": None,
           "peer": None, "speedup_vs_reference": None, "speedup_vs_peer": None, "bandwidth_fraction": None,
           "limit_fraction": None}
    ok, why = kc.status()
    if not ok or "simulator" in why:
        return {**row, "note": f"not run: {why}" if not ok else "not run: only the CUDA simulator is present "
                "(it is not timed)", "config": "needs an NVIDIA GPU (pip install -e .[cuda])"}
    # here, not at the top: these import numba.cuda, which needs a GPU or the simulator (the cuda extra)
    from kernels.cuda import dp_adam as cda
    from kernels.cuda.stream import best_seconds, copy_bandwidth

    repeats = 5 if quick else 20
    trials, d, B, n_copy = sizes or ((8, 2**20, 16, 2**26) if quick else (32, 2**20, 16, 2**27))
    bw = copy_bandwidth(n_copy, repeats)
    grads = np.random.default_rng(1).standard_normal((B, d)) * (2.0 / np.sqrt(d))
    cfg = kd.RoundConfig(variant="bias_correction", lr=1e-3, sigma=1.0, clip_norm=1.0, batch_size=B, floor=1e-12)
    launches, many = 10, 100
    stream = cda.DeviceRounds(cfg, grads, trials=trials, seed=0, max_rounds=(repeats + 1) * (launches + many) + 1)
    n = stream.coordinates

    def one_per_launch():
        for _ in range(launches):
            stream.advance(1)

    rate = n * launches / best_seconds(one_per_launch, repeats)
    rate_many = n * many / best_seconds(lambda: stream.advance(many), repeats)
    st = stream.state()
    if not np.all(np.isfinite(st["theta"])):
        raise RuntimeError("cuda_dp_adam_round: the GPU rounds produced non-finite numbers")
    return {**row, "kernel": rate, "bandwidth_fraction": 80 * rate / bw, "limit_fraction": 48 * rate / bw,
            "device": why, "copy_bytes_per_s": bw,
            "multi_round_rate": rate_many, "coordinates": n, "minimum_bytes_per_coordinate": 48,
            "bytes_per_coordinate": 80, "seconds_per_round": n / rate,
            "config": f"bias-corrected DP-Adam, {trials} trials x d={d} on the GPU, one round per launch "
                      f"({launches} launches timed), noise drawn in the kernel; copy kernel over {n_copy} float64"}


def _row(name, unit, kernel, reference, config, peer=None, bandwidth_fraction=None, limit_fraction=None,
         **extra) -> dict:
    return {"name": name, "unit": unit, "kernel": kernel, "reference": reference, "peer": peer,
            "speedup_vs_reference": kernel / reference, "speedup_vs_peer": None if peer is None else kernel / peer,
            "bandwidth_fraction": bandwidth_fraction, "limit_fraction": limit_fraction, "config": config, **extra}


BENCHMARKS = {
    "pagan_loop": lambda quick: _loop_benchmark("pagan_loop", "pagan", 2000 if quick else 10000,
                                                200 if quick else 1000, 3 if quick else 5),
    "pagan_opt_loop": lambda quick: _loop_benchmark("pagan_opt_loop", "pagan_opt", 2000 if quick else 10000,
                                                    200 if quick else 1000, 3 if quick else 5),
    "dp_adam_round_1e6": _dp_adam_round_benchmark,
    "dp_sgd_loop": _dp_sgd_benchmark,
    "noisy_adagrad_p200": _noisy_adagrad_benchmark,
    "adp_sgd_loop": _adp_benchmark,
    "dp_sgd_d1e4": _dp_sgd_d1e4_benchmark,
    "dp_sgd_d1e4_f32": lambda quick: _dp_sgd_d1e4_benchmark(quick, "float32"),
    "cuda_dp_adam_round": _cuda_dp_adam_benchmark,
}


def run_benchmarks(out_dir: str | os.PathLike | None = None, quick: bool = False,
                   names: tuple[str, ...] | None = None) -> list[dict]:
    """Run the benchmarks (all, or ``names``); write ``bench.json`` under ``out_dir`` when given.

    Parameters
    ----------
    out_dir : str or path or None, optional
        Where to write ``bench.json`` (the rows and the machine's description); None writes nothing.
    quick : bool, optional
        Smaller sizes and fewer repeats.
    names : tuple of str or None, optional
        Keys of :data:`BENCHMARKS`; None or empty for all.

    Returns
    -------
    list of dict
        One row per benchmark, in the order run (name, unit, timings and ratios; see ``format_bench`` in
        :mod:`verify.cli`).

    Raises
    ------
    InvalidParameter
        Naming ``benchmark``, for a name not in :data:`BENCHMARKS`.
    """
    chosen = list(BENCHMARKS) if not names else list(names)
    unknown = [n for n in chosen if n not in BENCHMARKS]
    if unknown:

        raise InvalidParameter("benchmark", "one of " + ", ".join(BENCHMARKS), unknown[0])
    results = [BENCHMARKS[n](quick) for n in chosen]
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        meta = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}
        tmp = out / "bench.json.tmp"
        tmp.write_text(json.dumps({"benchmarks": results, "meta": meta}, indent=2))
        os.replace(tmp, out / "bench.json")
    return results


def ledger_benchmark(claims: Sequence, budget: str = "quick", seed: int = 0, slowest: int = 10,
                     processes: bool = True, progress: bool = False) -> dict:
    """Time checking ``claims`` as ``dpverify verify`` does, with a fresh task cache (nothing reused).

    The claims run into a scratch directory removed afterwards (its task cache empty, so every task is computed;
    compiled kernels are whatever Numba's cache holds, i.e. a warm JIT after a first run), in worker processes as
    ``verify`` runs them (``processes``).  CPU time is this process's and its reaped children's (the worker
    processes), user + system, from ``resource.getrusage``.

    Parameters
    ----------
    claims : sequence of verify.registry.Claim
        The claims to check.
    budget : str, optional
        "quick" (default) or "full".
    seed : int, optional
        The seed of every check (default 0).
    slowest : int, optional
        How many of the slowest claims to list (default 10).
    processes : bool, optional
        Check concurrent claims in worker processes, as ``verify`` does by default (True).
    progress : bool, optional
        Print ``verify``'s progress lines on stderr (default False).

    Returns
    -------
    dict
        A benchmark row: ``name`` ("ledger_<budget>"), ``unit`` "s", ``wall_seconds``, ``cpu_seconds``,
        ``cores_busy`` (CPU over wall), ``cores``, ``claims``, ``verdicts`` (counts), ``sum_claim_seconds`` and
        ``sum_claim_cpu_seconds`` (over the claims), ``longest_claim_seconds``, and ``slowest``: the slowest claims,
        each with its ``id``, ``verdict``, ``seconds`` (wall) and ``cpu_seconds``.
    """
    import resource
    import tempfile

    from .engine import run_claims

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    with tempfile.TemporaryDirectory(prefix="dpverify-bench-ledger-") as scratch:
        c0, t0 = cpu(), time.perf_counter()
        results = run_claims(claims, budget, seed, scratch, progress=progress, processes=processes)
        wall, cpu_s = time.perf_counter() - t0, cpu() - c0
    rows = sorted(results, key=lambda r: r.seconds, reverse=True)
    verdicts: dict[str, int] = {}
    for r in results:
        verdicts[str(r.verdict)] = verdicts.get(str(r.verdict), 0) + 1
    return {
        "name": f"ledger_{budget}",
        "unit": "s",
        "wall_seconds": wall,
        "cpu_seconds": cpu_s,
        "cores_busy": cpu_s / wall if wall > 0 else None,
        "cores": os.cpu_count(),
        "claims": len(results),
        "verdicts": verdicts,
        "failed": list(results.failed),
        "sum_claim_seconds": sum(r.seconds for r in results),
        "sum_claim_cpu_seconds": sum(r.cpu_seconds or 0.0 for r in results),
        "longest_claim_seconds": rows[0].seconds if rows else 0.0,
        "slowest": [{"id": r.id, "verdict": str(r.verdict), "seconds": r.seconds, "cpu_seconds": r.cpu_seconds}
                    for r in rows[:slowest]],
        "config": f"{len(results)} claims, --budget {budget}, seed {seed}, "
                  f"{'worker processes' if processes else 'threads'}, fresh task cache",
    }


def format_ledger(row: dict) -> str:
    """A ledger benchmark row (:func:`ledger_benchmark`) as text: the totals, then the slowest claims.

    Parameters
    ----------
    row : dict
        The row.

    Returns
    -------
    str
    """
    v = ", ".join(f"{n} {k}" for k, n in sorted(row["verdicts"].items()))
    lines = [f"{row['name']}: {row['claims']} claims in {row['wall_seconds']:.1f} s wall, "
             f"{row['cpu_seconds']:.1f} s CPU ({row['cores_busy']:.2f} of {row['cores']} cores busy); {v}",
             f"the longest claim took {row['longest_claim_seconds']:.1f} s; the claims' own times sum to "
             f"{row['sum_claim_seconds']:.1f} s wall, {row['sum_claim_cpu_seconds']:.1f} s CPU",
             "", f"{'slowest claims':<48} {'wall s':>8} {'CPU s':>8}  verdict"]
    for s in row["slowest"]:
        c = "" if s["cpu_seconds"] is None else f"{s['cpu_seconds']:.1f}"
        lines.append(f"{s['id']:<48} {s['seconds']:>8.1f} {c:>8}  {s['verdict']}")
    return "\n".join(lines)
