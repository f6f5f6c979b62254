"""The card's memory bandwidth, measured: a device-to-device copy kernel timed with CUDA events.

The benchmarks set the GPU path's traffic against this figure, measured in the same run
(:func:`copy_bandwidth`), as the CPU benchmarks set theirs against a STREAM copy.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numba import cuda

from kernels.cuda import require


@cuda.jit
def _copy(dst, src):
    """dst[i] = src[i], grid-stride."""
    for i in range(cuda.grid(1), src.shape[0], cuda.gridsize(1)):
        dst[i] = src[i]


def best_seconds(launch: Callable[[], None], repeats: int) -> float:
    """The least time of ``repeats`` calls of ``launch``, each timed with CUDA events (after one warm-up call).

    Parameters
    ----------
    launch : callable
        Launches GPU work (asynchronously or not); takes no arguments.
    repeats : int
        Timed calls.

    Returns
    -------
    float
        Seconds of the fastest call.

    Raises
    ------
    kernels.cuda.CudaUnavailable
        Neither a GPU nor the simulator is available.
    """
    require()
    launch()
    cuda.synchronize()
    best = np.inf
    for _ in range(max(1, int(repeats))):
        start, end = cuda.event(), cuda.event()
        start.record()
        launch()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3)
    return float(best)


def copy_bandwidth(n: int, repeats: int) -> float:
    """Bytes read plus written per second by a device-to-device copy of ``n`` float64 values (best of ``repeats``).

    Parameters
    ----------
    n : int
        Values copied (8·n bytes read, 8·n written).
    repeats : int
        Timed copies.

    Returns
    -------
    float
        Bytes per second.

    Raises
    ------
    kernels.cuda.CudaUnavailable
        Neither a GPU nor the simulator is available.
    """
    require()
    src = cuda.to_device(np.random.default_rng(0).standard_normal(int(n)))
    dst = cuda.device_array_like(src)
    blocks = min(2**16, (src.shape[0] + 1023) // 1024)  # about four elements per thread
    return 2 * src.nbytes / best_seconds(lambda: _copy[blocks, 256](dst, src), repeats)
