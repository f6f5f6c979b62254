"""Mutation analysis: does each claim's check catch deliberate errors in its theory and its kernels?

A :class:`Mutant` is a named, deliberate error applied without editing any file, inside a
context manager: a closed form replaced by a wrong one (a constant off by 10×, an exponent off
by a quarter), or a kernel fault switched on through a kernel option.  :func:`run` checks a claim
under each of its mutants and records whether the verdict moved away from the claim's own
(``killed``) and whether the mutant was refuted outright (the verdict became ``violated``).

Theory mutants are derived for every function a claim declares in ``theory=``: while the mutant is
active, the theory module's attribute (and any ``verify`` module's alias of the same function)
returns the mutated expression, so the check evaluates the wrong formula wherever it looks it up.
A claim may declare more mutants (kernel faults) with ``@claim(..., mutants=[...])``.

Every mutant run starts from cleared in-process memos (:func:`reset_caches`) and uses no task
cache on disk, so nothing computed under the true theory leaks into it, or back.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np
import sympy as sp

from kernels import faults as _faults

from .registry import REGISTRY, Claim, Outcome, Verdict
from .runner import SerialRunner, using


@dataclass(frozen=True)
class Mutant:
    """A named deliberate error: ``apply()`` is a context manager inside which it is active."""

    name: str
    description: str
    kind: str  # "theory" | "kernel"
    apply: Callable[[], contextlib.AbstractContextManager]


@dataclass
class MutantResult:
    claim: str
    mutant: str
    description: str
    kind: str
    original: str  # the claim's verdict without the mutant
    verdict: str  # the verdict under the mutant ("error" if the check raised)
    seconds: float
    error: str = ""
    #: why the mutant is equivalent (the mutated statement is still true: it only weakens a one-sided statement);
    #: "" for a real error.  An equivalent mutant is never a survivor and stays out of the rates' denominators.
    equivalent: str = ""
    #: why the check refused the mutant's runs as not the stated mechanism (its mechanism probe failed: a
    #: :class:`verify.decide.MechanismMismatch`, or a ``holds`` withdrawn to inconclusive); "" otherwise.  Such a
    #: mutant is caught, but *rejected*, not refuted: counted apart from refutations and from crashes.
    rejected: str = ""

    @property
    def killed(self) -> bool:
        """Caught: the verdict moved away from the claim's own (a crash counts, flagged by ``error``).

        Returns
        -------
        bool
            True when the verdict under the mutant differs from the original one.
        """
        return self.verdict != self.original

    @property
    def refuted(self) -> bool:
        """Caught outright: the mutant made a claim that was not violated say violated (or the reverse).

        Returns
        -------
        bool
            True when a non-violated claim became violated, or a violated one became holds.
        """
        if self.original == Verdict.VIOLATED:
            return self.verdict == Verdict.HOLDS
        return self.verdict == Verdict.VIOLATED

    def to_dict(self) -> dict:
        """The result as one row of mutants.json.

        Returns
        -------
        dict
            Every field, plus ``killed`` and ``refuted``; ``seconds`` rounded to milliseconds; ``rejected`` is the
            reason the mechanism probe gave ("" when the runs were not refused).
        """
        return {"claim": self.claim, "mutant": self.mutant, "description": self.description, "kind": self.kind,
                "original": self.original, "verdict": self.verdict, "killed": self.killed,
                "refuted": self.refuted, "seconds": round(self.seconds, 3), "error": self.error,
                "equivalent": self.equivalent, "rejected": self.rejected}


# --------------------------------------------------------------------------------------
# theory mutants
# --------------------------------------------------------------------------------------
class NotMutable(TypeError):
    """A theory function's value has no expression to mutate."""


