"""The built-in ledger as the command line lists it, without loading the numerical stack.

Listing the claims (``dpverify claims``), refusing an unknown claim id, paper or algorithm, and the table of
``dpverify run --help`` need only ids, papers, statements and algorithm names; the claim packs and
:mod:`verify.runs` that define them import NumPy, SymPy, Numba, SciPy and dp-accounting (seconds of start-up).
The committed module :mod:`verify._ledger_index` holds those fields: it is generated from the loaded registry
and from ``verify.runs.RUNNABLES`` by ``python -m verify.ledger`` and never edited by hand.

The index is used only when it describes exactly what the registry would hold:

* each of its two sections carries the SHA-256 of the sources it was generated from (the claims: every module
  of ``verify/papers`` and ``verify/registry.py``; the algorithms: ``verify/runs.py`` and ``kernels/pagan.py``,
  whose ``SPECS`` name the PAGAN family).  A section whose sources have changed since (a claim added, a
  statement reworded, before the index was regenerated) is not used: the command loads the registry as before,
  correct and only slower;
* no claim is registered in this process yet (a ``--load`` file, an earlier ``--load``, claims a program
  registered before calling :func:`verify.cli.main`) and no installed package declares claims (entry-point group
  ``dpverify.claims``); for the algorithms, :mod:`verify.runs` is not imported yet (a user's algorithm registers
  into it).

``tests/verify/test_ledger_index.py`` proves the committed index equal to the registry and to the algorithms'
table and its digests current, so it cannot drift unnoticed; ``python -m verify.ledger --check`` says the same
from the command line.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from . import registry

INDEX_MODULE = "verify._ledger_index"
_HERE = Path(__file__).resolve().parent
INDEX_PATH = _HERE / "_ledger_index.py"


# --------------------------------------------------------------------------------------
# what the index holds
# --------------------------------------------------------------------------------------
class ClaimEntry:
    """One claim of the index: the fields of :meth:`verify.registry.Claim.to_dict` (no check to run).

    Parameters
    ----------
    doc : mapping
        The claim's ``to_dict()`` as the index stores it (``id``, ``paper``, ``statement``, ``kind``).
    """

    __slots__ = ("id", "paper", "statement", "kind", "_doc")

    def __init__(self, doc: Mapping[str, Any]):
        self._doc = dict(doc)
        self.id = self._doc["id"]
        self.paper = self._doc["paper"]
        self.statement = self._doc["statement"]
        self.kind = self._doc["kind"]

    def to_dict(self) -> dict:
        """The claim's description, as :meth:`verify.registry.Claim.to_dict` gives it.

        Returns
        -------
        dict
        """
        return dict(self._doc)


class AlgorithmEntry:
    """One algorithm of ``dpverify run``: the fields of :class:`verify.runs.Runnable` the command line checks.

    Parameters
    ----------
    name, paper : str
        The algorithm's name and its paper's key.
    problems : sequence of str
        The problems it runs on, the paper's first.
    private : bool
        Whether it is differentially private.
    """

    __slots__ = ("name", "paper", "problems", "private")

    def __init__(self, name: str, paper: str, problems: Sequence[str], private: bool):
        self.name, self.paper, self.problems, self.private = name, paper, tuple(problems), bool(private)


# --------------------------------------------------------------------------------------
# the sources each section is generated from
# --------------------------------------------------------------------------------------
def claim_sources(root: Path = _HERE) -> list[Path]:
    """The files the claims' section is generated from: every module of ``verify/papers``, ``verify/registry.py``.

    Parameters
    ----------
    root : Path, optional
        The ``verify`` package's folder (default: this module's).

    Returns
    -------
    list of Path
    """
    return sorted(p for p in (root / "papers").rglob("*.py") if "__pycache__" not in p.parts) + [root / "registry.py"]


def algorithm_sources(root: Path = _HERE) -> list[Path]:
    """The files the algorithms' section is generated from: ``verify/runs.py`` and ``kernels/pagan.py``.

    Parameters
    ----------
    root : Path, optional
        The ``verify`` package's folder (default: this module's); ``kernels`` is its sibling.

    Returns
    -------
    list of Path
    """
    return [root / "runs.py", root.parent / "kernels" / "pagan.py"]


def digest(paths: Iterable[Path], root: Path = _HERE.parent) -> str | None:
    """SHA-256 over the files' names (relative to ``root``) and contents; None when one cannot be read.

    Parameters
    ----------
    paths : iterable of Path
        The files, in a fixed order.
    root : Path, optional
        The folder their names are taken relative to (default: the one holding ``verify``).

    Returns
    -------
    str or None
        The hex digest.
    """
    h = hashlib.sha256()
    for p in paths:
        try:
            data = p.read_bytes()
            name = p.relative_to(root).as_posix()
        except (OSError, ValueError):
            return None
        h.update(name.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


# --------------------------------------------------------------------------------------
# reading the index
# --------------------------------------------------------------------------------------
_cache: dict = {}


def _index():
    """The index module, or None when it is missing or unreadable (then the registry is loaded as before)."""
    if "index" not in _cache:
        try:
            _cache["index"] = importlib.import_module(INDEX_MODULE)
        except Exception:  # a broken index is never worse than no index
            _cache["index"] = None
    return _cache["index"]


def _fresh(section: str, sources) -> bool:
    """Whether the index's ``section`` was generated from the sources as they are now (checked once)."""
    key = "fresh:" + section
    if key not in _cache:
        index = _index()
        stored = getattr(index, section.upper() + "_SOURCES", None) if index is not None else None
        _cache[key] = stored is not None and stored == digest(sources())
    return _cache[key]


