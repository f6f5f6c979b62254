"""The GPU row of ``dpverify bench`` (``cuda_dp_adam_round``): empty with the reason where no GPU is present, and its
arithmetic (rates, fractions of the measured bandwidth) checked under the CUDA simulator with a wall-clock timer in
place of CUDA events (the simulator's events measure nothing)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from kernels import cuda as kc
from verify.bench import BENCHMARKS
from verify.cli import format_bench

SCRIPT = textwrap.dedent("""
    import json, time
    from kernels import cuda as kc
    import kernels.cuda.stream as ks
    import verify.bench as b

    kc.status = lambda: (True, "GPU: pretend")
    calls = []

    def wall(launch, repeats):  # what the row times, by the wall clock: one warm-up call, then the best of repeats
        launch()
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            launch()
            best = min(best, time.perf_counter() - t)
        calls.append(best)
        return best

    ks.best_seconds = wall
    row = b._cuda_dp_adam_benchmark(True, sizes=(2, 8, 4, 64))
    print(json.dumps({"row": row, "calls": calls}))
""")


def test_without_a_gpu_the_row_is_empty_and_says_why():
    ok, why = kc.status()
    if ok and "simulator" not in why:
        pytest.skip(f"a GPU is present here: {why}")
    row = BENCHMARKS["cuda_dp_adam_round"](True)
    assert row["kernel"] is None and row["limit_fraction"] is None
    assert row["note"].startswith("not run:")
    assert "cuda_dp_adam_round: not run:" in format_bench([row])


def test_gpu_row_arithmetic_under_the_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    row, (t_copy, t_one, t_many) = out["row"], out["calls"]
    n = 2 * 8
    assert row["coordinates"] == n
    bw = 2 * 64 * 8 / t_copy  # the copy kernel: 64 float64 read and written
    assert row["copy_bytes_per_s"] == pytest.approx(bw, rel=1e-12)
    assert row["kernel"] == pytest.approx(n * 10 / t_one, rel=1e-12)  # ten one-round launches
    assert row["multi_round_rate"] == pytest.approx(n * 100 / t_many, rel=1e-12)  # one launch of 100 rounds
    assert row["limit_fraction"] == pytest.approx(48 * row["kernel"] / bw, rel=1e-12)
    assert row["bandwidth_fraction"] == pytest.approx(80 * row["kernel"] / bw, rel=1e-12)
