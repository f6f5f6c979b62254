"""The CUDA path under Numba's simulator, at tiny sizes: it agrees with the CPU kernels in distribution.

The simulator must be switched on before Numba is imported, so the GPU side runs in a
subprocess with ``NUMBA_ENABLE_CUDASIM=1`` (once per module).  The streams differ (xoroshiro128+ per thread vs
NumPy's PCG64), so agreement is statistical: the difference of the two trial means lies
within 3.29 standard errors (a two-sided 99.9% Welch interval; Bonferroni over several).  Where the GPU can be
fed the CPU's noise (DP-Adam's ``unit_noise``), the two agree to rounding.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kernels
from kernels import cuda as kc
from kernels.adp import run_adp, smooth_nonconvex

Z999 = 3.2905  # two-sided 99.9% normal quantile
ON_GPU = os.environ.get("DPVERIFY_CUDA_TESTS") == "gpu"

GPU_SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import kernels
    from kernels import cuda as kc
    from kernels.adp import smooth_nonconvex
    kc.require()
    # Widen the simulator's window between looking up and storing a shared-array allocation (its per-launch dict),
    # as a loaded CI machine does by chance: without kernels.cuda's lock the first block's threads then get
    # private arrays and the block kernel's trial 0 goes wrong (the given-noise and same-seed tests below fail).
    import time
    from numba import config
    if config.ENABLE_CUDASIM:
        from numba.cuda.simulator import kernelapi

        class SlowLookup(dict):
            def get(self, *a):
                found = dict.get(self, *a)
                time.sleep(2e-3)
                return found

        init = kernelapi.FakeCUDAShared.__init__

        def slow_init(self, *a, **kw):
            init(self, *a, **kw)
            self._allocations = SlowLookup()

        kernelapi.FakeCUDAShared.__init__ = slow_init
    ds = kernels.make_problem("abs_regression", seed=0, n=60, d=4)
    out = {}
    for name in ("pagan", "dp_sgd"):
        r = kc.run_algorithm_batch(name, ds, epsilon=1.0, delta=1e-5, steps=20, batch_size=5, alpha=0.1, trials=64,
                                   seed=1)
        out[name] = {"final": r.final_loss.tolist(), "avg": r.avg_loss.tolist(), "clipped": r.clipped_fraction.tolist(),
                     "device": r.device}
    again = kc.run_algorithm_batch("pagan", ds, epsilon=1.0, delta=1e-5, steps=20, batch_size=5, alpha=0.1,
                                   trials=16, seed=1)  # thread t's stream does not depend on the trial count
    out["pagan_repeat_final"] = again.final_loss.tolist()
    p = smooth_nonconvex(n=50, d=3, seed=0)
    r = kc.run_adp_batch(p, steps=30, sigma=0.5, alpha_rule="adp", trials=64, seed=2)
    out["adp"] = {"final": r.final_loss.tolist()}
    import numpy as np
    from kernels import dp_adam as kd
    from kernels.cuda import dp_adam as cda
    grads = np.random.default_rng(0).standard_normal((4, 6))
    for name, sigma, trials in (("exact", 0.0, 2), ("noisy", 2.0, 48)):
        cfg = kd.RoundConfig(variant="bias_correction", lr=0.05, sigma=sigma, clip_norm=1.0, batch_size=4, floor=1e-8)
        r = cda.run_rounds_batch(cfg, grads, 8, trials=trials, seed=3)
        out["dp_adam_" + name] = {k: np.asarray(r[k]).tolist() for k in ("theta", "v", "neg_frac")}
    # --- every DP-Adam variant on the GPU: DP-MF, scale-then-privatize (the block kernel), given unit noise ---
    sys.setswitchinterval(2e-5)  # the simulator's barriers poll its threads: a short interval keeps them cheap
    inputs = np.load(sys.argv[1])

    def arrays(r):
        return {k: np.asarray(r[k]).tolist() for k in ("theta", "m", "v", "neg_frac")}

    for name, kw, strat_kind, kernel, B, d, rounds, trials in json.loads(sys.argv[2]):
        r = cda.run_rounds_batch(kd.RoundConfig(**kw), inputs[name + "_grads"], rounds, trials=trials, seed=0,
                                 strat_kind=strat_kind, unit_noise=inputs[name + "_unit"], kernel=kernel)
        out["given_" + name] = arrays(r)
    out["gpu_variants"] = list(cda.GPU_VARIANTS)
    for variant in ("scale_then_privatize", "noiseless_stp"):  # sigma = 0: deterministic
        cfg = kd.RoundConfig(variant=variant, lr=0.05, sigma=0.0, clip_norm=1.0, batch_size=4, xi=1e-3)
        out["exact_" + variant] = arrays(cda.run_rounds_batch(cfg, grads, 8, trials=2, seed=3))
    stp = kd.RoundConfig(variant="scale_then_privatize", lr=0.05, sigma=2.0, clip_norm=1.0, batch_size=4, xi=1e-3)
    out["stp_noisy"] = arrays(cda.run_rounds_batch(stp, grads, 8, trials=32, seed=5))
    out["stp_repeat"] = [arrays(cda.run_rounds_batch(stp, grads, 8, trials=4, seed=5))["theta"] for _ in range(2)]
    for name, variant, strat_kind in (("pp_half", "post_processing", "half"), ("ime", "ime", "identity")):
        cfg = kd.RoundConfig(variant=variant, lr=0.05, sigma=1.5, clip_norm=1.0, batch_size=4, xi=1e-3, floor=1e-8)
        out["kernels_" + name] = {kernel: arrays(cda.run_rounds_batch(cfg, grads, 6, trials=4, seed=7,
                                                                     strat_kind=strat_kind, kernel=kernel))
                                  for kernel in ("block", "coordinate")}

    # the streaming class: rounds split over launches give the numbers of one launch
    bc = kd.RoundConfig(variant="bias_correction", lr=0.05, sigma=2.0, clip_norm=1.0, batch_size=4, floor=1e-8)
    stream = cda.DeviceRounds(bc, grads, trials=3, seed=9, max_rounds=5)
    stream.advance(2)
    stream.advance(3)
    stream.synchronize()
    out["device_rounds"] = {"one": arrays(cda.run_rounds_batch(bc, grads, 5, trials=3, seed=9)),
                            "split": arrays(stream.state())}

    def refused(fn):  # [name, message] of the InvalidParameter, None if accepted
        try:
            fn()
        except kernels.InvalidParameter as exc:
            return [exc.name, str(exc)]
        return None

    out["device_rounds_errors"] = {"past_max": refused(lambda: stream.advance(1)),
                                   "stp": refused(lambda: cda.DeviceRounds(stp, grads, trials=2))}

    def error(cfg=stp, grads=grads, rounds=2, **kw):  # [name, message] of the InvalidParameter, None if accepted
        try:
            cda.run_rounds_batch(cfg, grads, rounds, trials=2, **kw)
        except kernels.InvalidParameter as exc:
            return [exc.name, str(exc)]
        return None

    ime = kd.RoundConfig(variant="ime", sigma=1.0, batch_size=4)
    pp_big = kd.RoundConfig(variant="post_processing", sigma=1.0, batch_size=1025)
    stp_big = kd.RoundConfig(variant="scale_then_privatize", xi=1e-3, batch_size=1025)
    out["errors"] = {
        "batch_cap": error(stp_big, np.ones((1025, 2))),
        "batch_cap_block": error(pp_big, np.ones((1025, 2)), kernel="block"),
        "batch_uncapped_coordinate": error(pp_big, np.ones((1025, 2)), rounds=1),
        "strat_kind": error(strat_kind="toeplitz"),
        "bands": error(strat_kind="banded", bands=0),
        "rounds_dpmf": error(strat_kind="half", rounds=10**4 + 1),
        "unit_shape": error(unit_noise=np.zeros((2, 2, 7))),
        "unit_ime_layout": error(ime, unit_noise=np.zeros((2, 2, 6))),
        "unit_nan": error(unit_noise=np.full((2, 2, 6), np.nan)),
        "kernel_name": error(kernel="warp"),
        "kernel_stp": error(kernel="coordinate"),
    }
    try:
        kc.run_algorithm_batch("pdp_sgd", ds, epsilon=1.0, delta=1e-5, steps=2, trials=2)
    except kernels.InvalidParameter as exc:
        out["pdp_error"] = str(exc)
    json.dump(out, sys.stdout)
""")


