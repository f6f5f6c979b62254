"""Deliberate kernel faults for mutation analysis, switched on without editing any file.

``with kernels.faults.inject(noise_scale=0.7): ...`` makes every kernel wrapper that honours the
fault run the faulty algorithm: the checks of the ledger must notice (``verify.mutants``).  The
faults are process-wide (a module global, not a context variable), so kernels that a Dask worker
thread runs see them too; ``inject`` is not re-entrant across threads and is meant for one
mutation run at a time.

The hooks (:func:`noise_scale`, ...) are called by the wrappers on every run, faults or not (a factor
of exactly 1.0 changes no bit), and record that they were *visited*: a mutation run then tries only the
faults that the claim's check exercises, and counts a fault that it exercised and missed.  A hook is visited
only where its fault would change something: zero noise (:func:`noise_factor`), an infinite clip norm
(:func:`clipping_skipped`) and A = I for the noise geometry leave it unvisited, so a fault that could change no draw
is never counted as a surviving mutant.  Faults:

* ``noise_scale`` — the privacy noise's standard deviation multiplied by this factor (1: none);
* ``noise_geometry_inverse`` — PAGAN/PASAN draw their noise with covariance A instead of A⁻¹;
* ``skip_clipping`` — per-record clipping (or projection onto the ellipsoid) not applied;
* ``stepsize_scale`` — the stepsize / learning rate multiplied by this factor;
* ``drop_bias_correction`` — DP-Adam's bias correction of the moments left out;
* ``preconditioner_inverse`` — AdaDPS's fixed side-information preconditioner A applied as G²/A (G the geometric
  mean of A: the same overall scale, the coordinates' weights inverted);
* ``public_stepsize`` — ADP-SGD's adaptive b_{t+1} grown by ν alone, not by the record's gradient norm (the
  data-dependent stepsize replaced by a public one: the leak the adaptive audits find disappears).

``only_methods`` restricts the factor faults ``noise_scale`` and ``stepsize_scale`` to the named methods (a one-arm
fault: a comparison "method X beats baseline Y" cannot see a fault that hits both arms alike, so it is tested with
the fault on X alone).  Empty (the default): every run, as before.  Non-empty: only a wrapper that passes its method
name to :func:`noise_scale` / :func:`noise_factor` / :func:`stepsize_scale` and whose name is listed gets the factor;
every other run (a named method not listed, or a wrapper that passes no name) runs unfaulted and does not visit the
hook.  The wrappers that pass a name: ``kernels.adadps.run_central`` (its ``method``),
``kernels.adadps.run_federated`` (:func:`kernels.adadps.federated_method_name`: ``fed_adadps``,
``fed_adadps_adam``, ``dp_fedavg``, ``dp_fedadam``) and ``kernels.dp_adam``'s ``RoundConfig.validated`` and
``run_logistic_1d`` (:meth:`kernels.dp_adam.RoundConfig.fault_name`: the variant, or ``ime_for_free``).
"""

from __future__ import annotations

import contextlib
import math
import threading
from dataclasses import dataclass, fields, replace
from typing import Iterator

import numpy as np


@dataclass(frozen=True)
class Faults:
    """One set of faults (the defaults: none); the fields are the faults listed in the module docstring.

    ``noise_scale`` and ``stepsize_scale`` are float factors (1.0: no fault); ``only_methods`` is a tuple of
    method names (empty: the factor faults hit every run; see the module docstring); the other five fields are
    booleans (False: no fault).
    """

    noise_scale: float = 1.0
    noise_geometry_inverse: bool = False
    skip_clipping: bool = False
    stepsize_scale: float = 1.0
    drop_bias_correction: bool = False
    public_stepsize: bool = False
    preconditioner_inverse: bool = False
    only_methods: tuple[str, ...] = ()

    def any(self) -> bool:
        """Whether any fault is switched on.

        Returns
        -------
        bool
            True when some field differs from its default (i.e. ``self != Faults()``).
        """
        return self != Faults()