def _installed_packs() -> bool:
    """Whether an installed package declares claims (entry-point group ``dpverify.claims``; looked up once)."""
    if "packs" not in _cache:
        from importlib.metadata import entry_points

        _cache["packs"] = any(True for _ in entry_points(group=registry.ENTRY_POINT_GROUP))
    return _cache["packs"]


def claims() -> list[ClaimEntry] | None:
    """The built-in claims from the index, when they are exactly what the registry would hold; else None.

    None when a claim is registered in this process already, an installed package declares claims, or the
    index is missing or older than its sources: the caller then loads the registry
    (:func:`verify.registry.load_all`).

    Returns
    -------
    list of ClaimEntry or None
        Ordered by paper, then id (:func:`canonical`).
    """
    if registry.REGISTRY or not _fresh("claims", claim_sources) or _installed_packs():
        return None
    return [ClaimEntry(d) for d in _index().CLAIMS]


def algorithms() -> list[AlgorithmEntry] | None:
    """The algorithms of ``dpverify run`` from the index, when they are exactly ``verify.runs.RUNNABLES``; else None.

    None once :mod:`verify.runs` is imported (a user's algorithm may be registered there; it is the authority
    then) or when the index is missing or older than its sources.

    Returns
    -------
    list of AlgorithmEntry or None
        In the table's order.
    """
    if "verify.runs" in sys.modules or not _fresh("algorithms", algorithm_sources):
        return None
    return [AlgorithmEntry(**d) for d in _index().ALGORITHMS]


def select(entries: Sequence[ClaimEntry], ids: Sequence[str] = (), paper: str | None = None) -> list[ClaimEntry]:
    """:func:`verify.registry.select` over the index's entries: same order, same refusals, same messages.

    Parameters
    ----------
    entries : sequence of ClaimEntry
        From :func:`claims`.
    ids : sequence of str, optional
        Claim ids; empty selects every claim (of ``paper``).
    paper : str or None, optional
        A paper key; None for every paper.

    Returns
    -------
    list of ClaimEntry

    Raises
    ------
    verify.registry.UnknownName
        When ``paper`` or an id is unknown.
    """
    return registry.select_in({e.id: e for e in entries}, ids, paper)


# --------------------------------------------------------------------------------------
# text the command line prints (no numerical library needed)
# --------------------------------------------------------------------------------------
def format_claims(claims: Sequence[Any], width: int | None = None) -> str:
    """The ledger: id, kind and statement (wrapped to the terminal width).

    Parameters
    ----------
    claims : sequence of Claim or ClaimEntry
        The claims, one row each.
    width : int or None, optional
        The line width (default: the terminal's, else 100).

    Returns
    -------
    str
        The table and a final line with the number of claims.
    """
    if width is None:
        width = shutil.get_terminal_size((100, 24)).columns
    idw = max([len("id")] + [len(c.id) for c in claims])
    kw = max([len("kind")] + [len(c.kind) for c in claims])
    sw = max(30, width - idw - kw - 4)
    lines = [f"{'id':<{idw}}  {'kind':<{kw}}  statement", "-" * min(width, idw + kw + 4 + sw)]
    for c in claims:
        wrapped = textwrap.wrap(c.statement, sw) or [""]
        lines.append(f"{c.id:<{idw}}  {c.kind:<{kw}}  {wrapped[0]}")
        lines += [" " * (idw + kw + 4) + w for w in wrapped[1:]]
    lines.append(f"{len(claims)} claims")
    return "\n".join(lines)


