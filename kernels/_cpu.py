"""The shared helpers compiled for the CPU (inlined into the kernels that call them)."""

import numpy as np
from numba import njit

from kernels._compile import compile_helpers

cpu = compile_helpers(njit(inline="always", cache=False, nogil=True))

shrink_mu = cpu.shrink_mu
project_ellipsoid = cpu.project_ellipsoid
clip_factor = cpu.clip_factor
dot = cpu.dot
project_box = cpu.project_box
project_ball_euclidean = cpu.project_ball_euclidean
project_ball_hnorm = cpu.project_ball_hnorm
adp_scales = cpu.adp_scales
adam_coordinate = cpu.adam_coordinate


# --------------------------------------------------------------------------------------
# Uniform record index: the draw of ``rng.integers(0, n)``, without its per-call array
# --------------------------------------------------------------------------------------
# Numba's scalar ``Generator.integers`` allocates a length-1 array per call (about 40 ns,
# which dominated the mini-batch loops).  NumPy's algorithm for a range below 2³²−1 is
# Lemire's bounded draw on buffered 32-bit outputs; Numba implements it as a jitable
# function, which we call directly.  Same stream as ``rng.integers(0, n)`` (a test checks
# it against NumPy); larger ranges fall back to ``integers`` itself.
try:
    from numba.np.random.random_methods import buffered_bounded_lemire_uint32 as _lemire32
except ImportError:  # pragma: no cover - a Numba without it: the slower, identical path
    _lemire32 = None

if _lemire32 is not None:

    @njit(inline="always", nogil=True)
    def randint_below(rng, n):
        """A uniform integer in [0, n), n ≥ 1: the same draw as ``rng.integers(0, n)``."""
        r = n - 1
        if r == 0:
            return 0
        if r < 0xFFFFFFFF:
            return np.int64(_lemire32(rng.bit_generator, np.int64(r)))
        return rng.integers(0, n)

else:  # pragma: no cover

    @njit(inline="always", nogil=True)
    def randint_below(rng, n):
        """A uniform integer in [0, n), n ≥ 1: ``rng.integers(0, n)``."""
        return rng.integers(0, n)
