"""Compare result sets (seeds, budgets, code versions): which verdicts move, and which contradict.

Two verdicts of one claim *contradict* when one set says ``holds`` and another ``violated``: the
decision rules promise that neither the seed nor the budget can do that (quick may be
``inconclusive`` where full decides).  ``dpverify compare A B ...`` prints the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .registry import VERDICTS
from .report import RESULTS_JSON, control_label
from .result_files import BadResults, load_results


@dataclass(frozen=True)
class ResultSet:
    label: str  # e.g. "quick s0"
    path: Path
    verdicts: dict  # claim id -> verdict
    labels: dict  # claim id -> control label


def load(path: str | Path) -> ResultSet:
    """A result set from a ``dpverify verify`` output directory or its results.json.

    Parameters
    ----------
    path : str or Path
        An output directory (its results.json is read) or a results.json file.

    Returns
    -------
    ResultSet
        Labelled "<budget> s<seed>" from the file's meta ("?" where absent), with each claim's verdict and
        control label.

    Raises
    ------
    ValueError
        When the file cannot be read or is not a result set (:func:`verify.result_files.load_results`; one
        line naming the file and the fault).
    """

    p = Path(path)
    f = p / RESULTS_JSON if p.is_dir() else p
    try:
        meta, results = load_results(f, in_dir=p if p.is_dir() else None)
    except BadResults as exc:
        raise ValueError(str(exc)) from None
    label = f"{meta.get('budget', '?')} s{meta.get('seed', '?')}"
    return ResultSet(label, f, {r.id: str(r.verdict) for r in results},
                     {r.id: control_label(r) for r in results})


def contradicts(verdicts: Sequence[str]) -> bool:
    """holds in one set and violated in another.

    Parameters
    ----------
    verdicts : sequence of str
        One claim's verdicts across sets.

    Returns
    -------
    bool
        True when both "holds" and "violated" occur.
    """
    vs = set(verdicts)
    return "holds" in vs and "violated" in vs


def table(sets: Sequence[ResultSet]) -> list[dict]:
    """One row per claim present in any set: its verdict in each (None where absent), moved, contradiction.

    Parameters
    ----------
    sets : sequence of ResultSet

    Returns
    -------
    list of dict
        ``id``, ``verdicts`` (one per set), ``moved`` (more than one distinct verdict) and ``contradiction``
        (:func:`contradicts`), in order of first appearance.
    """
    ids: list[str] = []
    for s in sets:
        ids += [i for i in s.verdicts if i not in ids]
    rows = []
    for cid in ids:
        vs = [s.verdicts.get(cid) for s in sets]
        present = [v for v in vs if v is not None]
        rows.append({"id": cid, "verdicts": vs, "moved": len(set(present)) > 1, "contradiction": contradicts(present)})
    return rows


def counts(s: ResultSet) -> dict:
    """How many claims of a set have each verdict.

    Parameters
    ----------
    s : ResultSet

    Returns
    -------
    dict of str to int
        Verdict -> count, for all three verdicts.
    """
    return {v: sum(1 for x in s.verdicts.values() if x == v) for v in VERDICTS}


def coverage(sets: Sequence[ResultSet]) -> dict:
    """Which claims the sets share: how many each has, how many are compared, how many each lacks.

    Parameters
    ----------
    sets : sequence of ResultSet

    Returns
    -------
    dict
        ``claims`` (the number of claims of each set), ``total`` (claims present in any set), ``compared``
        (present in every set: the claims whose verdicts are compared) and ``absent`` (per set, the claims of
        the other sets it lacks).
    """
    every: dict[str, None] = {}
    for s in sets:
        every.update(dict.fromkeys(s.verdicts))
    shared = [cid for cid in every if all(cid in s.verdicts for s in sets)]
    return {"claims": [len(s.verdicts) for s in sets], "total": len(every), "compared": len(shared),
            "absent": [sum(1 for cid in every if cid not in s.verdicts) for s in sets]}


def coverage_line(sets: Sequence[ResultSet]) -> str:
    """:func:`coverage` in words, e.g. "[0] has 40 claims, [1] 35; 33 compared (in every set); absent: ...".

    Parameters
    ----------
    sets : sequence of ResultSet

    Returns
    -------
    str
        One line: the count of every set and, when the claim sets differ, how many were compared and how many
        are absent from each (their verdict shows as "-").
    """
    cov = coverage(sets)
    if all(a == 0 for a in cov["absent"]):
        return f"the same {cov['compared']} claims in every set: all compared"
    has = ", ".join(f"[{i}] has {n}" for i, n in enumerate(cov["claims"]))
    absent = ", ".join(f"{n} from [{i}]" for i, n in enumerate(cov["absent"]))
    return (f"the claim sets differ: {has} claims; {cov['compared']} of {cov['total']} compared (present in every "
            f"set); absent (shown as '-'): {absent}")


def format_table(sets: Sequence[ResultSet], rows: Sequence[dict], only_moved: bool = False) -> str:
    """The comparison as text: the sets' labels, one line per claim, each set's counts, the totals.

    Parameters
    ----------
    sets : sequence of ResultSet
        The sets compared (columns [0], [1], ...).
    rows : sequence of dict
        :func:`table` of ``sets``.
    only_moved : bool, optional
        Show only the claims whose verdict moved.

    Returns
    -------
    str
        The labels, the table, each set's verdict counts, :func:`coverage_line`, and the totals.
    """
    labels = [f"[{i}] {s.label}" for i, s in enumerate(sets)]
    idw = max([len("id")] + [len(r["id"]) for r in rows])
    cw = max(len("inconclusive"), *(len(f"[{i}]") for i in range(len(sets))))
    head = f"{'id':<{idw}}  " + "  ".join(f"{f'[{i}]':<{cw}}" for i in range(len(sets))) + "  note"
    out = ["  ".join(labels), head, "-" * len(head)]
    for r in rows:
        if only_moved and not r["moved"]:
            continue
        note = "CONTRADICTION (holds vs violated)" if r["contradiction"] else ("moved" if r["moved"] else "")
        out.append(f"{r['id']:<{idw}}  " + "  ".join(f"{(v or '-'):<{cw}}" for v in r["verdicts"]) + f"  {note}")
    for i, s in enumerate(sets):
        c = counts(s)
        out.append(f"[{i}] {s.label}: " + ", ".join(f"{k} {v}" for k, v in c.items()) + f"  ({s.path})")
    n_moved = sum(r["moved"] for r in rows)
    n_contra = sum(r["contradiction"] for r in rows)
    out.append(coverage_line(sets))
    out.append(f"{len(rows)} claims: {n_moved} moved, {n_contra} contradictions")
    return "\n".join(out)