def _cfg(variant: str, optimizer: str, batch_size: int) -> dict:
    return dict(variant=variant, optimizer=optimizer, lr=0.05, sigma=1.5, clip_norm=1.0, batch_size=batch_size,
                xi=1e-3, floor=1e-8)


# DP-Adam runs fed given unit noise, checked against the CPU round: (name, RoundConfig fields, strat_kind, kernel,
# B, d, rounds, trials).  The block kernel runs scale-then-privatize and noiseless_stp ("auto"); B = 1024 at d = 8
# (the cap, two chunks of 512 records) and d = 130 (threads striding over two coordinates) cover its reductions.
GIVEN_NOISE_CASES = [
    ("stp_adam", _cfg("scale_then_privatize", "adam", 4), "identity", "auto", 4, 6, 6, 3),
    ("stp_adagrad_half", _cfg("scale_then_privatize", "adagrad", 4), "half", "auto", 4, 6, 6, 3),
    ("nstp_adam_banded", _cfg("noiseless_stp", "adam", 4), "banded", "auto", 4, 6, 6, 3),
    ("nstp_adagrad_sqrt", _cfg("noiseless_stp", "adagrad", 4), "sqrt", "auto", 4, 6, 6, 3),
    ("stp_cap_two_chunks", _cfg("scale_then_privatize", "adam", 1024), "identity", "auto", 1024, 8, 2, 1),
    ("stp_strided_sqrt", _cfg("scale_then_privatize", "adam", 3), "sqrt", "auto", 3, 130, 2, 1),
    ("pp_half_adam", _cfg("post_processing", "adam", 4), "half", "coordinate", 4, 6, 6, 3),
    ("pp_sqrt_adagrad", _cfg("post_processing", "adagrad", 4), "sqrt", "coordinate", 4, 6, 6, 3),
    ("ime_banded_adam", _cfg("ime", "adam", 4), "banded", "coordinate", 4, 6, 6, 3),
    ("ime_sqrt_adagrad", _cfg("ime", "adagrad", 4), "sqrt", "coordinate", 4, 6, 6, 3),
    ("bc_sqrt_adam", _cfg("bias_correction", "adam", 4), "sqrt", "coordinate", 4, 6, 6, 3),
    ("bc_half_adagrad", _cfg("bias_correction", "adagrad", 4), "half", "coordinate", 4, 6, 6, 3),
    ("ime_half_block", _cfg("ime", "adam", 4), "half", "block", 4, 6, 6, 3),
    ("bc_banded_block", _cfg("bias_correction", "adam", 4), "banded", "block", 4, 6, 6, 3),
]


