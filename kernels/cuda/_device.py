"""Whether the CUDA path can run here (a GPU, or Numba's CUDA simulator), and the simulator's shared-array guard.

Its own module so that the kernels of :mod:`kernels.cuda` can ask :func:`status` without importing the package that
re-exports them; :mod:`kernels.cuda` re-exports :class:`CudaUnavailable`, :func:`status` and :func:`require`.
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