def mutate_value(value, fn: Callable[[sp.Expr], sp.Expr]):
    """Apply ``fn`` to every expression in a theory function's value (relations: the right-hand side).

    A numeric value (a float or an array: the theory functions that evaluate a formula on data) takes the
    constant mutations (``fn`` applied to its value); an exponent mutation raises NotMutable for it.

    Parameters
    ----------
    value : sympy.Basic, relation, number, numpy.ndarray, tuple, list or dict
        What a theory function returned; containers are mutated entry by entry.
    fn : callable
        The mutation, ``sympy.Expr -> sympy.Expr``.

    Returns
    -------
    same kind as ``value``
        The mutated value (a relation keeps its left-hand side; a number is multiplied by ``fn(1.0)``).

    Raises
    ------
    NotMutable
        When ``value`` holds no expression, or a number meets a mutation that is not a constant factor.
    """
    if isinstance(value, sp.core.relational.Relational):
        return value.func(value.lhs, fn(value.rhs))
    if isinstance(value, sp.Basic):
        return fn(value)
    if isinstance(value, (int, float, np.floating, np.integer, np.ndarray)) and not isinstance(value, bool):
        out = fn(sp.Float(1.0))
        if not out.is_number:
            raise NotMutable("an exponent mutation needs a closed form, not a number")
        return value * float(out)
    if isinstance(value, tuple):
        return tuple(mutate_value(v, fn) for v in value)
    if isinstance(value, list):
        return [mutate_value(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: mutate_value(v, fn) for k, v in value.items()}
    raise NotMutable(f"no SymPy expression in a {type(value).__name__}")


def _scale(factor) -> Callable[[sp.Expr], sp.Expr]:
    return lambda e: sp.Mul(sp.nsimplify(factor), e, evaluate=True)


def _powers(k: sp.Rational) -> Callable[[sp.Expr], sp.Expr]:
    def mutate(e: sp.Expr) -> sp.Expr:
        """Every positive symbol x replaced by x^k: each power of each variable off by the same factor."""
        subs = {s: s ** k for s in e.free_symbols if s.is_positive}
        if not subs:
            raise NotMutable("no positive symbol to change the exponent of")
        return e.xreplace(subs)

    return mutate


_power_exponents = _powers(sp.Rational(5, 4))

#: (name, description, mutation, constant?) — constant mutations are left out for O(·) claims (kind "rate"), whose
#: statements do not depend on a constant factor (such a mutant would be equivalent, not a missed error)
THEORY_MUTATIONS: tuple[tuple[str, str, Callable, bool], ...] = (
    ("x10", "the closed form multiplied by 10 (a constant 10× too large)", _scale(10), True),
    ("x0.1", "the closed form divided by 10 (a constant 10× too small)", _scale(sp.Rational(1, 10)), True),
    ("pow1.25", "every positive variable x replaced by x^(5/4) (exponents a quarter too large)", _power_exponents,
     False),
    ("pow0.75", "every positive variable x replaced by x^(3/4) (exponents a quarter too small)",
     _powers(sp.Rational(3, 4)), False),
)


def _resolve(path: str):
    mod, _, name = path.rpartition(".")
    module = importlib.import_module(mod)
    return module, name, getattr(module, name)


@contextlib.contextmanager
def substituted(path: str, replacement: Callable) -> Iterator[None]:
    """Replace the function at ``path`` by ``replacement`` inside a ``with`` block.

    ``path`` (``theory.<paper>.<fn>``) returns ``replacement``'s values while active, in its module and in
    every loaded ``verify`` module that holds the same function under any name.  The originals are put back
    on leaving the block.

    Parameters
    ----------
    path : str
        Dotted path of a module-level function.
    replacement : callable
        The function to install in its place.

    Yields
    ------
    None
    """
    module, name, original = _resolve(path)
    targets = [(module, name)]
    for mname, m in list(sys.modules.items()):
        if m is None or not (mname == "verify" or mname.startswith("verify.")):
            continue
        for attr, val in list(vars(m).items()):
            if val is original:
                targets.append((m, attr))
    for m, attr in targets:
        setattr(m, attr, replacement)
    try:
        yield
    finally:
        for m, attr in targets:
            setattr(m, attr, original)


def theory_mutant(path: str, name: str, description: str, fn: Callable[[sp.Expr], sp.Expr],
                  sample=None) -> Mutant:
    """The mutant of ``path`` under ``fn``.

    ``sample``: a value the function returned (for functions that take arguments, recorded while tracing the
    claim); without it the function is called with no arguments.  Raises NotMutable when the value has nothing
    this mutation can change.

    Parameters
    ----------
    path : str
        Dotted path of the theory function.
    name : str
        The mutation's name (e.g. "x10"); the mutant is named ``<function>:<name>``.
    description : str
        The mutation in words; the mutant's description is ``<path>: <description>``.
    fn : callable
        The mutation, ``sympy.Expr -> sympy.Expr`` (see :func:`mutate_value`).
    sample : optional
        A value the function returned, to try the mutation on.

    Returns
    -------
    Mutant
        A theory mutant whose ``apply()`` substitutes the mutated function (:func:`substituted`).

    Raises
    ------
    NotMutable
        (from :func:`mutate_value`) When the sample value has nothing this mutation can change; calling
        the function with no arguments may raise TypeError.
    """
    _, _, original = _resolve(path)
    mutate_value(original() if sample is None else sample, fn)

    @functools.wraps(original)
    def mutated(*args, **kwargs):
        return mutate_value(original(*args, **kwargs), fn)

    short = path.split(".")[-1]
    return Mutant(f"{short}:{name}", f"{path}: {description}", "theory", lambda: substituted(path, mutated))


#: the constant mutants that make a function's value larger or smaller (a positive closed form assumed)
_DIRECTION = {"x10": "larger", "x0.1": "smaller"}


#: (claim id, mutant name) -> why that mutant is equivalent, for equivalences ``weaker_if`` cannot express
#: (e.g. a constant that scales both sides of an inequality a function returns); see :func:`declare_equivalent`
EQUIVALENT: dict[tuple[str, str], str] = {}


def declare_equivalent(claim_id: str, mutant: str, reason: str) -> None:
    """Declare that a mutant cannot change a claim's statement, with the reason (recorded in :data:`EQUIVALENT`).

    Declare that ``mutant`` (its name, e.g. ``lemma16_sides:x10``) cannot change ``claim_id``'s statement, with
    the reason (one sentence, reported).  Only for a mutant that is equivalent whatever the data: a mutant that the
    check merely fails to catch is a survivor, not an equivalent.

    Parameters
    ----------
    claim_id : str
        The claim's id.
    mutant : str
        The mutant's name.
    reason : str
        Why it is equivalent (a non-empty sentence; stripped).

    Raises
    ------
    ValueError
        When ``reason`` is not a non-empty string.
    """
    if not (isinstance(reason, str) and reason.strip()):
        raise ValueError(f"declare_equivalent: the reason must be a non-empty sentence (got {reason!r})")
    EQUIVALENT[(claim_id, mutant)] = reason.strip()


def equivalence(c: Claim, m: Mutant, original: str = "") -> str:
    """Why ``m`` cannot change the truth of ``c``'s statement ("" when it can), given the claim's own verdict
    ``original``: a mutant declared equivalent with a reason (:func:`declare_equivalent`); a constant mutant of a
    theory function in the direction the claim declares weakening (``weaker_if``) when the claim is not violated
    (a weaker form of a true statement is true), or in the other direction when it is violated (a stronger form
    of a false statement is false); for a privacy claim, a kernel fault that only weakens privacy when it is
    violated (the mutated kernel leaks at least as much) and one that only strengthens it when it holds.

    Parameters
    ----------
    c : Claim
        The claim.
    m : Mutant
        One of its mutants.
    original : str, optional
        The claim's verdict without the mutant.

    Returns
    -------
    str
        The reason the mutant is equivalent, or "" when it is a real error.
    """
    if (c.id, m.name) in EQUIVALENT:
        return EQUIVALENT[(c.id, m.name)]
    kinds = getattr(m, "kinds", "")
    if c.kind == "privacy" and m.kind == "kernel":
        if original == Verdict.VIOLATED and kinds == "privacy":
            return "a fault that only weakens privacy cannot make a violated privacy promise true"
        if original == Verdict.HOLDS and kinds == "privacy_fix":
            return "a fault that only strengthens privacy cannot make a true privacy promise false"
    path, _, rest = m.description.partition(":")
    name = m.name.rpartition(":")[2]
    way = dict(getattr(c, "weaker_if", ()) or ()).get(path)
    direction = _DIRECTION.get(name)
    if m.kind == "theory" and way is not None and direction is not None:
        if original == Verdict.VIOLATED and direction != way:
            # a statement stronger than a false one is false: the mutant cannot make it true
            return f"{path.split('.')[-1]} made {direction} only strengthens a violated statement (declared weaker_if)"
        if original != Verdict.VIOLATED and direction == way:
            return f"{path.split('.')[-1]} made {way} only weakens the statement (declared weaker_if)"
    return ""


def theory_mutants(c: Claim, samples: dict | None = None) -> list[Mutant]:
    """The generic mutants of every function ``c`` declares in ``theory=``: constant and exponent mutations of a
    closed form, constant mutations of a numeric formula (``samples``: a value each function returned while the
    claim ran, for those that take arguments).  O(·) claims get no constant mutations.

    Parameters
    ----------
    c : Claim
        The claim.
    samples : dict or None, optional
        Theory path -> a value that function returned.

    Returns
    -------
    list of Mutant
        One per declared function and applicable mutation (:data:`THEORY_MUTATIONS`); a mutation that cannot
        apply (nothing to change, or a function needing arguments with no sample) is left out.
    """
    out = []
    for path in c.theory:
        for name, description, fn, constant in THEORY_MUTATIONS:
            if constant and c.kind == "rate":
                continue
            try:
                out.append(theory_mutant(path, name, description, fn, (samples or {}).get(path)))
            except (NotMutable, TypeError):
                continue  # needs arguments and never ran, or nothing this mutation can change
    return out


# --------------------------------------------------------------------------------------
# kernel mutants: faults switched on through kernels.faults (no file edited)
# --------------------------------------------------------------------------------------
def kernel_mutant(name: str, description: str, hook: str, kinds: str, **faults) -> Mutant:
    """A fault of the kernels.  ``kinds``: "privacy" (it weakens privacy: for privacy claims), "privacy_fix" (it
    removes a leak the kernel has: for privacy claims, which it must turn from violated to holds), "utility" (it
    harms accuracy while privacy is unchanged or stronger: for the other claims) or "both".

    Parameters
    ----------
    name : str
        The mutant's name.
    description : str
        The fault in words.
    hook : str
        The fault hook of :mod:`kernels.faults` whose visit makes the mutant applicable to a check.
    kinds : str
        "privacy", "privacy_fix", "utility" or "both" (see above).
    **faults
        The fault options passed to ``kernels.faults.inject`` while the mutant is active.

    Returns
    -------
    Mutant
        A kernel mutant carrying ``hook`` and ``kinds`` as extra attributes.
    """

    m = Mutant(name, description, "kernel", lambda: _faults.inject(**faults))
    object.__setattr__(m, "hook", hook)  # the fault hook whose visit makes the mutant applicable
    object.__setattr__(m, "kinds", kinds)
    return m


KERNEL_MUTANTS: tuple[Mutant, ...] = (
    kernel_mutant("noise*0.7", "the privacy noise's standard deviation ×0.7 (less noise than the accountant assumes)",
                  "noise_scale", "privacy", noise_scale=0.7),
    kernel_mutant("noise*3", "the privacy noise's standard deviation ×3", "noise_scale", "utility", noise_scale=3.0),
    kernel_mutant("noise-cov-A", "PAGAN/PASAN noise drawn with covariance A instead of A⁻¹",
                  "noise_geometry_inverse", "both", noise_geometry_inverse=True),
    kernel_mutant("no-clipping", "per-record clipping / projection onto the ellipsoid skipped", "skip_clipping",
                  "both", skip_clipping=True),
    kernel_mutant("stepsize*10", "the stepsize / learning rate ×10", "stepsize_scale", "utility",
                  stepsize_scale=10.0),
    kernel_mutant("no-bias-correction", "DP-Adam's noise-variance bias correction of v̂ left out",
                  "drop_bias_correction", "utility", drop_bias_correction=True),
    kernel_mutant("precond-inverse", "AdaDPS's side-information preconditioner A applied as G²/A (its weights "
                  "inverted, same geometric mean)", "preconditioner_inverse", "utility", preconditioner_inverse=True),
    kernel_mutant("stepsize-public", "ADP-SGD's adaptive b_{t+1} grown by ν alone (the data-dependent stepsize "
                  "replaced by a public one)", "public_stepsize", "privacy_fix", public_stepsize=True),
)


def _kernel_mutant_fits(m: Mutant, c: Claim) -> bool:
    """Privacy claims get the faults that weaken privacy (more noise or a larger stepsize cannot break a
    privacy promise: those mutants would be equivalent); the others get the faults that harm accuracy."""
    kinds = getattr(m, "kinds", "both")
    if kinds == "both":
        return True
    return (kinds in ("privacy", "privacy_fix")) == (c.kind == "privacy")


def mutants_of(c: Claim, visited_hooks: frozenset | None = None, called_theory: set | None = None) -> list[Mutant]:
    """Every mutant of a claim: its declared ones, the generic theory mutants (of the functions its check
    calls, when ``called_theory`` is given) and the kernel faults whose hooks its check visits (all, when
    ``visited_hooks`` is None).

    Parameters
    ----------
    c : Claim
        The claim.
    visited_hooks : frozenset or None, optional
        The fault hooks its check visited; None for every kernel fault that fits the claim's kind.
    called_theory : set or dict or None, optional
        The theory paths its check called (a dict: path -> a value returned, used as samples); None for all.

    Returns
    -------
    list of Mutant
        The declared mutants, then the theory mutants, then the kernel mutants.
    """
    out = list(getattr(c, "mutants", ()) or ())
    samples = called_theory if isinstance(called_theory, dict) else None
    out += [m for m in theory_mutants(c, samples)
            if called_theory is None or m.description.split(":", 1)[0] in called_theory]
    out += [m for m in KERNEL_MUTANTS if _kernel_mutant_fits(m, c)
            and (visited_hooks is None or getattr(m, "hook", None) in visited_hooks)]
    return out


@contextlib.contextmanager
def tracing_theory(c: Claim) -> Iterator[tuple[dict, dict]]:
    """Count the calls of ``c``'s declared theory functions inside a ``with`` block.

    While active, count the calls of every function ``c`` declares in ``theory=`` and keep one value each
    returned: yields (path -> calls, path -> a returned value).

    Parameters
    ----------
    c : Claim
        The claim whose ``theory`` functions are traced.

    Yields
    ------
    calls : dict of str to int
        Theory path -> number of calls so far.
    samples : dict
        Theory path -> the first value it returned.
    """
    calls = {path: 0 for path in c.theory}
    samples: dict = {}
    stack = contextlib.ExitStack()
    with stack:
        for path in c.theory:
            _, _, original = _resolve(path)

            def counted(*args, _o=original, _p=path, **kwargs):
                calls[_p] += 1
                value = _o(*args, **kwargs)
                samples.setdefault(_p, value)
                return value

            stack.enter_context(substituted(path, functools.wraps(original)(counted)))
        yield calls, samples


# --------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------
def reset_caches() -> None:
    """Clear the in-process memos of theory, kernels and verify modules (lru_caches, module-level ``*_MEMO`` dicts)."""
    for mname, m in list(sys.modules.items()):
        if m is None or not any(mname == p or mname.startswith(p + ".") for p in ("theory", "kernels", "verify")):
            continue
        for attr, val in list(vars(m).items()):
            if callable(getattr(val, "cache_clear", None)) and getattr(val, "__module__", None) == mname:
                val.cache_clear()
            elif attr.endswith("_MEMO") and isinstance(val, dict):
                val.clear()


#: the head a check's evidence starts with when its mechanism probe withdrew a ``holds`` (verify.decide.after_probe)
_PROBE_HEAD = "the kernel does not run the stated mechanism"


def _verdict_of(c: Claim, budget: str, seed: int) -> tuple[str, float, str, str]:
    """The check's verdict, its seconds, the crash ("" if none), and why its runs were rejected ("" if not)."""
    from .decide import MechanismMismatch

    t0 = time.perf_counter()
    try:
        outcome = c.check(budget, seed)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"check returned {type(outcome).__name__}")
        evidence = str(outcome.evidence)
        rejected = evidence.split(":")[0] if evidence.startswith(_PROBE_HEAD) else ""
        return str(outcome.verdict), time.perf_counter() - t0, "", rejected
    except MechanismMismatch as exc:  # the probe refused the runs: no verdict, a rejection rather than a crash
        return "error", time.perf_counter() - t0, f"{type(exc).__name__}: {exc}", str(exc)
    except (Exception, SystemExit) as exc:  # a crash under a mutant is recorded (it counts as caught, flagged)
        return "error", time.perf_counter() - t0, f"{type(exc).__name__}: {exc}", ""


