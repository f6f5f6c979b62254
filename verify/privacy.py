r"""The one privacy adaptor: mechanism descriptions in, ε out, always through ``dp-accounting``.

Nothing here accounts for privacy by hand.  A mechanism is described by an immutable
record (:class:`Mechanism`: how a step samples records, the noise multiplier, the number
of steps), turned into a ``dp_accounting`` :class:`~dp_accounting.dp_event.DpEvent`, and
evaluated by dp-accounting's RDP accountant (``"rdp"``) or PLD accountant (``"pld"``) in
:func:`epsilon_of`, the only place accountants are built.  The one exception to going
through an accountant object is sampling with replacement, whose one-step PLD is built by
dp-accounting's own constructor and cached so that many step counts cost one
construction (:meth:`Mechanism.epsilon`; a test checks it against :func:`epsilon_of`).

Adjacency, per sampling scheme (each function's docstring repeats it):

* ``"poisson"`` and ``"none"``: add/remove-one adjacency; each record's clipped
  contribution has norm ≤ 1, so the noise multiplier σ is the noise standard deviation
  per unit of sensitivity.
* ``"with_replacement"`` (``pagan``, Algorithms 1/2): zero-out adjacency (one record
  replaced by a record whose contribution is 0; dp-accounting's ``REPLACE_SPECIAL``),
  so that both datasets have ``n`` records and a batch of ``b`` draws with replacement is
  defined on both.

Sampling with replacement has no accountant in dp-accounting
(``SampledWithReplacementDpEvent`` is only a record), so it is written as the mechanism
it is: the number K of copies of the differing record in a batch of b draws from n is
Binomial(b, 1/n), and the step's output is N(0, σ²) on one dataset against
Σₖ P(K = k)·N(k, σ²) on the other — dp-accounting's ``MixtureOfGaussiansDpEvent``,
evaluated by its PLD accountant.  (The K copies of one record add up along one direction,
so this one-dimensional pair is the worst case for a step.)

Every front end either returns a finite ε or raises :class:`InvalidParameter` naming its
parameters: noise multipliers outside :data:`NOISE_MULTIPLIER_RANGE` (where
dp-accounting's arithmetic under- or overflows: ZeroDivisionError, OverflowError), more than
:data:`MAX_STEPS` steps, PLD work beyond :data:`MAX_PLD_POINTS` grid points or
:data:`MAX_PLD_STEPS` composed steps (checked before dp-accounting allocates: a PLD of σ = 0.01
once took 12 GiB and four minutes to fail), any other dp-accounting failure, and ε = inf (e.g. δ
below the PLD's truncated tail mass).  The RDP accountant has no grid and takes up to 10⁹ steps.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import pickle
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from dp_accounting import dp_event as dpe
from dp_accounting import gaussian_mechanism as _gauss_mech
from dp_accounting.pld import pld_pmf as _pld_pmf
from dp_accounting.pld import pld_privacy_accountant as _pld
from dp_accounting.pld import privacy_loss_distribution as _pld_lib
from dp_accounting.pld import privacy_loss_mechanism as _plm
from dp_accounting.privacy_accountant import NeighboringRelation
from dp_accounting.rdp import rdp_privacy_accountant as rdpa
from scipy import stats

import dpvalidate as V
from dpvalidate import InvalidParameter

ACCOUNTANTS = ("rdp", "pld")
SAMPLINGS = ("poisson", "with_replacement", "none")

#: Share of δ kept back to pay for truncating the binomial K of sampling with replacement.
TRUNCATION_DELTA_SHARE = 1e-3
_SMALLEST_TAIL = 1e-200  # deepest cut of K tried (reached only when ε is in the hundreds)

# Input limits of every front end (far outside any real use; at and beyond them dp-accounting's
# arithmetic under- or overflows, or its PLD grid outgrows memory):
#: accepted noise multipliers: σ² neither underflows nor overflows in the RDP/PLD formulas
NOISE_MULTIPLIER_RANGE = (1e-6, 1e12)
#: most steps composed (as dpvalidate.MAX_COUNT)
MAX_STEPS = V.MAX_COUNT
#: most draws per batch with replacement (the binomial of K is tabulated over 0..batch_size)
MAX_WITH_REPLACEMENT_BATCH = 10**7
#: most points of a PLD grid: privacy-loss range / value_discretization_interval (about 1 GiB and 10 s in dp-accounting)
MAX_PLD_POINTS = 2 * 10**6
#: Relative widening of :func:`gaussian_epsilon_exact`'s bracket for the rounding of the closed-form δ(ε)
#: (float64 log normal CDFs): the largest relative error seen against 50-digit mpmath over z in [0.05, 1e3] and δ in
#: [1e-12, 0.1] is about 5e-11 (tests/verify/test_privacy.py checks that the bracket holds it), so 1e-9 is a 20-fold
#: margin.
EXACT_EPSILON_GUARD = 1e-9
#: most phases / mechanisms composed one by one (composed_epsilon, optimal_composition_epsilon)
MAX_PHASES = 10**4
#: most steps a PLD composes (dp-accounting's self-composition slows sharply beyond: 5 s at 10⁷, a hang at 10⁹),
#: most distinct events it builds, and most grid points × mechanisms of optimal_composition_epsilon
MAX_PLD_STEPS = 10**7
MAX_PLD_EVENTS = 10**3
MAX_PLD_WORK = 10**8
_TRUNCATION_SIGMAS = 10.0  # dp-accounting's PLDs cut the Gaussian at about √(2·50) standard deviations

__all__ = [
    "ACCOUNTANTS",
    "MAX_PLD_POINTS",
    "MAX_STEPS",
    "MAX_WITH_REPLACEMENT_BATCH",
    "NOISE_MULTIPLIER_RANGE",
    "SAMPLINGS",
    "InvalidParameter",
    "Mechanism",
    "NeighboringRelation",
    "composed_epsilon",
    "dp_sgd_epsilon",
    "epsilon_of",
    "gaussian_epsilon",
    "with_replacement_epsilon",
    "with_replacement_event",
]


# --------------------------------------------------------------------------------------
# A memo of dp-accounting's answers in this process, by the exact arguments of the call
# --------------------------------------------------------------------------------------
#: ε (or a yes/no) dp-accounting already returned in this process, keyed by every argument of the call that
#: determines it (:func:`_memo_key`).  Searches ask again for points they have seen (a calibration's last
#: multiplier, the same bracket start for every T, the same mechanism in two claims of one worker process); the
#: answer is the accountant's own float, so a hit changes no number.  Failures are not stored (they raise again).
_ACCOUNTANT_MEMO: dict = {}
_ACCOUNTANT_MEMO_MAX = 1 << 14  # entries kept before the memo is emptied (each is a key and a float)


class _Unkeyable(Exception):
    """An argument the memo cannot key exactly (the call then goes to dp-accounting unmemoised)."""


def _memo_key(value):
    """An exact, hashable key of ``value``: a dp-accounting event by its class and every field, recursively.

    Numbers keep their type (1 and 1.0 are different keys); sequences and arrays keep their order, dtype and
    bytes.  Raises :class:`_Unkeyable` for anything else.
    """
    fields = getattr(type(value), "__attrs_attrs__", None)  # dp-accounting's events are attrs classes
    if isinstance(value, dpe.DpEvent) and fields is not None:
        return (type(value).__qualname__,) + tuple((f.name, _memo_key(getattr(value, f.name))) for f in fields)
    if isinstance(value, (bool, int, float, str, type(None), NeighboringRelation)):
        return (type(value).__name__, value)
    if isinstance(value, (list, tuple)):
        return ("seq",) + tuple(_memo_key(v) for v in value)
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    raise _Unkeyable(type(value).__name__)


def _memoised(key, compute):
    """``compute()``, or the value it returned before for ``key`` in this process (or, while
    :func:`share_memo` names a directory, in any process sharing it)."""
    try:
        return _ACCOUNTANT_MEMO[key]
    except KeyError:
        pass
    shared = _SHARED_MEMO_DIR
    value = compute() if shared is None else _shared_memoised(shared, key, compute)
    if len(_ACCOUNTANT_MEMO) >= _ACCOUNTANT_MEMO_MAX:
        _ACCOUNTANT_MEMO.clear()
    _ACCOUNTANT_MEMO[key] = value
    return value


#: The directory the worker processes of one run share their accountant answers in (None: not shared).
_SHARED_MEMO_DIR: Path | None = None


def share_memo(directory: str | os.PathLike | None) -> None:
    """Share this process's memo of dp-accounting answers through files in ``directory`` (None: stop sharing).

    Processes that name the same directory answer a question another of them already answered from its file,
    and wait (a file lock per question) while another computes it, so that worker processes of one run never
    repeat each other's accounting.  An entry holds the exact key (:func:`_exact_text`) and the accountant's own
    value, pickled; a question whose key cannot be written exactly is not shared.  Meant for one run's
    short-lived directory (``verify.engine`` passes a temporary one): entries carry no code version.

    Parameters
    ----------
    directory : str, path or None
        The shared directory (created when first written), or None.

    Returns
    -------
    None
    """
    global _SHARED_MEMO_DIR
    _SHARED_MEMO_DIR = None if directory is None else Path(directory)


def _exact_text(key) -> str:
    """``key`` written exactly and unambiguously: floats by their hex digits, every value tagged with its type.

    Raises :class:`_Unkeyable` for a value it cannot write so (the key is then not shared).
    """
    if isinstance(key, tuple):
        return "(" + ",".join(_exact_text(v) for v in key) + ")"
    if isinstance(key, bool) or key is None:
        return repr(key)
    if isinstance(key, int):
        return f"i{key}"
    if isinstance(key, float):
        return f"f{key.hex()}"
    if isinstance(key, str):
        return f"s{key!r}"
    if isinstance(key, bytes):
        return f"b{key.hex()}"
    if isinstance(key, NeighboringRelation):
        return f"N{key.name}"
    if isinstance(key, Mechanism):
        return "M" + _exact_text(tuple(getattr(key, f.name) for f in dataclasses.fields(key)))
    raise _Unkeyable(type(key).__name__)


_ABSENT = object()


def _read_entry(path: Path, text: str):
    try:
        stored, value = pickle.loads(path.read_bytes())
    except Exception:  # absent, or unreadable: computed (again) and written
        return _ABSENT
    return value if stored == text else _ABSENT  # another key of the same hash: not this question's answer


def _shared_memoised(directory: Path, key, compute):
    """``compute()`` through the files in ``directory``: read, or computed under the question's lock and written."""
    from filelock import FileLock

    try:
        text = _exact_text(key)
    except _Unkeyable:
        return compute()
    path = directory / f"{hashlib.sha256(text.encode()).hexdigest()}.pkl"
    value = _read_entry(path, text)
    if value is not _ABSENT:
        return value
    lock = FileLock(f"{path}.lock")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except OSError:  # sharing is only a saving: without the directory, compute here
        return compute()
    try:
        value = _read_entry(path, text)  # written while this process waited for the lock
        if value is not _ABSENT:
            return value
        value = compute()  # a failure raises here, and stores nothing
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(pickle.dumps((text, value)))
            os.replace(tmp, path)
        except OSError:  # not shared, still answered
            tmp.unlink(missing_ok=True)
        return value
    finally:
        lock.release()


