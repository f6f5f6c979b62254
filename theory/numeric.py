"""One cached ``lambdify`` for every closed form.

``numeric(expr)`` returns a function taking the expression's free symbols as
keyword arguments (names sorted, so the call never depends on SymPy's ordering),
evaluated with NumPy (``cse=True``) or, with ``backend="mpmath"``, at high
precision for oracles.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np
import sympy as sp


class _Evaluator:
    def __init__(self, expr: sp.Expr, backend: str):
        self.expr = expr
        self.symbols = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
        self.names = tuple(s.name for s in self.symbols)
        modules = ["mpmath"] if backend == "mpmath" else ["scipy", "numpy"]
        self._fn = sp.lambdify(self.symbols, expr, modules=modules, cse=True)

    def __call__(self, **values):
        missing = [n for n in self.names if n not in values]
        if missing:
            raise TypeError(f"missing values for {', '.join(missing)}; the expression needs {', '.join(self.names)}")
        extra = [k for k in values if k not in self.names]
        if extra:
            raise TypeError(f"unexpected arguments {', '.join(extra)}; the expression needs {', '.join(self.names)}")
        for n in self.names:
            _not_nan(n, values[n])
        return self._fn(*(values[n] for n in self.names))

    def __repr__(self) -> str:
        return f"numeric({self.expr}) of ({', '.join(self.names)})"


def _not_nan(name: str, value) -> None:
    """ValueError naming ``name`` when ``value`` is NaN or holds a NaN (a bound evaluated at NaN is not a bound)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        return  # symbolic or high-precision values: SymPy/mpmath handle them
    if np.isnan(arr).any():
        got = "nan" if arr.ndim == 0 else f"{int(np.isnan(arr).sum())} NaN entries"
        raise ValueError(f"{name} must be a number, not NaN (got {got})")


@lru_cache(maxsize=512)
def _cached(expr: sp.Expr, backend: str) -> _Evaluator:
    return _Evaluator(expr, backend)


def numeric(expr: sp.Expr, backend: str = "numpy") -> Callable[..., object]:
    """A fast numeric function of ``expr``'s free symbols, called by keyword.

    The evaluator is cached per ``(expr, backend)``; it takes every free symbol of ``expr`` as a keyword
    argument (by the symbol's name) and refuses missing, unexpected or NaN values.

    Parameters
    ----------
    expr : sympy.Expr
        The closed form to evaluate (anything :func:`sympy.sympify` accepts).
    backend : {"numpy", "mpmath"}, optional
        ``"numpy"`` (default) for vectorised float evaluation (SciPy/NumPy modules, ``cse=True``);
        ``"mpmath"`` for high-precision evaluation, e.g. in oracles.

    Returns
    -------
    Callable[..., object]
        A function called as ``f(name=value, ...)`` with exactly the free symbols' names; it raises
        ``TypeError`` for missing or unexpected names and ``ValueError`` for a NaN value.

    Raises
    ------
    ValueError
        When ``backend`` is neither ``"numpy"`` nor ``"mpmath"``.
    """
    if backend not in ("numpy", "mpmath"):
        raise ValueError(f"backend must be 'numpy' or 'mpmath' (got {backend!r})")
    return _cached(sp.sympify(expr), backend)
