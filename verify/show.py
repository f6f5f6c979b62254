"""``dpverify show ID``: one claim explained — statement, theory, latest verdict, decisions, mutants."""

from __future__ import annotations

import importlib
import json
import textwrap
from pathlib import Path

import sympy as sp

from . import contained, registry
from .ledger import suggest  # noqa: F401  (re-exported; the command line refuses an unknown ID without this module)
from .mutants import MUTANTS_JSON, read_document
from .registry import Claim, Result
from .report import RESULTS_JSON, control_lines, points_text, verdict_phrase
from .result_files import load_results


def theory_forms(c: Claim) -> list[dict]:
    """Each declared theory function: its path, first docstring line and pretty-printed value.

    The value is shown only if the function takes no arguments.

    Parameters
    ----------
    c : Claim

    Returns
    -------
    list of dict
        ``path``, ``doc`` and ``formula`` (pretty-printed, or "(takes arguments)") per declared function.
    """
    out = []
    for path in c.theory:
        mod, _, name = path.rpartition(".")
        fn = getattr(importlib.import_module(mod), name)
        doc = (fn.__doc__ or "").strip().splitlines()
        entry = {"path": path, "doc": doc[0] if doc else "", "formula": None}
        try:
            value = fn()
        except TypeError:
            entry["formula"] = "(takes arguments)"
        else:
            entry["formula"] = _pretty(value)
        out.append(entry)
    return out


