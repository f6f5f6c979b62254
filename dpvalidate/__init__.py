"""Input validation shared by every public entry point: kernels, theory's numeric functions, claims, CLI.

The project's one validation module.  It is a leaf (it imports only the standard library, and NumPy when an
array check first runs), so ``kernels``, ``theory`` and ``verify`` all import it while ``theory`` and ``kernels``
still import neither each other (docs/design.md).  Each check raises :class:`InvalidParameter` (a
:class:`ValueError`) with one sentence that names the parameter, says what is accepted, and shows what was given;
the CLI turns it into exit status 2.

Work limits (far above any real use; they stop overflow, hangs and runaway allocations):

* :data:`MAX_COUNT` = 10⁹ — the largest count that drives a loop (steps, rounds, trials, batch
  sizes, record and coordinate counts): :func:`count`;
* :data:`MAX_BYTES` = 2³³ (8 GiB) — the largest array an entry point allocates for its inputs'
  sizes: :func:`memory`, which names the parameters that set the size.
"""

from __future__ import annotations

import difflib
import math
import os
import sys
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    import numpy as np

MAX_COUNT = 10**9  # steps, rounds, trials, batch sizes, n, d, ...: the largest loop count accepted
MAX_BYTES = 2**33  # the largest array (in bytes) an entry point allocates for the sizes it is given
MAX_LENGTH = 10**8  # the longest sequence a theory function builds from a count it is given (~0.8 GB of float64)


def _np():
    """NumPy, imported on first use: the scalar checks run without it (the command line's argument checks load no
    numerical library), the array checks import it."""
    import numpy

    return numpy


def _numpy_types(name: str) -> tuple:
    """``(numpy.<name>,)`` when NumPy is already imported, else ``()``: a value cannot be a NumPy scalar before
    NumPy is loaded, so the scalar checks recognise NumPy's types without importing it."""
    numpy = sys.modules.get("numpy")
    return (getattr(numpy, name),) if numpy is not None else ()


class InvalidParameter(ValueError):
    """A bad value for a named parameter."""

    def __init__(self, name: str, accepted: str, got=None):
        self.name = name
        self.accepted = accepted
        msg = f"{name} must be {accepted}"
        if got is not None:
            msg += f" (got {_short(got)})"
        super().__init__(msg)


def _short(got) -> str:
    """repr of a given value, with huge integers (int(1e300) has 301 digits) in floating-point notation."""
    if isinstance(got, (int, *_numpy_types("integer"))) and not isinstance(got, bool) and abs(int(got)) >= 10**16:
        digits = len(str(abs(int(got))))
        return f"{float(got):.6g}" if digits <= 308 else f"an integer of {digits} digits"
    return repr(got)


def real(name: str, value) -> float:
    """A real number, not NaN (±inf accepted); the base of the scalar checks below.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        Anything ``float()`` accepts (Python/NumPy numbers, numeric strings such as ``"0.5"``); booleans are
        refused.

    Returns
    -------
    float
        ``float(value)``.

    Raises
    ------
    InvalidParameter
        When ``value`` is a boolean, does not convert to float (including an integer beyond the float range),
        or is NaN.
    """
    if isinstance(value, bool):
        raise InvalidParameter(name, "a real number", value)
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond float range
        raise InvalidParameter(name, "a real number", value) from None
    if math.isnan(v):
        raise InvalidParameter(name, "a real number, not NaN", value)
    return v


def positive(name: str, value, allow_inf: bool = False) -> float:
    """value > 0 (finite unless ``allow_inf``).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check, converted as by :func:`real`.
    allow_inf : bool, optional
        Accept +inf (default False).

    Returns
    -------
    float
        The value as a float.

    Raises
    ------
    InvalidParameter
        When ``value`` is not a real number (see :func:`real`), is ≤ 0, or is +inf while ``allow_inf`` is False.
    """
    v = real(name, value)
    if not v > 0 or (math.isinf(v) and not allow_inf):
        raise InvalidParameter(name, "> 0" + ("" if allow_inf else " and finite"), value)
    return v