# --------------------------------------------------------------------------------------
# The accountant call, written once
# --------------------------------------------------------------------------------------
def epsilon_of(
    event: dpe.DpEvent,
    delta: float,
    accountant: str,
    neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE,
    value_discretization_interval: float | None = None,
) -> float:
    """ε of ``event`` at ``delta`` from dp-accounting's ``accountant`` ("rdp" or "pld").

    ``neighboring_relation`` is the adjacency (default add/remove-one).
    ``value_discretization_interval`` is the PLD grid (None: dp-accounting's default,
    1e-4); the PLD result is a pessimistic (upper) estimate on that grid, and a grid much
    coarser than the per-step privacy loss makes it loose.  Events an accountant cannot
    evaluate raise :class:`InvalidParameter` naming ``accountant``; so do PLD grids of more
    than :data:`MAX_PLD_POINTS` points (naming ``value_discretization_interval``), accountant
    failures on extreme events and infinite ε (naming ``event`` and ``delta``).

    Parameters
    ----------
    event : dp_accounting.dp_event.DpEvent
        The mechanism, as dp-accounting's event.
    delta : float
        The δ, in (0, 1).
    accountant : str
        "rdp" or "pld".
    neighboring_relation : dp_accounting.NeighboringRelation, optional
        The adjacency.
    value_discretization_interval : float or None, optional
        The PLD grid step in nats, in (0, 1] (None: 1e-4); ignored by "rdp".

    Returns
    -------
    float
        The (finite) ε.

    Raises
    ------
    InvalidParameter
        As described above, and for a δ outside (0, 1), an unknown accountant, or an ``event`` or
        ``neighboring_relation`` of the wrong type.
    """
    return _epsilon_of(event, delta, accountant, neighboring_relation, value_discretization_interval, "event, delta")


def _epsilon_of(event, delta, accountant, neighboring_relation, value_discretization_interval, params: str) -> float:
    """:func:`epsilon_of`, with ``params`` the caller's parameter names for the failure messages."""
    delta = V.open_unit("delta", delta)
    accountant = V.choice("accountant", accountant, ACCOUNTANTS)
    if not isinstance(neighboring_relation, NeighboringRelation):
        raise InvalidParameter("neighboring_relation", "a dp_accounting NeighboringRelation", neighboring_relation)
    if not isinstance(event, dpe.DpEvent):
        raise InvalidParameter("event", "a dp_accounting DpEvent", type(event).__name__)
    if accountant == "rdp":
        acc = rdpa.RdpAccountant(neighboring_relation=neighboring_relation)
    else:
        vdi = 1e-4 if value_discretization_interval is None else _vdi(value_discretization_interval)
        acc = _pld.PLDAccountant(neighboring_relation, value_discretization_interval=vdi)
    if not acc.supports(event):
        raise InvalidParameter("accountant", f"one that supports {type(event).__name__} "
                               f"under {neighboring_relation.name}", accountant)

    def compute() -> float:
        with _accounting(params):
            if accountant == "pld":
                _check_pld_grid(event, delta, vdi, params)
            elif _PER_STEP_RDP and neighboring_relation is NeighboringRelation.ADD_OR_REMOVE_ONE:
                # T Poisson-subsampled Gaussian steps (DP-SGD): the accountant's own arithmetic with the one step's
                # RDP kept per (q, σ), so that searches and curves over T compute it once
                # (_poisson_gaussian_rdp_epsilon)
                parts = _self_composed_poisson_gaussian(event)
                if parts is not None:
                    return _finite_epsilon(_poisson_gaussian_rdp_epsilon(*parts, delta), params)
            acc.compose(event)
            return _finite_epsilon(float(acc.get_epsilon(delta)), params)

    try:
        key = ("epsilon_of", _memo_key(event), delta, accountant, neighboring_relation,
               vdi if accountant == "pld" else None)
    except _Unkeyable:
        return compute()
    return _memoised(key, compute)


# --------------------------------------------------------------------------------------
# Guards around dp-accounting: input ranges, PLD grid size, failures, infinite ε
# --------------------------------------------------------------------------------------
# ======================================================================================
# Calibration: the smallest multiplier an accountant certifies
# ======================================================================================
Z_MIN, Z_MAX = 1e-3, 1e6  # the range of noise multipliers calibrate_multiplier searches


