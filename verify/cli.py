"""The ``dpverify`` command (also ``python -m verify``).

::

    dpverify claims [--paper KEY] [--json]
    dpverify verify [IDS...] [--paper KEY] [--budget quick|full] [--seed S] [--out DIR] [--json]
                    [--workers N] [--scheduler ADDRESS] [--wait]
    dpverify run ALGORITHM --problem PROBLEM [--epsilon E] [--delta D] [--trials N] [--seed S]
                 [--steps T] [--batch-size B] [--alpha A] [--out DIR] [--json] [--wait]
    dpverify bench [--out DIR] [--json] [--wait]

Exit status: 0 when the command completed (a ``violated`` verdict is a finding,
not a failure); 1 when it could not run (a check crashed, a cluster could not be
reached or was lost, the disk filled up); 2 on bad input (including an output
directory that cannot be written or that another dpverify command holds).  Bad
input is reported as one line on stderr, ``dpverify: error: <parameter>: <what is
accepted> (got X)``, before anything is written.  SIGTERM is handled like SIGINT
(exit 143 and 130): the previous result set stays as it was.

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

from kernels import validate as V
from kernels.validate import InvalidParameter

from . import __version__
from . import registry
from .registry import UnknownName, jsonable

PROG = "dpverify"
DEFAULT_VERIFY_OUT = "dpverify-results"
DEFAULT_RUN_OUT = "dpverify-run"
DEFAULT_BENCH_OUT = "dpverify-bench"
MAX_WORKERS = 256  # --workers: threads of the embedded cluster (far above any machine's useful count)
VERIFY_SET = ("figures", "report.html", "report.md", "results.json")  # results.json last in: the set's index
RUN_SET = ("loss_curve.png", "run.json")
BENCH_SET = ("bench.json",)


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
    """Validate a command-line value with a ``kernels.validate`` check, naming the option."""
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
    p = _Parser(prog=PROG, description="Numerical verification of claims from papers on "
                "differentially private adaptive optimization.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    c = sub.add_parser("claims", help="list the claims ledger", description="List the claims ledger.")
    c.add_argument("--paper", metavar="KEY", help="only this paper's claims (" + ", ".join(registry.PAPERS) + ")")
    c.add_argument("--json", action="store_true", help="print JSON to stdout")
    c.set_defaults(func=cmd_claims)

    v = sub.add_parser("verify", help="check claims and write a report",
                       description="Check claims (all by default) and write results.json, report.md, "
                       "report.html and figures/ into the output directory.")
    v.add_argument("ids", nargs="*", metavar="ID", help="claim ids (default: all, or all of --paper)")
    v.add_argument("--paper", metavar="KEY", help="only this paper's claims (" + ", ".join(registry.PAPERS) + ")")
    v.add_argument("--budget", default="quick", metavar="|".join(registry.BUDGETS),
                   help="quick (seconds per claim) or full (paper-scale); default quick")
    v.add_argument("--seed", default="0", metavar="S", help="base seed, an integer >= 0 (default 0)")
    v.add_argument("--out", default=DEFAULT_VERIFY_OUT, metavar="DIR",
                   help=f"output directory (default {DEFAULT_VERIFY_OUT})")
    v.add_argument("--json", action="store_true", help="print the results as JSON to stdout")
    v.add_argument("--workers", default=None, metavar="N",
                   help=f"threads of the embedded Dask cluster, 1 to {MAX_WORKERS} (default: all cores)")
    v.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="use an existing Dask cluster, e.g. tcp://host:8786")
    _wait_option(v)
    v.set_defaults(func=cmd_verify)

    from . import runs

    r = sub.add_parser("run", help="run one algorithm on one stylized problem",
                       description="Run one algorithm on one stylized problem; write run.json and a "
                       "curve plot (loss_curve.png) of the algorithm's metric. Private algorithms get their noise "
                       "multiplier from (epsilon, delta) through dp-accounting (the PAGAN family: from its paper's "
                       "formula, with the accountant's epsilon beside it); options left out take the paper's values.",
                       epilog=_run_epilog(runs), formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("algorithm", metavar="ALGORITHM", help="one of the algorithms listed below")
    r.add_argument("--problem", required=True, metavar="PROBLEM",
                   help="a problem the algorithm runs on (listed below; the paper's first)")
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
    r.set_defaults(func=cmd_run)

    b = sub.add_parser("bench", help="benchmark the kernels against their NumPy references",
                       description="Benchmark the kernels against their NumPy references.")
    b.add_argument("--out", default=DEFAULT_BENCH_OUT, metavar="DIR",
                   help=f"output directory (default {DEFAULT_BENCH_OUT})")
    b.add_argument("--json", action="store_true", help="print the benchmarks as JSON to stdout")
    _wait_option(b)
    b.set_defaults(func=cmd_bench)
    return p


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
    """
    on_main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _on_sigterm) if on_main else None
    try:
        return _main(argv, runner)
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


