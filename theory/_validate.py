"""Input checks for theory's numeric functions.

``theory`` may not import ``kernels`` (docs/design.md), so these mirror ``kernels.validate`` with plain
:class:`ValueError`: one message that starts with the parameter's name and says what is accepted.
"""

from __future__ import annotations

import math

import numpy as np

#: longest sequence a theory function builds from a count it is given (~0.8 GB of float64)
MAX_LENGTH = 10**8


def real(name: str, value) -> float:
    """A real number (not NaN); booleans, None, non-numeric strings and out-of-range integers are refused."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a real number (got {value!r})")
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a real number (got {value!r})") from None
    if math.isnan(v):
        raise ValueError(f"{name} must be a real number, not NaN (got {value!r})")
    return v


def finite(name: str, value) -> float:
    v = real(name, value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number (got {value!r})")
    return v


def positive(name: str, value) -> float:
    v = real(name, value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive finite number (got {value!r})")
    return v


def integer(name: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    accepted = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
    if isinstance(value, bool):
        raise ValueError(f"{name} must be {accepted} (got {value!r})")
    if isinstance(value, (int, np.integer)):
        i = int(value)
    else:
        try:
            f = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{name} must be {accepted} (got {value!r})") from None
        if not math.isfinite(f) or f != int(f):
            raise ValueError(f"{name} must be {accepted} (got {value!r})")
        i = int(f)
    if i < minimum or (maximum is not None and i > maximum):
        raise ValueError(f"{name} must be {accepted} (got {value!r})")
    return i


def flag(name: str, value) -> bool:
    """True/False (NumPy booleans and the integers 0/1 too)."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and int(value) in (0, 1)):
        return bool(value)
    raise ValueError(f"{name} must be True or False (got {value!r})")


def array(name: str, x, ndim: int) -> np.ndarray:
    """A finite float64 array of ``ndim`` dimensions."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a finite {ndim}-d array of numbers (got {type(x).__name__})") from None
    if arr.ndim != ndim or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite {ndim}-d array of numbers (got shape {arr.shape})")
    return arr


def square(name: str, x) -> np.ndarray:
    """A finite, non-empty square float64 matrix."""
    arr = array(name, x, 2)
    if arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix (got shape {arr.shape})")
    return arr


def finite_result(names: str, value):
    """``value`` when every entry is finite; else ValueError naming the inputs whose size overflowed float64."""
    if not np.all(np.isfinite(np.asarray(value, dtype=np.float64))):
        raise ValueError(f"{names} must be small/large enough that the result stays within float64 range "
                         "(it overflowed to inf/NaN)")
    return value