def calibrate_multiplier(epsilon_at: Callable[[float], float], epsilon: float, guess: float = 1.0,
                         rel: float = 1e-3, z_min: float = Z_MIN, z_max: float = Z_MAX) -> float:
    """The smallest noise multiplier z (to relative precision ``rel``, rounded up) with epsilon_at(z) ≤ epsilon.

    ``epsilon_at`` is a dp-accounting accountant's ε of the mechanism as a function of its multiplier
    (decreasing).  Geometric bracketing from ``guess``, then a safeguarded regula falsi on log z (:func:`_refine`,
    never slower than a few bisection steps); the answer keeps
    epsilon_at(z) ≤ epsilon and epsilon_at(z/(1 + rel)) > epsilon.  Raises InvalidParameter naming
    ``epsilon`` when no multiplier up to ``z_max`` (≤ Z_MAX) is certified; returns ``z_min`` (≥ Z_MIN) when
    even that is.
    The one search behind every calibration in the suite (``verify.runs``, ``verify.papers.adadps``,
    ``verify.papers.noisy_adagrad``); each caller's accountant stays its own.

    Parameters
    ----------
    epsilon_at : callable
        z -> ε of the mechanism at noise multiplier z (decreasing in z); an InvalidParameter it raises counts
        as "not certified".
    epsilon : float
        The target ε.
    guess : float, optional
        Where the bracketing starts.
    rel : float, optional
        Relative precision of the answer.
    z_min, z_max : float, optional
        The search range, clipped to [Z_MIN, Z_MAX].

    Returns
    -------
    float
        The smallest certified multiplier found (within a factor 1 + ``rel``, on the certified side).

    Raises
    ------
    InvalidParameter
        Naming ``epsilon``, when no multiplier up to ``z_max`` is certified (or ``guess`` is not finite or
        exceeds it).
    """
    cap = min(float(z_max), Z_MAX)
    floor = max(float(z_min), Z_MIN)

    def too_much() -> InvalidParameter:
        return InvalidParameter("epsilon", f"large enough for the accountant to certify it (at this delta) with a "
                                f"noise multiplier of at most {cap:g}", epsilon)

    seen: dict[float, float] = {}

    def eps_of(zz: float) -> float:
        try:
            e = epsilon_at(zz)
        except InvalidParameter:  # dp-accounting cannot evaluate this multiplier (e.g. its PLD grid would be too
            e = math.inf          # large, or ε is infinite): not certified
        seen[zz] = e
        return e

    z = float(guess)
    if not math.isfinite(z) or z > cap:
        raise too_much()
    z = max(z, floor)
    if eps_of(z) > epsilon:
        lo, hi = z, min(2.0 * z, cap)
        while eps_of(hi) > epsilon:
            if hi >= cap:
                raise too_much()
            lo, hi = hi, min(2.0 * hi, cap)
    else:
        hi, lo = z, max(z / 2.0, floor)
        while eps_of(lo) <= epsilon:
            hi = lo
            if lo <= floor:
                return hi
            lo = max(lo / 2.0, floor)
    return _refine(eps_of, epsilon, lo, hi, rel, seen.get(lo, math.nan), seen.get(hi, math.nan))


def _refine(eps_of: Callable[[float], float], epsilon: float, lo: float, hi: float, rel: float,
            e_lo: float = math.nan, e_hi: float = math.nan) -> float:
    """Narrow a bracket (ε(lo) > epsilon ≥ ε(hi); ``e_lo``, ``e_hi`` those values where known) until
    hi ≤ lo·(1 + rel); returns hi.

    Regula falsi on (log z, log ε) — where an accountant's ε of a Gaussian mechanism is close to a straight line —
    with the Illinois rule (the end kept twice running has its value halved), and every point kept at least half
    the target width from both ends, so that once the line predicts the crossing to that precision, the next two
    points fall on either side of it.  A bracket that has not halved within two steps, or an end whose ε is infinite
    or 0 (no logarithm), takes the geometric midpoint instead.  The bracket stays valid throughout, whatever ε does
    between its ends, so the answer is certified and ε(answer/(1 + rel)) > epsilon as with bisection.
    """
    log_target = math.log(epsilon) if epsilon > 0.0 else math.nan

    def f(e: float) -> float:
        return math.log(e) - log_target if 0.0 < e < math.inf else math.nan

    fa, fb = f(e_lo), f(e_hi)
    ua, ub = math.log(lo), math.log(hi)
    width = math.log(1.0 + rel)
    kept = 0  # k > 0: the lo end was kept by the last k steps; k < 0: the hi end by the last −k
    spans = [ub - ua]
    while hi > lo * (1.0 + rel):
        span = ub - ua
        u = 0.5 * (ua + ub)
        halving = len(spans) < 3 or span <= 0.5 * spans[-3]
        if halving and math.isfinite(fa) and math.isfinite(fb) and fa > fb:
            ga = fa * (0.5 if kept >= 2 else 1.0)
            gb = fb * (0.5 if kept <= -2 else 1.0)
            pad = min(0.5 * width, 0.25 * span)
            u = min(max(ua + span * ga / (ga - gb), ua + pad), ub - pad)
        z = math.exp(u)
        if not lo < z < hi:  # the bracket is as narrow as floating point allows
            break
        e = eps_of(z)
        if e > epsilon:
            lo, ua, fa = z, u, f(e)
            kept = min(kept, 0) - 1
        else:
            hi, ub, fb = z, u, f(e)
            kept = max(kept, 0) + 1
        spans.append(ub - ua)
    return hi


def _noise_multiplier(value) -> float:
    lo, hi = NOISE_MULTIPLIER_RANGE
    z = V.positive("noise_multiplier", value)
    if not lo <= z <= hi:
        raise InvalidParameter("noise_multiplier", f"in [{lo:g}, {hi:g}] (beyond it dp-accounting's arithmetic "
                               "under- or overflows)", value)
    return z


def _vdi(value) -> float:
    vdi = V.positive("value_discretization_interval", value)
    if vdi > 1.0:
        raise InvalidParameter("value_discretization_interval", "in (0, 1] (the PLD grid step, in nats)", value)
    return vdi


@contextmanager
def _accounting(params: str):
    """Turn dp-accounting's own failures on extreme inputs into one message naming ``params``."""
    try:
        yield
    except InvalidParameter:
        raise
    except (ArithmeticError, ValueError, MemoryError, RuntimeError) as exc:
        raise InvalidParameter(params, "values dp-accounting can evaluate (it failed with "
                               f"{type(exc).__name__}: {str(exc)[:120]})") from None


def _finite_epsilon(eps: float, params: str) -> float:
    if not math.isfinite(eps):
        raise InvalidParameter(params, "values with a finite ε (the accountant returned ε = inf: no finite ε "
                               "reaches this δ, e.g. δ below the PLD's truncated tail mass or noise too small)", eps)
    return eps


def _leaves(event, times: int = 1):
    """(count, noise std, largest sensitivity) of every Gaussian-type leaf of ``event``, with its repetition count."""
    if isinstance(event, dpe.SelfComposedDpEvent):
        yield from _leaves(event.event, times * event.count)
    elif isinstance(event, dpe.ComposedDpEvent):
        for e in event.events:
            yield from _leaves(e, times)
    elif isinstance(event, (dpe.PoissonSampledDpEvent, dpe.SampledWithoutReplacementDpEvent,
                            dpe.SampledWithReplacementDpEvent)):
        yield from _leaves(event.event, times)
    elif isinstance(event, dpe.GaussianDpEvent):
        yield times, event.noise_multiplier, 1.0
    elif isinstance(event, dpe.MixtureOfGaussiansDpEvent):
        yield times, event.standard_deviation, max(event.sensitivities)


def _loss_range(sigma: float, sensitivity: float) -> float:
    """Width of the privacy losses a PLD of N(0, σ²) vs N(Δ, σ²) keeps: Δ²/(2σ²) + 10Δ/σ (upper bound, subsampled too)."""  # noqa: E501
    return sensitivity * sensitivity / (2.0 * sigma * sigma) + _TRUNCATION_SIGMAS * sensitivity / sigma