def _main(argv, runner) -> int:
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help / --version
            return int(exc.code or 0) if not isinstance(exc.code, str) else 2
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
        print(f"{PROG}: {what}: stopped; any previous result set is kept as it was, finished sweep tasks are "
              "in the cache", file=sys.stderr, flush=True)
        return status


def _error(message: str) -> None:
    print(f"{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)


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
    return None if raw is None else _param(V.choice, "--paper", raw, registry.PAPERS)


def cmd_claims(args) -> int:
    from .report import format_claims

    claims = registry.select(paper=_paper(args.paper))
    if args.json:
        _print_json({"claims": [c.to_dict() for c in claims]})
    else:
        print(format_claims(claims))
    return 0


# --------------------------------------------------------------------------------------
# verify
# --------------------------------------------------------------------------------------
def cmd_verify(args, runner=None) -> int:
    """``dpverify verify``; ``runner`` lets tests inject a runner (e.g. SerialRunner)."""
    budget = _param(V.choice, "--budget", args.budget, registry.BUDGETS)
    seed = _param(V.integer, "--seed", args.seed, 0)
    workers = None if args.workers is None else _param(V.integer, "--workers", args.workers, 1, MAX_WORKERS)
    scheduler = _scheduler(args.scheduler)
    paper = _paper(args.paper)
    claims = registry.select(args.ids, paper)
    if not claims:
        if paper is None:
            raise CouldNotRun("no claims are registered")
        with_claims = sorted({c.paper for c in registry.REGISTRY.values()}, key=registry.PAPERS.index)
        raise BadInput(f"--paper: must be a paper with registered claims: {', '.join(with_claims) or '(none)'}"
                       f" (got {_got(paper)})")

    from . import engine, report

    out = _out_dir(args.out)
    human = _human(args)
    started = report.now_iso()
    t0 = time.perf_counter()
    with _result_set(out, VERIFY_SET, args.wait) as staged:
        try:
            results = engine.run_claims(claims, budget, seed, out, workers=workers, scheduler=scheduler,
                                        progress=True, runner=runner, plots_dir=staged.dir)
        except engine.RunnerUnavailable as exc:
            raise CouldNotRun(str(exc)) from None
        seconds = time.perf_counter() - t0
        written = report.write_reports(results, claims, staged.dir, budget=budget, seed=seed, started=started,
                                       seconds=seconds)
        staged.commit()
    paths = {k: out / p.name for k, p in written.items()}
    if args.json:
        _print_json({"results": [r.to_dict() for r in results]})
    report.print_table(results, file=human)
    if results.computed or results.reused:
        print(f"tasks: {results.computed} computed, {results.reused} reused from the cache "
              f"({out / engine.CACHE_DIR})", file=human)
    print(f"report: {paths['md']}  {paths['html']}  (data: {paths['json']})", file=human)
    if results.failed:
        print(f"{PROG}: could not run {len(results.failed)} claim(s): {', '.join(results.failed)} "
              "(recorded as inconclusive; tracebacks above)", file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------------------
# output directories, the scheduler address
# --------------------------------------------------------------------------------------
def _out_dir(raw) -> Path:
    """``--out`` checked (and created) before any work: :func:`verify.outputs.check_out`."""
    from . import outputs

    try:
        return outputs.check_out(raw)
    except outputs.BadOutput as exc:
        raise BadInput(str(exc)) from None


@contextlib.contextmanager
def _result_set(out: Path, names: Sequence[str], wait: bool):
    """Lock ``out``, stage a result set in it (yielded: write into ``.dir``, then ``.commit()``).

    A lost scheduler or a full disk ends the command with one line saying what was kept.
    """
    from . import outputs
    from .runner import RunFailure

    created: list[Path] = []
    try:
        try:
            created = outputs.make_out(out)
        except OSError as exc:
            raise BadInput(f"--out: must be a directory this process can create and write in "
                           f"(got {out}: {exc.strerror or exc})") from None
        with outputs.OutputLock(out, wait=wait), outputs.ResultSet(out, names) as staged:
            yield staged
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


def _run_epilog(runs) -> str:
    """The algorithms of ``dpverify run``, per paper, with their problems (the paper's first)."""
    lines = ["algorithms (paper: ALGORITHM [problems, the paper's first]):"]
    for paper, rows in runs.by_paper().items():
        lines.append(f"  {paper}:")
        for r in rows:
            lines.append(f"    {r.name:30s} {', '.join(r.problems)}{'' if r.private else '  (non-private)'}")
    return "\n".join(lines)


def cmd_run(args) -> int:
    from . import runs

    algorithm = _param(V.choice, "ALGORITHM", args.algorithm, runs.ALGORITHMS)
    problem = _param(V.choice, "--problem", args.problem, runs.RUNNABLES[algorithm].problems)
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

    import numpy as np

    from . import plots, report, stats
    from .registry import Figure, Panel, Series

    out = _out_dir(args.out)
    with _result_set(out, RUN_SET, args.wait) as staged:
        started = report.now_iso()
        t0 = time.perf_counter()
        try:
            res = runs.run(algorithm, problem, epsilon=epsilon, delta=delta, trials=trials, seed=seed, **opts)
        except InvalidParameter as exc:  # e.g. --epsilon for a non-private algorithm, --batch-size above n
            name = ", ".join(_RUN_OPTION.get(n.strip(), n.strip()) for n in str(exc.name).split(","))
            msg = _invalid_message(exc)
            raise BadInput(name + msg[len(exc.name):] if msg.startswith(exc.name + ":") else msg) from None
        seconds = time.perf_counter() - t0

        steps = np.asarray(res.steps, dtype=float).ravel()
        values = np.asarray(res.values, dtype=float).reshape(trials, -1)
        final = np.asarray(res.final, dtype=float).ravel()
        med, lo, hi = stats.median_bands(values)
        ci = stats.median_ci(final)
        label = runs.METRICS[res.metric]
        eps_used = res.params.get("epsilon")

        title = f"{algorithm} on {problem}" + (f", ε = {eps_used:g}" if eps_used is not None else "")
        positive = bool(np.all(np.isfinite(med)) and np.all(med > 0))
        fig = Figure("loss_curve", title, [Panel(
            f"median {label} over {trials} trial{'s' if trials != 1 else ''} (95% CI band)", "step", label,
            [Series(f"{algorithm} median", steps, med, lo, hi)], "linear", "log" if positive else "linear",
        )])
        png = plots.render(fig, staged.dir / "loss_curve.png")
        doc = jsonable({
            "algorithm": algorithm,
            "problem": problem,
            "paper": res.paper,
            "metric": res.metric,
            "params": dict(res.params),
            "final_loss": {"median": ci.estimate, "lo": _finite_or_none(ci.lo), "hi": _finite_or_none(ci.hi),
                           "level": ci.level, "per_trial": final},
            "curve": {"steps": np.asarray(res.steps).ravel().tolist(), "median": med,
                      "lo": [_finite_or_none(v) for v in lo], "hi": [_finite_or_none(v) for v in hi]},
            "privacy": res.privacy,
            "settings": res.settings,
            "problem_params": res.problem_params,
            "notes": list(res.notes),
            "plot": png.name,
            "meta": {"version": __version__, "started": started, "seconds": round(seconds, 3)},
        })
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
        print(f"privacy: noise multiplier {pv['noise_multiplier']:.6g} ({pv['calibration'].split(' ')[0]} calibration), "
              f"accountant ε {'not computed' if acct is None else f'{acct:.6g}'} at δ = {pv['delta']:g}", file=human)
    for note in res.notes:
        print(f"note: {note}", file=human)
    print(f"wrote {path} and {png}", file=human)
    return 0


def _finite_or_none(v):
    v = float(v)
    return v if v == v and abs(v) != float("inf") else None


# --------------------------------------------------------------------------------------
# bench
# --------------------------------------------------------------------------------------
def cmd_bench(args) -> int:
    try:
        from .bench import run_benchmarks
    except ImportError as exc:
        raise CouldNotRun(f"benchmarks are not available: {exc}") from None
    out = _out_dir(args.out)
    with _result_set(out, BENCH_SET, args.wait) as staged:
        rows = list(run_benchmarks(staged.dir))
        staged.commit()
    if args.json:
        _print_json({"benchmarks": rows})
    print(format_bench(rows), file=_human(args))
    return 0


def format_bench(rows: Sequence[dict]) -> str:
    cols = ("name", "unit", "kernel", "reference", "speedup_vs_reference", "peer", "speedup_vs_peer",
            "bandwidth_fraction")
    heads = ("name", "unit", "kernel", "reference", "x reference", "peer", "x peer", "bandwidth")

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
    notes = [f"{row['name']}: {row['peer_note']}" for row in rows if row.get("peer_note")]
    return "\n".join(lines + notes)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