def run(claims: Sequence[Claim], budget: str, seed: int, *,
        progress: Callable[[MutantResult], None] | None = None) -> list[MutantResult]:
    """Check each claim under each of its mutants.

    First the claim runs as it is, with its declared theory functions counted and the kernels' fault
    hooks recorded; then each applicable mutant: the theory mutants of every declared function the check
    called, and the kernel faults whose hooks it visited.  A declared theory function the check never
    called is reported as a surviving pseudo-mutant ("declared theory never evaluated").  Run inside a
    runner without an on-disk cache (``verify.runner.using``): tasks computed under a mutant must not be
    stored under the true code's keys.

    Parameters
    ----------
    claims : sequence of Claim
        The claims to analyse.
    budget : str
        "quick" or "full".
    seed : int
        The seed of every check.
    progress : callable or None, optional
        Called with each :class:`MutantResult` as it is made.

    Returns
    -------
    list of MutantResult
        Per claim, its unused-theory pseudo-mutants, then one result per applicable mutant.

    Raises
    ------
    RuntimeError
        When a claim's check fails without any mutant.
    """

    out: list[MutantResult] = []
    for c in claims:
        reset_caches()
        _faults.clear_visited()
        with tracing_theory(c) as (calls, samples):
            base, seconds, err, _ = _verdict_of(c, budget, seed)
        if err:
            raise RuntimeError(f"{c.id}: the check fails without any mutant ({err})")
        hooks = _faults.visited()
        called = {p: samples.get(p) for p, k in calls.items() if k > 0}
        for path in c.theory:
            if path not in called:
                r = MutantResult(c.id, f"{path.split('.')[-1]}:unused", f"{path}: declared theory never evaluated "
                                 "by the check (any change to it would survive)", "theory", str(base), str(base), 0.0)
                out.append(r)
                if progress is not None:
                    progress(r)
        for m in mutants_of(c, hooks, called):
            reset_caches()
            with m.apply():
                verdict, seconds, err, rejected = _verdict_of(c, budget, seed)
            reset_caches()
            r = MutantResult(c.id, m.name, m.description, m.kind, str(base), verdict, seconds, err,
                             equivalence(c, m, str(base)), rejected if verdict != str(base) else "")
            out.append(r)
            if progress is not None:
                progress(r)
    return out