def _check_pld_grid(event, delta: float, vdi: float, params: str, proxy=None) -> None:
    """Refuse a PLD whose grid would exceed :data:`MAX_PLD_POINTS` points (before dp-accounting allocates it).

    The composed losses lie within the sum of the steps' ranges; when that sum is too wide, the
    losses that matter are estimated by the RDP ε of ``proxy`` (default: the event itself), which
    the grid must cover, and so is each one step's range.
    """
    leaves = list(_leaves(event))
    names = [p.strip() for p in params.split(",")]
    count_name = "steps" if "steps" in names else names[0]
    if sum(c for c, _, _ in leaves) > MAX_PLD_STEPS:
        raise InvalidParameter(count_name, f"at most {MAX_PLD_STEPS:.0e} composed steps for the PLD accountant (its "
                               "self-composition grows with the count), or accountant 'rdp'",
                               sum(c for c, _, _ in leaves))
    if len(leaves) > MAX_PLD_EVENTS:
        raise InvalidParameter(names[0], f"at most {MAX_PLD_EVENTS} distinct mechanisms for the PLD accountant, or "
                               "accountant 'rdp'", len(leaves))
    step = max((_loss_range(s, d) for _, s, d in leaves), default=0.0)
    total = sum(c * _loss_range(s, d) for c, s, d in leaves)
    if total / vdi <= MAX_PLD_POINTS:
        return
    scale = step
    target = event if proxy is None else proxy
    parts = _self_composed_poisson_gaussian(target)
    if parts is not None:  # the common case, its per-step RDP shared by every step count (searches over T)
        try:
            scale = max(scale, _poisson_gaussian_rdp_epsilon(*parts, delta))
        except (ArithmeticError, ValueError):
            scale = max(scale, total)
    else:
        rdp = rdpa.RdpAccountant()
        if rdp.supports(target):
            try:
                rdp.compose(target)
                scale = max(scale, float(rdp.get_epsilon(delta)))
            except (ArithmeticError, ValueError):
                scale = max(scale, total)
    if not scale / vdi <= MAX_PLD_POINTS:
        raise InvalidParameter("value_discretization_interval", f"at least {scale / MAX_PLD_POINTS:.3g} here, or "
                               f"accountant 'rdp': privacy losses reach about {scale:.3g} for these {params}, and a "
                               f"finer PLD grid would hold more than {MAX_PLD_POINTS:.0e} points", vdi)


def _self_composed_poisson_gaussian(event):
    """(count, q, σ) of ``SelfComposed(…SelfComposed(PoissonSampled(q, Gaussian(σ)), k₁)…, kₘ)``, count = k₁⋯kₘ;
    None for any other event."""
    count = 1
    while isinstance(event, dpe.SelfComposedDpEvent):
        count = event.count * count
        event = event.event
    if isinstance(event, dpe.PoissonSampledDpEvent) and isinstance(event.event, dpe.GaussianDpEvent):
        return count, event.sampling_probability, event.event.noise_multiplier
    return None


def _poisson_gaussian_rdp_epsilon(count: int, q: float, sigma: float, delta: float) -> float:
    """dp-accounting's default RdpAccountant's ε of ``count`` Poisson-subsampled Gaussian steps at ``delta``.

    The same arithmetic as composing the event into a fresh ``RdpAccountant`` and asking ``get_epsilon``: zeros
    plus count × the one step's RDP at the default orders, then ``compute_epsilon``; the one step's RDP is kept per
    (q, σ) (:func:`_poisson_gaussian_step_rdp`), so a search over step counts computes it once.
    """
    if not _PER_STEP_RDP:  # dp-accounting without the private piece this route needs: its accountant
        acc = rdpa.RdpAccountant()
        acc.compose(dpe.SelfComposedDpEvent(dpe.PoissonSampledDpEvent(q, dpe.GaussianDpEvent(sigma)), count))
        return float(acc.get_epsilon(delta))
    rdp = np.zeros_like(_RDP_ORDERS, dtype=np.float64)
    rdp += count * _poisson_gaussian_step_rdp(q, sigma)
    return float(rdpa.compute_epsilon(_RDP_ORDERS, rdp, delta)[0])


_RDP_ORDERS = np.array(rdpa.DEFAULT_RDP_ORDERS)
#: The per-step route uses a private piece of dp-accounting (checked against a fresh RdpAccountant in
#: tests/verify/test_privacy.py); a dp-accounting without it gets the accountant itself.
_PER_STEP_RDP = hasattr(rdpa, "_compute_rdp_poisson_subsampled_gaussian")


@lru_cache(maxsize=256)
def _poisson_gaussian_step_rdp(q: float, sigma: float) -> np.ndarray:
    """dp-accounting's RDP of one Poisson-subsampled Gaussian step at the default orders (read-only: it is shared)."""
    out = rdpa._compute_rdp_poisson_subsampled_gaussian(q=q, noise_multiplier=sigma, orders=_RDP_ORDERS)
    if isinstance(out, np.ndarray):
        out.flags.writeable = False
    return out


# --------------------------------------------------------------------------------------
# Sampling with replacement as a mixture of Gaussians
# --------------------------------------------------------------------------------------
def with_replacement_event(n: int, batch_size: int, noise_multiplier: float,
                           tail: float = 1e-14) -> dpe.MixtureOfGaussiansDpEvent:
    """One step of a batch of ``batch_size`` draws with replacement from ``n`` records.

    Zero-out adjacency (``REPLACE_SPECIAL``).  The differing record appears K ~
    Binomial(batch_size, 1/n) times; each copy moves the noised sum by at most 1, so the
    step is N(0, σ²) against Σₖ P(K = k) N(k, σ²) with σ = ``noise_multiplier``.

    K is cut at kmax, the largest k with P(K ≥ k) ≥ ``tail``; the mass P(K > kmax) < tail
    is put on kmax.  This is *not* conservative (moving mass to a smaller sensitivity makes
    the pair more private), but it moves each step's output distribution by less than
    ``tail`` in total variation, so over T steps it can lower the hockey-stick divergence
    at e^ε by less than T·e^ε·tail.  :meth:`Mechanism.epsilon` reserves δ for that.

    Parameters
    ----------
    n : int
        Number of records (≥ 1).
    batch_size : int
        Draws per batch, in [1, MAX_WITH_REPLACEMENT_BATCH].
    noise_multiplier : float
        σ, in NOISE_MULTIPLIER_RANGE.
    tail : float, optional
        The binomial tail mass cut off, in (0, 1).

    Returns
    -------
    dp_accounting.dp_event.MixtureOfGaussiansDpEvent
        Standard deviation σ, sensitivities 0..kmax and their (truncated, renormalised) probabilities.

    Raises
    ------
    InvalidParameter
        (from the validators) When a parameter is out of range.
    """
    n = V.integer("n", n)
    batch_size = V.integer("batch_size", batch_size, 1, MAX_WITH_REPLACEMENT_BATCH)
    sigma = _noise_multiplier(noise_multiplier)
    tail = V.open_unit("tail", tail)
    ks = np.arange(batch_size + 1)
    at_least = stats.binom.sf(ks - 1, batch_size, 1.0 / n)  # P(K >= k)
    kmax = int(np.flatnonzero(at_least >= tail)[-1])
    probs = stats.binom.pmf(ks[: kmax + 1], batch_size, 1.0 / n)
    probs[kmax] = at_least[kmax]
    probs = probs / probs.sum()
    return dpe.MixtureOfGaussiansDpEvent(
        standard_deviation=sigma,
        sensitivities=[float(k) for k in ks[: kmax + 1]],
        sampling_probs=[float(p) for p in probs],
    )