def finite(name: str, value) -> float:
    """A finite real number (not NaN, not ±inf).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check, converted as by :func:`real`.

    Returns
    -------
    float
        The value as a float.

    Raises
    ------
    InvalidParameter
        When ``value`` is not a real number (see :func:`real`) or is ±inf.
    """
    v = real(name, value)
    if math.isinf(v):
        raise InvalidParameter(name, "a finite number", value)
    return v


def nonnegative(name: str, value) -> float:
    """value ≥ 0 and finite.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check, converted as by :func:`real`.

    Returns
    -------
    float
        The value as a float.

    Raises
    ------
    InvalidParameter
        When ``value`` is not a real number (see :func:`real`), is negative, or is +inf.
    """
    v = real(name, value)
    if not (v >= 0) or math.isinf(v):
        raise InvalidParameter(name, ">= 0 and finite", value)
    return v


def open_unit(name: str, value) -> float:
    """0 < value < 1.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check, converted as by :func:`real`.

    Returns
    -------
    float
        The value as a float.

    Raises
    ------
    InvalidParameter
        When ``value`` is not a real number (see :func:`real`) or lies outside the open interval (0, 1).
    """
    v = real(name, value)
    if not 0 < v < 1:
        raise InvalidParameter(name, "in the open interval (0, 1)", value)
    return v


def unit_interval(name: str, value) -> float:
    """0 < value <= 1 (a sampling probability).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check, converted as by :func:`real`.

    Returns
    -------
    float
        The value as a float.

    Raises
    ------
    InvalidParameter
        When ``value`` is not a real number (see :func:`real`) or lies outside (0, 1].
    """
    v = real(name, value)
    if not 0 < v <= 1:
        raise InvalidParameter(name, "in (0, 1]", value)
    return v