def _run_claim_in_process(claim_id: str, budget: str, seed: int) -> list[MutantResult]:
    """A worker process's part of :func:`run_in_processes`: one claim under each of its mutants, tasks in order."""
    with using(SerialRunner()):
        return run([REGISTRY[claim_id]], budget, seed)


def run_in_processes(claims: Sequence[Claim], budget: str, seed: int, processes: int, *,
                     progress: Callable[[MutantResult], None] | None = None) -> list[MutantResult]:
    """:func:`run` with the claims shared among ``processes`` worker processes forked from this one (each claim's
    tasks in order, nothing cached).  A fault is switched on in one process only, so claims under different
    mutants never see each other's faults.  Results in the order of ``claims``; ``progress`` is called for a
    claim's results when it finishes.

    Parameters
    ----------
    claims : sequence of Claim
        The claims to analyse (registered, so that the forked workers find them).
    budget : str
        "quick" or "full".
    seed : int
        The seed of every check.
    processes : int
        Number of worker processes.
    progress : callable or None, optional
        Called with each :class:`MutantResult` once its claim finishes.

    Returns
    -------
    list of MutantResult
        As :func:`run`, in the order of ``claims``.

    Raises
    ------
    RuntimeError
        (from a worker) When a claim's check fails without any mutant; queued claims are then cancelled.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    from .engine import fork_pool, stop_pool

    pool = fork_pool(processes)
    by_claim: dict[str, list[MutantResult]] = {}
    try:
        futures = {pool.submit(_run_claim_in_process, c.id, budget, seed): c for c in claims}
        pending = set(futures)
        while pending:
            ready, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in ready:
                rs = f.result()
                by_claim[futures[f].id] = rs
                if progress is not None:
                    for r in rs:
                        progress(r)
    except BaseException:
        stop_pool(pool)  # interrupted or failed: the workers end now, not when their claims do
        raise
    pool.shutdown(wait=True)
    return [r for c in claims for r in by_claim[c.id]]


def _rejected(row: dict) -> bool:
    """Whether a mutants.json row was refused as not the stated mechanism (a row written before the ``rejected`` key
    existed is read from its error: a raised MechanismMismatch; a withdrawn ``holds`` cannot be told from it)."""
    return bool(row.get("rejected")) or (row.get("verdict") == "error"
                                          and str(row.get("error", "")).startswith("MechanismMismatch"))


def _counts(rows: Sequence[dict]) -> dict:
    """The counts of mutation rows (dicts as :meth:`MutantResult.to_dict` writes them), equivalent rows apart.

    Parameters
    ----------
    rows : sequence of dict
        Rows of mutants.json, equivalent ones included.

    Returns
    -------
    dict
        ``mutants`` (the non-equivalent rows), ``killed`` (caught), ``refuted``, ``rejected`` (caught because the
        check refused the runs as not the stated mechanism), ``errors`` (caught only by a crash of the check, not a
        rejection), ``equivalent``, ``theory_mutants`` and ``theory_refuted`` (the theory mutants among them and
        how many were refuted), ``claims`` and ``claims_all_survived``.
    """
    real = [r for r in rows if not r.get("equivalent")]
    theory = [r for r in real if r.get("kind") == "theory"]
    claims = list(dict.fromkeys(r["claim"] for r in real))
    rejected = [bool(r.get("killed")) and _rejected(r) for r in real]
    return {"mutants": len(real), "killed": sum(bool(r.get("killed")) for r in real),
            "refuted": sum(bool(r.get("refuted")) for r in real), "rejected": sum(rejected),
            "errors": sum(r.get("verdict") == "error" and not j for r, j in zip(real, rejected)),
            "equivalent": len(rows) - len(real), "theory_mutants": len(theory),
            "theory_refuted": sum(bool(r.get("refuted")) for r in theory), "claims": len(claims),
            "claims_all_survived": sorted(c for c in claims
                                          if not any(r.get("killed") for r in real if r["claim"] == c))}


@dataclass
class Summary:
    mutants: int = 0
    killed: int = 0
    refuted: int = 0
    claims: int = 0
    claims_all_survived: list = field(default_factory=list)
    #: caught only because the check raised (counted in ``killed``, reported apart: a crash is not a finding)
    errors: int = 0
    #: mutants that only weaken a one-sided statement (not in ``mutants``)
    equivalent: int = 0
    #: caught because the mechanism probe refused the runs as not the stated mechanism (in ``killed``, not in
    #: ``refuted`` nor ``errors``)
    rejected: int = 0
    #: the theory mutants among ``mutants``, and how many of them were refuted: the "refuted" targets apply to these
    theory_mutants: int = 0
    theory_refuted: int = 0

    def to_dict(self) -> dict:
        """The summary as plain JSON types (the ``summary`` of mutants.json).

        Returns
        -------
        dict
            The counts; ``kill_rate`` (caught, rejections and crashes included), ``refute_rate`` (over every
            mutant) and ``theory_refute_rate`` (refuted theory mutants over theory mutants), each None when its
            denominator is 0; and ``claims_all_survived``.
        """
        return {"mutants": self.mutants, "killed": self.killed, "refuted": self.refuted, "claims": self.claims,
                "errors": self.errors, "equivalent": self.equivalent, "rejected": self.rejected,
                "theory_mutants": self.theory_mutants, "theory_refuted": self.theory_refuted,
                "kill_rate": self.killed / self.mutants if self.mutants else None,
                "refute_rate": self.refuted / self.mutants if self.mutants else None,
                "theory_refute_rate": self.theory_refuted / self.theory_mutants if self.theory_mutants else None,
                "claims_all_survived": self.claims_all_survived}


def summarize(results: Sequence[MutantResult]) -> Summary:
    """Counts over the mutants that can make the statement false (equivalent ones are counted apart).

    Parameters
    ----------
    results : sequence of MutantResult or dict
        Results, or rows of mutants.json.

    Returns
    -------
    Summary
        Mutants, killed, refuted, rejected as not the stated mechanism, and crash-only kills over the
        non-equivalent results; the theory mutants and their refutations; the number of equivalent ones; the
        claims, and the claims none of whose mutants was caught.
    """
    return Summary(**_counts([r if isinstance(r, dict) else r.to_dict() for r in results]))


def format_table(results: Sequence[MutantResult]) -> str:
    """A plain-text table of mutation results: one line per claim, then a summary line.

    Parameters
    ----------
    results : sequence of MutantResult

    Returns
    -------
    str
        Per claim: its verdict, mutants caught of the real ones, refuted, the survivors and (in parentheses)
        the equivalent ones; then the totals from :func:`summarize` when there is any real mutant.
    """
    by_claim: dict[str, list[MutantResult]] = {}
    for r in results:
        by_claim.setdefault(r.claim, []).append(r)
    idw = max([len("claim")] + [len(c) for c in by_claim])
    lines = [f"{'claim':<{idw}}  {'verdict':<12}  caught  refuted  rejected  survivors (equivalent)",
             "-" * (idw + 60)]
    for cid, rs in by_claim.items():
        real = [r for r in rs if not r.equivalent]
        surv = ", ".join(r.mutant for r in real if not r.killed)
        eq = ", ".join(r.mutant for r in rs if r.equivalent)
        lines.append(f"{cid:<{idw}}  {rs[0].original:<12}  {sum(r.killed for r in real):>2} of {len(real):<2} "
                     f"{sum(r.refuted for r in real):>4}  {sum(r.killed and bool(r.rejected) for r in real):>8}     "
                     f"{surv}" + (f" ({eq})" if eq else ""))
    s = summarize(results)
    if s.mutants:
        theory = (f"theory mutants refuted {s.theory_refuted} of {s.theory_mutants} "
                  f"({s.theory_refuted / s.theory_mutants:.0%})" if s.theory_mutants else "no theory mutants")
        lines.append(f"{s.mutants} mutants of {s.claims} claims: caught {s.killed} ({s.killed / s.mutants:.0%}; "
                     f"{s.rejected} of them rejected as not the stated mechanism, "
                     f"{s.errors} only by a crash of the check), "
                     f"refuted {s.refuted} ({s.refuted / s.mutants:.0%}); {theory}; claims with every mutant "
                     f"surviving: {', '.join(s.claims_all_survived) or 'none'}"
                     + (f"; {s.equivalent} equivalent mutants (they cannot change the statement's truth: "
                        "weaker_if or a declared reason) not counted"
                        if s.equivalent else ""))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# mutants.json: merged across runs, tallied per claim for the report
# --------------------------------------------------------------------------------------
MUTANTS_JSON = "mutants.json"


@dataclass(frozen=True)
class Tally:
    """One claim's mutation record, as the report shows it ("caught k of m")."""

    caught: int
    total: int
    refuted: int
    budget: str
    survivors: tuple[str, ...] = ()
    #: caught because the check refused the runs as not the stated mechanism
    rejected: int = 0

    def label(self) -> str:
        """Short form for a table cell.

        Returns
        -------
        str
            "caught k of m".
        """
        return f"caught {self.caught} of {self.total}"

    def sentence(self) -> str:
        """The record in one sentence for a report.

        Returns
        -------
        str
            Caught, refuted outright, rejected as not the stated mechanism (when any), the budget, and the
            survivors when any.
        """
        also = f", {self.rejected} rejected as not the stated mechanism" if self.rejected else ""
        s = (f"caught {self.caught} of {self.total} mutants ({self.refuted} refuted outright{also}), "
             f"{self.budget} budget")
        return s + (f"; survived: {', '.join(self.survivors)}" if self.survivors else "")


