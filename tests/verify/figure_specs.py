"""The figure specifications of every claim's quick check (seed 0), recorded in a data file for the figure tests.

Running the whole quick ledger takes minutes, too long for a test; the figure checks instead render the recorded
specifications (:meth:`verify.registry.Figure.to_dict`, plain JSON), and a second test re-runs a sample of claims to
show the record is still what the current code draws. Re-record after changing a figure::

    PYTHONPATH=. python -m tests.verify.figure_specs          # writes tests/verify/data/quick_figures.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from verify import registry
from verify.registry import Figure

DATA = Path(__file__).resolve().parent / "data" / "quick_figures.json"
BUDGET, SEED = "quick", 0


def figures_of(cid: str) -> list[dict]:
    """The figure specifications (each :meth:`Figure.to_dict`) of claim ``cid``'s check at the quick budget, seed 0.

    Parameters
    ----------
    cid : str
        A registered claim id.

    Returns
    -------
    list of dict
        One JSON-ready dict per figure the check draws, in its order.
    """
    registry.load_all()
    return [f.to_dict() for f in registry.REGISTRY[cid].check(BUDGET, SEED).plots]


def load() -> dict[str, list[Figure]]:
    """The recorded figures: claim id -> its figures (rebuilt with :meth:`Figure.from_dict`).

    Returns
    -------
    dict
        Every claim id of the record, mapped to its (possibly empty) list of figures.
    """
    doc = json.loads(DATA.read_text())
    return {cid: [Figure.from_dict(f) for f in figs] for cid, figs in doc["claims"].items()}


def record(ids=None, path: Path = DATA) -> Path:
    """Run the quick check of every claim (or of ``ids``) and write their figure specifications to ``path``.

    Parameters
    ----------
    ids : iterable of str, optional
        Claims to re-record (the others keep their recorded figures); default every registered claim.
    path : Path
        The data file.

    Returns
    -------
    Path
        ``path``.
    """
    all_ids = sorted(registry.load_all())
    unknown = sorted(set(ids or ()) - set(all_ids))
    if unknown:
        raise KeyError(f"no such claim: {', '.join(unknown)}")
    doc = json.loads(path.read_text()) if ids is not None and path.exists() else {"claims": {}}
    for cid in (all_ids if ids is None else list(ids)):
        print(cid, file=sys.stderr, flush=True)
        doc["claims"][cid] = figures_of(cid)
    doc = {"budget": BUDGET, "seed": SEED, "claims": {c: doc["claims"][c] for c in sorted(doc["claims"])}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=None, separators=(",", ":"), ensure_ascii=False) + "\n")
    return path


if __name__ == "__main__":
    print(record(sys.argv[1:] or None))
