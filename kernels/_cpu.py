"""The shared helpers compiled for the CPU (inlined into the kernels that call them)."""

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
