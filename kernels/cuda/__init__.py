"""Optional CUDA path: many trials per launch, xoroshiro128+ streams.

Import :mod:`kernels.cuda` only through :func:`require` (or check :func:`status`): the path
needs either an NVIDIA GPU with a working driver or Numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``, set before Numba is imported; it runs the same kernels on
the CPU, slowly — for tests at tiny sizes).  Install with ``pip install -e .[cuda]``.

The device helpers (clip factor, ellipsoid and H-norm projections, dot, the DP-Adam coordinate
update) are compiled from the same Python source as the CPU ones (:mod:`kernels._shared` via
:func:`kernels._compile.compile_helpers`), so the two paths cannot drift.  The random
streams differ from the CPU kernels' (xoroshiro128+ per thread instead of NumPy's PCG64),
so CPU and GPU agree in distribution, not draw by draw; the tests check that agreement
statistically under the simulator, and, where the GPU takes given noise (DP-Adam's
``unit_noise``), equality with the CPU to rounding.

Entry points (:mod:`kernels.cuda.loops`: one thread per trial; :mod:`kernels.cuda.dp_adam`: every DP-Adam
variant, one thread per (trial, coordinate), or one block per trial where the clipping depends on the state)::

    from kernels import cuda as kc
    kc.require()                                   # raises CudaUnavailable with the reason
    out = kc.run_algorithm_batch("pagan", ds, epsilon=1, delta=1e-5, steps=500, trials=4096, seed=0)
    out = kc.run_adp_batch(problem, alpha_rule="adp", sigma=1.0, steps=1000, trials=4096, seed=0)

    from kernels.cuda import dp_adam as cda           # all seven DP-Adam variants, DP-MF strategies too
    out = cda.run_rounds_batch(cfg, grads, rounds=1000, trials=64, seed=0, strat_kind="banded", bands=4)
"""

from __future__ import annotations

from kernels.cuda._device import CudaUnavailable, require, status

__all__ = ["CudaUnavailable", "require", "status"]


def __getattr__(name):  # lazy: importing kernels.cuda never compiles anything by itself
    if name in ("run_algorithm_batch", "run_adp_batch", "BatchOutput"):
        require()
        from kernels.cuda import loops

        return getattr(loops, name)
    raise AttributeError(name)