def _given_inputs(index: int, case) -> tuple[np.ndarray, np.ndarray]:
    """(grads, unit noise) of a case: record norms from about 0.5·√(d/6) to 2.5·√(d/6) (with C = 1, the small ones
    are clipped only in the scaled geometry); unit noise (rounds, trials, d), or (rounds, trials, 2, d) for IME."""
    name, kw, _, _, B, d, rounds, trials = case
    rng = np.random.default_rng(100 + index)
    grads = rng.standard_normal((B, d)) * np.linspace(0.2, 1.0, B)[:, None]
    unit = rng.standard_normal((rounds, trials, 2, d) if kw["variant"] == "ime" else (rounds, trials, d))
    return grads, unit


@pytest.fixture(scope="module")
def gpu(tmp_path_factory):
    inputs = tmp_path_factory.mktemp("cuda_sim") / "inputs.npz"
    arrays = {}
    for i, case in enumerate(GIVEN_NOISE_CASES):
        arrays[case[0] + "_grads"], arrays[case[0] + "_unit"] = _given_inputs(i, case)
    np.savez(inputs, **arrays)
    # DPVERIFY_CUDA_TESTS=gpu runs the same checks on a real GPU (no simulator), where one is present
    env = dict(os.environ) if ON_GPU else dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", GPU_SCRIPT, str(inputs), json.dumps(GIVEN_NOISE_CASES)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _agree(a, b) -> tuple[bool, float]:
    a, b = np.asarray(a), np.asarray(b)
    se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    z = abs(a.mean() - b.mean()) / se
    return z <= Z999, z


