"""Compile the plain-Python helpers of ``kernels._shared`` for one target.

``compile_helpers(decorate)`` rebinds every helper to a private globals table in
which the other helpers are already the compiled versions, then applies
``decorate`` (``numba.njit(inline="always")`` for the CPU, ``numba.cuda.jit(device=True)``
for the GPU).  One source, several targets.
"""

from __future__ import annotations

import math
import types
from typing import Callable

from kernels import _shared

HELPERS = (
    "shrink_q",
    "shrink_mu",
    "project_ellipsoid",
    "dot",
    "clip_factor",
    "project_box",
    "project_ball_euclidean",
    "project_ball_hnorm",
    "adp_scales",
    "adam_coordinate",
)


def compile_helpers(decorate: Callable) -> types.SimpleNamespace:
    """Compile every helper named in ``HELPERS`` with one target's decorator.

    Each helper of ``kernels._shared`` is rebuilt from its code object over a private globals table
    (holding ``math``, the Newton constants and the helpers compiled so far, in ``HELPERS`` order), so a
    helper that calls another calls the compiled version; then ``decorate`` is applied to it.  The
    originals in ``kernels._shared`` are left untouched (they stay plain Python, the NumPy twins' helpers).

    Parameters
    ----------
    decorate : callable
        Takes a plain Python function and returns the compiled one, e.g.
        ``numba.njit(inline="always")`` for the CPU or ``numba.cuda.jit(device=True)`` for the GPU.

    Returns
    -------
    types.SimpleNamespace
        One attribute per name in ``HELPERS``, bound to that helper's compiled version.
    """
    table: dict = {
        "math": math,
        "NEWTON_MAX_ITER": _shared.NEWTON_MAX_ITER,
        "NEWTON_RTOL": _shared.NEWTON_RTOL,
        "__name__": _shared.__name__,
    }
    for name in HELPERS:
        f = getattr(_shared, name)
        g = types.FunctionType(f.__code__, table, name, f.__defaults__, f.__closure__)
        g.__doc__ = f.__doc__
        table[name] = decorate(g)
    return types.SimpleNamespace(**{name: table[name] for name in HELPERS})