def rows_document(rows: Sequence[dict], meta: dict) -> dict:
    """The mutants.json document: ``meta``, a ``summary`` over every row, and the rows.

    Parameters
    ----------
    rows : sequence of dict
        Rows of mutants.json (:meth:`MutantResult.to_dict`, stamped with budget and seed).
    meta : dict
        The run's description.

    Returns
    -------
    dict
        ``meta``, ``summary`` (counts over the non-equivalent rows, as :meth:`Summary.to_dict`) and
        ``mutants`` (every row, equivalent ones included).  A row written before rejections were told apart has no
        ``rejected`` key: it counts as rejected when its error is a raised MechanismMismatch.
    """
    return {"meta": meta, "summary": summarize(rows).to_dict(), "mutants": list(rows)}


def merged_rows(new: Sequence[MutantResult], budget: str, seed: int, previous: dict | None) -> list[dict]:
    """This run's rows (stamped with budget and seed), then the earlier rows of the claims it did not run.

    An earlier row of a claim this run checked is replaced, at any budget: a file holds one record per
    claim, the latest.

    Parameters
    ----------
    new : sequence of MutantResult
        This run's results.
    budget : str
        This run's budget.
    seed : int
        This run's seed.
    previous : dict or None
        The earlier mutants.json document, if any (its rows default to its meta's budget and seed).

    Returns
    -------
    list of dict
        The merged rows.
    """
    rows = [dict(r.to_dict(), budget=budget, seed=seed) for r in new]
    ran = {r["claim"] for r in rows}
    if previous:
        meta = previous.get("meta", {})
        for r in previous.get("mutants", []):
            if isinstance(r, dict) and r.get("claim") not in ran:
                rows.append(dict({"budget": meta.get("budget"), "seed": meta.get("seed")}, **r))
    return rows