@pytest.mark.parametrize("name", ["pagan", "dp_sgd"])
def test_pagan_family_agrees_with_the_cpu_kernel(gpu, name):
    ds = kernels.make_problem("abs_regression", seed=0, n=60, d=4)
    cpu = kernels.run_algorithm(name, ds, epsilon=1.0, delta=1e-5, steps=20, batch_size=5, alpha=0.1, trials=64,
                                seed=1, n_log=2)
    g = gpu[name]
    assert ("GPU" if ON_GPU else "simulator") in g["device"]
    for key, ref in (("final", cpu.final_loss), ("avg", cpu.avg_losses[:, -1]), ("clipped", cpu.clipped_fraction)):
        ok, z = _agree(g[key], ref)
        assert ok, f"{name} {key}: GPU mean {np.mean(g[key]):.4g} vs CPU {np.mean(ref):.4g}, |z| = {z:.2f}"


def test_same_seed_same_numbers_on_the_gpu_path(gpu):
    assert gpu["pagan_repeat_final"] == gpu["pagan"]["final"][:16]
    assert len(set(gpu["pagan"]["final"])) > 1  # the trials are different streams


def test_adp_sgd_agrees_with_the_cpu_kernel(gpu):
    p = smooth_nonconvex(n=50, d=3, seed=0)
    cpu = run_adp(p, steps=30, sigma=0.5, alpha_rule="adp", trials=64, seed=2, n_log=2)["grad_norm2"][:, -1]
    ok, z = _agree(gpu["adp"]["final"], cpu)
    assert ok, f"|z| = {z:.2f}"


def test_pdp_sgd_is_refused_with_a_clear_message(gpu):
    assert "pdp_sgd" in gpu["pdp_error"] and "CPU-only" in gpu["pdp_error"]


def test_without_gpu_or_simulator_the_path_says_why():
    ok, why = kc.status()
    if ok:
        pytest.skip(f"a CUDA device is present here: {why}")
    assert "NUMBA_ENABLE_CUDASIM" in why
    with pytest.raises(kc.CudaUnavailable, match="unavailable"):
        kc.require()
    with pytest.raises(kc.CudaUnavailable):
        kc.run_algorithm_batch  # noqa: B018 - attribute access triggers the check


def _cpu_dp_adam(sigma: float, trials: int):
    from kernels import dp_adam as kd

    grads = np.random.default_rng(0).standard_normal((4, 6))
    cfg = kd.RoundConfig(variant="bias_correction", lr=0.05, sigma=sigma, clip_norm=1.0, batch_size=4, floor=1e-8)
    return kd.run_stream(cfg, lambda t, th, rng: grads, 6, 8, trials=trials, seed=3)


def _assert_coordinate_means_agree(gpu_out: dict, cpu_out: dict) -> None:
    """Per coordinate, the GPU and CPU trial means of v_T and θ_T agree: Welch z within the two-sided 99.9%
    quantile, Bonferroni over the 2·d comparisons."""
    from scipy.stats import norm

    d = np.asarray(cpu_out["v"]).shape[1]
    zcrit = norm.ppf(1 - 0.001 / (2 * 2 * d))
    for key in ("v", "theta"):
        a, b = np.asarray(gpu_out[key]), np.asarray(cpu_out[key])
        se = np.sqrt(a.var(axis=0, ddof=1) / a.shape[0] + b.var(axis=0, ddof=1) / b.shape[0])
        z = np.abs(a.mean(axis=0) - b.mean(axis=0)) / se
        assert np.all(z <= zcrit), (key, z)