# --------------------------------------------------------------------------------------
# The parameter record
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mechanism:
    """An immutable description of a noisy-gradient mechanism (evaluation is separate).

    ``sampling``: ``"poisson"`` (each record independently with ``sampling_rate``;
    add/remove-one adjacency), ``"with_replacement"`` (``batch_size`` uniform draws with
    replacement from ``n``; zero-out adjacency) or ``"none"`` (every record, every step;
    add/remove-one).  Each step adds Gaussian noise of ``noise_multiplier`` times the
    per-record sensitivity; ``steps`` steps are composed.

    Limits: ``noise_multiplier`` in :data:`NOISE_MULTIPLIER_RANGE`, ``steps`` ≤ 10⁹,
    ``batch_size`` ≤ :data:`MAX_WITH_REPLACEMENT_BATCH`; PLD grids of at most
    :data:`MAX_PLD_POINTS` points.  Whatever dp-accounting cannot evaluate, or evaluates to
    ε = inf, raises :class:`InvalidParameter` naming the parameters.
    """

    sampling: str
    noise_multiplier: float
    steps: int = 1
    sampling_rate: float | None = None
    n: int | None = None
    batch_size: int | None = None

    def __post_init__(self):
        fix = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        V.choice("sampling", self.sampling, SAMPLINGS)
        fix("noise_multiplier", _noise_multiplier(self.noise_multiplier))
        fix("steps", V.integer("steps", self.steps, 1, MAX_STEPS))
        if self.sampling == "poisson":
            fix("sampling_rate", V.unit_interval("sampling_rate", self.sampling_rate))
        elif self.sampling == "with_replacement":
            fix("n", V.integer("n", self.n))
            fix("batch_size", V.integer("batch_size", self.batch_size, 1, MAX_WITH_REPLACEMENT_BATCH))

    @property
    def _params(self) -> str:
        """The parameter names an accounting failure is reported under."""
        extra = {"poisson": "sampling_rate, ", "with_replacement": "n, batch_size, ", "none": ""}[self.sampling]
        return extra + "noise_multiplier, steps, delta"

    @property
    def neighboring_relation(self) -> NeighboringRelation:
        """The adjacency of this mechanism's sampling scheme.

        Returns
        -------
        dp_accounting.NeighboringRelation
            REPLACE_SPECIAL (zero-out) with replacement, else ADD_OR_REMOVE_ONE.
        """
        if self.sampling == "with_replacement":
            return NeighboringRelation.REPLACE_SPECIAL
        return NeighboringRelation.ADD_OR_REMOVE_ONE

    def step_event(self, tail: float = 1e-14) -> dpe.DpEvent:
        """The dp-accounting event of one step (``tail``: see :func:`with_replacement_event`).

        Parameters
        ----------
        tail : float, optional
            The binomial tail cut off (with replacement only).

        Returns
        -------
        dp_accounting.dp_event.DpEvent
            A Gaussian event, Poisson-subsampled for "poisson", or the mixture of Gaussians with replacement.
        """
        if self.sampling == "with_replacement":
            return with_replacement_event(self.n, self.batch_size, self.noise_multiplier, tail)
        gaussian = dpe.GaussianDpEvent(self.noise_multiplier)
        return dpe.PoissonSampledDpEvent(self.sampling_rate, gaussian) if self.sampling == "poisson" else gaussian

    def event(self, tail: float = 1e-14) -> dpe.DpEvent:
        """The dp-accounting event of all ``steps`` steps.

        Parameters
        ----------
        tail : float, optional
            The binomial tail cut off (with replacement only).

        Returns
        -------
        dp_accounting.dp_event.SelfComposedDpEvent
            :meth:`step_event` composed ``steps`` times.
        """
        return dpe.SelfComposedDpEvent(self.step_event(tail), self.steps)

    def with_steps(self, steps: int) -> "Mechanism":
        """The same mechanism run for ``steps`` steps.

        Parameters
        ----------
        steps : int
            The new number of steps (validated as in the constructor).

        Returns
        -------
        Mechanism
        """
        return dataclasses.replace(self, steps=steps)

    def epsilon(self, delta: float, accountant: str = "pld",
                value_discretization_interval: float | None = None) -> float:
        """ε at ``delta`` from dp-accounting's ``accountant``, under this mechanism's adjacency.

        With replacement, only "pld" is accepted, and a share
        :data:`TRUNCATION_DELTA_SHARE` of δ pays for truncating K: the binomial tail is
        cut at ``tail`` ≤ that share of δ / (steps·e^ε) (a power of ten), checked against
        the ε found and cut deeper if the check fails, so the returned ε is an upper
        estimate for the untruncated mechanism.  The one-step PLD is built by
        dp-accounting's own constructor (the call its PLDAccountant makes for a
        ``MixtureOfGaussiansDpEvent``) and cached, so evaluating many step counts of one
        mechanism builds it once; ``tests/verify/test_privacy.py`` checks this route
        against :func:`epsilon_of`.

        Parameters
        ----------
        delta : float
            The δ, in (0, 1).
        accountant : str, optional
            "pld" or "rdp" (only "pld" with replacement).
        value_discretization_interval : float or None, optional
            The PLD grid step in nats, in (0, 1] (None: 1e-4); ignored by "rdp".

        Returns
        -------
        float
            The (finite) ε.

        Raises
        ------
        InvalidParameter
            For a parameter out of range, an accountant that cannot evaluate the mechanism, or ε = inf.
        """
        delta = V.open_unit("delta", delta)
        accountant = V.choice("accountant", accountant, ACCOUNTANTS)
        if self.sampling != "with_replacement":
            return _epsilon_of(self.event(), delta, accountant, self.neighboring_relation,
                               value_discretization_interval, self._params)
        _require_pld(accountant)
        vdi = 1e-4 if value_discretization_interval is None else _vdi(value_discretization_interval)
        return _memoised(("with_replacement_epsilon", self, delta, vdi),
                         lambda: self._with_replacement_epsilon(delta, vdi))

    def _with_replacement_epsilon(self, delta: float, vdi: float) -> float:
        """:meth:`epsilon` with replacement, ``delta`` and the grid ``vdi`` validated."""
        reserve = TRUNCATION_DELTA_SHARE * delta
        eps_guess = math.log(1e4)
        while True:
            pld, tail = self._truncated_pld("pld", reserve, eps_guess, vdi, delta)
            with _accounting(self._params):
                eps = _finite_epsilon(float(pld.get_epsilon_for_delta(delta - reserve)), self._params)
            if eps <= eps_guess or tail <= _SMALLEST_TAIL:
                return eps
            eps_guess = eps + math.log(2.0)

    def is_private(self, epsilon: float, delta: float, accountant: str = "pld",
                   value_discretization_interval: float | None = None) -> bool:
        """Does the accountant certify (``epsilon``, ``delta``)-DP?  (Conservative: True is a proof.)

        With replacement the binomial tail is cut at ``tail`` ≤ a share
        :data:`TRUNCATION_DELTA_SHARE` of δ / (steps·e^ε), and that share of δ is kept
        back, so no iteration is needed.

        Parameters
        ----------
        epsilon : float
            The promised ε (> 0).
        delta : float
            The promised δ, in (0, 1).
        accountant : str, optional
            "pld" or "rdp" (only "pld" with replacement).
        value_discretization_interval : float or None, optional
            The PLD grid step in nats, in (0, 1] (None: 1e-4); ignored by "rdp".

        Returns
        -------
        bool
            True when the accountant certifies the promise.

        Raises
        ------
        InvalidParameter
            For a parameter out of range or an accountant that cannot evaluate the mechanism.
        """
        epsilon = V.positive("epsilon", epsilon)
        delta = V.open_unit("delta", delta)
        accountant = V.choice("accountant", accountant, ACCOUNTANTS)
        if self.sampling != "with_replacement":
            return self.epsilon(delta, accountant, value_discretization_interval) <= epsilon
        reserve = TRUNCATION_DELTA_SHARE * delta
        pld, _ = self._truncated_pld(accountant, reserve, epsilon, value_discretization_interval, delta)
        with _accounting(self._params):
            return float(pld.get_delta_for_epsilon(epsilon)) <= delta - reserve

    def _truncated_pld(self, accountant: str, reserve: float, epsilon: float, vdi: float | None, delta: float):
        """T-step PLD with replacement, K cut at a power-of-ten tail with steps·tail·e^ε ≤ reserve."""
        _require_pld(accountant)
        vdi = 1e-4 if vdi is None else _vdi(vdi)
        exponent = math.floor(max((math.log(reserve / self.steps) - epsilon) / math.log(10.0), -400.0))
        tail = max(min(10.0 ** exponent, 1e-14), _SMALLEST_TAIL)
        with _accounting(self._params):
            ev = with_replacement_event(self.n, self.batch_size, self.noise_multiplier, tail)
            # grid guard: the losses that matter estimated by Poisson sampling at rate b/n (≈ b/n copies per step)
            ratio = self.batch_size / self.n
            proxy = dpe.SelfComposedDpEvent(dpe.PoissonSampledDpEvent(
                min(1.0, ratio), dpe.GaussianDpEvent(self.noise_multiplier / max(1.0, ratio))), self.steps)
            _check_pld_grid(dpe.SelfComposedDpEvent(ev, self.steps), delta, vdi, self._params, proxy)
            step = _with_replacement_step_pld(self.n, self.batch_size, self.noise_multiplier, tail, vdi)
            return _self_compose(step, self.steps), tail


