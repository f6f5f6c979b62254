"""Claims, outcomes and results: the data model every part of ``verify`` shares.

A :class:`Claim` is an immutable record (id, paper, statement, kind, the theory
functions it uses, and a ``check(budget, seed)`` function).  Claims register
themselves in :data:`REGISTRY` through the :func:`claim` decorator, so adding a
claim is one decorated function in ``verify/<paper>.py``.

A check returns an :class:`Outcome`: the verdict, named numbers, its evidence
(the full text; optionally also a one-sentence ``summary`` and the ``points`` the
decision used, one table row per configuration or test), the counterexample (if
any) and *data* describing its plots (:class:`Figure`).  The runner turns an outcome into a :class:`Result` (adding
seed, budget, timing and the paths of the rendered plots); reports and plots
only read results.
"""

from __future__ import annotations

import enum
import functools
import importlib
import importlib.util
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Generic, Mapping, Sequence, TypeVar

from verify.findings import Finding
from verify.tally import claim_tests


def _numpy_types(*names: str) -> tuple:
    """NumPy's types ``names`` when NumPy is imported, else ``()``: no value is a NumPy scalar or array before
    NumPy is loaded, so the registry recognises them without importing it (the command line's listing of the
    claims loads no numerical library)."""
    numpy = sys.modules.get("numpy")
    return tuple(getattr(numpy, n) for n in names) if numpy is not None else ()


class Verdict(enum.StrEnum):
    """The three verdicts (string-valued: results.json and comparisons with plain strings are unchanged)."""

    HOLDS = "holds"
    VIOLATED = "violated"
    INCONCLUSIVE = "inconclusive"


VERDICTS = tuple(v.value for v in Verdict)
BUDGETS = ("quick", "full")


def by_budget(budget: str, quick, full):
    """``quick`` or ``full`` by the budget name (the one switch every claim check uses).

    Parameters
    ----------
    budget : str
        "quick" or "full".
    quick, full : any
        The values to use at the quick and at the full budget.

    Returns
    -------
    any
        ``quick`` when ``budget`` is "quick", ``full`` when it is "full".

    Raises
    ------
    ValueError
        When ``budget`` is neither "quick" nor "full".
    """
    if budget not in BUDGETS:
        raise ValueError(f"budget must be quick or full (got {budget!r})")
    return quick if budget == "quick" else full


_CHILD_SEED_DOMAIN = 0x64707665  # "dpve": keeps these streams apart from plain SeedSequence([seed, ...]) ones
_CHILD_SEED_INT, _CHILD_SEED_STR = 1, 2  # type tags of the parts


def _child_seed_words(value: int) -> list[int]:
    """A non-negative int as its length in 32-bit words followed by the words (least significant first)."""
    words = []
    while True:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
        if not value:
            return [len(words), *words]


