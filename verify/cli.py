"""The ``dpverify`` command (also ``python -m verify``).

::

    dpverify claims [--paper KEY] [--json]
    dpverify verify [IDS...] [--paper KEY] [--budget quick|full] [--seed S] [--out DIR] [--json]
                    [--workers N] [--threads] [--scheduler ADDRESS] [--wait]
    dpverify run ALGORITHM [--problem PROBLEM] [--epsilon E] [--delta D] [--trials N] [--seed S]
                 [--steps T] [--batch-size B] [--alpha A] [--out DIR] [--json] [--wait] [--load F]
    dpverify bench [--out DIR] [--json] [--wait] [--cli]
    dpverify audit FILE_OR_MODULE:FUNCTION --epsilon E --delta D [--trials N] [--seed S]
                   [--method gdp|clopper_pearson] [--timeout SECONDS] [--out DIR] [--json]
    dpverify mutants [IDS...] [--paper KEY] [--budget B] [--seed S] [--out DIR] [--json] [--load F]
    dpverify show ID [--out DIR] [--json] [--load F]
    dpverify compare DIR DIR... [--moved] [--json]

Exit status: 0 when the command completed (a ``violated`` verdict is a finding,
not a failure); 1 when it could not run (a check crashed, a cluster could not be
reached or was lost, the disk filled up); 2 on bad input (including an output
directory that cannot be written or that another dpverify command holds).  Bad
input is reported as one line on stderr, ``dpverify: error: <parameter>: <what is
accepted> (got X)``, before anything is written.  SIGTERM is handled like SIGINT
(exit 143 and 130): the previous result set stays as it was.

Start-up: ``--help``, ``claims``, ``show``/``findings`` of an unknown id or missing result set and the refusal
of bad arguments import no numerical library (NumPy, Numba, SymPy, SciPy, Dask, matplotlib, dp-accounting): the
module imports only light modules, each command checks its arguments before it imports what its work needs, and
:mod:`verify.ledger` lists the built-in claims and algorithms from a generated index.

Outputs (:mod:`verify.outputs`): ``--out`` is checked before any work, locked for
the whole command, and the result set is written to a staging directory inside it
and swapped in only when complete.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import dpvalidate as V
from dpvalidate import InvalidParameter

# only light modules here: `dpverify --help`, `claims` and the refusal of bad input load no numerical library
# (verify.ledger stands in for the claim packs); each command imports what its work needs
from . import __version__, atomic, ledger, registry
from .contained import escape_controls
from .registry import Figure, Panel, Series, UnknownName, jsonable

PROG = "dpverify"
DEFAULT_VERIFY_OUT = "dpverify-results"
DEFAULT_RUN_OUT = "dpverify-run"
DEFAULT_BENCH_OUT = "dpverify-bench"
DEFAULT_MUTANTS_OUT = "dpverify-mutants"
MAX_WORKERS = 256  # --workers: threads of the embedded cluster (far above any machine's useful count)
VERIFY_SET = ("figures", "report.html", "report.md", "results.json")  # results.json last in: the set's index
RUN_SET = ("loss_curve.png", "run.json")
BENCH_SET = ("bench.json",)
MUTANTS_SET = ("mutants.json",)


# --------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------
class BadInput(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


class CouldNotRun(Exception):
    """The command could not run (not the user's input): one line, exit status 1."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like SIGINT's KeyboardInterrupt (so the same cleanup runs)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but its errors are one line and exit status 2 through :func:`main`."""

    def error(self, message: str):  # type: ignore[override]
        raise BadInput(message)


def _got(raw: Any) -> str:
    s = str(raw)
    return repr(s) if s == "" or s != s.strip() else s


def _param(fn: Callable, name: str, raw: Any, *args, **kwargs):
    """Validate a command-line value with a ``dpvalidate`` check, naming the option."""
    try:
        return fn(name, raw, *args, **kwargs)
    except InvalidParameter as exc:
        raise BadInput(f"{name}: must be {exc.accepted} (got {_got(raw)})") from None


def _invalid_message(exc: InvalidParameter) -> str:
    msg = str(exc)
    name = getattr(exc, "name", "")
    if name and msg.startswith(name + " "):
        return f"{name}: {msg[len(name) + 1:]}"
    return msg


# --------------------------------------------------------------------------------------
# the parser
# --------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The ``dpverify`` argument parser: one subcommand per ``cmd_*`` handler (``args.func``).

    Returns
    -------
    argparse.ArgumentParser
        The parser; errors in the command line end it with exit status 2.
    """
    p = _Parser(prog=PROG, description="Numerical verification of claims from papers on "
                "differentially private adaptive optimization.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    c = sub.add_parser("claims", help="list the claims ledger", description="List the claims ledger "
                       "(`dpverify show ID` explains one claim).")
    c.add_argument("ids", nargs="*", metavar="ID", help="only these claims (default: all, or all of --paper)")
    c.add_argument("--paper", metavar="KEY",
                   help="only this paper's claims (" + ", ".join(registry.PAPERS) + ", or a loaded key)")
    c.add_argument("--json", action="store_true", help="print JSON to stdout")
    _load_option(c)
    c.set_defaults(func=cmd_claims)

    v = sub.add_parser("verify", help="check claims and write a report",
                       description="Check claims (all by default) and write results.json, report.md, "
                       "report.html and figures/ into the output directory.")
    v.add_argument("ids", nargs="*", metavar="ID", help="claim ids (default: all, or all of --paper)")
    v.add_argument("--paper", metavar="KEY",
                   help="only this paper's claims (" + ", ".join(registry.PAPERS) + ", or a loaded key)")
    v.add_argument("--budget", default="quick", metavar="|".join(registry.BUDGETS),
                   help="quick (seconds per claim) or full (paper-scale); default quick")
    v.add_argument("--seed", default="0", metavar="S", help="base seed, an integer >= 0 (default 0)")
    v.add_argument("--out", default=DEFAULT_VERIFY_OUT, metavar="DIR",
                   help=f"output directory (default {DEFAULT_VERIFY_OUT})")
    v.add_argument("--json", action="store_true", help="print the results as JSON to stdout")
    v.add_argument("--workers", default=None, metavar="N",
                   help=f"claims checked at once, 1 to {MAX_WORKERS} (default: all cores); each in its own worker "
                   "process, or with --threads a thread of the embedded Dask cluster, which has N threads")
    v.add_argument("--threads", action="store_true",
                   help="check concurrent claims as threads of this process sharing one embedded Dask cluster, not "
                   "in worker processes (the default on Linux, which runs their Python parts in parallel too)")
    v.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="use an existing Dask cluster, e.g. tcp://host:8786 (implies --threads)")
    v.add_argument("--verdict", default=None, metavar="|".join(registry.VERDICTS),
                   help="print only the claims with this verdict in the table (the result set keeps them all)")
    v.add_argument("--mutants", default=None, metavar="FILE",
                   help="the mutants.json whose 'caught k of m' the table and report show (default: DIR/mutants.json, "
                   f"else {DEFAULT_MUTANTS_OUT}/mutants.json, when present)")
    _load_option(v)
    _wait_option(v)
    v.set_defaults(func=cmd_verify)

    r = sub.add_parser("run", help="run one algorithm on one stylized problem",
                       description="Run one algorithm on one stylized problem; write run.json and a "
                       "curve plot (loss_curve.png) of the algorithm's metric. Private algorithms get their noise "
                       "multiplier from (epsilon, delta) through dp-accounting (the PAGAN family: from its paper's "
                       "formula, with the accountant's epsilon beside it); options left out take the paper's values.",
                       epilog=_run_epilog(_algorithms()), formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("algorithm", metavar="ALGORITHM", help="one of the algorithms listed below")
    r.add_argument("--problem", default=None, metavar="PROBLEM",
                   help="a problem the algorithm runs on (listed below; default the paper's, listed first)")
    r.add_argument("--epsilon", default=None, metavar="E",
                   help="privacy epsilon > 0 (private algorithms only; default the paper's)")
    r.add_argument("--delta", default=None, metavar="D",
                   help="privacy delta in (0, 1) (private algorithms only; default the paper's)")
    r.add_argument("--trials", default="10", metavar="N",
                   help="independent runs, an integer >= 1 (default 10; a 95%% CI of the median needs >= 6)")
    r.add_argument("--seed", default="0", metavar="S", help="seed, an integer >= 0 (default 0)")
    r.add_argument("--steps", default=None, metavar="T", help="number of steps, an integer >= 1")
    r.add_argument("--batch-size", default=None, metavar="B",
                   help="batch size, an integer >= 1 (not for one-record or full-batch algorithms)")
    r.add_argument("--alpha", default=None, metavar="A", help="step size / learning rate > 0")
    r.add_argument("--out", default=DEFAULT_RUN_OUT, metavar="DIR",
                   help=f"output directory (default {DEFAULT_RUN_OUT})")
    r.add_argument("--json", action="store_true", help="print the run summary as JSON to stdout")
    _wait_option(r)
    _load_option(r)
    r.set_defaults(func=cmd_run)

    m = sub.add_parser("mutants", help="mutation analysis: does each check catch deliberate errors?",
                       description="Check claims under their mutants: deliberate errors in the theory they declare "
                       "(a constant 10x off either way, exponents off by a quarter) and declared kernel faults. A "
                       "mutant is caught when the verdict moves away from the claim's own, refuted when it becomes "
                       "violated. Writes mutants.json into the output directory; exit 0.")
    m.add_argument("ids", nargs="*", metavar="ID", help="claim ids (default: all, or all of --paper)")
    m.add_argument("--paper", metavar="KEY", help="only this paper's claims")
    m.add_argument("--budget", default="quick", metavar="|".join(registry.BUDGETS), help="quick or full")
    m.add_argument("--seed", default="0", metavar="S", help="base seed, an integer >= 0 (default 0)")
    m.add_argument("--out", default=DEFAULT_MUTANTS_OUT, metavar="DIR",
                   help=f"output directory (default {DEFAULT_MUTANTS_OUT})")
    m.add_argument("--workers", default=None, metavar="N",
                   help="claims mutated at once, each in its own worker process (default: all cores); with "
                   "--threads, the threads of the embedded Dask cluster that runs one claim at a time")
    m.add_argument("--threads", action="store_true",
                   help="one claim at a time in this process, its tasks on an embedded Dask cluster")
    m.add_argument("--json", action="store_true", help="print the mutants as JSON to stdout")
    _load_option(m)
    m.set_defaults(func=cmd_mutants)

    s = sub.add_parser("show", help="one claim explained: statement, theory, latest verdict, mutants",
                       description="One claim explained: its statement and notes, the closed forms of its theory "
                       "(pretty-printed), the latest verdict recorded in the output directory with its evidence, "
                       "decisions and counterexample, its figures, and the mutants caught.")
    s.add_argument("id", metavar="ID", help="a claim id (see `dpverify claims`)")
    s.add_argument("--out", default=DEFAULT_VERIFY_OUT, metavar="DIR",
                   help=f"the output directory of `dpverify verify` (default {DEFAULT_VERIFY_OUT})")
    s.add_argument("--json", action="store_true", help="print as JSON to stdout")
    _load_option(s)
    s.set_defaults(func=cmd_show)

    f = sub.add_parser("findings", help="the errata sheet: every violated statement, how wrong, where, the repair",
                       description="The findings of the latest result set, per paper: for every violated statement "
                       "its scope (in_regime, boundary, misprint, vacuous, computed by its check), where it fails, "
                       "the smallest counterexample, the failure's size at the paper's own setting, and the "
                       "repaired statement with its verdict from the same run. In-regime findings come first.")
    f.add_argument("--paper", metavar="KEY", help="only this paper's findings")
    f.add_argument("--out", default=DEFAULT_VERIFY_OUT, metavar="DIR",
                   help=f"the output directory of `dpverify verify` (default {DEFAULT_VERIFY_OUT})")
    f.add_argument("--json", action="store_true", help='print {"findings": [...], "counts": {...}} to stdout')
    f.add_argument("--markdown", action="store_true", help="print the errata sheet as Markdown (fit to send)")
    _load_option(f)
    f.set_defaults(func=cmd_findings)

    k = sub.add_parser("compare", help="compare result sets (seeds, budgets): verdicts that move or contradict",
                       description="Compare the verdicts of several `dpverify verify` outputs (directories or "
                       "results.json files). A contradiction is one claim that holds in one set and is violated in "
                       "another; the decision rules promise that neither the seed nor the budget causes one. Exit 0.")
    k.add_argument("sets", nargs="+", metavar="DIR", help="output directories (or results.json files)")
    k.add_argument("--moved", action="store_true", help="only the claims whose verdict differs between sets")
    k.add_argument("--json", action="store_true", help="print the comparison as JSON to stdout")
    k.set_defaults(func=cmd_compare)

    b = sub.add_parser("bench", help="benchmark the kernels against their NumPy references",
                       description="Benchmark the kernels against their NumPy references, and the start-up of the "
                       "light commands (--help, claims, the refusal of bad input): the CPU seconds of each in a "
                       "fresh process, beside its target.")
    b.add_argument("--out", default=DEFAULT_BENCH_OUT, metavar="DIR",
                   help=f"output directory (default {DEFAULT_BENCH_OUT})")
    b.add_argument("--json", action="store_true", help="print the benchmarks as JSON to stdout")
    b.add_argument("--cli", action="store_true",
                   help="only the start-up rows (seconds, not minutes); prints them and writes nothing into --out")
    b.add_argument("--ledger", action="store_true",
                   help="time the claims ledger instead (fresh task cache): wall, CPU, cores busy, the slowest claims")
    b.add_argument("ids", nargs="*", metavar="ID", help="with --ledger: only these claims (default: all)")
    b.add_argument("--paper", metavar="KEY", help="with --ledger: only this paper's claims")
    b.add_argument("--budget", default="quick", help="with --ledger: quick (default) or full")
    b.add_argument("--seed", default="0", metavar="S", help="with --ledger: the seed (default 0)")
    _wait_option(b)
    b.set_defaults(func=cmd_bench)
    _add_audit_parser(sub)
    return p


def _load_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--load", action="append", default=[], metavar="FILE_OR_MODULE",
                   help="load claims from a .py file or an importable module (repeatable); installed packages "
                   "register theirs through the entry-point group dpverify.claims")