def _require_pld(accountant: str) -> None:
    if accountant != "pld":
        raise InvalidParameter(
            "accountant", "'pld' for sampling with replacement (dp-accounting's RDP "
            "accountant does not support sampling with replacement)", accountant)


#: The direct self-composition uses private pieces of dp-accounting (checked against its public route, bit for bit,
#: in tests/verify/test_privacy.py); a dp-accounting without them gets ``PrivacyLossDistribution.self_compose``.
def _direct_self_compose_available() -> bool:
    """Whether this dp-accounting has the pieces :func:`_self_compose` reads (a PLD's two PMFs, the sparse size)."""
    try:
        pld = _pld_lib.PrivacyLossDistribution(_pld_pmf.SparsePLDPmf({0: 1.0}, 1.0, 0.0, True))
        return isinstance(_pld_pmf._MAX_PMF_SPARSE_SIZE, int) and all(
            hasattr(pld, a) for a in ("_pmf_remove", "_pmf_add", "_symmetric"))
    except Exception:  # another dp-accounting: its public route
        return False


_DIRECT_SELF_COMPOSE = _direct_self_compose_available()


def _sparse_result_too_large(size: int, num_times: int) -> bool:
    """``size ** num_times > _MAX_PMF_SPARSE_SIZE``, dp-accounting's test, without the power.

    dp-accounting evaluates the power as a Python integer: for a million steps that is a number of millions of
    digits and seconds of big-integer arithmetic per call.  Multiplying up only until the bound is passed gives the
    same answer in at most a few dozen products.
    """
    bound = _pld_pmf._MAX_PMF_SPARSE_SIZE
    if size <= 1:
        return size ** num_times > bound
    power = 1
    for _ in range(num_times):
        power *= size
        if power > bound:
            return True
    return False


def _self_compose_pmf(pmf, num_times: int, tail_mass_truncation: float):
    """``pmf.self_compose(num_times, tail_mass_truncation)``, a sparse PMF that dp-accounting would densify sent to
    the dense route directly (what ``SparsePLDPmf.self_compose`` does once its size test has passed)."""
    if (type(pmf) is _pld_pmf.SparsePLDPmf and num_times > 1
            and _sparse_result_too_large(pmf.size, num_times)):
        return pmf.to_dense_pmf().self_compose(num_times, tail_mass_truncation)
    return pmf.self_compose(num_times, tail_mass_truncation)


def _self_compose(pld, num_times: int, tail_mass_truncation: float = 1e-15):
    """``pld.self_compose(num_times, tail_mass_truncation)`` (dp-accounting's defaults), the same PLD bit for bit.

    dp-accounting's sparse PMFs decide whether to densify by computing ``size ** num_times`` exactly, which for the
    10⁵–10⁷ steps of sampling with replacement costs more than the composition itself; here that test is made
    without the power (:func:`_sparse_result_too_large`) and the rest is dp-accounting's own code.
    """
    if not _DIRECT_SELF_COMPOSE or num_times <= 0:  # num_times <= 0: dp-accounting's own error
        return pld.self_compose(num_times, tail_mass_truncation)
    remove = _self_compose_pmf(pld._pmf_remove, num_times, tail_mass_truncation)
    if pld._symmetric:
        return _pld_lib.PrivacyLossDistribution(remove)
    add = _self_compose_pmf(pld._pmf_add, num_times, tail_mass_truncation)
    return _pld_lib.PrivacyLossDistribution(remove, add)


#: The vectorised route uses two private pieces of dp-accounting (checked against its public route, bit for bit, in
#: tests/verify/test_privacy.py); a dp-accounting without them gets its own, slower public route.
_VECTORISED_MIXTURE_PLD = (hasattr(_pld_lib, "_create_pld_pmf_from_monotone_privacy_loss")
                           and hasattr(_plm.MixtureGaussianPrivacyLoss, "_inverse_privacy_losses_with_range"))


@lru_cache(maxsize=8)
def _with_replacement_step_pld(n: int, batch_size: int, noise_multiplier: float, tail: float, vdi: float):
    """One step's PLD with replacement: dp-accounting's ``from_mixture_gaussian_mechanism``, bisection vectorised.

    The same construction as ``_pld_lib.from_mixture_gaussian_mechanism`` (its defaults: pessimistic estimate,
    connect-the-dots, log mass truncation bound -50), with the privacy loss of :class:`_MixtureLossVectorised`, whose
    inverse runs dp-accounting's bisection for all losses at once; the PLD is the same, bit for bit
    (``tests/verify/test_privacy.py`` compares the two).
    """
    ev = with_replacement_event(n, batch_size, noise_multiplier, tail)
    if not _VECTORISED_MIXTURE_PLD:  # dp-accounting without the private pieces this route needs: its own route
        return _pld_lib.from_mixture_gaussian_mechanism(
            standard_deviation=ev.standard_deviation, sensitivities=ev.sensitivities,
            sampling_probs=ev.sampling_probs, value_discretization_interval=vdi)

    def single_pld_pmf(adjacency_type):
        loss = _MixtureLossVectorised(ev.standard_deviation, ev.sensitivities, ev.sampling_probs,
                                      pessimistic_estimate=True, log_mass_truncation_bound=-50,
                                      adjacency_type=adjacency_type)
        return _pld_lib._create_pld_pmf_from_monotone_privacy_loss(
            loss, pessimistic_estimate=True, value_discretization_interval=vdi, use_connect_dots=True)

    return _pld_lib.PrivacyLossDistribution(single_pld_pmf(_plm.AdjacencyType.REMOVE),
                                            single_pld_pmf(_plm.AdjacencyType.ADD))


