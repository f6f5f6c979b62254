"""Reading a ``results.json`` back: the schema checked in one place, one line naming the file when it is wrong.

``dpverify show``, ``dpverify compare`` and ``dpverify verify`` (which keeps the earlier results of the claims
it does not rerun) read result sets through :func:`load_results`.  A file that is truncated, not JSON, or not
of the shape :meth:`verify.registry.Result.to_dict` writes (a missing key, a wrong type, a list where an object
belongs, a NaN or an overflowing number, an id that is not a string) raises :class:`BadResults`, whose message
is one line: the file and what is wrong with it.  The command line turns it into exit status 2.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from . import contained
from .findings import Finding
from .registry import VERDICTS, Result

#: the keys every entry of ``results`` has, and the types each may take
_ROW_TYPES: dict[str, tuple] = {
    "id": (str,), "verdict": (str,), "figures": (dict,), "evidence": (str,), "counterexample": (dict, type(None)),
    "seed": (int,), "budget": (str,), "seconds": (int, float), "plots": (list,),
}
#: keys an entry may lack (files of older versions), and their types
_OPTIONAL_TYPES: dict[str, tuple] = {"control": (list,), "code": (str,), "finding": (dict, type(None)),
                                     "summary": (str,), "points": (list,),
                                     "cpu_seconds": (int, float, type(None))}
#: the types a cell of a point may take (a point is one flat row of a table)
_CELL_TYPES = (str, int, float, bool, type(None))
_META_TYPES: dict[str, tuple] = {"seed": (int,), "budget": (str,), "started": (str,), "version": (str,),
                                 "seconds": (int, float, type(None)), "ids": (list,)}
_TYPE_WORDS = {str: "a string", dict: "an object", list: "a list", int: "an integer", float: "a number",
               type(None): "null"}


class BadResults(ValueError):
    """A results.json that cannot be used; the message is one line naming the file and the fault."""


def _got(v: Any) -> str:
    text = repr(v) if not isinstance(v, (dict, list)) else f"{type(v).__name__} of {len(v)}"
    return contained.escape_controls(text if len(text) <= 40 else text[:37] + "...")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    f = float(text)
    if not math.isfinite(f):
        raise ValueError(f"the number {text[:20]} overflows")
    return f


def _type_fault(where: str, v: Any, types: tuple) -> str | None:
    if isinstance(v, bool) and bool not in types:  # JSON true/false are not numbers here
        ok = False
    else:
        ok = isinstance(v, types)
    if ok:
        return None
    words = " or ".join(dict.fromkeys(_TYPE_WORDS.get(t, t.__name__) for t in types))
    return f"{where} must be {words} (got {_got(v)})"


def _row_fault(i: int, row: Any) -> str | None:
    where = f"results[{i}]"
    if not isinstance(row, dict):
        return f"{where} must be an object (got {_got(row)})"
    missing = [k for k in _ROW_TYPES if k not in row]
    if missing:
        return f"{where} lacks {', '.join(missing)}"
    for k, types in (*_ROW_TYPES.items(), *((k, t) for k, t in _OPTIONAL_TYPES.items() if k in row)):
        fault = _type_fault(f"{where}.{k}", row[k], types)
        if fault:
            return fault
    if not row["id"].strip():
        return f"{where}.id must not be empty"
    if row["verdict"] not in VERDICTS:
        return f"{where}.verdict must be one of {', '.join(VERDICTS)} (got {_got(row['verdict'])})"
    if row["seconds"] < 0:
        return f"{where}.seconds must be at least 0 (got {_got(row['seconds'])})"
    for j, p in enumerate(row["plots"]):
        if not isinstance(p, str):
            return f"{where}.plots[{j}] must be a string (got {_got(p)})"
    for j, c in enumerate(row.get("control", [])):
        if not isinstance(c, dict) or not isinstance(c.get("control", {}), dict):
            return f"{where}.control[{j}] must be an object with an object 'control' (got {_got(c)})"
    for j, p in enumerate(row.get("points", [])):
        if not isinstance(p, dict):
            return f"{where}.points[{j}] must be an object (got {_got(p)})"
        for k, v in p.items():
            if not isinstance(v, _CELL_TYPES):
                return (f"{where}.points[{j}].{contained.escape_controls(k)[:40]} must be a string, a number, "
                        f"true/false or null (got {_got(v)})")
    if row.get("finding") is not None:
        if row["verdict"] != "violated":
            return f"{where}.finding belongs to a violated result (the verdict is {_got(row['verdict'])})"
        try:
            Finding.from_dict(row["finding"])
        except KeyError as exc:
            return f"{where}.finding lacks {exc.args[0]}"
        except (TypeError, ValueError, AttributeError) as exc:
            return f"{where}.finding is not a finding ({' '.join(str(exc).split())[:120]})"
    return None


def parse_results(text: str, source) -> tuple[dict, list[Result]]:
    """The meta and results of a results.json's text; :class:`BadResults` naming ``source`` when it is wrong.

    Parameters
    ----------
    text : str
        The file's text.
    source : str or path
        The file, for the message.

    Returns
    -------
    meta : dict
        The file's ``meta`` ({} when it has none).
    results : list of Result
        Its results, in file order.

    Raises
    ------
    BadResults
        When the text is not JSON (truncated, NaN or Infinity, a number too large), or not a result set.
    """
    def bad(what: str) -> BadResults:
        return BadResults(f"{source}: not a dpverify results.json ({contained.escape_controls(what)})")

    try:
        doc = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except RecursionError:
        raise bad("nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, NaN/Infinity, overflowing or over-long numbers
        raise bad(f"not JSON: {' '.join(str(exc).split())[:120]}") from None
    if not isinstance(doc, dict):
        raise bad(f"the top level must be an object with 'results' (got {_got(doc)})")
    if "results" not in doc:
        raise bad("it has no 'results'")
    rows, meta = doc["results"], doc.get("meta", {})
    if not isinstance(rows, list):
        raise bad(f"'results' must be a list (got {_got(rows)})")
    if not isinstance(meta, dict):
        raise bad(f"'meta' must be an object (got {_got(meta)})")
    for k, types in _META_TYPES.items():
        fault = _type_fault(f"meta.{k}", meta[k], types) if k in meta else None
        if fault:
            raise bad(fault)
    for i, row in enumerate(rows):
        fault = _row_fault(i, row)
        if fault:
            raise bad(fault)
    return meta, [Result.from_dict(r) for r in rows]


def load_results(path, *, in_dir=None, missing_ok: bool = False) -> tuple[dict, list[Result]] | None:
    """Read and check a results.json (:func:`parse_results`).

    Parameters
    ----------
    path : str or path
        The file.
    in_dir : str or path, optional
        The output directory ``path`` is in: then it must be a plain file there, not a symbolic link
        (:func:`verify.contained.refusal`).
    missing_ok : bool, optional
        Return None when the file does not exist (else that is a :class:`BadResults`).

    Returns
    -------
    tuple of (dict, list of Result) or None
        The meta and the results; None only for a missing file with ``missing_ok``.

    Raises
    ------
    BadResults
        When the file cannot be read, is not UTF-8, not JSON, or not a result set; one line naming it.
    """
    path = Path(path)
    if missing_ok and not os.path.lexists(path):
        return None
    if in_dir is not None:
        why = contained.refusal(in_dir, os.path.relpath(path, in_dir), kind="file")
        if why is not None:
            raise BadResults(f"{path}: not a dpverify results.json (it {why})")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise BadResults(f"{path}: not a dpverify results.json (not UTF-8 text)") from None
    except OSError as exc:
        raise BadResults(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    return parse_results(text, path)
