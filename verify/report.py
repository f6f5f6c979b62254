"""Reports: ``results.json``, ``report.md``, ``report.html`` and the terminal verdict table.

Reports only read :class:`verify.registry.Result` records (and the claims, for
their statements).  Every file is written atomically -- to a temporary file in the
same directory, then ``os.replace`` -- so an interrupted run leaves either the
previous complete file or the new complete one, never a half-written file under
the final name.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
import math
import os
import shutil
import sys
import textwrap
from pathlib import Path
from typing import IO, TYPE_CHECKING, Iterable, Mapping, Sequence

from . import __version__, contained, findings
from .atomic import write_atomic  # noqa: F401  (re-exported)
from .ledger import format_claims  # noqa: F401  (re-exported; it needs no numerical library)
from .registry import PAPERS, VERDICTS, Claim, Result, jsonable
from .runner import code_fingerprint

if TYPE_CHECKING:
    from .mutants import Tally

RESULTS_JSON = "results.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"

VERDICT_COLOURS = {"holds": "#1a7f37", "violated": "#cf222e", "inconclusive": "#b26a00"}
_ANSI = {"holds": "\033[32m", "violated": "\033[31m", "inconclusive": "\033[33m"}

#: one line for the terminal and the reports: what each verdict means
LEGEND = ("holds: the check could have failed and did not (statistical parts at 95% one-sided, margins fixed "
          "in advance); violated: a counterexample, or a test at 5% family-wise over the ledger; inconclusive: "
          "neither, with what would decide it")


# --------------------------------------------------------------------------------------
# how a verdict is worded, with its error control
# --------------------------------------------------------------------------------------
def control_label(r: Result) -> str:
    """A short qualifier of the verdict: its error control ("family-wise 5%", "95%, margin 0.1", "exact").

    Parameters
    ----------
    r : Result
        A result (its ``control`` entries are :meth:`verify.decide.Decision.to_dict` records).

    Returns
    -------
    str
        "check failed", "exact" (no statistical decision), "family-wise 5%", "95%[, margin m]",
        "no leak, audit tight", "needs --budget full", "needs more than full", "undecided", or "" for an
        inconclusive result without decisions.
    """
    if r.evidence.startswith("check failed:"):
        return "check failed"
    ctrl = [c for c in (r.control or []) if isinstance(c, Mapping)]
    if not ctrl:
        return "exact" if r.verdict != "inconclusive" else ""
    if r.verdict == "violated":
        return "family-wise 5%"
    if r.verdict == "holds":
        margins = sorted({c.get("control", {}).get("margin") for c in ctrl} - {None})
        m = f", margin {'/'.join(_fmt_num(x) for x in margins)}" if margins else ""
        if all(c.get("control", {}).get("holds_level") is None for c in ctrl):
            return "no leak, audit tight"
        return f"95%{m}"
    first = next((c for c in ctrl if c.get("verdict") == "inconclusive"), None)
    if first is not None and "--budget full" in str(first.get("reason", "")):
        return "needs --budget full"
    if first is not None and "beyond the full budget" in str(first.get("reason", "")):
        return "needs more than full"
    return "undecided"


def verdict_phrase(r: Result) -> str:
    """The verdict with its control, e.g. "violated (family-wise 5%)", "holds (95%, margin 0.1)".

    Parameters
    ----------
    r : Result
        A result (its ``control`` entries are :meth:`verify.decide.Decision.to_dict` records).

    Returns
    -------
    str
        The verdict, followed by :func:`control_label` in parentheses when that is not empty.
    """
    label = control_label(r)
    return f"{r.verdict} ({label})" if label else str(r.verdict)


def control_lines(r: Result) -> list[str]:
    """One line per statistical decision: verdict, reason, test, level, family, margin.

    Parameters
    ----------
    r : Result
        A result (its ``control`` entries are :meth:`verify.decide.Decision.to_dict` records).

    Returns
    -------
    list of str
        One line per decision record (entries that are not mappings are skipped).
    """
    out = []
    for c in r.control or []:
        if not isinstance(c, Mapping):
            continue
        k = c.get("control", {})
        margin = "" if k.get("margin") in (None, "nan") else f"; margin {_fmt_num(k.get('margin'))}"
        held = ("" if k.get("holds_level") is None else
                f"; holds at {_fmt_num(k.get('holds_level'))} one-sided")
        out.append(f"{c.get('verdict')}: {c.get('reason')} — test: {k.get('test')}; violated at one-sided level "
                   f"{_fmt_num(k.get('alpha'))} ({k.get('family')}){held}{margin}")
    return out


# --------------------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------------------
def build_meta(results: Sequence[Result], *, budget: str | None = None, seed: int | None = None,
               started: str | None = None, seconds: float | None = None) -> dict:
    """The ``meta`` block of results.json; budget/seed default to the results' own.

    Parameters
    ----------
    results : sequence of Result
        The run's results.
    budget : str or None, optional
        The run's budget (default: the first result's).
    seed : int or None, optional
        The run's seed (default: the first result's).
    started : str or None, optional
        ISO start time (default: now).
    seconds : float or None, optional
        Wall time (default: the sum of the results' seconds).

    Returns
    -------
    dict
        ``budget``, ``seed``, ``version``, ``started`` and ``seconds`` (rounded to milliseconds).
    """
    if budget is None and results:
        budget = results[0].budget
    if seed is None and results:
        seed = results[0].seed
    if seconds is None:
        seconds = sum(r.seconds for r in results)
    return {
        "budget": budget,
        "seed": seed,
        "version": __version__,
        "started": started or now_iso(),
        "seconds": round(float(seconds), 3),
    }


def now_iso() -> str:
    """The current UTC time, to the second.

    Returns
    -------
    str
        ISO 8601 with offset, e.g. "2026-01-31T12:00:00+00:00".
    """
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def results_document(results: Sequence[Result], meta: Mapping) -> dict:
    """The results.json document.

    Parameters
    ----------
    results : sequence of Result
        The results, in report order.
    meta : mapping
        The ``meta`` block (:func:`build_meta`).

    Returns
    -------
    dict
        ``results`` (each :meth:`Result.to_dict`) and ``meta``.
    """
    return {"results": [r.to_dict() for r in results], "meta": dict(meta)}


def write_reports(results: Sequence[Result], claims: Iterable[Claim] | Mapping[str, Claim],
                  out_dir: str | os.PathLike, *, budget: str | None = None, seed: int | None = None,
                  started: str | None = None, seconds: float | None = None,
                  checked: Sequence[str] | None = None,
                  mutants: Mapping[str, Tally] | None = None) -> dict[str, Path]:
    """Write results.json, report.md and report.html into ``out_dir``; return their paths.

    Plot paths in the results are relative to ``out_dir`` (where the engine rendered
    them); the Markdown links them, the HTML embeds them.  ``mutants`` (claim id →
    :class:`verify.mutants.Tally`) adds each claim's "caught k of m" from a mutation run.
    Everything is rendered before anything is written; each file is written atomically.

    Parameters
    ----------
    results : sequence of Result
        The results, in report order.
    claims : iterable of Claim or mapping of str to Claim
        The claims (for their statements, kinds, theory and notes).
    out_dir : str or path
        The directory written to.
    budget, seed, started, seconds : optional
        The ``meta`` entries (see :func:`build_meta`).
    checked : sequence of str or None, optional
        The ids this run checked (recorded as ``meta["ids"]``; the others were kept from earlier runs).
    mutants : mapping of str to Tally, optional
        Claim id -> its mutation record (:class:`verify.mutants.Tally`).

    Returns
    -------
    dict of str to Path
        "json", "md" and "html" -> the file written.
    """
    mutants = dict(mutants or {})
    out = Path(out_dir)
    by_id = _claims_by_id(claims)
    meta = build_meta(results, budget=budget, seed=seed, started=started, seconds=seconds)
    if checked is not None:
        meta["ids"] = list(checked)  # the claims this run checked (the others were kept from earlier runs)
    # Render everything first, so that a failure while rendering writes nothing at all.
    texts = {
        "json": (RESULTS_JSON, json.dumps(results_document(results, meta), indent=2) + "\n"),
        "md": (REPORT_MD, render_markdown(results, by_id, meta, mutants)),
        "html": (REPORT_HTML, render_html(results, by_id, meta, out, mutants)),
    }
    return {k: write_atomic(out / name, text) for k, (name, text) in texts.items()}


def merge_previous(results: Sequence[Result], out_dir: str | os.PathLike, staged_dir: str | os.PathLike,
                   known_ids: Iterable[str]) -> list[Result]:
    """This run's results, then the earlier results in ``out_dir/results.json`` of the claims this run did not
    check (still registered), with their figures copied into the staged set: a subset rerun keeps the rest.

    Each kept result carries its own seed, budget and code fingerprint; :func:`is_stale` tells whether the code
    has changed since.  Returns the list in ledger order.

    Parameters
    ----------
    results : sequence of Result
        This run's results.
    out_dir : str or path
        The output directory holding the earlier results.json and figures.
    staged_dir : str or path
        The staged result set the kept figures are copied into.
    known_ids : iterable of str
        The registered claim ids, in ledger order; earlier results of other ids are dropped.

    Returns
    -------
    list of Result
        This run's and the kept results, in the order of ``known_ids``; only this run's when there is no
        earlier results.json.  A kept result keeps only the plots whose files exist, are plain files inside
        ``out_dir`` and are named as the tool names figures (:mod:`verify.contained`; others are ignored with a
        warning).

    Raises
    ------
    verify.result_files.BadResults
        When ``out_dir/results.json`` exists but is not a result set (:func:`verify.result_files.load_results`).
    """
    import shutil as _sh

    from .result_files import load_results

    out, staged = Path(out_dir), Path(staged_dir)
    loaded = load_results(out / RESULTS_JSON, in_dir=out, missing_ok=True)
    if loaded is None:
        return list(results)
    now = {r.id for r in results}
    known = set(known_ids)
    kept = []
    for r in loaded[1]:
        if r.id in now or r.id not in known:
            continue
        plots = []
        for p in r.plots:
            # a name read from a file in DIR: of the figures' shape, a plain file inside DIR (no link followed)
            src = contained.inside(out, p, what="figure", source=out / RESULTS_JSON, shape=contained.FIGURE_NAME,
                                   kind="file")
            if src is not None:
                dst = staged / p
                dst.parent.mkdir(parents=True, exist_ok=True)
                _sh.copy2(src, dst, follow_symlinks=False)
                plots.append(p)
        r.plots = plots
        kept.append(r)
    order = {cid: i for i, cid in enumerate(known_ids)}
    return sorted(list(results) + kept, key=lambda r: order.get(r.id, len(order)))


def is_stale(r: Result) -> bool:
    """The result was produced by other code than this (its code fingerprint differs).

    Parameters
    ----------
    r : Result

    Returns
    -------
    bool
        True when ``r`` records a fingerprint and it differs from :func:`verify.runner.code_fingerprint`.
    """

    return bool(r.code) and r.code != code_fingerprint()


def provenance(r: Result, meta: Mapping) -> str:
    """'' for a result of this run; else where it comes from (and whether the code changed since).

    Parameters
    ----------
    r : Result
        A result in the report.
    meta : mapping
        The report's ``meta`` (its seed, budget and ``ids`` checked).

    Returns
    -------
    str
        "" or "kept from an earlier run (seed s, budget b)", with "; STALE: ..." when the code changed.
    """
    this = (r.seed == meta.get("seed") and r.budget == meta.get("budget")
            and (not meta.get("ids") or r.id in meta.get("ids", ())))
    if this:
        return ""
    text = f"kept from an earlier run (seed {r.seed}, budget {r.budget})"
    return text + ("; STALE: the code has changed since" if is_stale(r) else "")


def _claims_by_id(claims) -> dict[str, Claim]:
    if isinstance(claims, Mapping):
        return dict(claims)
    return {c.id: c for c in claims}


def _fmt_num(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return str(v)
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f) or math.isinf(f):
        return str(f)
    return f"{f:.6g}"


def _counts(results: Sequence[Result]) -> str:
    n = {v: 0 for v in VERDICTS}
    for r in results:
        n[r.verdict] = n.get(r.verdict, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in n.items())


# ---- Markdown -------------------------------------------------------------------------
def _md_cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render_markdown(results: Sequence[Result], claims: Mapping[str, Claim], meta: Mapping,
                    mutants: Mapping[str, Tally] | None = None) -> str:
    """The Markdown report: a header, the summary table, then one section per claim.

    Parameters
    ----------
    results : sequence of Result
        The results, in report order.
    claims : mapping of str to Claim
        Claim id -> claim (a result without its claim is shown without statement).
    meta : mapping
        The ``meta`` block (:func:`build_meta`).
    mutants : mapping of str to Tally, optional
        Claim id -> its mutation record (:class:`verify.mutants.Tally`).

    Returns
    -------
    str
        The Markdown text; plots are linked by their paths relative to the output directory.
    """
    mutants = mutants or {}
    lines = [
        "# dpverify report",
        "",
        f"Budget `{meta.get('budget')}`, seed {meta.get('seed')}, dpverify {meta.get('version')}, "
        f"started {meta.get('started')}, {_fmt_num(meta.get('seconds'))} s.  "
        f"{len(results)} claims: {_counts(results)}.",
        "",
        f"_{LEGEND}._",
        "",
        findings.errata_markdown(findings.rows(results, claims)),
        "## Summary",
        "",
    ]
    ran = mutants_ran(results, mutants)
    lines += ["| id | verdict | mutants | evidence | seconds |", "|---|---|---|---|---:|"] if ran else \
        ["| id | verdict | evidence | seconds |", "|---|---|---|---:|"]
    for r in results:
        mcell = f"| {_mutants_cell(r, mutants)} " if ran else ""
        lines.append(f"| [`{r.id}`](#{_anchor(r.id)}) | **{_md_cell(verdict_phrase(r))}** "
                     f"{mcell}| {_md_cell(r.headline)} | {r.seconds:.2f} |")
    for r in results:
        c = claims.get(r.id)
        lines += ["", f'<a id="{_anchor(r.id)}"></a>', "", f"## `{r.id}` — {r.verdict}", ""]
        if c is not None:
            lines += [f"> {' '.join(c.statement.split())}", "", f"Kind: {c.kind}; paper: `{c.paper}`."]
            if c.theory:
                lines[-1] += " Theory: " + ", ".join(f"`{t}`" for t in c.theory) + "."
            if c.notes:
                lines += ["", f"Notes: {c.notes}"]
            lines.append("")
        kept = provenance(r, meta)
        lines += [f"**Verdict.** {verdict_phrase(r)}" + (f" — _{kept}_" if kept else ""), "",
                  f"**Evidence.** {' '.join(r.headline.split())}", ""]
        if r.points:
            lines += points_markdown(r.points) + [""]
        if r.summary:
            lines += ["<details><summary>evidence in one paragraph</summary>", "",
                      html.escape(" ".join(r.evidence.split()), quote=False), "", "</details>", ""]
        ctl = control_lines(r)
        if ctl:
            lines += ["**Decisions.**", ""] + [f"- {_md_cell(x)}" for x in ctl] + [""]
        lines += [f"**Mutants.** {_mutants_sentence(r, mutants)}", ""]
        lines += [f"Seed {r.seed}, budget `{r.budget}`, {r.seconds:.2f} s.", ""]
        if r.figures:
            lines += ["| figure | value |", "|---|---:|"]
            lines += [f"| {_md_cell(k)} | {_fmt_num(v)} |" for k, v in r.figures.items()]
            lines.append("")
        if r.counterexample is not None:
            lines += ["**Counterexample.**", "", "```json",
                      json.dumps(r.to_dict()["counterexample"], indent=2), "```", ""]
        for p in r.plots:
            lines += [f"![{Path(p).stem}]({Path(p).as_posix()})", ""]
    # text from result files (evidence, figure names, ids kept from an earlier run): no control characters
    return contained.escape_controls("\n".join(lines).rstrip() + "\n", keep="\n")


def points_columns(points: Sequence[Mapping]) -> list[str]:
    """The columns of a points table: every key of the rows, in order of first appearance.

    Parameters
    ----------
    points : sequence of mapping
        A result's points (:attr:`verify.registry.Result.points`).

    Returns
    -------
    list of str
    """
    return list(dict.fromkeys(str(k) for p in points if isinstance(p, Mapping) for k in p))


def _cell(v) -> str:
    """A cell of a points table: numbers to 6 significant digits, "" for a missing or null value."""
    return "" if v is None else (str(v) if isinstance(v, str) else _fmt_num(v))


def _point_rows(points: Sequence[Mapping]) -> tuple[list[str], list[list[str]]]:
    cols = points_columns(points)
    return cols, [[_cell(p.get(c)) for c in cols] for p in points if isinstance(p, Mapping)]


def points_markdown(points: Sequence[Mapping]) -> list[str]:
    """A result's points as the lines of a Markdown table (numbers right-aligned).

    Parameters
    ----------
    points : sequence of mapping
        A result's points (:attr:`verify.registry.Result.points`).

    Returns
    -------
    list of str
        The header, the alignment row and one line per point; [] when there are none.
    """
    cols, rows = _point_rows(points)
    if not cols:
        return []
    numeric = [all(p.get(c) is None or (isinstance(p.get(c), (int, float)) and not isinstance(p.get(c), bool))
                   for p in points if isinstance(p, Mapping)) for c in cols]
    out = ["| " + " | ".join(_md_cell(c) for c in cols) + " |",
           "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    out += ["| " + " | ".join(_md_cell(x) for x in row) + " |" for row in rows]
    return out


def points_html(points: Sequence[Mapping]) -> str:
    """A result's points as an HTML table (escaped text; numeric cells right-aligned).

    Parameters
    ----------
    points : sequence of mapping
        A result's points (:attr:`verify.registry.Result.points`).

    Returns
    -------
    str
        ``<table class="points">`` with a header row and one row per point, in a box that scrolls sideways when the
        table is wider than the page (a phone); "" when there are none.
    """
    e = html.escape
    cols, _ = _point_rows(points)
    if not cols:
        return ""
    body = []
    for p in points:
        if not isinstance(p, Mapping):
            continue
        cells = []
        for c in cols:
            v = p.get(c)
            num = isinstance(v, (int, float)) and not isinstance(v, bool)
            cells.append(f'<td class="num">{e(_cell(v))}</td>' if num else f"<td>{e(_cell(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f"<th>{e(c)}</th>" for c in cols)
    return (f'<div class="points-wrap"><table class="points"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def points_text(points: Sequence[Mapping], indent: str = "  ") -> list[str]:
    """A result's points as an aligned plain-text table for the terminal.

    Parameters
    ----------
    points : sequence of mapping
        A result's points (:attr:`verify.registry.Result.points`).
    indent : str, optional
        Put before every line.

    Returns
    -------
    list of str
        The header, a rule and one line per point (columns separated by two spaces); [] when there are none.
    """
    cols, rows = _point_rows(points)
    if not cols:
        return []
    rows = [[" ".join(x.split()) for x in row] for row in rows]
    w = [max([len(c)] + [len(row[i]) for row in rows]) for i, c in enumerate(cols)]
    line = lambda xs: indent + "  ".join(f"{x:<{w[i]}}" for i, x in enumerate(xs)).rstrip()  # noqa: E731
    return [line(cols), indent + "  ".join("-" * n for n in w)] + [line(row) for row in rows]


def mutants_ran(results: Sequence[Result], mutants: Mapping[str, Tally] | None) -> bool:
    """Whether the run has a mutation record of any of ``results`` (the summary tables then show a mutants column).

    Parameters
    ----------
    results : sequence of Result
        The results shown.
    mutants : mapping of str to Tally or None
        Claim id -> its mutation record.

    Returns
    -------
    bool
    """
    return bool(mutants) and any(r.id in mutants for r in results)


def _powerless(r: Result, t: Tally | None) -> bool:
    """A 'holds' none of whose declared mutants was caught: the check has not shown that it can fail."""
    return t is not None and t.total > 0 and t.caught == 0 and str(r.verdict) == "holds"


POWERLESS_NOTE = "holds, but no declared mutant was caught: this check has not shown that it can fail"


def _mutants_cell(r: Result, mutants: Mapping[str, Tally]) -> str:
    t = mutants.get(r.id)
    if t is None:
        return "not run"
    return t.label() + (" — no power shown" if _powerless(r, t) else "")


def _mutants_sentence(r: Result, mutants: Mapping[str, Tally]) -> str:
    t = mutants.get(r.id)
    if t is None:
        return f"not run (`dpverify mutants {r.id}`)"
    return t.sentence() + (f". {POWERLESS_NOTE[0].upper()}{POWERLESS_NOTE[1:]}." if _powerless(r, t) else ".")


def _anchor(cid: str) -> str:
    return "claim-" + "".join(ch if ch.isalnum() else "-" for ch in cid)


# ---- HTML -----------------------------------------------------------------------------
_CSS = """
*, *::before, *::after { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 78rem;
       margin: 1.5rem auto; padding: 0 1rem; color: #1f2328; line-height: 1.45; overflow-wrap: anywhere; }
h1 { margin-bottom: .2rem; } .meta { color: #59636e; margin-top: .2rem; }
h2 { border-bottom: 2px solid #d1d9e0; padding-bottom: .2rem; margin-top: 2.2rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; width: 100%; table-layout: fixed; }
th, td { border: 1px solid #d1d9e0; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.summary col.id { width: 15rem; } table.summary col.verdict { width: 9.5rem; } table.summary col.m { width: 6.5rem; } table.summary col.s { width: 4.5rem; }
.verdict { font-weight: 600; padding: .05rem .45rem; border-radius: .3rem; color: #fff; white-space: nowrap; }
.verdict.holds { background: #1a7f37; } .verdict.violated { background: #cf222e; }
.verdict.inconclusive { background: #b26a00; } small.ctl { color: #59636e; }
section.claim { border-top: 1px solid #d1d9e0; margin-top: 1.4rem; padding-top: .3rem; }
section.claim h3 { margin: .4rem 0; }
blockquote { margin: .5rem 0; padding: .2rem .8rem; border-left: .25rem solid #d1d9e0; color: #3d444d; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; max-width: 100%; font-size: 85%; }
img { max-width: 100%; height: auto; display: block; margin: .6rem 0; }
code { font-size: 92%; } details { margin: .4rem 0; } summary { cursor: pointer; color: #0969da; }
nav.toc { columns: 2 22rem; font-size: 92%; } nav.toc ul { margin: .2rem 0 .6rem; padding-left: 1.2rem; }
nav.toc h4 { margin: .4rem 0 0; break-after: avoid; }
table.findings { font-size: 92%; } table.findings th:first-child { width: 14rem; }
table.findings th:nth-child(2) { width: 6.5rem; }
h2, h3, section.claim { scroll-margin-top: 5rem; }
div.points-wrap { overflow-x: auto; max-width: 100%; margin: .6rem 0 1rem; }
table.points { table-layout: auto; width: auto; min-width: 100%; margin: 0; font-size: 92%; }
table.points th, table.points td { overflow-wrap: normal; min-width: 4.5rem; }
.filters { position: sticky; top: 0; background: #fff; padding: .4rem 0; border-bottom: 1px solid #d1d9e0;
           z-index: 1; display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center; }
.filters label { white-space: nowrap; } a.top { font-size: 85%; float: right; }
[hidden] { display: none !important; }
@media (max-width: 800px) {
  table.findings, table.findings tbody, table.findings tr, table.findings td { display: block; width: auto; }
  table.findings thead { display: none; } table.findings tr { border: 1px solid #d1d9e0; margin-bottom: .6rem; }
  table.findings td { border: none; } table.findings td::before { content: attr(data-label); display: block;
  font-weight: 600; color: #59636e; } h2, h3, section.claim { scroll-margin-top: 8rem; } }
@media (max-width: 800px) { table.summary col.id { width: 9rem; } table.summary col.verdict { width: 6.5rem; }
  table.summary col.s { width: 3rem; } body { padding: 0 .5rem; } }
@media (max-width: 600px) {
  table.summary, table.summary tbody, table.summary tr, table.summary td { display: block; width: auto; }
  table.summary colgroup, table.summary thead { display: none; }
  table.summary tr { border: 1px solid #d1d9e0; margin-bottom: .5rem; padding: .2rem .5rem; }
  table.summary td { border: none; padding: .1rem 0; text-align: left; }
  table.summary td.muts::before { content: "mutants: "; color: #59636e; }
  table.summary td.num::before { content: "seconds: "; color: #59636e; } }
"""  # noqa: E501

_JS = """
(function () {
  function apply() {
    var on = {};
    document.querySelectorAll('input.vf').forEach(function (b) { on[b.value] = b.checked; });
    var paper = document.getElementById('pf').value;
    document.querySelectorAll('[data-verdict]').forEach(function (el) {
      var show = on[el.dataset.verdict] && (paper === '' || el.dataset.paper === paper);
      el.hidden = !show;
    });
    var shown = document.querySelectorAll('tr[data-verdict]:not([hidden])').length;
    document.getElementById('count').textContent = shown + ' shown';
  }
  document.querySelectorAll('input.vf').forEach(function (b) { b.addEventListener('change', apply); });
  document.getElementById('pf').addEventListener('change', apply);
  apply();
})();
"""

AUDIT_SECTION = "Audits of the suite's own kernels"
CLAIMS_SECTION = "Claims about the papers"


def is_audit(cid: str) -> bool:
    """Privacy audits of the suite's own kernels (``<paper>.audit.<mechanism>``), not findings about a paper.

    Parameters
    ----------
    cid : str
        A claim id.

    Returns
    -------
    bool
        True when the id contains ".audit.".
    """
    return ".audit." in cid


def _verdict_html(v: str) -> str:
    cls = v if v in VERDICT_COLOURS else "inconclusive"
    return f'<span class="verdict {cls}">{html.escape(v)}</span>'


def _embed_png(out: Path, name: str) -> str | None:
    """The figure ``out/name`` as a data URI; None when it is missing or not a plain file inside ``out``."""
    if contained.refusal(out, name, kind="file") is not None:
        return None
    try:
        data = (out / name).read_bytes()
    except OSError:
        return None
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _groups(results: Sequence[Result]) -> list[tuple[str, list[tuple[str, list[Result]]]]]:
    """[(section, [(paper, results)])]: findings first, then audits; papers in ledger order."""
    out = []
    for section, pick in ((CLAIMS_SECTION, lambda r: not is_audit(r.id)), (AUDIT_SECTION, lambda r: is_audit(r.id))):
        by_paper: dict[str, list[Result]] = {}
        for r in results:
            if pick(r):
                by_paper.setdefault(r.id.split(".", 1)[0], []).append(r)
        if by_paper:
            order = sorted(by_paper, key=lambda p: (PAPERS.index(p) if p in PAPERS else len(PAPERS), p))
            out.append((section, [(p, by_paper[p]) for p in order]))
    return out


def _counterexample_html(ce) -> str:
    e = html.escape
    if isinstance(ce, Mapping) and ce and all(not isinstance(v, (Mapping, list, tuple)) for v in ce.values()):
        rows = "".join(f"<tr><td>{e(str(k))}</td><td>{e(_fmt_num(v))}</td></tr>" for k, v in ce.items())
        return f"<table><tbody>{rows}</tbody></table>"
    text = json.dumps(jsonable(ce), indent=2)
    n = text.count("\n") + 1
    return f"<details><summary>counterexample as JSON ({n} lines)</summary><pre>{e(text)}</pre></details>"


def render_html(results: Sequence[Result], claims: Mapping[str, Claim], meta: Mapping,
                out_dir: str | os.PathLike, mutants: Mapping[str, Tally] | None = None) -> str:
    """A self-contained page: CSS and a small script inline, every PNG embedded as a base64 data URI.

    Findings about the papers and audits of the suite's kernels are separate sections, each grouped by paper,
    after a contents list and a short summary table; filters by verdict and paper run in the page (no network).
    Each claim shows its verdict, statement and figure first, then the evidence, decisions and counterexample.

    Parameters
    ----------
    results : sequence of Result
        The results.
    claims : mapping of str to Claim
        Claim id -> claim.
    meta : mapping
        The ``meta`` block (:func:`build_meta`).
    out_dir : str or path
        The directory the results' plot paths are relative to (their PNGs are embedded).
    mutants : mapping of str to Tally, optional
        Claim id -> its mutation record (:class:`verify.mutants.Tally`).

    Returns
    -------
    str
        The HTML page.
    """
    out = Path(out_dir)
    mutants = mutants or {}
    e = html.escape
    groups = _groups(results)
    papers = [p for _, ps in groups for p, _ in ps]
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>dpverify report</title>", f"<style>{_CSS}</style>", "</head>", '<body id="top">',
        "<h1>dpverify report</h1>",
        f'<p class="meta">Budget <code>{e(str(meta.get("budget")))}</code>, seed {e(str(meta.get("seed")))}, '
        f'dpverify {e(str(meta.get("version")))}, started {e(str(meta.get("started")))}, '
        f'{e(_fmt_num(meta.get("seconds")))} s. {len(results)} claims: {e(_counts(results))}.</p>',
        f'<p class="meta">{e(LEGEND)}.</p>',
        '<div class="filters"><strong>Show</strong>',
    ]
    for v in VERDICTS:
        parts.append(f'<label><input type="checkbox" class="vf" value="{v}" checked> {_verdict_html(v)}</label>')
    parts.append('<label>paper <select id="pf"><option value="">all</option>'
                 + "".join(f'<option value="{e(p)}">{e(p)}</option>' for p in dict.fromkeys(papers))
                 + '</select></label><span id="count" class="meta"></span></div>')
    parts.append(_findings_html(results, claims))
    # contents
    parts.append('<h2 id="contents">Contents</h2><nav class="toc">')
    for section, ps in groups:
        parts.append(f"<h4>{e(section)}</h4>")
        for paper, rs in ps:
            items = "".join(f'<li data-verdict="{e(str(r.verdict))}" data-paper="{e(paper)}"><a href="#{e(r.id)}">'
                            f"<code>{e(r.id)}</code></a> {_verdict_html(str(r.verdict))}</li>" for r in rs)
            parts.append(f"<div><strong>{e(paper)}</strong><ul>{items}</ul></div>")
    parts.append("</nav>")
    # summary
    ran = mutants_ran(results, mutants)
    parts += ['<h2 id="summary">Summary</h2>', '<table class="summary"><colgroup><col class="id"><col class="verdict">'
              + ('<col class="m">' if ran else "") + '<col><col class="s"></colgroup>',
              "<thead><tr><th>claim</th><th>verdict</th>" + ("<th>mutants</th>" if ran else "")
              + "<th>evidence (first words)</th><th>s</th></tr></thead><tbody>"]
    for r in results:
        parts.append(
            f'<tr data-verdict="{e(str(r.verdict))}" data-paper="{e(r.id.split(".", 1)[0])}">'
            f'<td><a href="#{e(r.id)}"><code>{e(r.id)}</code></a></td>'
            f'<td>{_verdict_html(str(r.verdict))}<br><small class="ctl">{e(control_label(r))}</small>'
            f'{_kept_html(r, meta, short=True)}</td>'
            + (f'<td class="muts">{e(_mutants_cell(r, mutants))}</td>' if ran else "")
            + f"<td>{e(_shorten(' '.join(r.headline.split()), 160))}</td>"
            f'<td class="num">{r.seconds:.1f}</td></tr>')
    parts += ["</tbody></table>"]
    # the claims
    for section, ps in groups:
        slug = "audits" if section == AUDIT_SECTION else "claims"
        parts.append(f'<h2 id="{slug}">{e(section)}</h2>')
        for paper, rs in ps:
            for r in rs:
                parts.append(_claim_html(r, claims.get(r.id), paper, out, meta, mutants))
    parts += [f"<script>{_JS}</script>", "</body>", "</html>"]
    return contained.escape_controls("\n".join(parts) + "\n", keep="\n")  # as for the Markdown


def _findings_html(results: Sequence[Result], claims: Mapping[str, Claim]) -> str:
    """The errata sheet: every violated statement's finding, per paper, in-regime first (escaped text)."""
    e = html.escape
    found = findings.rows(results, claims)
    parts = ['<h2 id="findings">Findings</h2>']
    if not found:
        parts.append('<p class="meta">No statement was found violated in this result set.</p>')
        return "\n".join(parts)
    parts.append('<p class="meta">Every violated statement: its scope (computed by its check), where it fails, '
                 "its size at the paper's own setting, the smallest counterexample, and the repaired statement "
                 "with its verdict from the same run.</p>")
    by_paper: dict[str, list[dict]] = {}
    for x in found:
        by_paper.setdefault(x["paper"], []).append(x)
    for paper, items in by_paper.items():
        per = findings.counts(items)[paper]
        parts.append(f'<h3 id="findings-{e(paper)}">{e(paper)} <small class="meta">'
                     f'{e(", ".join(f"{n} {k}" for k, n in per.items()))}</small></h3>')
        parts.append('<table class="findings"><thead><tr><th>claim</th><th>scope</th><th>where it fails</th>'
                     "<th>at the paper's setting</th><th>repair</th></tr></thead><tbody>")
        for x in items:
            scope = x["scope"] or "no finding recorded"
            if x["repair"] is not None:
                repair = f'{e(x["repair"])} — {_verdict_html(str(x["repair_verdict"]))}'
            elif x["scope"] is not None:
                repair = f'none known: {e(str(x["no_repair_reason"]))}'
            else:
                repair = ""
            parts.append(
                f'<tr data-paper="{e(paper)}" data-scope="{e(scope)}">'
                f'<td data-label="claim"><a href="#{e(x["claim"])}">'
                f'<code>{e(x["claim"])}</code></a></td><td data-label="scope"><strong>{e(scope)}</strong></td>'
                f'<td data-label="where it fails">{e(str(x["region"] or ""))}</td>'
                f'<td data-label="at the paper\'s setting">{e(str(x["at_paper_setting_text"] or ""))}</td>'
                f'<td data-label="repair">{repair}</td></tr>')
        parts.append("</tbody></table>")
    return "\n".join(parts)


def _kept_html(r: Result, meta: Mapping, short: bool = False) -> str:
    text = provenance(r, meta)
    if not text:
        return ""
    if short:
        return '<br><small class="ctl">' + ("earlier run, stale" if is_stale(r) else "earlier run") + "</small>"
    return f'<p class="meta"><em>{html.escape(text)}</em></p>'


def _claim_html(r: Result, c: Claim | None, paper: str, out: Path, meta: Mapping | None = None,
                mutants: Mapping[str, Tally] | None = None) -> str:
    e = html.escape
    parts = [f'<section class="claim" id="{e(r.id)}" data-verdict="{e(str(r.verdict))}" data-paper="{e(paper)}">',
             '<a class="top" href="#contents">contents ↑</a>',
             f"<h3><code>{e(r.id)}</code> {_verdict_html(str(r.verdict))}</h3>",
             f"<p><strong>{e(verdict_phrase(r))}</strong></p>", _kept_html(r, meta or {})]
    if c is not None:
        parts.append(f"<blockquote>{e(c.statement)}</blockquote>")
    for p in r.plots:
        uri = _embed_png(out, p)
        if uri is None:
            parts.append(f"<p><em>plot {e(p)} is missing</em></p>")
        else:
            parts.append(f'<img src="{uri}" alt="{e(Path(p).stem)}">')
    parts.append(f"<p><strong>Evidence.</strong> {e(r.headline)}</p>")
    if r.points:
        parts.append(points_html(r.points))
    if r.summary:
        parts.append(f"<details><summary>evidence in one paragraph</summary><p>{e(r.evidence)}</p></details>")
    ctl = control_lines(r)
    if ctl:
        parts += ["<p><strong>Decisions.</strong></p>", "<ul>"] + [f"<li>{e(x)}</li>" for x in ctl] + ["</ul>"]
    if r.counterexample is not None:
        parts += ["<p><strong>Counterexample.</strong></p>", _counterexample_html(r.counterexample)]
    parts.append(f"<p><strong>Mutants.</strong> {e(_mutants_sentence(r, mutants or {}))}</p>")
    if c is not None:
        info = f"Kind: {e(c.kind)}; paper: <code>{e(c.paper)}</code>."
        if c.theory:
            info += " Theory: " + ", ".join(f"<code>{e(t)}</code>" for t in c.theory) + "."
        parts.append(f"<p>{info} Seed {r.seed}, budget <code>{e(r.budget)}</code>, {r.seconds:.2f} s.</p>")
        if c.notes:
            parts.append(f"<details><summary>notes</summary><p>{e(c.notes)}</p></details>")
    if r.figures:
        rows = "".join(f'<tr><td>{e(str(k))}</td><td class="num">{e(_fmt_num(v))}</td></tr>'
                       for k, v in r.figures.items())
        parts.append(f"<details><summary>numbers ({len(r.figures)})</summary><table><tbody>{rows}</tbody></table>"
                     "</details>")
    parts.append("</section>")
    return "\n".join(parts)


# --------------------------------------------------------------------------------------
# terminal table
# --------------------------------------------------------------------------------------
def format_table(results: Sequence[Result], width: int | None = None, colour: bool = False,
                 mutants: Mapping[str, Tally] | None = None) -> str:
    """A compact verdict table (id, verdict, control, [mutants,] seconds, evidence cut to the terminal width).

    The mutants column ("k/m" caught) appears when ``mutants`` has a record of any of the claims.

    Parameters
    ----------
    results : sequence of Result
        The results, one row each.
    width : int or None, optional
        The line width (default: the terminal's, else 100).
    colour : bool, optional
        Colour the verdicts with ANSI codes.
    mutants : mapping of str to Tally, optional
        Claim id -> its mutation record (:class:`verify.mutants.Tally`).

    Returns
    -------
    str
        The table, the verdict counts, the mutants note (when shown) and the legend.
    """
    mutants = {k: v for k, v in (mutants or {}).items() if any(r.id == k for r in results)}
    if width is None:
        width = shutil.get_terminal_size((100, 24)).columns
    ids = {r.id: contained.escape_controls(r.id) for r in results}  # text from claims and files: no raw controls
    idw = max([len("id")] + [len(i) for i in ids.values()])
    vw = max(len(v) for v in VERDICTS)
    cw = max([len("control")] + [len(control_label(r)) for r in results])

    def mcol(r: Result) -> str:
        t = mutants.get(r.id)
        return "" if t is None else f"{t.caught}/{t.total}" + ("!" if _powerless(r, t) else "")

    mw = max([len("mutants")] + [len(mcol(r)) for r in results]) if mutants else 0

    def msep(text: str) -> str:
        return f"{text:>{mw}}  " if mutants else ""

    head = f"{'id':<{idw}}  {'verdict':<{vw}}  {'control':<{cw}}  {msep('mutants')}{'seconds':>7}  evidence"
    lines = [head, "-" * min(width, max(len(head), 40))]
    room = max(20, width - idw - vw - cw - (mw + 2 if mutants else 0) - 7 - 8)
    for r in results:
        ev = _shorten(contained.escape_controls(" ".join(r.headline.split())), room)
        v = f"{r.verdict:<{vw}}"
        if colour and r.verdict in _ANSI:
            v = f"{_ANSI[r.verdict]}{v}\033[0m"
        lines.append(f"{ids[r.id]:<{idw}}  {v}  {control_label(r):<{cw}}  {msep(mcol(r))}{r.seconds:>7.2f}  {ev}")
    lines.append(f"{len(results)} claims: {_counts(results)}")
    if mutants:
        b = sorted({t.budget for t in mutants.values()})
        lines.append(f"mutants: caught/declared at {'/'.join(b)} budget, from the latest `dpverify mutants` run "
                     "(`dpverify show ID` lists them)"
                     + ("; '!': " + POWERLESS_NOTE if any(_powerless(r, mutants.get(r.id)) for r in results) else ""))
    lines += textwrap.wrap(LEGEND, max(40, width))
    return "\n".join(lines)


def _shorten(text: str, room: int) -> str:
    """``text`` cut at a word boundary to at most ``room`` characters (an ellipsis marks the cut)."""
    if len(text) <= room:
        return text
    cut = text[: room - 1]
    sp = cut.rfind(" ")
    if sp > room // 2:
        cut = cut[:sp]
    return cut.rstrip(" ,;:") + "…"


def print_table(results: Sequence[Result], file: IO[str] | None = None,
                mutants: Mapping[str, Tally] | None = None) -> None:
    """Print :func:`format_table` to ``file`` (stdout by default), coloured on a terminal.

    Parameters
    ----------
    results : sequence of Result
        The results.
    file : text stream or None, optional
        Where to print (default stdout); colour unless NO_COLOR is set, and the terminal's width, only when it
        is a terminal (else 120 columns).
    mutants : mapping of str to Tally, optional
        Claim id -> its mutation record (:class:`verify.mutants.Tally`).
    """
    file = file if file is not None else sys.stdout
    colour = _isatty(file) and "NO_COLOR" not in os.environ
    width = shutil.get_terminal_size((100, 24)).columns if _isatty(file) else 120
    print(format_table(results, width=width, colour=colour, mutants=mutants), file=file)


def _isatty(f) -> bool:
    try:
        return bool(f.isatty())
    except (AttributeError, ValueError):
        return False
