"""Closed forms: every bound, rate, ratio and threshold of the five papers as SymPy expressions.

One module per paper (``theory.pagan``, ...).  Each function returns a ``sympy.Expr``
built from assumption-carrying symbols; its docstring cites the statement and says
whether it is exact, an upper bound with an unknown constant, or asymptotic.
Numeric evaluation goes through :func:`theory.numeric.numeric`.
"""

from theory.numeric import numeric

__all__ = ["numeric"]