NONE = Faults()
_active: Faults = NONE
_applied: set[str] = set()
_visited: set[str] = set()
_lock = threading.Lock()


def _visit(name: str) -> None:
    if name not in _visited:
        with _lock:
            _visited.add(name)


def visited() -> frozenset[str]:
    """The hooks the kernels have passed through since :func:`clear_visited`.

    Returns
    -------
    frozenset of str
        The names of the hooks (:func:`noise_scale`, :func:`skip_clipping`, ...) called at least once, faults
        or not.
    """
    return frozenset(_visited)


def clear_visited() -> None:
    """Forget the hooks visited so far (start of a new record for :func:`visited`)."""
    with _lock:
        _visited.clear()


def active() -> Faults:
    """The faults in force (``NONE`` outside :func:`inject`).

    Returns
    -------
    Faults
        The process-wide faults now active.
    """
    return _active


def applied(name: str) -> None:
    """A wrapper records that it applied the fault ``name``.

    Parameters
    ----------
    name : str
        The fault's name (a field of :class:`Faults`).
    """
    with _lock:
        _applied.add(name)


def applied_names() -> frozenset[str]:
    """The faults the wrappers applied since the last :func:`inject` began (kept after its block ends).

    Returns
    -------
    frozenset of str
        The names recorded by :func:`applied`.
    """
    return frozenset(_applied)


@contextlib.contextmanager
def inject(**faults) -> Iterator[Faults]:
    """Switch faults on for the duration of the block; records which of them the kernels applied.

    On entry the record of applied faults (:func:`applied_names`) is cleared; on exit the faults in force
    before the block are restored (the record is kept).  Not re-entrant across threads.

    Parameters
    ----------
    **faults
        Field values of :class:`Faults` (e.g. ``noise_scale=0.7``, ``skip_clipping=True``); fields not given
        keep their no-fault defaults.  The values are not type-checked.

    Yields
    ------
    Faults
        The faults in force inside the block.

    Raises
    ------
    ValueError
        When a keyword is not a field of :class:`Faults` (raised before anything is switched on).
    """
    global _active
    names = {f.name for f in fields(Faults)}
    unknown = set(faults) - names
    if unknown:
        raise ValueError(f"unknown fault(s) {sorted(unknown)}; known: {sorted(names)}")
    with _lock:
        previous = _active
        _active = replace(NONE, **faults)
        _applied.clear()
    try:
        yield _active
    finally:
        with _lock:
            _active = previous


def _excluded(method: str | None) -> bool:
    """Whether a one-arm fault (``only_methods`` non-empty) leaves the run of ``method`` alone."""
    only = _active.only_methods
    return bool(only) and (method is None or method not in only)


def _scale_factor(name: str, method: str | None) -> float:
    """The factor field ``name`` of the active faults for a run of ``method``: 1.0 (hook not visited) when a one-arm
    fault excludes the method; otherwise the hook ``name`` is marked visited and, when the factor is not 1, applied."""
    if _excluded(method):
        return 1.0
    _visit(name)
    s = getattr(_active, name)
    if s != 1.0:
        applied(name)
    return s


def noise_scale(method: str | None = None) -> float:
    """The factor on the noise's standard deviation (records that it was applied when ≠ 1).

    Marks the hook ``noise_scale`` visited, unless a one-arm fault (``only_methods``) excludes ``method``.

    Parameters
    ----------
    method : str or None, optional
        The name of the method whose noise the factor multiplies (None: a wrapper that names no method).

    Returns
    -------
    float
        ``active().noise_scale`` (1.0 when no fault is in force, or when ``active().only_methods`` is non-empty
        and does not list ``method``).
    """
    return _scale_factor("noise_scale", method)