def tallies(rows: Sequence[dict]) -> dict[str, Tally]:
    """Per claim: how many of its mutants were caught and refuted, at which budget, which survived.

    Parameters
    ----------
    rows : sequence of dict
        Rows of mutants.json; equivalent ones are left out.

    Returns
    -------
    dict of str to Tally
        Claim id -> its tally (budget "?" when the rows do not say).
    """
    by_claim: dict[str, list[dict]] = {}
    for r in rows:
        if not r.get("equivalent"):
            by_claim.setdefault(r["claim"], []).append(r)
    return {cid: Tally(caught=sum(bool(r.get("killed")) for r in rs), total=len(rs),
                       refuted=sum(bool(r.get("refuted")) for r in rs), budget=str(rs[0].get("budget") or "?"),
                       rejected=sum(bool(r.get("killed")) and _rejected(r) for r in rs),
                       survivors=tuple(r["mutant"] for r in rs if not r.get("killed")))
            for cid, rs in by_claim.items()}


class BadMutants(ValueError):
    """A mutants.json that cannot be used; the message is one line naming the file and the fault."""


#: the keys every row of mutants.json has, with their types; then the keys a row may have
_MUTANT_ROW = {"claim": (str,), "mutant": (str,), "original": (str,), "verdict": (str,), "killed": (bool,)}
_MUTANT_OPTIONAL = {"description": (str,), "kind": (str,), "refuted": (bool,), "seconds": (int, float),
                    "error": (str,), "equivalent": (str, bool), "budget": (str, type(None)), "seed": (int,),
                    "rejected": (str,)}