def suggest(name: str, known) -> str:
    """' (did you mean X?)' for the closest known names, or ''.

    Parameters
    ----------
    name : str
        The unknown name.
    known : iterable of str
        The known names.

    Returns
    -------
    str
        Up to three close matches (difflib, cutoff 0.6) in that phrase, or "".
    """
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


# --------------------------------------------------------------------------------------
# generating the index (loads everything)
# --------------------------------------------------------------------------------------
def canonical(claim) -> tuple:
    """The index's order of a claim: its paper's place among the built-in papers, then its id.

    Parameters
    ----------
    claim : verify.registry.Claim
        A built-in claim.

    Returns
    -------
    tuple of (int, str)
    """
    return registry.PAPERS.index(claim.paper), claim.id


def build() -> dict:
    """The index's contents from the loaded registry and ``verify.runs.RUNNABLES`` (imports the whole ledger).

    Only the built-in ledger is indexed: claims of installed packs or of loaded files are refused.

    Returns
    -------
    dict
        ``claims_sources``, ``algorithms_sources`` (digests), ``claims`` (``to_dict()`` of each, ordered by
        :func:`canonical`)
        and ``algorithms`` (name, paper, problems, private; table order).

    Raises
    ------
    RuntimeError
        When the registry holds a claim outside the five built-in papers, or ``verify.runs`` an algorithm that is
        not built in: the index describes the built-in ledger only.
    """
    from . import runs

    reg = registry.load_all()
    extra = [cid for cid, c in reg.items() if c.paper not in registry.PAPERS]
    if extra or set(runs.RUNNABLES) != set(runs._BUILTIN):
        raise RuntimeError("the index describes the built-in ledger only; loaded here besides it: "
                           + ", ".join(extra + sorted(set(runs.RUNNABLES) - set(runs._BUILTIN))))
    return {
        "claims_sources": digest(claim_sources()),
        "algorithms_sources": digest(algorithm_sources()),
        # in a canonical order (paper, then id), not the registry's, which depends on what imported the claim
        # modules first: the file is the same whichever process writes it
        "claims": [c.to_dict() for c in sorted(reg.values(), key=canonical)],
        "algorithms": [{"name": r.name, "paper": r.paper, "problems": tuple(r.problems), "private": bool(r.private)}
                       for r in runs.RUNNABLES.values()],
    }


def render(doc: Mapping[str, Any]) -> str:
    """The source of :mod:`verify._ledger_index` holding ``doc`` (from :func:`build`).

    Parameters
    ----------
    doc : mapping
        The index's contents.

    Returns
    -------
    str
        A Python module: two digests and two lists of plain literals, one entry a line.
    """
    lines = ['"""The built-in ledger\'s claims and algorithms for the command line\'s fast paths (verify.ledger).',
             "",
             "Generated by ``python -m verify.ledger`` from the registry and verify.runs; do not edit by hand.",
             '"""',
             "# ruff: noqa: E501",
             "",
             f"CLAIMS_SOURCES = {doc['claims_sources']!r}",
             f"ALGORITHMS_SOURCES = {doc['algorithms_sources']!r}",
             "",
             "CLAIMS = ["]
    lines += [f"    {dict(d)!r}," for d in doc["claims"]]
    lines += ["]", "", "ALGORITHMS = ["]
    lines += [f"    {dict(d)!r}," for d in doc["algorithms"]]
    lines += ["]", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m verify.ledger [--check]``: regenerate :mod:`verify._ledger_index` (or check it is current).

    Parameters
    ----------
    argv : sequence of str or None, optional
        ``[]`` to write the index, ``["--check"]`` to compare it with what would be written.

    Returns
    -------
    int
        0 when written, or current under ``--check``; 1 when ``--check`` finds it out of date; 2 on other
        arguments.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args not in ([], ["--check"]):
        print("usage: python -m verify.ledger [--check]", file=sys.stderr)
        return 2
    text = render(build())
    if args == ["--check"]:
        current = INDEX_PATH.read_text(encoding="utf-8") if INDEX_PATH.is_file() else ""
        if current != text:
            print(f"{INDEX_PATH} is out of date: run `python -m verify.ledger` and commit it", file=sys.stderr)
            return 1
        print(f"{INDEX_PATH} is current")
        return 0
    from .atomic import write_atomic

    write_atomic(INDEX_PATH, text)
    print(f"wrote {INDEX_PATH}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