class _MixtureLossVectorised(_plm.MixtureGaussianPrivacyLoss):
    """dp-accounting's mixture-of-Gaussians privacy loss, its inverse's bisection run level by level in NumPy.

    dp-accounting inverts the privacy loss by one recursive bisection over all losses at once (a Python call and a
    privacy-loss evaluation per tree node: millions for a fine grid).  Here every loss follows its own path down the
    same tree, all paths one level at a time: the midpoints, the privacy loss at each distinct midpoint (computed as
    ``privacy_loss`` computes it: the same products, quotients and left-to-right ``logaddexp``), the comparisons
    (``<`` goes right, ``>=`` left, neither, a NaN, gives 0 as dp-accounting's zero-filled output does) and the stop
    (an interval no wider than ``precision`` gives ``floor(hi / precision) * precision``) are dp-accounting's, so
    every inverse is the same float.
    """

    def _losses_at(self, xs: np.ndarray) -> np.ndarray:
        """:meth:`privacy_loss` at each of ``xs``, elementwise the same arithmetic."""
        x_loss = np.multiply.outer(xs, self.sensitivities) / self._variance
        if self.adjacency_type == _plm.AdjacencyType.ADD:
            summands = self._precompute_privacy_loss_constants + x_loss
        elif self.adjacency_type == _plm.AdjacencyType.REMOVE:
            summands = self._precompute_privacy_loss_constants - x_loss
        else:
            raise ValueError(f"{self.adjacency_type} adjacency type is not supported.")
        acc = summands[:, 0].copy()
        for j in range(1, summands.shape[1]):
            np.logaddexp(acc, summands[:, j], out=acc)
        return -acc if self.adjacency_type == _plm.AdjacencyType.ADD else acc

    def _inverse_privacy_losses_with_range(self, privacy_losses, bounds, precision=1e-6):
        """dp-accounting's recursive bisection (same signature and floats), run for all losses level by level."""
        losses = np.asarray(privacy_losses)
        if len(losses) == 0:
            return []
        out = np.zeros(len(losses), dtype=float)
        lo = np.full(len(losses), bounds[0], dtype=float)
        hi = np.full(len(losses), bounds[1], dtype=float)
        active = np.arange(len(losses))
        while active.size:
            a_lo, a_hi = lo[active], hi[active]
            done = a_hi - a_lo <= precision
            if done.any():
                out[active[done]] = np.floor(a_hi[done] / precision) * precision
                keep = ~done
                active, a_lo, a_hi = active[keep], a_lo[keep], a_hi[keep]
                if not active.size:
                    break
            mid = (a_lo + a_hi) / 2
            # paths of sorted losses stay sorted, so equal midpoints sit together: one loss evaluation per run
            starts = np.flatnonzero(np.concatenate(([True], mid[1:] != mid[:-1])))
            split = np.repeat(self._losses_at(mid[starts]), np.diff(np.append(starts, mid.size)))
            a_loss = losses[active]
            right = a_loss < split  # dp-accounting's lower_indices: search (mid, hi)
            left = a_loss >= split  # higher_indices: search (lo, mid)
            lo[active[right]] = mid[right]
            hi[active[left]] = mid[left]
            active = active[right | left]  # neither (a NaN): dp-accounting leaves 0
        return out


# --------------------------------------------------------------------------------------
# Convenience front ends (all through Mechanism / epsilon_of)
# --------------------------------------------------------------------------------------
def dp_sgd_epsilon(sampling_rate: float, noise_multiplier: float, steps: int, delta: float,
                   accountant: str = "rdp", value_discretization_interval: float | None = None) -> float:
    """ε of DP-SGD: ``steps`` Poisson-subsampled Gaussian steps; add/remove-one adjacency.

    Parameters
    ----------
    sampling_rate : float
        Poisson sampling rate q, in (0, 1].
    noise_multiplier : float
        σ, in NOISE_MULTIPLIER_RANGE.
    steps : int
        Number of steps, in [1, MAX_STEPS].
    delta : float
        The δ, in (0, 1).
    accountant : str, optional
        "rdp" (default) or "pld".
    value_discretization_interval : float or None, optional
        The PLD grid step in nats, in (0, 1] (None: 1e-4); ignored by "rdp".

    Returns
    -------
    float
        The (finite) ε.

    Raises
    ------
    InvalidParameter
        For a parameter out of range or an accountant failure (see :meth:`Mechanism.epsilon`).
    """
    return Mechanism("poisson", noise_multiplier, steps, sampling_rate=sampling_rate).epsilon(
        delta, accountant, value_discretization_interval)


def composed_epsilon(phases: Sequence[tuple[float, float, int]], delta: float, accountant: str = "rdp",
                     value_discretization_interval: float | None = None) -> float:
    """ε of phases ``(sampling_rate, noise_multiplier, steps)`` run one after another.

    Poisson-subsampled Gaussian steps, add/remove-one adjacency; the phases compose
    (``ComposedDpEvent``).

    Parameters
    ----------
    phases : sequence of (float, float, int)
        ``(sampling_rate, noise_multiplier, steps)`` per phase; 1 to MAX_PHASES phases.
    delta : float
        The δ, in (0, 1).
    accountant : str, optional
        "rdp" (default) or "pld".
    value_discretization_interval : float or None, optional
        The PLD grid step in nats, in (0, 1] (None: 1e-4); ignored by "rdp".

    Returns
    -------
    float
        The (finite) ε of the composition.

    Raises
    ------
    InvalidParameter
        When ``phases`` is empty, too long, or not a sequence of triples, a phase's values are out of range,
        or the accountant fails.
    """
    try:
        phases = list(phases)
    except TypeError:
        raise InvalidParameter("phases", "a non-empty sequence of (sampling_rate, noise_multiplier, steps)",
                               phases) from None
    if not phases:
        raise InvalidParameter("phases", "a non-empty sequence of (sampling_rate, noise_multiplier, steps)", phases)
    if len(phases) > MAX_PHASES:
        raise InvalidParameter("phases", f"at most {MAX_PHASES} phases", len(phases))
    try:
        mechs = [Mechanism("poisson", sigma, steps, sampling_rate=q) for q, sigma, steps in phases]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InvalidParameter):
            raise
        raise InvalidParameter("phases", "a sequence of (sampling_rate, noise_multiplier, steps) triples",
                               phases) from None
    return _epsilon_of(dpe.ComposedDpEvent([m.event() for m in mechs]), delta, accountant,
                       NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval, "phases, delta")


def with_replacement_epsilon(n: int, batch_size: int, noise_multiplier: float, steps: int, delta: float,
                             accountant: str = "pld", value_discretization_interval: float | None = None) -> float:
    """ε of ``steps`` steps, each a batch of ``batch_size`` draws with replacement from ``n``.

    Zero-out adjacency (``REPLACE_SPECIAL``); PLD only (see :func:`with_replacement_event`
    and :meth:`Mechanism.epsilon` for the binomial truncation and the δ it reserves).

    Parameters
    ----------
    n : int
        Number of records.
    batch_size : int
        Draws per batch, in [1, MAX_WITH_REPLACEMENT_BATCH].
    noise_multiplier : float
        σ, in NOISE_MULTIPLIER_RANGE.
    steps : int
        Number of steps.
    delta : float
        The δ, in (0, 1).
    accountant : str, optional
        Must be "pld".
    value_discretization_interval : float or None, optional
        The PLD grid step in nats, in (0, 1] (None: 1e-4); ignored by "rdp".

    Returns
    -------
    float
        The (finite) ε, an upper estimate for the untruncated mechanism.

    Raises
    ------
    InvalidParameter
        For a parameter out of range, accountant "rdp", or an accountant failure.
    """
    return Mechanism("with_replacement", noise_multiplier, steps, n=n, batch_size=batch_size).epsilon(
        delta, accountant, value_discretization_interval)


def gaussian_epsilon(noise_multiplier: float, delta: float, steps: int = 1, accountant: str = "pld",
                     value_discretization_interval: float | None = None) -> float:
    """ε of ``steps`` Gaussian mechanisms of sensitivity 1, no sampling; add/remove-one adjacency.

    Parameters
    ----------
    noise_multiplier : float
        σ, in NOISE_MULTIPLIER_RANGE.
    delta : float
        The δ, in (0, 1).
    steps : int, optional
        Number of mechanisms composed.
    accountant : str, optional
        "pld" (default) or "rdp".
    value_discretization_interval : float or None, optional
        The PLD grid step in nats, in (0, 1] (None: 1e-4); ignored by "rdp".

    Returns
    -------
    float
        The (finite) ε.

    Raises
    ------
    InvalidParameter
        For a parameter out of range or an accountant failure.
    """
    return Mechanism("none", noise_multiplier, steps).epsilon(delta, accountant, value_discretization_interval)