def _mutants_fault(doc) -> str | None:
    if not isinstance(doc, dict) or not isinstance(doc.get("mutants"), list):
        return "it must be an object with a list 'mutants'"
    for i, row in enumerate(doc["mutants"]):
        if not isinstance(row, dict):
            return f"mutants[{i}] must be an object"
        missing = [k for k in _MUTANT_ROW if k not in row]
        if missing:
            return f"mutants[{i}] lacks {', '.join(missing)}"
        for k, types in (*_MUTANT_ROW.items(), *((k, t) for k, t in _MUTANT_OPTIONAL.items() if k in row)):
            v = row[k]
            if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
                return f"mutants[{i}].{k} has the wrong type ({type(v).__name__})"
    return None


def read_document(path, in_dir=None) -> dict | None:
    """A mutants.json document, or None when the file does not exist.

    Parameters
    ----------
    path : str or path
        The file.
    in_dir : str or path, optional
        The output directory ``path`` is in: then it must be a plain file there, not a symbolic link.

    Returns
    -------
    dict or None
        The document (checked: an object whose ``mutants`` is a list of rows of the shape
        :meth:`MutantResult.to_dict` writes), or None when the file is absent.

    Raises
    ------
    BadMutants
        When the file exists but cannot be read or is not such a document; one line naming it.
    """
    import os

    from . import contained

    path = Path(path)
    if not os.path.lexists(path):
        return None
    if in_dir is not None:
        why = contained.refusal(in_dir, os.path.relpath(path, in_dir), kind="file")
        if why is not None:
            raise BadMutants(f"{path}: not a dpverify mutants.json (it {why})")
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise BadMutants(f"{path}: not a dpverify mutants.json (nested too deeply)") from None
    except (OSError, ValueError) as exc:  # unreadable, not UTF-8, not JSON
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else " ".join(str(exc).split())[:120]
        raise BadMutants(f"{path}: not a dpverify mutants.json ({contained.escape_controls(why)})") from None
    fault = _mutants_fault(doc)
    if fault:
        raise BadMutants(f"{path}: not a dpverify mutants.json ({fault})")
    return doc


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def read_tallies(paths, in_dirs: bool = True) -> tuple[dict[str, Tally], str | None]:
    """The tallies of the first existing mutants.json among ``paths`` (and its path).

    Parameters
    ----------
    paths : iterable of str or path
        Candidate files, in order of preference.
    in_dirs : bool, optional
        Each file is in an output directory (its parent): it must be a plain file there, not a symbolic link
        (False for a file the user named).

    Returns
    -------
    tallies : dict of str to Tally
        Per claim (:func:`tallies`); empty when no file exists.
    path : str or None
        The file read, or None.

    Raises
    ------
    BadMutants
        When the first existing file is not a mutants.json (:func:`read_document`).
    """
    for p in paths:
        doc = read_document(p, in_dir=Path(p).parent if in_dirs else None)
        if doc is not None:
            return tallies(doc["mutants"]), str(p)
    return {}, None