def _load_user_claims(args) -> None:
    for spec in getattr(args, "load", None) or []:
        try:
            registry.load(spec)
        except registry.LoadError as exc:
            raise BadInput(str(exc)) from None
def _wait_option(p) -> None:
    p.add_argument("--wait", action="store_true",
                   help="if another dpverify command is writing into the same --out, wait for it to finish "
                   "(default: stop with exit status 2, naming it)")


def _on_sigterm(signum, frame):
    raise Terminated()


def main(argv: Sequence[str] | None = None, *, runner=None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status.

    ``runner``: a :class:`verify.runner.Runner` for ``verify`` to use instead of its own
    Dask cluster (tests inject a SerialRunner); the caller closes it.

    Bad input and unknown names are reported as one line with status 2; a command that could not run, 1;
    SIGINT 130 and SIGTERM 143 (a SIGTERM handler is installed while it runs, on the main thread).

    Parameters
    ----------
    argv : sequence of str or None, optional
        The arguments (without the program name).
    runner : verify.runner.Runner or None, optional
        See above.

    Returns
    -------
    int
        The exit status (0 on success; ``--help`` and ``--version`` give 0).
    """
    on_main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _on_sigterm) if on_main else None
    try:
        return _main(argv, runner)
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


def _main(argv, runner) -> int:
    try:
        parser = build_parser()  # imports the algorithms' table: a signal may land here too
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help / --version
            return int(exc.code or 0) if not isinstance(exc.code, str) else 2
        _load_user_claims(args)
        if args.func is cmd_verify:
            return cmd_verify(args, runner=runner)
        return int(args.func(args) or 0)
    except BadInput as exc:
        _error(str(exc))
        return 2
    except (InvalidParameter, UnknownName) as exc:
        _error(_invalid_message(exc) if isinstance(exc, InvalidParameter) else str(exc))
        return 2
    except CouldNotRun as exc:
        _error(str(exc))
        return 1
    except KeyboardInterrupt as exc:
        what, status = ("terminated (SIGTERM)", 143) if isinstance(exc, Terminated) else ("interrupted", 130)
        written = getattr(exc, "dpverify_committed", None)
        if written is not None:  # the signal came while the result set was being swapped in: the swap finished
            print(f"{PROG}: {what}: stopped after the new result set was written in {written} (the signal came "
                  "during its commit, which completed)", file=sys.stderr, flush=True)
        else:
            print(f"{PROG}: {what}: stopped; any previous result set is kept as it was, finished sweep tasks are "
                  "in the cache", file=sys.stderr, flush=True)
        return status


def _error(message: str) -> None:
    print(f"{PROG}: error: {escape_controls(' '.join(str(message).split()))}", file=sys.stderr)


def _human(args) -> Any:
    """Where human-readable output goes: stderr when stdout carries JSON."""
    return sys.stderr if getattr(args, "json", False) else sys.stdout


def _print_json(doc: Any) -> None:
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")
    sys.stdout.flush()


# --------------------------------------------------------------------------------------
# claims
# --------------------------------------------------------------------------------------
def _paper(raw: str | None) -> str | None:
    if raw is None:
        return None
    if ledger.claims() is None:  # the index stands in for the registry when it holds all there is (no other keys)
        registry.load_all()
    return _param(V.choice, "--paper", raw, registry.paper_keys())


def _registered() -> dict:
    """The registered claims by id: :mod:`verify.ledger`'s index of them when it stands in for the registry (no
    numerical library is imported), else the loaded registry."""
    entries = ledger.claims()
    return registry.load_all() if entries is None else {e.id: e for e in entries}


def _select(ids, paper) -> list:
    """:func:`verify.registry.select` over :func:`_registered`: the claims' records (the index's entries when it
    stands in for the registry); same order, refusals and messages."""
    return registry.select_in(_registered(), ids, paper)


def cmd_claims(args) -> int:
    """``dpverify claims``: list the ledger (as a table, or JSON with ``--json``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify claims``.

    Returns
    -------
    int
        The exit status: 0.

    Raises
    ------
    UnknownName
        (from the selection) For an unknown id (exit status 2, from :func:`main`).
    """
    claims = _select(args.ids, _paper(args.paper))
    if args.json:
        _print_json({"claims": [c.to_dict() for c in claims]})
    else:
        print(ledger.format_claims(claims))
    return 0


# --------------------------------------------------------------------------------------
# verify
# --------------------------------------------------------------------------------------
def cmd_verify(args, runner=None) -> int:
    """``dpverify verify``; ``runner`` lets tests inject a runner (e.g. SerialRunner).

    Checks the selected claims, merges the earlier results of the others, writes the result set into
    ``--out`` and prints the verdict table.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify verify``.

    Returns
    -------
    int
        The exit status: 0, or 1 when a check crashed (recorded as inconclusive).
    runner : verify.runner.Runner or None, optional
        Used instead of the Dask cluster (the caller closes it).

    Raises
    ------
    CouldNotRun
        When no claims are registered, or the Dask runner cannot start (exit status 1, from :func:`main`).
    BadInput
        When ``--paper`` has no registered claims, or an option is invalid (exit status 2).
    """
    budget = _param(V.choice, "--budget", args.budget, registry.BUDGETS)
    seed = _param(V.integer, "--seed", args.seed, 0)
    workers = None if args.workers is None else _param(V.integer, "--workers", args.workers, 1, MAX_WORKERS)
    scheduler = _scheduler(args.scheduler)
    only = None if args.verdict is None else _param(V.choice, "--verdict", args.verdict, registry.VERDICTS)
    paper = _paper(args.paper)
    claims = _select(args.ids, paper)
    if not claims:
        if paper is None:
            raise CouldNotRun("no claims are registered")
        with_claims = [k for k in registry.paper_keys() if any(c.paper == k for c in _registered().values())]
        raise BadInput(f"--paper: must be a paper with registered claims: {', '.join(with_claims) or '(none)'}"
                       f" (got {_got(paper)})")
    out = _out_dir(args.out)  # bad input is refused before the claim packs and the numerical stack load
    claims = registry.select(args.ids, paper)

    from . import engine, mutants, report  # lazy: dpverify's start-up loads only what the command needs
    from .result_files import load_results

    mutant_files = _mutants_files(args, out)
    human = _human(args)
    started = report.now_iso()
    t0 = time.perf_counter()
    with _result_set(out, VERIFY_SET, args.wait) as staged:
        # the earlier result set (kept for the claims not rerun) and the mutation records are checked before the
        # work: a malformed one ends the command with one line, not minutes later
        previous = _read_before_work(lambda: load_results(out / report.RESULTS_JSON, in_dir=out, missing_ok=True))
        tallies, _ = _read_before_work(lambda: mutants.read_tallies(mutant_files,
                                                                    in_dirs=getattr(args, "mutants", None) is None))
        try:
            results = engine.run_claims(claims, budget, seed, out, workers=workers, scheduler=scheduler,
                                        progress=True, runner=runner, plots_dir=staged.dir,
                                        processes=not args.threads,
                                        # the earlier run's times at this budget: the progress lines' time left
                                        recorded=engine.recorded_seconds(previous[1] if previous else (), budget))
        except engine.RunnerUnavailable as exc:
            raise CouldNotRun(str(exc)) from None
        seconds = time.perf_counter() - t0
        # a subset rerun keeps the other claims' earlier results (marked with their seed, budget, staleness)
        everything = [c.id for c in registry.select()]
        merged = report.merge_previous(results, out, staged.dir, everything)
        written = report.write_reports(merged, registry.REGISTRY, staged.dir, budget=budget, seed=seed,
                                       started=started, seconds=seconds, checked=[c.id for c in claims],
                                       mutants=tallies)
        staged.commit()
    paths = {k: out / p.name for k, p in written.items()}
    if args.json:
        _print_json({"results": [r.to_dict() for r in results]})
    shown = results if only is None else [r for r in results if r.verdict == only]
    report.print_table(shown, file=human, mutants=tallies)
    if only is not None:
        print(f"(--verdict {only}: {len(shown)} of {len(results)} claims shown)", file=human)
    if results.computed or results.reused:
        print(f"tasks: {results.computed} computed, {results.reused} reused from the cache "
              f"({out / engine.CACHE_DIR})", file=human)
    print(f"report: {paths['md']}  {paths['html']}  (data: {paths['json']})", file=human)
    if results.failed:
        print(f"{PROG}: could not run {len(results.failed)} claim(s): {', '.join(results.failed)} "
              "(recorded as inconclusive; tracebacks above)", file=sys.stderr)
        return 1
    return 0


def _read_before_work(read: Callable[[], Any]) -> Any:
    """``read()``; a malformed results.json or mutants.json it meets is bad input (one line naming the file)."""
    from .result_files import BadResults

    try:
        return read()
    except BadResults as exc:
        raise BadInput(f"--out: {exc}; move it away or choose another directory") from None
    except Exception as exc:
        # a BadMutants comes only from verify.mutants, imported by then: `findings` and `show` read without it
        mutants = sys.modules.get("verify.mutants")
        if mutants is None or not isinstance(exc, mutants.BadMutants):
            raise
        raise BadInput(f"{exc}; move it away or pass --mutants FILE") from None


def _mutants_files(args, out: Path) -> list[Path]:
    """Where ``verify`` looks for mutation records: --mutants FILE (must be readable), else the defaults."""
    from . import mutants  # lazy: dpverify's start-up loads only what the command needs

    given = getattr(args, "mutants", None)
    if given is not None:
        f = Path(given)
        try:
            doc = mutants.read_document(f)
        except mutants.BadMutants as exc:
            doc, why = None, f": {exc}"
        else:
            why = ""
        if doc is None:
            raise BadInput(f"--mutants: must be a mutants.json written by `{PROG} mutants` (got {_got(given)}{why})")
        return [f]
    return [out / mutants.MUTANTS_JSON, Path(DEFAULT_MUTANTS_OUT) / mutants.MUTANTS_JSON]


def cmd_mutants(args) -> int:
    """``dpverify mutants``: check the selected claims under their mutants, write mutants.json, print the table.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify mutants``.

    Returns
    -------
    int
        The exit status: 0.
    """
    budget = _param(V.choice, "--budget", args.budget, registry.BUDGETS)
    seed = _param(V.integer, "--seed", args.seed, 0)
    workers = None if args.workers is None else _param(V.integer, "--workers", args.workers, 1, MAX_WORKERS)
    paper = _paper(args.paper)
    _select(args.ids, paper)  # bad input is refused before the claim packs and the numerical stack load
    out = _out_dir(args.out)
    claims = registry.select(args.ids, paper)

    from . import engine, mutants, report  # lazy: dpverify's start-up loads only what the command needs
    from . import runner as _runner
    human = _human(args)
    t0 = time.perf_counter()
    def say(m) -> None:
        print(f"{'caught  ' if m.killed else 'equiv.  ' if m.equivalent else 'survived'} {m.claim}  {m.mutant}: "
              f"{m.original} -> {m.verdict}  ({m.seconds:.1f} s)", file=sys.stderr, flush=True)

    n_proc = min(len(claims), workers or os.cpu_count() or 1)
    with _result_set(out, MUTANTS_SET, False) as staged:
        earlier = _read_before_work(lambda: mutants.read_document(out / mutants.MUTANTS_JSON, in_dir=out))
        # no task cache: tasks computed under a mutant must never be stored under the true code's keys
        if not args.threads and n_proc > 1 and engine.can_fork():
            results = mutants.run_in_processes(claims, budget, seed, n_proc, progress=say)
        else:
            r = _runner.DaskRunner(cache_dir=None, workers=workers, progress=False)
            try:
                with _runner.using(r):
                    results = mutants.run(claims, budget, seed, progress=say)
            finally:
                r.close()
        seconds = time.perf_counter() - t0
        # a run of some claims keeps the other claims' earlier rows (each row says its budget and seed)
        rows = mutants.merged_rows(results, budget, seed, earlier)
        doc = mutants.rows_document(rows, {"budget": budget, "seed": seed, "seconds": round(seconds, 1),
                                           "version": __version__, "ids": [c.id for c in claims]})
        report.write_atomic(staged.dir / mutants.MUTANTS_JSON, json.dumps(doc, indent=2) + "\n")
        staged.commit()
    if args.json:
        _print_json(doc)
    print(mutants.format_table(results), file=human)
    print(f"{len(results)} mutant runs in {seconds:.0f} s; data: {out / 'mutants.json'}", file=human)
    return 0


def cmd_show(args) -> int:
    """``dpverify show ID``: one claim, its latest result and mutation record.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify show``.

    Returns
    -------
    int
        The exit status: 0.

    Raises
    ------
    BadInput
        When ID is not a registered claim (exit status 2, from :func:`main`).
    """
    reg = _registered()  # an unknown ID is refused before the numerical stack loads
    if args.id not in reg:
        raise BadInput(f"ID: must be a claim id (see `{PROG} claims`){ledger.suggest(args.id, reg)} "
                       f"(got {_got(args.id)})")
    from . import show  # lazy: dpverify's start-up loads only what the command needs

    d = _read_before_work(lambda: show.describe(args.id, Path(args.out),
                                                mutants_paths=[Path(DEFAULT_MUTANTS_OUT) / "mutants.json"]))
    if args.json:  # non-ASCII text as it is (a counterexample's "σ", not "\\u03c3"), controls still escaped
        print(show.format_json(jsonable(d)), flush=True)
    else:
        print(escape_controls(show.format_text(d), keep="\n"))  # text from result files: no control characters
    return 0


def cmd_findings(args) -> int:
    """``dpverify findings``: the errata sheet of the latest result set, per paper.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify findings``.

    Returns
    -------
    int
        The exit status: 0.

    Raises
    ------
    BadInput
        When ``--out`` holds no results.json, or a malformed one, or ``--paper`` is not a paper key (exit status
        2, from :func:`main`).
    """
    from . import findings  # lazy: dpverify's start-up loads only what the command needs
    from .result_files import load_results

    paper = _paper(args.paper)
    out = Path(args.out)
    got = _read_before_work(lambda: load_results(out / "results.json", in_dir=out, missing_ok=True))
    if got is None:
        raise BadInput(f"--out: must be the output directory of `{PROG} verify`, with a results.json "
                       f"(got {_got(str(out))}: none there)")
    _, results = got
    reg = _registered()  # the statements: the index's when it stands in for the registry
    found = findings.rows(results, reg, paper=paper)
    if args.json:
        _print_json(jsonable(findings.json_document(found)))
    elif args.markdown:
        print(escape_controls(findings.errata_markdown(found), keep="\n"))
    else:
        print(escape_controls(findings.errata_text(found), keep="\n"), end="")
    return 0


def cmd_compare(args) -> int:
    """``dpverify compare DIR...``: the verdicts of several result sets side by side.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify compare``.

    Returns
    -------
    int
        The exit status: 0.

    Raises
    ------
    BadInput
        When a DIR is not a dpverify output directory or results.json (exit status 2, from :func:`main`).
    """
    from . import compare  # lazy: dpverify's start-up loads only what the command needs

    sets = []
    for raw in args.sets:
        try:
            sets.append(compare.load(raw))
        except ValueError as exc:
            raise BadInput(f"DIR: must be a dpverify output directory or results.json ({exc})") from None
    rows = compare.table(sets)
    if args.json:
        _print_json({"sets": [{"label": s.label, "path": str(s.path), "counts": compare.counts(s)} for s in sets],
                     "coverage": compare.coverage(sets), "claims": rows})
    else:
        print(escape_controls(compare.format_table(sets, rows, only_moved=args.moved), keep="\n"))
    return 0


# --------------------------------------------------------------------------------------
# output directories, the scheduler address
# --------------------------------------------------------------------------------------
def _out_dir(raw) -> Path:
    """``--out`` checked (and created) before any work: :func:`verify.outputs.check_out`."""
    from . import outputs  # lazy: dpverify's start-up loads only what the command needs

    try:
        return outputs.check_out(raw)
    except outputs.BadOutput as exc:
        raise BadInput(str(exc)) from None


@contextlib.contextmanager
def _result_set(out: Path, names: Sequence[str], wait: bool):
    """Lock ``out``, stage a result set in it (yielded: write into ``.dir``, then ``.commit()``).

    A lost scheduler or a full disk ends the command with one line saying what was kept.
    """
    from . import outputs  # lazy: dpverify's start-up loads only what the command needs
    from .runner import RunFailure

    created: list[Path] = []
    staged = None
    try:
        try:
            created = outputs.make_out(out)
        except OSError as exc:
            raise BadInput(f"--out: must be a directory this process can create and write in "
                           f"(got {out}: {exc.strerror or exc})") from None
        with outputs.OutputLock(out, wait=wait), outputs.ResultSet(out, names) as staged:
            yield staged
    except KeyboardInterrupt as exc:  # SIGINT/SIGTERM: say whether the new set was committed before it took effect
        if staged is not None and staged.committed:
            exc.dpverify_committed = str(out)
        raise
    except outputs.BadOutput as exc:
        outputs.remove_created(created)
        raise BadInput(str(exc)) from None
    except (BadInput, InvalidParameter, UnknownName):
        outputs.remove_created(created)  # bad input found inside (e.g. by verify.runs.run): nothing left behind
        raise
    except RunFailure as exc:
        raise CouldNotRun(f"{exc}; no result set written, {outputs.previous_set_text(out)}; finished sweep "
                          "tasks are in the cache") from None
    except OSError as exc:
        if not outputs.is_disk_full(exc):
            raise
        raise CouldNotRun(f"{exc.strerror or 'disk full'} writing {outputs.public_name(exc.filename, out)}; no "
                          f"result set written, {outputs.previous_set_text(out)}") from None


def _interruptible(fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a daemon thread while this (main) thread waits: SIGINT and SIGTERM then stop the
    command within a fraction of a second even while a compiled kernel runs for minutes (the kernels release the
    GIL; Python handles a signal only between bytecodes of the main thread).  The thread is abandoned when the
    command stops; it writes nothing (the command writes its result set from the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the main thread
            box["error"] = exc

    t = threading.Thread(target=target, name="dpverify-work", daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.25)
    if "error" in box:
        raise box.pop("error")
    return box["value"]


def _scheduler(raw: str | None) -> str | None:
    """``--scheduler``: a Dask address (scheme://host:port, scheme tcp/tls/ws/wss/ucx/inproc; tcp by default)."""
    if raw is None:
        return None
    accepted = "a Dask scheduler address such as tcp://host:8786"
    s = str(raw).strip()
    try:
        from distributed.comm.addressing import parse_address, parse_host_port

        scheme, loc = parse_address(s)
        if scheme not in ("tcp", "tls", "ws", "wss", "ucx", "inproc"):
            raise ValueError(scheme)
        if scheme != "inproc":
            host, port = parse_host_port(loc)
            if not host or port is None or not 0 < int(port) < 65536:
                raise ValueError(loc)
    except (ValueError, TypeError):
        raise BadInput(f"--scheduler: must be {accepted} (got {_got(raw)})") from None
    return s


# --------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------
#: ``verify.runs`` parameter names -> the command line's
_RUN_OPTION = {"algorithm": "ALGORITHM", "problem": "--problem", "epsilon": "--epsilon", "delta": "--delta",
               "trials": "--trials", "seed": "--seed", "steps": "--steps", "batch_size": "--batch-size",
               "alpha": "--alpha"}


def _algorithms() -> list:
    """The algorithms ``dpverify run`` takes, in table order (each with ``name``, ``paper``, ``problems``,
    ``private``): :mod:`verify.ledger`'s index of them when it stands in for ``verify.runs.RUNNABLES`` (no
    numerical library is imported), else the table itself."""
    rows = ledger.algorithms()
    if rows is None:
        from . import runs

        rows = list(runs.RUNNABLES.values())
    return rows


def _run_epilog(algorithms: Sequence) -> str:
    """The algorithms of ``dpverify run``, per paper, with their problems (the paper's first)."""
    lines = ["algorithms (paper: ALGORITHM [problems, the paper's first]):"]
    by_paper: dict[str, list] = {}
    for r in algorithms:
        by_paper.setdefault(r.paper, []).append(r)
    for paper, rows in by_paper.items():
        lines.append(f"  {paper}:")
        for r in rows:
            lines.append(f"    {r.name:30s} {', '.join(r.problems)}{'' if r.private else '  (non-private)'}")
    return "\n".join(lines)


def cmd_run(args) -> int:
    """``dpverify run ALGORITHM``: run one algorithm on a problem, write run.json and the loss-curve plot.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify run``.

    Returns
    -------
    int
        The exit status: 0.

    Raises
    ------
    BadInput
        When an option is invalid for this algorithm, named as the command line spells it (exit status 2, from
        :func:`main`).
    """
    table = {r.name: r for r in _algorithms()}  # the options are checked before the numerical stack loads
    try:
        algorithm = _param(V.choice, "ALGORITHM", args.algorithm, tuple(table))
    except BadInput as exc:
        raise BadInput(f"{exc} — `{PROG} run --help` lists them by paper") from None
    problems = table[algorithm].problems
    problem = problems[0] if args.problem is None else _param(V.choice, "--problem", args.problem, problems)
    epsilon = None if args.epsilon is None else _param(V.positive, "--epsilon", args.epsilon)
    delta = None if args.delta is None else _param(V.open_unit, "--delta", args.delta)
    trials = _param(V.integer, "--trials", args.trials, 1)
    seed = _param(V.integer, "--seed", args.seed, 0)
    opts: dict[str, Any] = {}
    if args.steps is not None:
        opts["steps"] = _param(V.integer, "--steps", args.steps, 1)
    if args.batch_size is not None:
        opts["batch_size"] = _param(V.integer, "--batch-size", args.batch_size, 1)
    if args.alpha is not None:
        opts["alpha"] = _param(V.positive, "--alpha", args.alpha)

    out = _out_dir(args.out)

    import numpy as np

    from . import plots, report, runs  # lazy: dpverify's start-up loads only what the command needs

    with _result_set(out, RUN_SET, args.wait) as staged:
        started = report.now_iso()
        t0 = time.perf_counter()
        try:
            res = _interruptible(runs.run, algorithm, problem, epsilon=epsilon, delta=delta, trials=trials,
                                 seed=seed, **opts)
        except InvalidParameter as exc:  # e.g. --epsilon for a non-private algorithm, --batch-size above n
            name = ", ".join(_RUN_OPTION.get(n.strip(), n.strip()) for n in str(exc.name).split(","))
            msg = _invalid_message(exc)
            raise BadInput(name + msg[len(exc.name):] if msg.startswith(exc.name + ":") else msg) from None
        seconds = time.perf_counter() - t0

        steps = np.asarray(res.steps, dtype=float).ravel()
        summ = res.summary()
        med, lo, hi, ci = summ["median"], summ["lo"], summ["hi"], summ["final"]
        label = runs.METRICS[res.metric]
        eps_used = res.params.get("epsilon")

        title = f"{algorithm} on {problem}" + (f", ε = {eps_used:g}" if eps_used is not None else "")
        positive = bool(np.all(np.isfinite(med)) and np.all(med > 0))
        fig = Figure("loss_curve", title, [Panel(
            f"median {label} over {trials} trial{'s' if trials != 1 else ''} (95% CI band)", "step", label,
            [Series(f"{algorithm} median", steps, med, lo, hi)], "linear", "log" if positive else "linear",
        )])
        png = plots.render(fig, staged.dir / "loss_curve.png")
        doc = dict(res.to_dict(), plot=png.name,
                   meta={"version": __version__, "started": started, "seconds": round(seconds, 3)})
        report.write_atomic(staged.dir / "run.json", json.dumps(doc, indent=1) + "\n")
        staged.commit()
    path, png = out / "run.json", out / "loss_curve.png"
    if args.json:
        _print_json(doc)
    human = _human(args)
    band = (f"95% CI [{ci.lo:.6g}, {ci.hi:.6g}]" if np.isfinite(ci.lo) and np.isfinite(ci.hi)
            else "no finite 95% CI of the median with fewer than 6 trials")
    print(f"{title}: median final {label} {ci.estimate:.6g}, {band} "
          f"over {trials} trial{'s' if trials != 1 else ''} ({seconds:.2f} s)", file=human)
    if res.privacy is not None:
        pv = res.privacy
        acct = pv["accountant_epsilon"]
        print(f"privacy: noise multiplier {pv['noise_multiplier']:.6g} "
              f"({pv['calibration'].split(' ')[0]} calibration), "
              f"accountant ε {'not computed' if acct is None else f'{acct:.6g}'} at δ = {pv['delta']:g}", file=human)
    for note in res.notes:
        print(f"note: {note}", file=human)
    print(f"wrote {path} and {png}", file=human)
    return 0


# --------------------------------------------------------------------------------------
# bench
# --------------------------------------------------------------------------------------
def cmd_bench(args) -> int:
    """``dpverify bench``: run the kernel and start-up benchmarks, write their result set, print the tables.

    With ``--cli``, only the start-up rows (:mod:`verify.bench_cli`), printed and not written.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify bench``.

    Returns
    -------
    int
        The exit status: 0.

    Raises
    ------
    CouldNotRun
        When the benchmarks cannot be imported (exit status 1, from :func:`main`).
    """
    given = [(name, raw) for name, raw, default in (("ID", " ".join(args.ids), ""), ("--paper", args.paper, None),
                                                    ("--budget", args.budget, "quick"), ("--seed", args.seed, "0"))
             if raw != default]
    if given and not args.ledger:
        raise BadInput(f"{given[0][0]}: accepted only with --ledger (got {_got(given[0][1])})")
    if args.cli and args.ledger:
        raise BadInput("--cli: accepted only without --ledger (got both)")
    from .bench_cli import format_cli_bench, run_cli_benchmarks

    if args.cli:
        cli_rows = run_cli_benchmarks()
        if args.json:
            _print_json({"cli": cli_rows})
        print(format_cli_bench(cli_rows), file=_human(args))
        return 0
    if args.ledger:
        budget = _param(V.choice, "--budget", args.budget, registry.BUDGETS)
        seed = _param(V.integer, "--seed", args.seed, 0)
        claims = registry.select(args.ids, _paper(args.paper))
        if not claims:
            raise BadInput(f"--paper: must be a paper with registered claims (got {_got(args.paper)})")
    out = _out_dir(args.out)  # before the benchmarks (and the numerical stack) load
    try:
        from .bench import format_ledger, ledger_benchmark, run_benchmarks  # lazy: only what the command needs
    except ImportError as exc:
        raise CouldNotRun(f"benchmarks are not available: {exc}") from None
    with _result_set(out, BENCH_SET, args.wait) as staged:
        if args.ledger:
            rows = [ledger_benchmark(claims, budget, seed, progress=True)]
            atomic.write_atomic(staged.dir / BENCH_SET[0], json.dumps({"benchmarks": rows}, indent=2))
        else:
            cli_rows = run_cli_benchmarks()  # first: in fresh processes, unaffected by what this one has loaded
            rows = list(run_benchmarks(staged.dir))
            written = staged.dir / BENCH_SET[0]  # the kernel rows and the machine, then the start-up rows beside them
            doc = json.loads(written.read_text()) if written.is_file() else {"benchmarks": rows}
            atomic.write_atomic(written, json.dumps(dict(doc, cli=cli_rows), indent=2))
        staged.commit()
    if args.ledger:
        if args.json:
            _print_json({"benchmarks": rows})
        print(format_ledger(rows[0]), file=_human(args))
        return 0
    if args.json:
        _print_json({"benchmarks": rows, "cli": cli_rows})
    print(format_bench(rows), file=_human(args))
    print("\nstart-up of the light commands (a fresh process each):", file=_human(args))
    print(format_cli_bench(cli_rows), file=_human(args))
    return 0

def format_bench(rows: Sequence[dict]) -> str:
    """The benchmark rows as an aligned text table, followed by each row's peer note.

    Parameters
    ----------
    rows : sequence of dict
        Benchmark rows (``verify.bench.run_benchmarks``); missing entries print empty.

    Returns
    -------
    str
    """
    cols = ("name", "unit", "kernel", "reference", "speedup_vs_reference", "peer", "speedup_vs_peer",
            "bandwidth_fraction", "limit_fraction", "limit_fraction_one_read")
    heads = ("name", "unit", "kernel", "reference", "x reference", "peer", "x peer", "of STREAM bandwidth",
             "of the limit", "of the one-read limit")

    def cell(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return "" if v is None else str(v)

    table = [[cell(row.get(k)) for k in cols] for row in rows]
    w = [max([len(h)] + [len(t[i]) for t in table]) for i, h in enumerate(heads)]
    lines = ["  ".join(h.ljust(w[i]) if i < 2 else h.rjust(w[i]) for i, h in enumerate(heads)),
             "  ".join("-" * x for x in w)]
    for t in table:
        lines.append("  ".join(s.ljust(w[i]) if i < 2 else s.rjust(w[i]) for i, s in enumerate(t)))
    notes = [f"{row['name']}: {row[key]}" for row in rows for key in ("peer_note", "note") if row.get(key)]
    return "\n".join(lines + notes)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


# --------------------------------------------------------------------------------------
# audit
# --------------------------------------------------------------------------------------
DEFAULT_AUDIT_TRIALS = "10000"


def _add_audit_parser(sub) -> None:
    a = sub.add_parser(
        "audit", help="audit anyone's mechanism: a lower bound on its epsilon from many runs",
        description="Run FUNCTION(neighbour, rng) many times on neighbour 0 (dataset D) and 1 (D'), score its "
        "releases (a float, or a 1-d array projected on a likelihood-ratio-like direction learned on half the runs) "
        "and bound epsilon from below on the other half.  Prints the verdict and the audit's power: 'violated' when "
        "the audited lower bound exceeds --epsilon; when it does not, 'holds' if the audit could have seen a leak of "
        "1.5 x --epsilon (an ideal Gaussian mechanism of that epsilon would be flagged) and 'inconclusive' if it could "
        "not, with the --trials (or --method gdp) that would.  Exit 0 whatever the verdict.")
    a.add_argument("function", metavar="FILE_OR_MODULE:FUNCTION",
                   help="e.g. mech.py:release or mypkg.mech:release; FUNCTION(neighbour: int, rng: "
                   "numpy.random.Generator) returns a float or a 1-d array")
    a.add_argument("--epsilon", required=True, metavar="E", help="the claimed epsilon > 0")
    a.add_argument("--delta", required=True, metavar="D", help="the claimed delta in (0, 1)")
    a.add_argument("--trials", default=DEFAULT_AUDIT_TRIALS, metavar="N",
                   help=f"runs per neighbour, an integer >= 100 (default {DEFAULT_AUDIT_TRIALS})")
    a.add_argument("--seed", default="0", metavar="S", help="seed, an integer >= 0 (default 0)")
    a.add_argument("--method", default="clopper_pearson", metavar="gdp|clopper_pearson",
                   help="clopper_pearson (default): assumption-free; gdp: assumes a Gaussian trade-off curve, the "
                   "right comparison when the claim is a Gaussian-mechanism claim (tighter)")
    a.add_argument("--timeout", default=None, metavar="SECONDS",
                   help="seconds one call of FUNCTION may take before the audit gives up on it (default 60)")
    a.add_argument("--out", default=None, metavar="DIR", help="also write DIR/audit.json")
    a.add_argument("--json", action="store_true", help="print the result as JSON to stdout")
    a.set_defaults(func=cmd_audit)


def cmd_audit(args) -> int:
    """``dpverify audit FILE_OR_MODULE:FUNCTION``: a lower bound on a user's mechanism's ε; print the verdict.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``dpverify audit``.

    Returns
    -------
    int
        The exit status: 0, whatever the verdict.

    Raises
    ------
    BadInput
        When ``--out`` cannot be written (checked before any work), an option is out of range, the releases would
        not fit in memory, or the mechanism cannot be loaded or misbehaves: raises, exits, does not return within
        ``--timeout``, gives different releases for the same seed (exit status 2, from :func:`main`).
    """
    epsilon = _param(V.positive, "--epsilon", args.epsilon)  # refused before the numerical stack loads
    delta = _param(V.open_unit, "--delta", args.delta)
    # lazy: dpverify's start-up loads only what the command needs
    from . import outputs
    from .audit import (
        DEFAULT_CALL_TIMEOUT,
        METHODS,
        MIN_MECHANISM_TRIALS,
        MechanismError,
        audit_mechanism,
        load_mechanism,
    )

    trials = _param(V.integer, "--trials", args.trials, MIN_MECHANISM_TRIALS, 10**8)
    seed = _param(V.integer, "--seed", args.seed, 0)
    method = _param(V.choice, "--method", args.method, METHODS)
    timeout = DEFAULT_CALL_TIMEOUT if args.timeout is None else _param(V.positive, "--timeout", args.timeout)
    out = None if args.out is None else _out_dir(args.out)  # before any work: nothing is run for a bad --out
    try:
        fn = load_mechanism(args.function)
        result = audit_mechanism(fn, epsilon, delta, trials=trials, seed=seed, method=method, progress=True,
                                 timeout=timeout)
    except MechanismError as exc:
        raise BadInput(str(exc)) from None
    except InvalidParameter as exc:  # the releases would not fit in memory: --trials sets their number
        if exc.name != "trials":
            raise
        raise BadInput(f"--trials: must be {exc.accepted} (got {trials})") from None
    result = {"function": args.function, **result}
    if out is not None:
        try:
            outputs.make_out(out)
        except OSError as exc:
            raise BadInput(f"--out: must be a directory this process can create and write in "
                           f"(got {out}: {exc.strerror or exc})") from None
        atomic.write_atomic(out / "audit.json", json.dumps(jsonable(result), indent=2) + "\n")
    if args.json:
        _print_json(jsonable(result))
    human = _human(args)
    word = "LEAKS" if result["verdict"] == "violated" else "no leak found"
    print(f"{result['verdict']}: audited epsilon >= {result['epsilon_lb']:.3f} vs claimed {epsilon:g} at delta "
          f"{delta:g} ({word}; {result['level']:.0%} lower bound, method {method}, {trials} runs per neighbour)",
          file=human)
    if result["verdict"] == "violated":  # a valid lower bound above the claim is a leak at any power
        print(f"  power: leaks from ε ≈ {result['detectable_epsilon']:.3g} are visible at these settings; a bound "
              "above the claim is a leak whatever the power", file=human)
    else:
        print(f"  power: {result['power']}", file=human)
    print(f"  score: {result['score']}; assumes {result['assumes']}", file=human)
    if out is not None:
        print(f"  written: {out / 'audit.json'}", file=human)
    return 0
