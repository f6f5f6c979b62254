"""Benchmarks: the fused kernels against their NumPy references, as ratios within one run.

Speed is never asserted in a test; ``dpverify bench`` measures and reports.  Each
benchmark warms the JIT first, then takes the best of several repeats (the least
disturbed measurement) for both implementations on the same configuration.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Callable

import numpy as np

import kernels
from kernels.adaptive import run_config
from kernels.reference import run_reference


def _best_rate(fn: Callable[[], None], work: int, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return work / best


def _loop_benchmark(name: str, algorithm: str, kernel_steps: int, reference_steps: int, repeats: int) -> dict:
    ds = kernels.make_problem("abs_regression", seed=0, n=5000, d=100)
    kw = dict(epsilon=1.0, delta=1e-5) if kernels.SPECS[algorithm].private else {}

    def cfg(steps):
        return kernels.make_config(algorithm, ds, steps=steps, batch_size=70, alpha=0.1, n_log=2, **kw)

    run_config(cfg(5), ds, np.random.default_rng(0))  # compile (or load the cache)
    ck, cr = cfg(kernel_steps), cfg(reference_steps)
    k = _best_rate(lambda: run_config(ck, ds, np.random.default_rng(1)), kernel_steps, repeats)
    r = _best_rate(lambda: run_reference(cr, ds, np.random.default_rng(1)), reference_steps, repeats)
    return {
        "name": name,
        "unit": "steps/s",
        "kernel": k,
        "reference": r,
        "peer": None,
        "speedup_vs_reference": k / r,
        "speedup_vs_peer": None,
        "bandwidth_fraction": None,
        "config": "abs_regression n=5000 d=100 b=70, full-data loss at start and end only",
    }


BENCHMARKS = {
    "pagan_loop": lambda quick: _loop_benchmark("pagan_loop", "pagan", 2000 if quick else 10000,
                                                200 if quick else 1000, 3 if quick else 5),
    "pagan_opt_loop": lambda quick: _loop_benchmark("pagan_opt_loop", "pagan_opt", 2000 if quick else 10000,
                                                    200 if quick else 1000, 3 if quick else 5),
}


def run_benchmarks(out_dir: str | os.PathLike | None = None, quick: bool = False,
                   names: tuple[str, ...] | None = None) -> list[dict]:
    """Run the benchmarks (all, or ``names``); write ``bench.json`` under ``out_dir`` when given."""
    chosen = list(BENCHMARKS) if not names else list(names)
    unknown = [n for n in chosen if n not in BENCHMARKS]
    if unknown:
        from kernels.validate import InvalidParameter

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