def test_dp_adam_rounds_without_noise_equal_the_cpu_round(gpu):
    cpu = _cpu_dp_adam(0.0, 2)
    g = gpu["dp_adam_exact"]
    np.testing.assert_allclose(g["theta"], cpu["theta"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g["v"], cpu["v"], rtol=1e-12, atol=1e-14)


def test_dp_adam_rounds_with_noise_agree_in_distribution(gpu):
    """Per coordinate, the trial means of v_T and θ_T agree (Bonferroni over the 2·6 comparisons at 99.9%)."""
    from scipy.stats import norm

    cpu = _cpu_dp_adam(2.0, 48)
    g = gpu["dp_adam_noisy"]
    _assert_coordinate_means_agree(g, cpu)
    # per-round fraction of negative corrected v̂: two proportions over 48·6 independent (trial, coordinate)
    # pairs each, compared with a two-proportion z-test, Bonferroni over the 8 rounds
    pg, pc = np.asarray(g["neg_frac"]), cpu["neg_frac"].mean(axis=0)
    pbar = (pg + pc) / 2
    se = np.sqrt(np.maximum(pbar * (1 - pbar), 1e-12) * 2 / 288)
    assert np.all(np.abs(pg - pc) <= norm.ppf(1 - 0.001 / 16) * se), (pg, pc)
    assert pc.max() > 0  # the setting does produce negative corrected v̂ (the comparison is not vacuous)





# ======================================================================================
# Every variant on the GPU: DP-MF, scale-then-privatize (block kernel), given unit noise
# ======================================================================================
def _cpu_given_noise(kw: dict, strat_kind: str, grads: np.ndarray, unit: np.ndarray) -> dict:
    """The CPU round (``kd.step``) fed the same unit noise, correlated by the strategy's dense Toeplitz C⁻¹ (not the
    recursive filter the GPU runs), with the sensitivity and bias schedule of ``run_stream``."""
    from kernels import dp_adam as kd

    cfg = kd.RoundConfig(**kw).validated()
    rounds, trials, d = unit.shape[0], unit.shape[1], grads.shape[1]
    u = unit if unit.ndim == 4 else unit[:, :, None, :]
    strat = kd.strategy(strat_kind, rounds) if strat_kind != "identity" else None
    if strat is not None:
        u = np.einsum("ts,skpj->tkpj", kd.toeplitz_matrix(strat.cinv, rounds), u)
    sens = 1.0 if strat is None else strat.sensitivity
    bias = kd.bias_schedule(cfg, strat, rounds) if cfg.variant == "bias_correction" else np.zeros(rounds)
    out = {k: np.empty((trials, d)) for k in ("theta", "m", "v")}
    out["neg_frac"] = np.zeros(rounds)
    for k in range(trials):
        st = kd.State.zeros(d)
        for t in range(rounds):
            out["neg_frac"][t] += kd.step(cfg, st, grads, u[t, k, 0], u[t, k, -1], sens, bias[t]) / (trials * d)
        out["theta"][k], out["m"][k], out["v"][k] = st.theta, st.m, st.v
    return out


def test_every_variant_runs_on_the_gpu(gpu):
    from kernels import dp_adam as kd

    assert sorted(gpu["gpu_variants"]) == sorted(kd.VARIANTS)


@pytest.mark.parametrize("index", range(len(GIVEN_NOISE_CASES)), ids=[c[0] for c in GIVEN_NOISE_CASES])
def test_dp_adam_with_given_noise_equals_the_cpu_round(gpu, index):
    """θ, m, v equal to rounding (the GPU adds the record norms in another order): scale-then-privatize and
    noiseless_stp on the block kernel, DP-MF (half, banded, sqrt) on both kernels; the negative-v̂ counts agree."""
    case = GIVEN_NOISE_CASES[index]
    name, kw, strat_kind = case[:3]
    grads, unit = _given_inputs(index, case)
    cpu = _cpu_given_noise(kw, strat_kind, grads, unit)
    g = gpu["given_" + name]
    for key in ("theta", "m", "v"):
        np.testing.assert_allclose(g[key], cpu[key], rtol=1e-12, atol=1e-14, err_msg=f"{name} {key}")
    np.testing.assert_allclose(g["neg_frac"], cpu["neg_frac"], rtol=0, atol=1e-12, err_msg=name)
    if unit.shape[1] > 1:  # the trials saw different noise (the noise entered the update)
        assert np.ptp(np.asarray(g["theta"]), axis=0).min() > 0


@pytest.mark.parametrize("variant", ["scale_then_privatize", "noiseless_stp"])
def test_state_dependent_clipping_without_noise_equals_the_cpu_round(gpu, variant):
    from kernels import dp_adam as kd

    grads = np.random.default_rng(0).standard_normal((4, 6))
    cfg = kd.RoundConfig(variant=variant, lr=0.05, sigma=0.0, clip_norm=1.0, batch_size=4, xi=1e-3)
    cpu = kd.run_stream(cfg, lambda t, th, rng: grads, 6, 8, trials=2, seed=3)
    g = gpu["exact_" + variant]
    for key in ("theta", "v"):
        np.testing.assert_allclose(g[key], cpu[key], rtol=1e-12, atol=1e-14)


def test_scale_then_privatize_draws_agree_with_the_cpu_in_distribution(gpu):
    """Per coordinate, the trial means of v_T and θ_T agree with ``run_stream`` (Bonferroni over 2·6 comparisons
    at 99.9%)."""
    from kernels import dp_adam as kd

    grads = np.random.default_rng(0).standard_normal((4, 6))
    cfg = kd.RoundConfig(variant="scale_then_privatize", lr=0.05, sigma=2.0, clip_norm=1.0, batch_size=4, xi=1e-3)
    cpu = kd.run_stream(cfg, lambda t, th, rng: grads, 6, 8, trials=32, seed=5)
    g = gpu["stp_noisy"]
    _assert_coordinate_means_agree(g, cpu)


def test_block_kernel_same_seed_same_numbers(gpu):
    first, again = gpu["stp_repeat"]
    assert first == again
    assert first == gpu["stp_noisy"]["theta"][:4]  # trial k's streams do not depend on the trial count
    assert len({row[0] for row in first}) == 4  # the trials are different streams


@pytest.mark.parametrize("name", ["pp_half", "ime"])
def test_block_kernel_equals_the_per_coordinate_kernel_for_the_same_seed(gpu, name):
    """Coordinate (k, j) draws from stream k·d + j on both kernels (post_processing with DP-MF 'half'; IME's two
    draws per round), so they agree to rounding (the block kernel averages the clipped records itself)."""
    g = gpu["kernels_" + name]
    for key in ("theta", "m", "v"):
        np.testing.assert_allclose(g["block"][key], g["coordinate"][key], rtol=1e-12, atol=1e-14, err_msg=key)
    assert g["block"]["neg_frac"] == g["coordinate"]["neg_frac"]
    assert np.ptp(np.asarray(g["block"]["theta"]), axis=0).min() > 0


@pytest.mark.parametrize("key, name, words", [
    ("batch_cap", "grads, batch_size", "at most 1024 records"),
    ("batch_cap_block", "grads, batch_size", "at most 1024 records"),
    ("strat_kind", "strat_kind", "one of identity, half, banded, sqrt"),
    ("bands", "bands", "an integer in [1, 64]"),
    ("rounds_dpmf", "rounds, strat_kind", "at most 10000 rounds"),
    ("unit_shape", "unit_noise", "shape (2, 2, 6)"),
    ("unit_ime_layout", "unit_noise", "shape (2, 2, 2, 6)"),
    ("unit_nan", "unit_noise", "finite"),
    ("kernel_name", "kernel", "one of auto, coordinate, block"),
    ("kernel_stp", "kernel", "'auto' or 'block'"),
])
def test_dp_adam_bad_input_is_refused_naming_the_parameter(gpu, key, name, words):
    got = gpu["errors"][key]
    assert got is not None, f"{key} was accepted"
    assert got[0] == name and words in got[1], got


def test_per_coordinate_kernel_takes_any_batch_size(gpu):
    assert gpu["errors"]["batch_uncapped_coordinate"] is None


def test_device_rounds_split_over_launches_equal_one_launch(gpu):
    one, split = gpu["device_rounds"]["one"], gpu["device_rounds"]["split"]
    for key in ("theta", "m", "v", "neg_frac"):
        assert split[key] == one[key], key
    assert len(set(np.ravel(one["theta"]))) > 1  # noisy: the trials differ, so equality is not trivial


def test_device_rounds_refuses_bad_input_naming_the_parameter(gpu):
    errors = gpu["device_rounds_errors"]
    assert errors["past_max"][0] == "rounds" and "max_rounds = 5" in errors["past_max"][1]
    assert errors["stp"][0] == "cfg.variant" and "scale_then_privatize" in errors["stp"][1]