def child_seed(seed: int, claim_id: str, *parts: int | str) -> int:
    """A claim's sub-seed: one deterministic, non-negative int per ``(seed, claim_id, *parts)``.

    Use it wherever a check needs a seed of its own for one task, data set or search, in place of arithmetic on
    the base seed (``seed * 7 + i`` gives seed 0, i = 7 the same stream as seed 1, i = 0)::

        tasks = [dict(noise=n, seed=child_seed(seed, "mylab.bound", "task", i)) for i, n in enumerate(NOISES)]

    The inputs are encoded without ambiguity (each part with its type and length) into the entropy of a
    :class:`numpy.random.SeedSequence`, so different inputs give independent streams and the same inputs give
    the same value in every process and Python run (no ``hash()``).  Claims that share cached task runs on
    purpose pass the same ``claim_id`` (the owning claim's).

    Parameters
    ----------
    seed : int
        The base seed the check was given (``check(budget, seed)``), an integer >= 0.
    claim_id : str
        The claim's id (non-empty), e.g. ``"pagan.figure1"``; any string works, its UTF-8 bytes are used.
    *parts : int or str
        What tells this sub-seed apart from the claim's others: a tag, an index, a grid value (integers of
        any sign, or strings).  Booleans and floats are refused (round a float grid value to an int first).

    Returns
    -------
    int
        A seed in [0, 2**63): accepted by every kernel's ``seed`` parameter and by ``numpy.random.default_rng``.

    Raises
    ------
    TypeError
        When ``seed`` is not an integer, ``claim_id`` not a string, or a part neither an integer nor a string.
    ValueError
        When ``seed`` is negative or ``claim_id`` empty.
    """
    import numpy as np

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"child_seed: seed must be an integer >= 0 (got {seed!r})")
    if seed < 0:
        raise ValueError(f"child_seed: seed must be an integer >= 0 (got {seed!r})")
    if not isinstance(claim_id, str):
        raise TypeError(f"child_seed: claim_id must be a string (got {claim_id!r})")
    if not claim_id:
        raise ValueError("child_seed: claim_id must be a non-empty string")
    id_bytes = claim_id.encode("utf-8")
    words = [_CHILD_SEED_DOMAIN, *_child_seed_words(int(seed)), len(id_bytes), *id_bytes, len(parts)]
    for k, part in enumerate(parts):
        if isinstance(part, str):
            data = part.encode("utf-8")
            words += [_CHILD_SEED_STR, len(data), *data]
        elif isinstance(part, (int, np.integer)) and not isinstance(part, (bool, np.bool_)):
            part = int(part)
            words += [_CHILD_SEED_INT, int(part < 0), *_child_seed_words(abs(part))]
        else:
            raise TypeError(f"child_seed: part {k} must be an int or a str (got {part!r} of type "
                            f"{type(part).__name__})")
    state = np.random.SeedSequence(words).generate_state(1, dtype=np.uint64)[0]
    return int(state >> np.uint64(1))


S = TypeVar("S")


@dataclass(frozen=True)
class Budgets(Generic[S]):
    """A check's settings at the two budgets: one record per budget, named fields instead of unpacked tuples.

    The records are usually a NamedTuple declared beside the check, so that they still unpack::

        class Fig1(NamedTuple):
            steps: int
            runs: int

        FIG1 = Budgets(quick=Fig1(steps=200, runs=10), full=Fig1(steps=1000, runs=30))
        cfg = FIG1.at(budget)          # cfg.steps, cfg.runs

    Parameters
    ----------
    quick, full
        The settings of the quick and of the full budget (the same type).

    Raises
    ------
    TypeError
        When the two records are not of the same type.
    """

    quick: S
    full: S

    def __post_init__(self):
        if type(self.quick) is not type(self.full):
            raise TypeError(f"Budgets: quick and full must be records of one type (got {type(self.quick).__name__} "
                            f"and {type(self.full).__name__})")

    def at(self, budget: str) -> S:
        """The record of ``budget`` ("quick" or "full"; ValueError otherwise).

        Parameters
        ----------
        budget : str
            "quick" or "full".

        Returns
        -------
        S
            ``self.quick`` or ``self.full``.
        """
        return by_budget(budget, self.quick, self.full)
KINDS = (
    "exact",  # exact identity / inequality
    "expectation",  # explicit-constant bound in expectation
    "rate",  # O(.) rate
    "ratio",  # ratio / comparison
    "privacy",  # privacy promise
    "threshold",  # regime / threshold
    "experiment",  # experiment reproduction
)
PAPERS = ("pagan", "noisy_adagrad", "dp_adam_design", "adadps", "adp")


class UnknownName(ValueError):
    """A name (claim id, paper key, budget, ...) that is not one of the accepted values."""