def gaussian_epsilon_interval(noise_multiplier: float, delta: float, steps: int = 1,
                              value_discretization_interval: float = 1e-4) -> tuple[float, float]:
    """(lower, upper) bounds on the ε of ``steps`` Gaussian mechanisms with this noise multiplier.

    dp-accounting's PLD with ``pessimistic_estimate=False`` (privacy buckets) and ``True``: the true ε
    lies between them.  A promise is certainly broken when even the lower bound exceeds it.
    Add/remove-style dominating pair N(0, σ²) vs N(1, σ²), i.e. sensitivity 1 in units of the multiplier.

    Parameters
    ----------
    noise_multiplier : float
        σ, in NOISE_MULTIPLIER_RANGE.
    delta : float
        The δ, in (0, 1).
    steps : int, optional
        Number of mechanisms composed, in [1, MAX_STEPS].
    value_discretization_interval : float, optional
        The PLD grid step in nats, in (0, 1].

    Returns
    -------
    lower : float
        ε from the optimistic PLD.
    upper : float
        ε from the pessimistic PLD.

    Raises
    ------
    InvalidParameter
        For a parameter out of range, a grid too fine, or an infinite ε.
    """
    z = _noise_multiplier(noise_multiplier)
    delta = V.open_unit("delta", delta)
    steps = V.integer("steps", steps, 1, MAX_STEPS)
    vdi = _vdi(value_discretization_interval)
    params = "noise_multiplier, steps, delta"

    def compute() -> tuple[float, float]:
        out = []
        with _accounting(params):
            _check_pld_grid(dpe.SelfComposedDpEvent(dpe.GaussianDpEvent(z), steps), delta, vdi, params)
            for pessimistic in (False, True):
                dist = _pld_lib.from_gaussian_mechanism(z, pessimistic_estimate=pessimistic,
                                                        value_discretization_interval=vdi, use_connect_dots=pessimistic)
                out.append(_finite_epsilon(float(dist.self_compose(steps).get_epsilon_for_delta(delta)), params))
        return out[0], out[1]

    # the same question from two claims of one worker process (or twice in one claim) is answered once
    return _memoised(("gaussian_epsilon_interval", _memo_key(z), _memo_key(delta), _memo_key(steps), _memo_key(vdi)),
                     compute)


def gaussian_epsilon_exact(noise_multiplier: float, delta: float, steps: int = 1) -> tuple[float, float]:
    """(lower, upper) bracket of the exact ε of ``steps`` Gaussian mechanisms, sensitivity 1, no sampling.

    No grid: ``steps`` composed Gaussians of multiplier z are one Gaussian of multiplier z/√steps (exactly), whose ε
    is dp-accounting's analytic Gaussian ε (``gaussian_mechanism.get_epsilon_gaussian``: the closed-form δ(ε) of
    Balle & Wang 2018 in log space, solved by Brent's method to an absolute 1e-12).  The bracket is that root
    ± 1e-12, widened by :data:`EXACT_EPSILON_GUARD` (relative) for the closed form's rounding.  The root lies inside
    :func:`gaussian_epsilon_interval`'s PLD bracket (tests check it); this costs a millisecond where a fine PLD grid of
    a small multiplier costs seconds.

    Parameters
    ----------
    noise_multiplier : float
        σ, in NOISE_MULTIPLIER_RANGE.
    delta : float
        The δ, in (0, 1).
    steps : int, optional
        Number of mechanisms composed, in [1, MAX_STEPS].

    Returns
    -------
    lower : float
        A lower bound on the exact ε (0.0 when ε = 0 already reaches δ).
    upper : float
        An upper bound on the exact ε.

    Raises
    ------
    InvalidParameter
        For a parameter out of range or an accountant failure.
    """
    z = _noise_multiplier(noise_multiplier)
    delta = V.open_unit("delta", delta)
    steps = V.integer("steps", steps, 1, MAX_STEPS)
    params = "noise_multiplier, steps, delta"

    def compute():
        with _accounting(params):
            eps = _finite_epsilon(float(_gauss_mech.get_epsilon_gaussian(z / math.sqrt(steps), delta, 1e-12)),
                                  params)
        if eps == 0.0:
            return 0.0, 0.0
        return max(0.0, (eps - 1e-12) * (1.0 - EXACT_EPSILON_GUARD)), (eps + 1e-12) * (1.0 + EXACT_EPSILON_GUARD)

    return _memoised(("gaussian_epsilon_exact", z, delta, steps), compute)


def optimal_composition_epsilon(epsilons: Sequence[float], deltas: Sequence[float], delta: float,
                                value_discretization_interval: float = 1e-4) -> float:
    """ε at ``delta`` of the worst composition of mechanisms that are (ε_i, δ_i)-DP, one each.

    dp-accounting's PLD of the dominating pair of a generic (ε_i, δ_i)-DP mechanism
    (``from_privacy_parameters``), composed: the exact optimal composition up to the PLD grid
    (rounded pessimistically, so this is an upper bound on the optimal ε, tight as the grid shrinks).

    Parameters
    ----------
    epsilons : sequence of float
        ε_i ≥ 0 of each mechanism (1 to MAX_PHASES of them).
    deltas : sequence of float
        δ_i in [0, 1), one per mechanism.
    delta : float
        The δ of the composition, in (0, 1).
    value_discretization_interval : float, optional
        The PLD grid step in nats, in (0, 1].

    Returns
    -------
    float
        The (finite) ε of the composition.

    Raises
    ------
    InvalidParameter
        When ``epsilons`` is empty, negative or too long, ``deltas`` out of [0, 1) or of another shape, the
        PLD work or grid would exceed MAX_PLD_WORK or MAX_PLD_POINTS, or dp-accounting fails or gives ε = inf.
    """
    from dp_accounting.pld import common as _pld_common

    eps = V.finite_array("epsilons", epsilons, ndim=1)
    dl = V.finite_array("deltas", deltas, shape=eps.shape)
    if eps.size == 0 or np.any(eps < 0):
        raise InvalidParameter("epsilons", "a non-empty sequence of numbers >= 0", "an empty or negative entry")
    if eps.size > MAX_PHASES:
        raise InvalidParameter("epsilons", f"at most {MAX_PHASES} mechanisms", eps.size)
    if np.any((dl < 0) | (dl >= 1)):
        raise InvalidParameter("deltas", "entries in [0, 1)", "an entry outside")
    delta = V.open_unit("delta", delta)
    vdi = _vdi(value_discretization_interval)
    total = float(np.sum(eps))  # each (ε_i, δ_i) pair has privacy losses in [−ε_i, ε_i]
    if not eps.size * max(2.0 * total / vdi, 1.0) <= MAX_PLD_WORK:
        raise InvalidParameter("epsilons", f"fewer mechanisms or a coarser value_discretization_interval: {eps.size} "
                               f"PLD compositions of grids up to {2.0 * total / vdi:.3g} points exceed "
                               f"{MAX_PLD_WORK:.0e} point-operations", eps.size)
    if not 2.0 * total / vdi <= MAX_PLD_POINTS:
        raise InvalidParameter("value_discretization_interval", f"at least {2.0 * total / MAX_PLD_POINTS:.3g} here: "
                               f"the composed privacy losses span ±Σε_i = ±{total:.3g} (epsilons), and a finer PLD "
                               "grid "
                               f"would hold more than {MAX_PLD_POINTS:.0e} points", vdi)
    params = "epsilons, deltas, delta"
    pld = None
    with _accounting(params):
        for e, d in zip(eps.tolist(), dl.tolist()):
            step = _pld_lib.from_privacy_parameters(_pld_common.DifferentialPrivacyParameters(e, d),
                                                    value_discretization_interval=vdi)
            pld = step if pld is None else pld.compose(step)
        return _finite_epsilon(float(pld.get_epsilon_for_delta(delta)), params)