def noise_factor(*stds, method: str | None = None) -> float:
    """The noise fault's factor for noise of these standard deviations, or 1.0 when every one is zero.

    Scaling zero noise changes no draw, so the hook ``noise_scale`` is visited (and the noise mutants apply to the
    run) only when some standard deviation is nonzero.

    Parameters
    ----------
    *stds : float or array_like
        The standard deviations the factor will multiply.
    method : str or None, optional
        The method's name, passed on to :func:`noise_scale` (a one-arm fault hits only the listed methods).

    Returns
    -------
    float
        :func:`noise_scale` ``(method)`` when some entry is nonzero, else 1.0 (the hook not visited).
    """
    if not any(np.any(np.asarray(s) != 0) for s in stds):
        return 1.0
    return noise_scale(method)


def clipping_skipped(clip) -> bool:
    """Whether the no-clipping fault removes this clipping; False, without visiting the hook, when ``clip`` is inf.

    A run with clip = ∞ clips nothing, so leaving its clipping out changes nothing: the hook ``skip_clipping`` is
    visited (and the no-clipping mutant applies to the run) only for a finite clip norm.

    Parameters
    ----------
    clip : float
        The clip norm C (inf: no clipping).

    Returns
    -------
    bool
        :func:`skip_clipping` for a finite ``clip``, else False.
    """
    if not math.isfinite(clip):
        return False
    return skip_clipping()


def stepsize_scale(method: str | None = None) -> float:
    """The factor on the stepsize / learning rate (records that it was applied when ≠ 1).

    Marks the hook ``stepsize_scale`` visited, unless a one-arm fault (``only_methods``) excludes ``method``.

    Parameters
    ----------
    method : str or None, optional
        The name of the method whose stepsize the factor multiplies (None: a wrapper that names no method).

    Returns
    -------
    float
        ``active().stepsize_scale`` (1.0 when no fault is in force, or when ``active().only_methods`` is non-empty
        and does not list ``method``).
    """
    return _scale_factor("stepsize_scale", method)


def skip_clipping() -> bool:
    """Whether per-record clipping (or the projection onto the ellipsoid) should be left out.

    Records that the fault was applied when True, and marks the hook ``skip_clipping`` visited.

    Returns
    -------
    bool
        ``active().skip_clipping`` (False when no fault is in force).
    """
    _visit("skip_clipping")
    if _active.skip_clipping:
        applied("skip_clipping")
    return _active.skip_clipping


def noise_geometry_inverse() -> bool:
    """Whether PAGAN/PASAN should draw their noise with covariance A instead of A⁻¹.

    Records that the fault was applied when True, and marks the hook ``noise_geometry_inverse`` visited.

    Returns
    -------
    bool
        ``active().noise_geometry_inverse`` (False when no fault is in force).
    """
    _visit("noise_geometry_inverse")
    if _active.noise_geometry_inverse:
        applied("noise_geometry_inverse")
    return _active.noise_geometry_inverse


def preconditioner_inverse() -> bool:
    """Whether AdaDPS should apply its fixed side information A as G²/A (G: A's geometric mean).

    Records that the fault was applied when True, and marks the hook ``preconditioner_inverse`` visited.

    Returns
    -------
    bool
        ``active().preconditioner_inverse`` (False when no fault is in force).
    """
    _visit("preconditioner_inverse")
    if _active.preconditioner_inverse:
        applied("preconditioner_inverse")
    return _active.preconditioner_inverse


def drop_bias_correction() -> bool:
    """Whether DP-Adam should leave out the bias correction of its moments.

    Records that the fault was applied when True, and marks the hook ``drop_bias_correction`` visited.

    Returns
    -------
    bool
        ``active().drop_bias_correction`` (False when no fault is in force).
    """
    _visit("drop_bias_correction")
    if _active.drop_bias_correction:
        applied("drop_bias_correction")
    return _active.drop_bias_correction


def public_stepsize() -> bool:
    """Whether ADP-SGD's adaptive b_{t+1} should grow by ν alone, ignoring the gradient norm.

    Records that the fault was applied when True, and marks the hook ``public_stepsize`` visited.

    Returns
    -------
    bool
        ``active().public_stepsize`` (False when no fault is in force).
    """
    _visit("public_stepsize")
    if _active.public_stepsize:
        applied("public_stepsize")
    return _active.public_stepsize