def integer(name: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer in [minimum, maximum] (no upper limit when ``maximum`` is None).

    Python and NumPy integers are taken exactly; other values must convert to an integral float
    (``2.0``, ``"3"``).  Booleans are refused.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check.
    minimum : int, optional
        The smallest accepted value (default 1).
    maximum : int or None, optional
        The largest accepted value; None (default) for no upper limit.

    Returns
    -------
    int
        The value as a Python int.

    Raises
    ------
    InvalidParameter
        When ``value`` is a boolean, does not convert to a finite integral float, or lies outside
        [minimum, maximum].
    """
    accepted = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
    if isinstance(value, bool):
        raise InvalidParameter(name, accepted, value)
    if isinstance(value, (int, *_numpy_types("integer"))):
        i = int(value)
    else:
        try:
            f = float(value)
        except (TypeError, ValueError, OverflowError):
            raise InvalidParameter(name, accepted, value) from None
        if not math.isfinite(f) or f != int(f):
            raise InvalidParameter(name, accepted, value)
        i = int(f)
    if i < minimum or (maximum is not None and i > maximum):
        raise InvalidParameter(name, accepted, value)
    return i


def count(name: str, value, minimum: int = 1, maximum: int = MAX_COUNT) -> int:
    """A count that drives a loop or an allocation: an integer in [minimum, :data:`MAX_COUNT`].

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check, as accepted by :func:`integer`.
    minimum : int, optional
        The smallest accepted count (default 1).
    maximum : int, optional
        The largest accepted count (default :data:`MAX_COUNT`).

    Returns
    -------
    int
        The count as a Python int.

    Raises
    ------
    InvalidParameter
        As :func:`integer`: not an integer, or outside [minimum, maximum].
    """
    return integer(name, value, minimum, maximum)


def available_memory() -> int | None:
    """Bytes of memory this machine has available now (``MemAvailable``; else its physical memory), or None.

    Returns
    -------
    int or None
        ``MemAvailable`` of ``/proc/meminfo`` in bytes when it can be read; otherwise page size × physical pages
        from ``os.sysconf``; None when neither is available.
    """
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def _bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} B"


def memory(names: str, *shape: int, itemsize: int = 8, limit: int = MAX_BYTES) -> None:
    """Refuse an array of ``shape`` (``itemsize`` bytes per entry) larger than ``limit`` bytes or than the
    memory this machine has available (:func:`available_memory`), before it is allocated.

    ``names`` are the parameters that set the shape, e.g. ``"n, d"``; the message names them, what the
    array would need and what the machine has.

    Parameters
    ----------
    names : str
        The parameters that set the shape, for the message (e.g. ``"n, d"``).
    *shape : int
        The array's dimensions (negative ones count as 0).
    itemsize : int, optional
        Bytes per entry (default 8, float64).
    limit : int, optional
        The most bytes one array may take (default :data:`MAX_BYTES`); the machine's available memory lowers it
        further when known.

    Raises
    ------
    InvalidParameter
        When the array would need more than ``limit`` bytes or more than :func:`available_memory`.
    """
    size = 1
    for s in shape:
        size *= max(int(s), 0)
    need = size * itemsize
    avail = available_memory()
    cap = limit if avail is None else min(limit, avail)
    if need > cap:
        dims = " × ".join(str(int(s)) for s in shape)
        has = "" if avail is None else f"; this machine has {_bytes(avail)} available"
        they = "they set" if "," in names else "it sets"
        raise InvalidParameter(names, f"small enough that the {dims} array {they} fits in memory (it would "
                               f"need {_bytes(need)}; one array may take at most {_bytes(limit)}{has})")


def finite_output(names: str, *arrays) -> None:
    """Refuse a result that overflowed float64 (NaN/inf), naming the parameters that scale it.

    Called by wrappers after a run: finite inputs whose product overflows (a step size of 1e300
    times a noise of 1e300) are reported as one bad-parameter message, never returned as NaN.

    Parameters
    ----------
    names : str
        The parameters that scale the result, for the message (e.g. ``"eta, sigma"``).
    *arrays : array_like
        The results to check (anything ``np.isfinite`` accepts).

    Raises
    ------
    InvalidParameter
        When any entry of any array is NaN or ±inf.
    """
    np = _np()
    for a in arrays:
        if not np.all(np.isfinite(a)):
            raise InvalidParameter(names, "small enough that the run stays within float64 range (it overflowed "
                                   "to inf/NaN)")


def describe_array(a) -> str:
    """What an array given to a kernel is, for a message's "got" part: dtype, shape and what is wrong with it
    (not C-contiguous, non-finite entries), so that it differs from the "must be" part it answers.

    Parameters
    ----------
    a : object
        The value given (an array or anything else).

    Returns
    -------
    str
        For an ndarray: its dtype and shape, then "not C-contiguous …" and/or the number of non-finite entries
        (float/complex arrays) when they apply; for any other object, its type's name.
    """
    if not isinstance(a, _numpy_types("ndarray")):  # (an ndarray exists only once NumPy is imported)
        return type(a).__name__
    parts = [f"{a.dtype} array of shape {a.shape}"]
    if not a.flags.c_contiguous:
        parts.append("not C-contiguous (a strided view: pass np.ascontiguousarray(...))")
    if a.dtype.kind in "fc":
        np = _np()
        bad = int(np.sum(~np.isfinite(a)))
        if bad:
            parts.append(f"{bad} non-finite entries")
    return ", ".join(parts)


def flag(name: str, value) -> bool:
    """A boolean switch: True/False (NumPy booleans and the integers 0/1 too).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check.

    Returns
    -------
    bool
        The value as a Python bool.

    Raises
    ------
    InvalidParameter
        When ``value`` is neither a (NumPy) boolean nor the integer 0 or 1.
    """
    integers = (int, *_numpy_types("integer"))
    if isinstance(value, (bool, *_numpy_types("bool_"))) or (isinstance(value, integers) and int(value) in (0, 1)):
        return bool(value)
    raise InvalidParameter(name, "True or False", value)


def choice(name: str, value, accepted: Iterable[str]) -> str:
    """``value`` if it is one of ``accepted``; otherwise InvalidParameter listing them (a long list shortened)
    with the closest names as a suggestion.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check; must be a str equal to one of ``accepted``.
    accepted : iterable of str
        The accepted names (listed in the message in this order, cut after :data:`CHOICES_LISTED`).

    Returns
    -------
    str
        ``value`` itself.

    Raises
    ------
    InvalidParameter
        When ``value`` is not a str or not one of ``accepted`` (the message suggests up to three close names).
    """
    accepted = list(accepted)
    if not isinstance(value, str) or value not in accepted:  # (an array would compare elementwise)
        listed = ", ".join(accepted) if len(accepted) <= CHOICES_LISTED else (
            ", ".join(accepted[:CHOICES_LISTED]) + f", … ({len(accepted)} in all)")
        close = difflib.get_close_matches(value, accepted, n=3, cutoff=0.6) if isinstance(value, str) else []
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise InvalidParameter(name, f"one of {listed}{hint}", value)
    return value


CHOICES_LISTED = 12  # a longer list of accepted names is cut after this many (the suggestion names the close ones)


def finite_array(name: str, arr, ndim: int | None = None, shape: tuple | None = None) -> np.ndarray:
    """A float64 array with no NaN/inf, optionally of a given rank or shape (None entries are free).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    arr : array_like
        The value to convert with ``np.asarray(arr, dtype=np.float64)``.
    ndim : int or None, optional
        The required number of dimensions; None (default) for any.
    shape : tuple of (int or None), or None, optional
        The required shape; a None entry accepts any length in that dimension.  None (default) for any shape.

    Returns
    -------
    ndarray of float64
        The array, C-contiguous (the input itself when it already is a C-contiguous float64 array).

    Raises
    ------
    InvalidParameter
        When ``arr`` does not convert to a float64 array (strings, ragged nesting, objects), has the wrong rank
        or shape, or has a NaN or infinite entry.
    """
    np = _np()
    try:
        a = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # strings, ragged nesting, objects
        raise InvalidParameter(name, "an array of real numbers", type(arr).__name__) from None
    if ndim is not None and a.ndim != ndim:
        raise InvalidParameter(name, f"a {ndim}-d array", f"array of shape {a.shape}")
    if shape is not None:
        if a.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, a.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise InvalidParameter(name, f"an array of shape {want}", f"shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InvalidParameter(name, "finite (no NaN or inf)", f"{int(np.sum(~np.isfinite(a)))} non-finite entries")
    return np.ascontiguousarray(a)


def square_matrix(name: str, x) -> np.ndarray:
    """A finite, non-empty square float64 matrix (C-contiguous).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    x : array_like
        The matrix, converted as by :func:`finite_array`.

    Returns
    -------
    ndarray of float64, shape (k, k)
        The matrix, k ≥ 1, C-contiguous.

    Raises
    ------
    InvalidParameter
        When ``x`` is not a finite 2-d real array (see :func:`finite_array`), is not square, or is empty.
    """
    a = finite_array(name, x, ndim=2)
    if a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise InvalidParameter(name, "a non-empty square matrix", f"shape {a.shape}")
    return a


def finite_result(names: str, value):
    """``value`` itself when every entry is finite; else :class:`InvalidParameter` naming the inputs
    (``names``) whose size overflowed float64 (:func:`finite_output` for a computed closed form).

    Parameters
    ----------
    names : str
        The inputs that scale the value, for the message.
    value : float or array_like of float
        The computed value (converted to float64 only for the check).

    Returns
    -------
    object
        ``value`` unchanged (same object, same type).

    Raises
    ------
    InvalidParameter
        When any entry of ``value`` is NaN or ±inf.
    """
    np = _np()
    finite_output(names, np.asarray(value, dtype=np.float64))
    return value