def _pretty(value) -> str:
    if isinstance(value, (tuple, list)):
        return "\n".join(_pretty(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_pretty(v)}" for k, v in value.items())
    if isinstance(value, sp.Basic):
        return sp.pretty(value, use_unicode=True)
    return str(value)


def latest(cid: str, out: Path) -> tuple[Result | None, dict]:
    """The claim's result in ``out/results.json`` (None if absent) and the run's meta.

    Parameters
    ----------
    cid : str
        The claim id.
    out : Path
        The output directory.

    Returns
    -------
    result : Result or None
        The claim's recorded result.
    meta : dict
        The file's meta ({} when the file is missing).

    Raises
    ------
    verify.result_files.BadResults
        When the file exists but is not a readable result set (:func:`verify.result_files.load_results`).
    """
    loaded = load_results(out / RESULTS_JSON, in_dir=out, missing_ok=True)
    if loaded is None:
        return None, {}
    meta, results = loaded
    return next((r for r in results if r.id == cid), None), meta


def mutant_rows(cid: str, paths) -> tuple[list[dict], Path | None]:
    """The claim's rows of the first mutants.json among ``paths`` that has any (and that file).

    Parameters
    ----------
    cid : str
        The claim id.
    paths : iterable of str or Path
        Candidate mutants.json files, in order.

    Returns
    -------
    rows : list of dict
        The claim's mutation rows ([] when none is found).
    path : Path or None
        The file they came from.

    Raises
    ------
    verify.mutants.BadMutants
        When one of the files exists but is not a mutants.json (:func:`verify.mutants.read_document`).
    """
    for p in paths:
        doc = read_document(p, in_dir=Path(p).parent)
        rows = [] if doc is None else [m for m in doc["mutants"] if m["claim"] == cid]
        if rows:
            return rows, Path(p)
    return [], None


def describe(cid: str, out: Path, mutants_paths=()) -> dict:
    """Everything ``dpverify show`` says about one claim, as plain data.

    Parameters
    ----------
    cid : str
        A registered claim id (KeyError otherwise).
    out : Path
        The output directory holding results.json (and possibly mutants.json).
    mutants_paths : iterable of Path, optional
        Further mutants.json files, tried after ``out/mutants.json``.

    Returns
    -------
    dict
        The claim's description, its theory forms, its latest result (with its verdict phrase, or None), the
        decision lines, and its mutation rows with their file.
    """
    reg = registry.load_all()
    c = reg[cid]
    res, meta = latest(cid, out)
    muts, mpath = mutant_rows(cid, [out / MUTANTS_JSON, *mutants_paths])
    return {
        "id": c.id, "paper": c.paper, "kind": c.kind, "statement": c.statement, "notes": c.notes,
        "tests": c.tests, "theory": theory_forms(c),
        "result": None if res is None else dict(res.to_dict(), phrase=verdict_phrase(res), budget=res.budget,
                                                 results=str(out / RESULTS_JSON), started=meta.get("started")),
        "decisions": [] if res is None else control_lines(res),
        "mutants": muts, "mutants_file": None if mpath is None else str(mpath),
    }


def format_text(d: dict, width: int = 100) -> str:
    """:func:`describe`'s record as text for the terminal.

    Parameters
    ----------
    d : dict
        A record of :func:`describe`.
    width : int, optional
        The width paragraphs are wrapped to.

    Returns
    -------
    str
        Statement, notes, theory, latest verdict with its summary (or evidence), points table, the evidence in
        one paragraph (when there is a summary), decisions, counterexample (first 40 lines, non-ASCII text as
        it is) and figures, then the mutants.
    """
    w = lambda s, ind="  ": textwrap.fill(s, width, initial_indent=ind, subsequent_indent=ind)  # noqa: E731
    lines = [f"{d['id']}  ({d['kind']}, paper {d['paper']}; {d['tests']} statistical test(s) in the family)", "",
             "Statement:", w(d["statement"])]
    if d["notes"]:
        lines += ["", "Notes:", w(d["notes"])]
    if d["theory"]:
        lines += ["", "Theory:"]
        for t in d["theory"]:
            lines.append(f"  {t['path']} — {t['doc']}")
            lines += ["      " + ln for ln in str(t["formula"]).splitlines()]
    r = d["result"]
    lines += [""]
    if r is None:
        lines.append("No recorded result (run `dpverify verify " + d["id"] + "`).")
    else:
        lines += [f"Latest verdict: {r['phrase']}   (seed {r['seed']}, budget {r['budget']}, {r['results']})",
                  w(r.get("summary") or r["evidence"])]
        if r.get("points"):
            lines += ["Points:"] + points_text(r["points"], indent="  ")
        if r.get("summary"):
            lines += ["Evidence in one paragraph:", w(r["evidence"])]
        if d["decisions"]:
            lines += ["Decisions:"] + [textwrap.fill(x, width, initial_indent="  - ", subsequent_indent="    ")
                                       for x in d["decisions"]]
        if r.get("counterexample") is not None:
            ce = json.dumps(r["counterexample"], indent=1, ensure_ascii=False)
            ce_lines = ce.splitlines()
            lines += ["Counterexample:"] + ["  " + ln for ln in ce_lines[:40]]
            if len(ce_lines) > 40:
                lines.append(f"  … {len(ce_lines) - 40} more lines in results.json")
        if r.get("plots"):
            lines += ["Figures:"] + [f"  {p}" for p in r["plots"]]
    ms = d["mutants"]
    if ms:
        caught = sum(1 for m in ms if m.get("killed"))
        budget = ms[0].get("budget")
        at = f", {budget} budget" if budget else ""
        lines += ["", f"Mutants: caught {caught} of {len(ms)}{at} ({d['mutants_file']})"]
        lines += [f"  {'caught  ' if m.get('killed') else 'survived'} {m['mutant']}: {m['original']} -> "
                  f"{m['verdict']}" for m in ms]
    else:
        lines += ["", "Mutants: none recorded (run `dpverify mutants " + d["id"] + "`)."]
    return "\n".join(lines)


def format_json(d: dict) -> str:
    """:func:`describe`'s record as JSON text for the terminal: non-ASCII text as it is, controls escaped.

    ``ensure_ascii=False`` keeps a counterexample's "σ" or "é" readable instead of ``\\u03c3``; the control
    characters JSON leaves raw in that mode (C1 controls, the Unicode line separators and the bidirectional
    overrides, :func:`verify.contained.escape_controls`) are written as ``\\uXXXX`` escapes, so the text is
    still valid JSON with the same content and reaches no terminal raw.

    Parameters
    ----------
    d : dict
        A record of :func:`describe`, in plain JSON types (:func:`verify.registry.jsonable`).

    Returns
    -------
    str
        The JSON document, indented by 2.
    """
    text = json.dumps(d, indent=2, ensure_ascii=False)
    return contained.escape_controls(text, keep="\n", json=True)
