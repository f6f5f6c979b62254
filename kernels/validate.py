"""Input validation shared by every public entry point (kernels, theory adaptors, CLI).

Each check raises :class:`InvalidParameter` with one sentence that names the
parameter, says what is accepted, and shows what was given.  ``verify`` reuses
these (it may import ``kernels``); the CLI turns them into exit status 2.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np


class InvalidParameter(ValueError):
    """A bad value for a named parameter."""

    def __init__(self, name: str, accepted: str, got=None):
        self.name = name
        self.accepted = accepted
        msg = f"{name} must be {accepted}"
        if got is not None:
            msg += f" (got {got!r})"
        super().__init__(msg)


def _real(name: str, value) -> float:
    if isinstance(value, bool):
        raise InvalidParameter(name, "a real number", value)
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidParameter(name, "a real number", value) from None
    if math.isnan(v):
        raise InvalidParameter(name, "a real number, not NaN", value)
    return v


def positive(name: str, value, allow_inf: bool = False) -> float:
    """value > 0 (finite unless ``allow_inf``)."""
    v = _real(name, value)
    if not v > 0 or (math.isinf(v) and not allow_inf):
        raise InvalidParameter(name, "> 0" + ("" if allow_inf else " and finite"), value)
    return v


def nonnegative(name: str, value) -> float:
    v = _real(name, value)
    if not (v >= 0) or math.isinf(v):
        raise InvalidParameter(name, ">= 0 and finite", value)
    return v


def open_unit(name: str, value) -> float:
    """0 < value < 1."""
    v = _real(name, value)
    if not 0 < v < 1:
        raise InvalidParameter(name, "in the open interval (0, 1)", value)
    return v


def unit_interval(name: str, value) -> float:
    """0 < value <= 1 (a sampling probability)."""
    v = _real(name, value)
    if not 0 < v <= 1:
        raise InvalidParameter(name, "in (0, 1]", value)
    return v


def integer(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool):
        raise InvalidParameter(name, f"an integer >= {minimum}", value)
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InvalidParameter(name, f"an integer >= {minimum}", value) from None
    if not math.isfinite(f) or f != int(f) or int(f) < minimum:
        raise InvalidParameter(name, f"an integer >= {minimum}", value)
    return int(f)


def choice(name: str, value, accepted: Iterable[str]) -> str:
    accepted = list(accepted)
    if value not in accepted:
        raise InvalidParameter(name, "one of " + ", ".join(accepted), value)
    return value


def finite_array(name: str, arr, ndim: int | None = None, shape: tuple | None = None) -> np.ndarray:
    """A float64 array with no NaN/inf, optionally of a given rank or shape (None entries are free)."""
    a = np.asarray(arr, dtype=np.float64)
    if ndim is not None and a.ndim != ndim:
        raise InvalidParameter(name, f"a {ndim}-d array", f"array of shape {a.shape}")
    if shape is not None:
        if a.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, a.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise InvalidParameter(name, f"an array of shape {want}", f"shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InvalidParameter(name, "finite (no NaN or inf)", f"{int(np.sum(~np.isfinite(a)))} non-finite entries")
    return np.ascontiguousarray(a)