# --------------------------------------------------------------------------------------
# Plot specifications: plots are data, rendered by verify.plots
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Series:
    """One curve (or set of points) in a panel; ``lo``/``hi`` give an uncertainty band."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    lo: Sequence[float] | None = None
    hi: Sequence[float] | None = None
    style: str = "line"  # "line" | "dashed" | "points" (error bars from lo/hi) | "step" | "violation" (red crosses)

    def to_dict(self) -> dict:
        """The series as plain JSON types.

        Returns
        -------
        dict
            ``label``, ``x``, ``y``, ``style``, and ``lo``/``hi`` when set; non-finite values become None.
        """
        d = {"label": self.label, "x": _floats(self.x), "y": _floats(self.y), "style": self.style}
        if self.lo is not None:
            d["lo"] = _floats(self.lo)
        if self.hi is not None:
            d["hi"] = _floats(self.hi)
        return d

    @staticmethod
    def from_dict(d: Mapping) -> "Series":
        """The series written by :meth:`to_dict`.

        Parameters
        ----------
        d : mapping
            With ``label``, ``x``, ``y`` and optionally ``lo``, ``hi``, ``style`` (default "line").

        Returns
        -------
        Series
        """
        return Series(d["label"], d["x"], d["y"], d.get("lo"), d.get("hi"), d.get("style", "line"))


@dataclass(frozen=True)
class Panel:
    """One axes.  ``categories``: names of the x positions 0, 1, 2, … (a categorical axis: configurations,
    methods), drawn as tick labels instead of a continuous scale."""

    title: str
    xlabel: str
    ylabel: str
    series: Sequence[Series]
    xscale: str = "linear"
    yscale: str = "linear"
    categories: Sequence[str] | None = None

    def to_dict(self) -> dict:
        """The panel as plain JSON types.

        Returns
        -------
        dict
            Title, axis labels and scales, its series (each :meth:`Series.to_dict`), and the categories when set.
        """
        d = {
            "title": self.title,
            "xlabel": self.xlabel,
            "ylabel": self.ylabel,
            "xscale": self.xscale,
            "yscale": self.yscale,
            "series": [s.to_dict() for s in self.series],
        }
        if self.categories is not None:
            d["categories"] = [str(c) for c in self.categories]
        return d

    @staticmethod
    def from_dict(d: Mapping) -> "Panel":
        """The panel written by :meth:`to_dict`.

        Parameters
        ----------
        d : mapping
            With ``title``, ``xlabel``, ``ylabel``, ``series`` and optionally ``xscale``, ``yscale`` (default
            "linear") and ``categories``.

        Returns
        -------
        Panel
        """
        return Panel(
            d["title"],
            d["xlabel"],
            d["ylabel"],
            [Series.from_dict(s) for s in d["series"]],
            d.get("xscale", "linear"),
            d.get("yscale", "linear"),
            d.get("categories"),
        )


@dataclass(frozen=True)
class Figure:
    """A figure: a name (file stem), a title and one or more panels side by side."""

    name: str
    title: str
    panels: Sequence[Panel]

    def to_dict(self) -> dict:
        """The figure as plain JSON types.

        Returns
        -------
        dict
            ``name``, ``title`` and ``panels`` (each :meth:`Panel.to_dict`).
        """
        return {"name": self.name, "title": self.title, "panels": [p.to_dict() for p in self.panels]}

    @staticmethod
    def from_dict(d: Mapping) -> "Figure":
        """The figure written by :meth:`to_dict`.

        Parameters
        ----------
        d : mapping
            With ``name``, ``title`` and ``panels``.

        Returns
        -------
        Figure
        """
        return Figure(d["name"], d["title"], [Panel.from_dict(p) for p in d["panels"]])


def _floats(values) -> list:
    import numpy as np

    out = []
    for v in np.asarray(values, dtype=float).ravel():
        out.append(None if not math.isfinite(v) else float(v))
    return out


# --------------------------------------------------------------------------------------
# Outcome (what a check returns) and Result (what the runner records)
# --------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class Outcome:
    """What a check returns; every field is given by name (``Outcome("holds", ...)`` is a TypeError).

    ``numbers``: the check's named numbers (the ``figures`` of its :class:`Result` and of results.json;
    a plot is a :class:`Figure`).  ``decisions``: the :class:`verify.decide.Decision` records of its
    statistical tests (their controls go into the result; empty for exact and deterministic checks)."""

    verdict: str
    evidence: str
    numbers: dict[str, float] = field(default_factory=dict)
    counterexample: dict | None = None
    plots: list[Figure] = field(default_factory=list)
    decisions: list = field(default_factory=list)
    #: for a ``violated`` outcome: what it means for a reader (:class:`verify.findings.Finding`); None otherwise
    finding: Finding | None = None
    #: one sentence for a reader: what was checked and the outcome ("" when ``evidence`` is short enough to be it)
    summary: str = ""
    #: the points the decision used, one row per configuration or test (:func:`check_points`); when empty, the
    #: runner fills them from ``decisions`` (:func:`verify.decide.decision_points`)
    points: list = field(default_factory=list)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)} (got {self.verdict!r})")
        self.verdict = Verdict(self.verdict)
        if not isinstance(self.summary, str):
            raise TypeError(f"summary must be a string (got {type(self.summary).__name__})")
        self.summary = " ".join(self.summary.split())
        self.points = check_points(self.points)
        # A NaN among the numbers can never support 'holds': it turns the verdict
        # into 'inconclusive' and says so.
        bad = [k for k, v in self.numbers.items() if isinstance(v, float) and not math.isfinite(v)]
        if bad and self.verdict == "holds":
            self.verdict = "inconclusive"
            self.evidence = f"non-finite figures {bad}; " + self.evidence
            if self.summary:
                self.summary = f"non-finite figures {bad}; " + self.summary
        if self.finding is not None:
            if not isinstance(self.finding, Finding):
                raise TypeError(f"finding must be a verify.findings.Finding (got {type(self.finding).__name__})")
            if self.verdict != "violated":
                raise ValueError(f"a finding belongs to a violated outcome (the verdict is {self.verdict})")


@dataclass
class Result:
    id: str
    verdict: str
    figures: dict[str, float]
    evidence: str
    counterexample: dict | None
    seed: int
    budget: str
    seconds: float
    plots: list[str]
    #: the error control of each statistical decision (verify.decide.Decision.to_dict()), [] if none
    control: list = field(default_factory=list)
    #: the code fingerprint (verify.runner.code_fingerprint) of the run that produced it ("" if unknown)
    code: str = ""
    #: the finding of a violated result (verify.findings.Finding), None otherwise or when the check gave none
    finding: Finding | None = None
    #: the one-sentence summary of the evidence (:attr:`Outcome.summary`; "" when the evidence is its own summary)
    summary: str = ""
    #: the points the decision used (:attr:`Outcome.points`): a list of flat rows, column name -> scalar
    points: list = field(default_factory=list)

    @property
    def headline(self) -> str:
        """The sentence a reader sees first: the summary when there is one, else the whole evidence.

        Returns
        -------
        str
            :attr:`summary`, or :attr:`evidence` when the summary is empty.
        """
        return self.summary or self.evidence
    #: CPU seconds the check used (its worker process's, when it ran alone in one; else its thread's), None if unknown
    cpu_seconds: float | None = None

    def to_dict(self) -> dict:
        """The result as one entry of results.json.

        Returns
        -------
        dict
            Every field, in plain JSON types (see :func:`jsonable`); ``seconds`` and ``cpu_seconds`` rounded to
            milliseconds.
        """
        return {
            "id": self.id,
            "verdict": str(self.verdict),
            "figures": {k: jsonable(v) for k, v in self.figures.items()},
            "evidence": self.evidence,
            "counterexample": jsonable(self.counterexample),
            "seed": self.seed,
            "budget": self.budget,
            "seconds": round(float(self.seconds), 3),
            "plots": list(self.plots),
            "control": jsonable(self.control),
            "code": self.code,
            "finding": None if self.finding is None else self.finding.to_dict(),
            "summary": self.summary,
            "points": jsonable(self.points),
            "cpu_seconds": None if self.cpu_seconds is None else round(float(self.cpu_seconds), 3),
        }

    @staticmethod
    def from_dict(d: Mapping) -> "Result":
        """The result written by :meth:`to_dict` (one entry of results.json).

        Parameters
        ----------
        d : mapping
            An entry of results.json; ``control``, ``code``, ``finding``, ``summary``, ``points`` and
            ``cpu_seconds`` may be missing (older files).

        Returns
        -------
        Result
        """
        return Result(
            d["id"], d["verdict"], dict(d["figures"]), d["evidence"], d["counterexample"],
            int(d["seed"]), d["budget"], float(d["seconds"]), list(d["plots"]), list(d.get("control", [])),
            str(d.get("code", "")),
            None if d.get("finding") is None else Finding.from_dict(d["finding"]),
            str(d.get("summary", "")), [dict(p) for p in d.get("points", [])],
            cpu_seconds=None if d.get("cpu_seconds") is None else float(d["cpu_seconds"]),
        )


POINT_TYPES = (type(None), bool, int, float, str)  #: the types a cell of a point may have


def check_points(points) -> list[dict]:
    """The points of an outcome as plain rows, checked: a list of flat mappings, column name -> scalar.

    A point is one configuration or test the decision used, e.g.
    ``{"T": 1000, "measured": 0.41, "bound": 0.52, "margin": 0.11}``.  Rows may have different columns; a
    report shows the union, in order of first appearance.

    Parameters
    ----------
    points : sequence of mappings
        Each mapping's keys are non-empty strings and its values None, bool, int, float or str (NumPy scalars
        are turned into Python numbers).

    Returns
    -------
    list of dict
        The rows as new plain dicts, in order.

    Raises
    ------
    TypeError
        When ``points`` is not a list or tuple, a row is not a mapping, a key not a non-empty string, or a
        value not a scalar of those types (nested containers are refused: a point is one row of a table).
    """
    if not isinstance(points, (list, tuple)):
        raise TypeError(f"points must be a list of mappings (got {type(points).__name__})")
    rows = []
    for i, p in enumerate(points):
        if not isinstance(p, Mapping):
            raise TypeError(f"points[{i}] must be a mapping of column name to value (got {type(p).__name__})")
        row = {}
        for k, v in p.items():
            if not (isinstance(k, str) and k.strip()):
                raise TypeError(f"points[{i}]: column names must be non-empty strings (got {k!r})")
            if isinstance(v, _numpy_types("generic")) and not isinstance(v, _numpy_types("datetime64")):
                v = v.item()  # a NumPy scalar (NumPy is loaded if one was made)
            if not isinstance(v, POINT_TYPES):
                raise TypeError(f"points[{i}][{k!r}] must be None, a bool, a number or a string "
                                f"(got {type(v).__name__})")
            row[k] = v
        rows.append(row)
    return rows


def jsonable(v: Any) -> Any:
    """Plain JSON types for numbers, arrays and nested containers (non-finite floats as text).

    Parameters
    ----------
    v : any
        None, a bool, str, (NumPy) integer or float, NumPy array, mapping, list or tuple, nested freely.

    Returns
    -------
    any
        ``v`` with NumPy scalars as Python numbers, arrays and tuples as lists, mapping keys as strings,
        non-finite floats as their text ("nan", "inf"), and any other object as ``str(v)``.
    """
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, *_numpy_types("integer"))):
        return int(v)
    if isinstance(v, (float, *_numpy_types("floating"))):
        v = float(v)
        return v if math.isfinite(v) else str(v)
    if isinstance(v, _numpy_types("ndarray")):
        return [jsonable(x) for x in v.tolist()]
    if isinstance(v, Mapping):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return str(v)


# --------------------------------------------------------------------------------------
# Claims and the registry
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    id: str
    paper: str
    statement: str
    kind: str
    theory: tuple[str, ...]
    check: Callable[[str, int], Outcome]
    notes: str = ""
    #: how many statistical tests (decisions that can say 'violated' at a level) the check makes:
    #: its share of the run's Bonferroni family (verify.decide); 0 for exact/deterministic checks
    tests: int = 0
    #: declared mutants (verify.mutants.Mutant: deliberate kernel or theory errors the check must catch),
    #: besides the generic ones derived from ``theory``
    mutants: tuple = ()
    #: theory path -> "larger" or "smaller": the direction in which that function's value only weakens the
    #: statement (an upper bound made larger, a noise multiplier made larger); a constant mutant in that direction
    #: leaves a true statement true, so it is equivalent (reported apart, not counted as a survivor)
    weaker_if: tuple = ()

    def to_dict(self) -> dict:
        """The claim's description (not its check).

        Returns
        -------
        dict
            ``id``, ``paper``, ``statement`` and ``kind``.
        """
        return {"id": self.id, "paper": self.paper, "statement": self.statement, "kind": self.kind}


REGISTRY: dict[str, Claim] = {}


def theory_path(item) -> str:
    """The dotted path of a declared theory function.

    ``item`` itself when it is a path, else the module and name of the function given.

    Parameters
    ----------
    item : str or callable
        A dotted path ``module.function``, or a module-level function.

    Returns
    -------
    str
        The dotted path, checked to import and resolve to a callable.

    Raises
    ------
    ValueError
        When ``item`` is neither a string nor a module-level function, or the path does not resolve to a
        callable (a module-level function).
    """
    if isinstance(item, str):
        path = item
    elif callable(item) and isinstance(getattr(item, "__module__", None), str) \
            and "." not in getattr(item, "__qualname__", "."):
        path = f"{item.__module__}.{item.__qualname__}"
    else:
        raise ValueError(f"theory: each entry must be a module-level function or its dotted path (got {item!r})")
    module, _, name = path.rpartition(".")
    try:
        target = getattr(importlib.import_module(module), name) if module else None
    except (ImportError, AttributeError, ValueError):
        target = None
    if not callable(target):
        raise ValueError(f"theory: {path!r} does not resolve to a function (module.function)")
    return path


def claim(id: str, *, kind: str, statement: str, theory: Sequence = (), notes: str = "", tests: int = 0,
          mutants: Sequence = (), weaker_if: Mapping | None = None):
    """Register ``check(budget, seed) -> Outcome`` as the claim ``id``.

    The paper key is the part of the id before the first dot.  Registering an id
    twice is an error: a claim's meaning never changes, a new meaning gets a new id.
    ``tests``: the number of statistical tests the check makes (see :mod:`verify.decide`);
    the check, wherever it is called from, spends its decisions from that share and may not
    make more.  ``weaker_if``: for a declared theory function whose value, made larger (or smaller), can only
    weaken the statement, ``{path: "larger" | "smaller"}``; the mutation analysis then reports the constant
    mutant in that direction as equivalent instead of counting it as a survivor.

    Parameters
    ----------
    id : str
        ``KEY.name``; the five built-in paper keys are reserved for the built-in ledger.
    kind : str
        One of :data:`KINDS`.
    statement : str
        The statement checked, in words.
    theory : sequence of functions (or their dotted paths), optional
        The closed forms the check uses, given as the module-level functions themselves (``tp.noise_multiplier``)
        or as dotted paths; stored as paths, each checked to resolve.  The mutation analysis damages them and
        counts a declared function the check never calls as a survivor.
    notes : str, optional
        The reading of the statement and anything a reader needs to judge the verdict.
    tests : int, optional
        The number of statistical decisions the check makes.
    mutants : sequence, optional
        The kernel faults the check must catch.
    weaker_if : mapping, optional
        See above.

    Returns
    -------
    callable
        A decorator that registers ``check`` and returns it.

    Raises
    ------
    ValueError
        A malformed or reserved id, an id registered twice, an unknown ``kind``, a negative ``tests``, a theory
        entry that does not resolve to a function, or a ``weaker_if`` entry that is not a declared theory function
        with "larger" or "smaller".
    """
    paper = id.split(".", 1)[0]
    if not (isinstance(id, str) and _KEY.fullmatch(paper) and "." in id and all(id.split("."))):
        raise ValueError(f"claim id {id!r} must be KEY.name: a lower-case key (letters, digits, _) such as "
                         "'mylab', a dot, and a name")
    if paper in PAPERS and not _builtin_caller():
        raise ValueError(f"claim id {id!r}: the key {paper!r} is reserved for the built-in ledger "
                         f"({', '.join(PAPERS)}); choose a key of your own, e.g. 'mylab.{id.split('.', 1)[1]}'")
    if kind not in KINDS:
        raise ValueError(f"claim kind must be one of {', '.join(KINDS)} (got {kind!r})")

    if not (isinstance(tests, int) and tests >= 0):
        raise ValueError(f"tests must be a non-negative integer (got {tests!r})")
    theory = tuple(theory_path(item) for item in theory)
    weaker = {theory_path(path): way for path, way in (weaker_if or {}).items()}
    for path, way in weaker.items():
        if path not in theory or way not in ("larger", "smaller"):
            raise ValueError(f"weaker_if: keys must be declared theory paths and values 'larger' or 'smaller' "
                             f"(got {path!r}: {way!r})")

    def register(check: Callable[[str, int], Outcome]):
        if id in REGISTRY and getattr(REGISTRY[id].check, "__wrapped__", None) is not check:
            raise ValueError(f"claim {id!r} is already registered")

        @functools.wraps(check)
        def scoped(budget: str, seed: int) -> Outcome:
            with claim_tests(id, tests, budget):
                return check(budget, seed)

        REGISTRY[id] = Claim(id, paper, " ".join(statement.split()), kind, tuple(theory), scoped,
                             " ".join(notes.split()), tests, tuple(mutants), tuple(sorted(weaker.items())))
        return scoped

    return register


_KEY = re.compile(r"[a-z][a-z0-9_]*")
ENTRY_POINT_GROUP = "dpverify.claims"


def _builtin_caller() -> bool:
    """Whether the claim being registered comes from the built-in ledger (a claim pack under ``verify.papers``)."""
    frame = sys._getframe(2)
    return str(frame.f_globals.get("__name__", "")).startswith("verify.papers.")


class LoadError(ValueError):
    """A claims file or module that could not be loaded (named in the message)."""


_loaded_entry_points = False


def load_all() -> dict[str, Claim]:
    """Import the built-in ledger and every installed claim pack (entry point group ``dpverify.claims``).

    The built-in ledger is five claim packs, ``verify.papers.<key>``, loaded exactly as a user's ``--load MODULE``
    is (each module registers its claims with :func:`claim` when imported).

    Returns
    -------
    dict of str to Claim
        :data:`REGISTRY` itself (claim id -> claim), now holding every loaded claim.

    Raises
    ------
    LoadError
        When a claim pack or an entry point fails to load.
    """
    from verify.papers import PACKS  # here, not at the top: the machinery never imports a pack on import

    for module in PACKS:
        _import_pack(module)
    _load_entry_points()
    return REGISTRY


def _load_entry_points() -> None:
    global _loaded_entry_points
    if _loaded_entry_points:
        return
    _loaded_entry_points = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
        except (Exception, SystemExit) as exc:
            raise LoadError(f"claim pack {ep.name!r} (entry point {ep.value}): {type(exc).__name__}: {exc}") from exc
        if callable(obj) and not isinstance(obj, type(sys)):
            obj()  # a function that registers claims


def load(spec: str) -> list[Claim]:
    """Load a user's claims from a ``.py`` file or an importable module.

    The built-in ledger and installed packs are loaded first (:func:`load_all`).

    Parameters
    ----------
    spec : str
        A path to a ``.py`` file or an importable module name.

    Returns
    -------
    list of Claim
        The claims it registered (a module imported before registers nothing new).

    Raises
    ------
    LoadError
        Naming the spec, when it is no such file, not importable, or fails while being imported.
    """
    load_all()
    before = set(REGISTRY)
    _import_pack(spec)
    return [REGISTRY[c] for c in REGISTRY if c not in before]


def _import_pack(spec: str) -> None:
    """Import a claim pack (a ``.py`` file or a module name); its claims register as it is imported."""
    path = Path(spec)
    try:
        if spec.endswith(".py") or path.is_file():
            if not path.is_file():
                raise LoadError(f"--load: no such file {spec!r}")
            name = "dpverify_user_" + re.sub(r"\W", "_", str(path.resolve()))
            if name not in sys.modules:
                mspec = importlib.util.spec_from_file_location(name, path)
                if mspec is None or mspec.loader is None:
                    raise LoadError(f"--load: {spec!r} is not a Python file")
                module = importlib.util.module_from_spec(mspec)
                sys.modules[name] = module
                try:
                    mspec.loader.exec_module(module)
                except BaseException:
                    sys.modules.pop(name, None)
                    raise
        else:
            importlib.import_module(spec)
    except LoadError:
        raise
    except ModuleNotFoundError as exc:
        raise LoadError(f"--load: must be a .py file or an importable module (got {spec!r}: {exc})") from None
    except (Exception, SystemExit) as exc:  # a sys.exit() in a claim file is its failure, not the command's exit
        raise LoadError(f"--load: {spec!r} failed to load: {type(exc).__name__}: {exc}") from exc


def paper_keys() -> tuple[str, ...]:
    """The built-in paper keys, then the keys of loaded claim packs (in registration order).

    Returns
    -------
    tuple of str
        :data:`PAPERS`, then each other key of a registered claim once.
    """
    extra = [c.paper for c in REGISTRY.values() if c.paper not in PAPERS]
    return PAPERS + tuple(dict.fromkeys(extra))


def select(ids: Sequence[str] = (), paper: str | None = None) -> list[Claim]:
    """Claims by id and/or paper; unknown names raise UnknownName.

    Loads the registry first (:func:`load_all`).

    Parameters
    ----------
    ids : sequence of str, optional
        Claim ids; empty selects every claim (of ``paper``).
    paper : str or None, optional
        A paper key (one of :func:`paper_keys`); None for every paper.

    Returns
    -------
    list of Claim
        The claims matching both filters, ordered by paper (in :func:`paper_keys` order), then by id.

    Raises
    ------
    UnknownName
        When ``paper`` is not a known key or an id is not registered (the message suggests close ids).
    """
    return select_in(load_all(), ids, paper)


def select_in(reg: Mapping[str, Any], ids: Sequence[str] = (), paper: str | None = None) -> list:
    """:func:`select` over the claims ``reg`` (id -> claim) instead of the loaded registry.

    ``verify.ledger`` selects from its index of the built-in ledger through it, with the same order, refusals and
    messages as :func:`select`.

    Parameters
    ----------
    reg : mapping of str to Claim (or any record with ``id`` and ``paper``)
        The claims to select from, in registration order.
    ids : sequence of str, optional
        Claim ids; empty selects every claim (of ``paper``).
    paper : str or None, optional
        A paper key (one of :func:`paper_keys`); None for every paper.

    Returns
    -------
    list
        The records matching both filters, ordered by paper (in :func:`paper_keys` order), then by id.

    Raises
    ------
    UnknownName
        When ``paper`` is not a known key or an id is not in ``reg`` (the message suggests close ids).
    """
    if paper is not None and paper not in paper_keys():
        raise UnknownName(f"--paper: must be one of {', '.join(paper_keys())} (got {paper!r})")
    for cid in ids:
        if cid not in reg:
            import difflib

            close = difflib.get_close_matches(cid, list(reg), n=3, cutoff=0.6)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise UnknownName(f"claim id: must be one of the {len(reg)} registered ids ({hint}`dpverify claims` "
                              f"lists them) (got {cid!r})")
    chosen = [c for c in reg.values() if (not ids or c.id in ids) and (paper is None or c.paper == paper)]
    return sorted(chosen, key=lambda c: _claim_sort_key(c.id))


def _claim_sort_key(cid: str):
    paper = cid.split(".", 1)[0]
    keys = paper_keys()
    return (keys.index(paper) if paper in keys else len(keys), cid)
