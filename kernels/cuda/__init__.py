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


class CudaUnavailable(RuntimeError):
    """Neither a usable GPU nor the CUDA simulator is present (the message says which and why)."""


def status() -> tuple[bool, str]:
    """(available, reason): whether the CUDA path can run here, and what it runs on.

    Under the simulator it also installs the lock on its shared-array allocation (see
    ``_serialise_simulator_shared_arrays``).

    Returns
    -------
    available : bool
        Whether a GPU or the simulator can run the kernels.
    reason : str
        What they run on, or why not.
    """
    try:
        from numba import config, cuda
    except Exception as exc:  # pragma: no cover - numba is a hard dependency
        return False, f"numba.cuda cannot be imported: {exc}"
    if config.ENABLE_CUDASIM:
        _serialise_simulator_shared_arrays()
        return True, "the Numba CUDA simulator (NUMBA_ENABLE_CUDASIM=1): CPU, slow, for tests"
    try:
        if cuda.is_available():
            name = cuda.get_current_device().name
            return True, f"GPU: {name.decode() if isinstance(name, bytes) else name}"
        return False, ("no CUDA GPU or driver was found (numba.cuda.is_available() is False); "
                       "set NUMBA_ENABLE_CUDASIM=1 before importing numba to use the simulator")
    except Exception as exc:  # driver present but broken
        return False, f"the CUDA driver failed: {type(exc).__name__}: {exc}"


def _serialise_simulator_shared_arrays() -> None:
    """Make the simulator's ``cuda.shared.array`` allocation atomic (idempotent; simulator only).

    The simulator runs a block's threads as Python threads and keeps one allocation per source line for the whole
    launch; its lookup-then-store is not locked, so when the interpreter switches threads between the two, threads of
    the *first* block can each get a private array instead of the shared one.  The block-per-trial DP-Adam kernel then
    adds partial norms another thread never sees, and trial 0 alone comes out wrong (seen in CI as a same-seed
    mismatch in row 0 only).  A real GPU allocates shared memory per block before any thread runs; the guard is
    installed only under the simulator, where it makes the first allocation of each array happen once, under a lock.
    """
    try:
        from numba.cuda.simulator import kernelapi
    except Exception:  # pragma: no cover - the simulator ships with numba.cuda
        return
    shared = getattr(kernelapi, "FakeCUDAShared", None)
    if shared is None or getattr(shared.array, "_dpverify_serialised", False):
        return
    try:  # the layout this guard knows (numba 0.6x): a per-launch dict of allocations keyed by (file, line)
        known = isinstance(shared(0)._allocations, dict)
    except Exception:
        known = False
    if not known:  # another simulator: leave it as it is
        return
    import sys
    import threading
    import traceback

    import numpy as np
    from numba.core import types
    from numba.np import numpy_support

    lock = threading.Lock()
    original = shared.array

    def array(self, shape, dtype):
        if shape == 0:  # dynamic shared memory: one preallocated buffer, no race
            return original(self, shape, dtype)
        caller = traceback.extract_stack(sys._getframe())[-2][0:2]  # the key the simulator uses: (file, line)
        with lock:
            found = self._allocations.get(caller)
            if found is None:
                if isinstance(dtype, types.Type):
                    dtype = numpy_support.as_dtype(dtype)
                found = self._allocations[caller] = np.empty(shape, dtype)
            return found

    array._dpverify_serialised = True
    shared.array = array


def require() -> None:
    """Check that the CUDA path can run here (:func:`status`).

    Raises
    ------
    CudaUnavailable
        Neither a usable GPU nor the simulator is present; the message gives :func:`status`'s reason.
    """
    ok, why = status()
    if not ok:
        raise CudaUnavailable(f"the CUDA path is unavailable: {why}")


def __getattr__(name):  # lazy: importing kernels.cuda never compiles anything by itself
    if name in ("run_algorithm_batch", "run_adp_batch", "BatchOutput"):
        require()
        from kernels.cuda import loops

        return getattr(loops, name)
    raise AttributeError(name)
