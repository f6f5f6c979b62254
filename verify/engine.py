"""Run claims: time each check on a runner, render its plots, record a Result.

:func:`run_claims` is what ``dpverify verify`` calls.  It owns the Dask runner for
the run (an embedded local cluster by default, or an existing cluster given by its
scheduler address), scopes each claim so that its sweep tasks persist under
``out/cache/<claim id>/``, and keeps going when a check crashes: the crash becomes
an ``inconclusive`` result whose evidence starts with ``check failed:`` and the
claim's id is listed in :attr:`Results.failed`, which the CLI turns into exit 1.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from . import contained as _contained
from . import plots as _plots
from . import privacy as _privacy
from . import runner as _runner
from .atomic import DISK_FULL
from .decide import decision_points
from .registry import REGISTRY, Claim, Outcome, Result, check_points

FIGURES_DIR = "figures"
_RENDER_LOCK = threading.Lock()
CACHE_DIR = "cache"


class RunnerUnavailable(RuntimeError):
    """The Dask runner could not be started (no cluster, or the scheduler is unreachable)."""


class Results(list):
    """A list of :class:`Result` that also says which checks crashed and how the tasks ran."""

    def __init__(self, items=(), failed: Sequence[str] = (), computed: int = 0, reused: int = 0):
        super().__init__(items)
        self.failed: list[str] = list(failed)  # ids of claims whose check (or plotting) raised
        self.computed = computed  # sweep tasks computed in this run
        self.reused = reused  # sweep tasks taken from the cache


def figure_filename(claim_id: str, figure_name: str) -> str:
    """The file name of a claim's figure.

    ``<claim id with dots -> _>__<figure name>.png`` (anything unsafe in a file name -> _).

    Parameters
    ----------
    claim_id : str
        The claim's id.
    figure_name : str
        The figure's name (:attr:`verify.registry.Figure.name`).

    Returns
    -------
    str
        The file name, with only letters, digits, ``_``, ``.`` and ``-``.
    """
    stem = f"{claim_id.replace('.', '_')}__{figure_name}"
    return re.sub(r"[^A-Za-z0-9_.-]", "_", stem) + ".png"


def _cache_dir(out: Path) -> Path | None:
    """``out/cache``, or None (one warning) when something other than a directory the tool made is there."""
    why = _contained.refusal(out, CACHE_DIR, kind="dir")
    if why is None:
        return out / CACHE_DIR
    _contained.warn(f"{out / CACHE_DIR} {why}; not used, the sweep tasks are computed uncached")
    return None


def run_claims(
    claims: Sequence[Claim],
    budget: str,
    seed: int,
    out_dir: str | os.PathLike,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    runner: _runner.Runner | None = None,
    plots_dir: str | os.PathLike | None = None,
    claim_workers: int | None = None,
    processes: bool = False,
    recorded: Mapping[str, float] | None = None,
) -> Results:
    """Check every claim at ``budget`` with ``seed``; plots go to ``plots_dir/figures``.

    ``plots_dir`` (default ``out_dir``): where the figures are rendered -- ``dpverify verify`` passes the
    staging directory of its result set (:class:`verify.outputs.ResultSet`), so no figure reaches
    ``out_dir`` before the whole set does.  A :class:`verify.runner.RunFailure` (scheduler lost, disk
    full) or a full disk while rendering ends the run (it is not a claim's verdict).

    ``claim_workers``: claims checked at once (default: ``workers``, or the cores, on an owned cluster; one
    with an injected runner).

    ``runner``: inject a runner (e.g. :class:`verify.runner.SerialRunner` in tests);
    the caller keeps ownership of an injected runner.  Otherwise a
    :class:`verify.runner.DaskRunner` caching under ``out_dir/cache`` is created
    here and closed when the run ends, however it ends.

    ``processes``: check concurrent claims in worker processes (forked from this one, so every registered
    claim is there), each running its tasks in order with the same cache (:class:`verify.runner.CachedSerialRunner`)
    instead of threads sharing one Dask cluster: the claims' Python parts (closed forms, accountants, fits) then
    run in parallel too, which threads cannot do under the GIL.  Only on an owned runner without a scheduler,
    with more than one claim at once, on a platform that forks (Linux); otherwise threads.  The numbers are
    the same either way: every task carries its own seed.

    Parameters
    ----------
    claims : sequence of Claim
        The claims to check; the results keep this order.
    budget : str
        "quick" or "full".
    seed : int
        The run's seed, passed to every check.
    out_dir : str or path
        The output directory; the task cache is ``out_dir/cache`` (owned runner).
    workers : int or None, optional
        Threads of the embedded Dask cluster (default: the cores).
    scheduler : str or None, optional
        Address of an existing Dask scheduler to use instead of an embedded cluster.
    progress : bool, optional
        Show a progress bar (on a terminal) and one line per finished claim on stderr: ``[k/N]``, the
        verdict, the claim and its seconds, and the time left when ``recorded`` has a time for every claim
        still to finish (:func:`progress_line`).
    runner : verify.runner.Runner or None, optional
        See above.
    plots_dir : str or path or None, optional
        See above.
    claim_workers : int or None, optional
        See above.
    processes : bool, optional
        See above.
    recorded : mapping of str to float, optional
        Each claim's seconds in an earlier run at this budget (:func:`recorded_seconds`), for the estimate
        of the time left in the progress lines (without it, or without a claim in it, none is printed) and
        for the order in which concurrent claims start (:func:`start_order`).

    Returns
    -------
    Results
        One :class:`verify.registry.Result` per claim, in the order of ``claims``, with the ids of crashed
        checks in ``failed`` and the counts of tasks computed and reused.

    Raises
    ------
    RunnerUnavailable
        When the owned Dask runner cannot be started.
    verify.runner.RunFailure
        (from the checks) When the scheduler is lost or the disk is full; such failures end the run.
    """
    out = Path(out_dir)
    own = runner is None
    n_conc = max(1, min(len(claims), claim_workers if claim_workers is not None else
                        (workers or os.cpu_count() or 1) if own else 1))
    use_processes = bool(processes and own and scheduler is None and n_conc > 1 and can_fork())
    cache_dir = _cache_dir(out) if own else None
    if own and use_processes:
        runner = _ProcessPool(n_conc, cache_dir)
    elif own:
        try:
            runner = _runner.DaskRunner(cache_dir=cache_dir, workers=workers, scheduler=scheduler,
                                        progress=progress)
        except Exception as exc:
            where = f"the Dask scheduler at {scheduler}" if scheduler else "an embedded Dask cluster"
            raise RunnerUnavailable(f"could not start {where}: {type(exc).__name__}: {exc}") from exc
    c0, r0 = getattr(runner, "computed", 0), getattr(runner, "reused", 0)
    results = Results()
    # dp-accounting's RDP logs a warning for every order it drops (its ε stays an upper bound without them):
    # with claims running concurrently these would drown the progress lines; the claims report their accountants
    absl = logging.getLogger("absl")
    absl_level = absl.level
    absl.setLevel(logging.ERROR)
    bar = None
    where = Path(plots_dir) if plots_dir is not None else out
    # Claims run concurrently on an owned cluster (their sweeps share its threads), or in worker processes: one
    # claim's serial parts (closed forms, accountants, fits) overlap another's kernels.  Every task carries its own
    # seed, so the numbers do not depend on the order claims finish in; an injected runner keeps them one after
    # another.
    try:
        if progress:
            from tqdm.auto import tqdm

            # no {remaining}: tqdm's would extrapolate from the claims' mixed durations; the lines say the time left
            bar = tqdm(total=len(claims), desc="claims", unit="claim", file=sys.stderr, disable=None,
                       bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
        if n_conc > 1 and hasattr(runner, "progress"):
            runner.progress = False  # one progress bar (claims), not one per concurrent sweep
        done: dict[str, tuple[Result, bool]] = {}
        unfinished = {c.id: None for c in claims}  # an ordered set: the claims not finished yet

        def finished(c: Claim, result: Result) -> None:
            unfinished.pop(c.id, None)
            if bar is not None:
                bar.update()
                bar.set_postfix_str(c.id, refresh=True)
            if progress:
                left = time_left(unfinished, recorded or {}, n_conc)
                _say(progress_line(len(claims) - len(unfinished), len(claims), result, left), bar)

        # concurrent claims start heaviest first, so that no long claim starts near the end while the other
        # workers have nothing left to do; the results below keep the order of ``claims``
        order = start_order(claims, recorded or {}, budget) if n_conc > 1 else list(claims)
        if use_processes:
            runner.run(order, budget, seed, where, done, finished)
        elif n_conc == 1:
            for c in claims:
                if bar is not None:
                    bar.set_postfix_str(c.id, refresh=True)
                # one claim at a time: the process's CPU is this claim's, its sweep's threads included
                done[c.id] = _run_one(c, budget, seed, where, runner, alone=True)
                finished(c, done[c.id][0])
        else:
            _run_in_threads(order, budget, seed, where, runner, n_conc, done, finished)
        for c in claims:
            result, ok = done[c.id]
            results.append(result)
            if not ok:
                results.failed.append(c.id)
    finally:
        absl.setLevel(absl_level)
        if bar is not None:
            bar.close()
        results.computed = getattr(runner, "computed", 0) - c0
        results.reused = getattr(runner, "reused", 0) - r0
        if own:
            runner.close()
    return results


class _Stopped(Exception):
    """The run was stopped while a claim was being checked in a thread: its result is dropped, nothing written."""


def _run_in_threads(claims, budget, seed, where: Path, runner, n: int, done: dict, finished) -> None:
    """Check ``claims`` in ``n`` daemon threads sharing ``runner``; each result into ``done`` as it finishes.

    Daemon threads, not a thread pool the interpreter waits for on exit: an interrupted run (SIGINT, SIGTERM) or
    a failed one ends at once, while a claim's serial Python part may still be running.  Once the run is
    stopped, a claim finishing later renders nothing (its figures would land in a staging directory already
    removed) and its result is dropped.
    """
    import queue

    todo: queue.SimpleQueue = queue.SimpleQueue()
    for c in claims:
        todo.put(c)
    results: queue.SimpleQueue = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            try:
                c = todo.get_nowait()
            except queue.Empty:
                return
            try:
                results.put((c, _run_one(c, budget, seed, where, runner, stop), None))
            except BaseException as exc:  # handed to the main thread, which decides
                results.put((c, None, exc))

    threads = [threading.Thread(target=work, name=f"dpverify-claim-{i}", daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    try:
        for _ in claims:
            while True:
                try:
                    c, out, exc = results.get(timeout=0.5)  # a timeout: signals are handled while waiting
                    break
                except queue.Empty:
                    continue
            if exc is not None:
                raise exc  # a RunFailure (scheduler lost, disk full) ends the run
            done[c.id] = out
            finished(c, out[0])
    except BaseException:
        stop.set()
        # a figure being rendered now finishes before the staging directory is removed; none starts after
        if _RENDER_LOCK.acquire(timeout=30):
            _RENDER_LOCK.release()
        raise


def _disk_full(exc: BaseException) -> bool:

    return isinstance(exc, OSError) and exc.errno in DISK_FULL


def recorded_seconds(rows: Iterable[Result], budget: str) -> dict[str, float]:
    """Each claim's seconds in an earlier result set, at ``budget`` only.

    Parameters
    ----------
    rows : iterable of Result
        The results of the earlier run (``results.json`` of the output directory).
    budget : str
        The budget of the run about to start; a result at another budget gives no time.

    Returns
    -------
    dict of str to float
        Claim id -> seconds its check took.
    """
    return {r.id: float(r.seconds) for r in rows if r.budget == budget}


#: Quick-budget CPU seconds of the heaviest claims (``dpverify bench --ledger``, seed 0, rounded): the order in which
#: concurrent claims start when no earlier result set records their times.  Only an order: a claim missing here
#: counts as :data:`TYPICAL_DEFAULT`, an id no longer registered is ignored.
TYPICAL_SECONDS = {
    "pagan.theorem3.pagan": 17.0, "pagan.eq7.rate": 8.0, "adadps.audit.adadps_fixed": 7.0, "pagan.figure1": 7.0,
    "adadps.audit.dp_sgd": 7.0, "pagan.eq9": 7.0, "adp.algorithm1.adaptive_stepsize_privacy": 6.5,
    "adadps.theorem1": 6.5, "dp_adam_design.audit.ime": 4.5, "adp.lemma2.1": 4.5,
    "noisy_adagrad.audit.noisy_adagrad": 4.0, "dp_adam_design.audit.post_processing": 4.0,
    "adadps.section4.1": 3.5, "adp.proposition5.1": 3.5, "noisy_adagrad.audit.noisy_adagrad_composed": 3.5,
    "noisy_adagrad.audit.noisy_adagrad_replace_one": 3.5, "adadps.theorem5": 3.5, "dp_adam_design.eq3": 3.5,
    "pagan.theorem3": 3.0, "pagan.theorem3.floor": 3.0,
}
#: The same at the full budget: CPU seconds of the heaviest claims in a full ledger (seed 0, each claim in its own
#: worker process; the computations cut since are entered at their new cost, measured alone).
TYPICAL_FULL_SECONDS = {
    "pagan.lemma3.1": 610.0, "adp.theorem4.1": 500.0, "noisy_adagrad.lemma13": 260.0, "dp_adam_design.eq2": 325.0,
    "adadps.table.adadps_best": 265.0, "noisy_adagrad.lemma5": 210.0, "noisy_adagrad.corollary3.algorithm1": 205.0,
    "dp_adam_design.eq3": 120.0, "pagan.theorem3": 100.0, "pagan.theorem3.floor": 100.0, "pagan.eq7.rate": 100.0,
    "pagan.theorem3.pagan": 80.0, "noisy_adagrad.corollary6": 75.0, "adadps.theorem1": 75.0, "pagan.eq9": 75.0,
    "noisy_adagrad.theorem5.1": 70.0, "dp_adam_design.section3.4.1": 70.0, "adadps.figure6.fedadam": 70.0,
    "adadps.figure6": 50.0, "noisy_adagrad.lemma16": 50.0, "dp_adam_design.section3.1": 50.0,
    "noisy_adagrad.theorem3.1": 50.0, "adadps.theorem5": 45.0, "adadps.theorem2": 40.0,
}
TYPICAL_DEFAULT = 1.0


def start_order(claims: Sequence[Claim], recorded: Mapping[str, float], budget: str = "quick") -> list[Claim]:
    """The order in which concurrent claims start: the longest first, so that the workers stay busy to the end.

    A claim's length is its time in ``recorded`` when there is one, else its entry in :data:`TYPICAL_SECONDS`
    (:data:`TYPICAL_FULL_SECONDS` at the full budget; else :data:`TYPICAL_DEFAULT`); claims of equal length keep
    the order of ``claims``.  Only the start order:
    results and reports keep the order of ``claims``.

    Parameters
    ----------
    claims : sequence of Claim
        The claims to check.
    recorded : mapping of str to float
        Seconds per claim id from an earlier run at the same budget (:func:`recorded_seconds`); may be empty.
    budget : str, optional
        "quick" (default) or "full": which typical seconds stand in for the unrecorded claims.

    Returns
    -------
    list of Claim
        ``claims``, longest first.
    """
    typical = TYPICAL_FULL_SECONDS if budget == "full" else TYPICAL_SECONDS

    def length(c: Claim) -> float:
        return float(recorded[c.id]) if c.id in recorded else typical.get(c.id, TYPICAL_DEFAULT)

    return sorted(claims, key=length, reverse=True)  # sorted is stable: ties keep the order of ``claims``


def time_left(ids: Iterable[str], recorded: Mapping[str, float], concurrency: int = 1) -> float | None:
    """The seconds the claims ``ids`` should still take, from their recorded times, or None.

    With ``concurrency`` claims at once it is the larger of their total over ``concurrency`` and the longest
    one.  The claims running now count in full (an over-estimate by the time they have already run).

    Parameters
    ----------
    ids : iterable of str
        The claims not finished yet.
    recorded : mapping of str to float
        Seconds per claim id (:func:`recorded_seconds`).
    concurrency : int, optional
        Claims checked at once.

    Returns
    -------
    float or None
        0.0 when ``ids`` is empty; None when a claim of ``ids`` has no recorded time (no guess is made).
    """
    ids = list(ids)
    if any(i not in recorded for i in ids):
        return None
    times = [recorded[i] for i in ids]
    return max(sum(times) / max(1, concurrency), max(times, default=0.0))


def format_duration(seconds: float) -> str:
    """A duration to read at a glance: ``8 s``, ``4 min 10 s``, ``1 h 05 min``.

    Parameters
    ----------
    seconds : float
        At least 0.

    Returns
    -------
    str
        Whole seconds under a minute (at least ``1 s``), then minutes and seconds, then hours and minutes.
    """
    s = max(1, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def progress_line(k: int, n: int, result: Result, left: float | None) -> str:
    """The progress line of the ``k``-th of ``n`` claims to finish.

    ``[ k/n] verdict      claim.id  (seconds s)`` and, when ``left`` is known and not zero,
    ``  about <duration> left``.  Plain text, one line: readable in a log as on a terminal.

    Parameters
    ----------
    k : int
        Claims finished so far, this one included.
    n : int
        Claims in the run.
    result : Result
        This claim's result.
    left : float or None
        Seconds the unfinished claims should still take (:func:`time_left`); None says nothing.

    Returns
    -------
    str
        The line, without a newline.
    """
    line = f"[{k:>{len(str(n))}}/{n}] {result.verdict:<12} {result.id}  ({result.seconds:.1f} s)"
    if left is not None and k < n:
        line += f"  about {format_duration(left)} left"
    return line


def _say(line: str, bar) -> None:
    if bar is not None and not bar.disable:
        bar.write(line, file=sys.stderr)
    else:
        print(line, file=sys.stderr, flush=True)


def _run_one(c: Claim, budget: str, seed: int, out: Path, runner: _runner.Runner,
             stop: threading.Event | None = None, alone: bool = False) -> tuple[Result, bool]:
    """Check ``c`` and render its figures; ``alone``: the check has its process to itself, so the process's CPU time
    (kernels' own threads included) is the check's, else the CPU time of this thread is recorded."""
    clock = time.process_time if alone else time.thread_time
    t0, cpu0 = time.perf_counter(), clock()
    try:
        with _runner.using(runner), _runner.claim_scope(c.id):
            outcome = c.check(budget, seed)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"check returned {type(outcome).__name__}, not an Outcome")
    except _runner.RunFailure:
        raise
    except (Exception, SystemExit) as exc:  # a crash is recorded, not fatal to the run; a sys.exit() is a crash
        if _disk_full(exc):
            raise
        seconds = time.perf_counter() - t0
        print(f"dpverify: check of {c.id} failed:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return Result(c.id, "inconclusive", {}, f"check failed: {type(exc).__name__}: {exc}", None,
                      seed, budget, seconds, [], [], _runner.code_fingerprint(), cpu_seconds=clock() - cpu0), False
    seconds, cpu = time.perf_counter() - t0, clock() - cpu0

    paths: list[str] = []
    evidence, summary = outcome.evidence, outcome.summary
    ok = True
    for fig in outcome.plots:
        rel = Path(FIGURES_DIR) / figure_filename(c.id, fig.name)
        try:
            with _RENDER_LOCK:  # claims finish concurrently; matplotlib's font and text caches are shared
                if stop is not None and stop.is_set():
                    raise _Stopped(c.id)
                _plots.render(fig, out / rel)
        except _Stopped:
            raise
        except Exception as exc:
            if _disk_full(exc):
                raise
            ok = False
            print(f"dpverify: plot {fig.name!r} of {c.id} failed:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            evidence += f"; plot {fig.name} failed: {type(exc).__name__}: {exc}"
            summary += f"; plot {fig.name} failed" if summary else ""
            continue
        paths.append(rel.as_posix())
    points = outcome.points or check_points(decision_points(outcome.decisions))
    return Result(c.id, outcome.verdict, dict(outcome.numbers), evidence, outcome.counterexample,
                  seed, budget, seconds, paths, [d.to_dict() for d in outcome.decisions],
                  _runner.code_fingerprint(), outcome.finding if outcome.verdict == "violated" else None,
                  summary, points, cpu_seconds=cpu), ok


def can_fork() -> bool:
    """Whether worker processes can be forked from this one (Linux): the claims registered here are then there.

    Returns
    -------
    bool
        True on Linux when the ``fork`` start method is available.
    """
    import multiprocessing

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


#: seconds between a worker's checks that the process that started it is still there
WATCHDOG_INTERVAL = 0.25
_PR_SET_PDEATHSIG = 1  # prctl(2) option: the signal a process gets when its parent dies (Linux)


def _die_with_parent(parent: int, spawned_by_main_thread: bool) -> None:
    """In a forked worker: end this process when ``parent`` (the dpverify command) ends, however it ends.

    SIGKILL on the parent's death through ``prctl(PR_SET_PDEATHSIG)`` where Linux offers it (only when the
    worker was forked by the parent's main thread: the kernel sends the signal when the *thread* that forked it
    ends), and always a daemon thread that polls ``os.getppid()`` and ends the process once it changes (the
    worker was re-parented: its parent is gone).  A worker left running would go on writing into the output
    directory without its lock, then wait forever for work.  SIGINT is ignored (a Ctrl-C reaches the whole
    process group; the parent stops the workers itself) and SIGTERM ends the worker at once.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if spawned_by_main_thread and sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no prctl here: the watchdog below still ends the worker
            pass
    if os.getppid() != parent:  # the parent died before the worker got here
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCHDOG_INTERVAL)
        os._exit(1)

    threading.Thread(target=watch, name="dpverify-parent-watchdog", daemon=True).start()


def fork_pool(n: int):
    """A pool of ``n`` worker processes forked from this one that end when this process ends, however it ends.

    Each worker runs :func:`_die_with_parent` first: a SIGKILLed ``dpverify`` leaves no worker behind.  Stop
    the pool with :func:`stop_pool` when the run is interrupted or fails.

    Parameters
    ----------
    n : int
        Number of worker processes.

    Returns
    -------
    concurrent.futures.ProcessPoolExecutor
        The pool (``fork`` start method).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    on_main = threading.current_thread() is threading.main_thread()
    return ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"), initializer=_die_with_parent,
                               initargs=(os.getpid(), on_main))


def stop_pool(pool, grace: float = 5.0) -> None:
    """End a pool of :func:`fork_pool` now: queued work is dropped and the running workers are killed.

    ``shutdown(wait=False)`` alone leaves the running workers computing to the end of their claims (and the
    interpreter waits for them on exit), still writing into the output directory.

    Parameters
    ----------
    pool : concurrent.futures.ProcessPoolExecutor
        The pool.
    grace : float, optional
        Seconds to wait for the killed workers to be reaped.
    """
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.kill()
        except (OSError, ValueError, AttributeError):
            pass
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.join(max(0.0, deadline - time.monotonic()))
        except (OSError, ValueError, AssertionError):
            pass


def _check_in_process(claim_id: str, budget: str, seed: int, where: str,
                      cache_dir: str | None, memo_dir: str) -> tuple[Result, bool, int, int]:
    """A worker process's part: one claim, its tasks in order, cached under ``cache_dir``; the accountant's
    answers shared with the other workers through ``memo_dir``."""
    _privacy.share_memo(memo_dir)
    runner = _runner.CachedSerialRunner(cache_dir)
    result, ok = _run_one(REGISTRY[claim_id], budget, seed, Path(where), runner, alone=True)
    return result, ok, runner.computed, runner.reused


class _ProcessPool:
    """Claims checked in ``n`` forked worker processes (the runner of :func:`run_claims` with ``processes``)."""

    progress = False

    def __init__(self, n: int, cache_dir: Path | None):
        self.n, self.cache_dir = n, cache_dir
        self.computed = self.reused = 0

    def run(self, claims, budget, seed, where: Path, done: dict, finished) -> None:
        import tempfile

        # the workers' shared accountant memo (verify.privacy.share_memo): this run's, removed when it ends
        memo = tempfile.TemporaryDirectory(prefix="dpverify-accountant-", ignore_cleanup_errors=True)
        with memo:
            self._run(claims, budget, seed, where, done, finished, memo.name)

    def _run(self, claims, budget, seed, where: Path, done: dict, finished, memo: str) -> None:
        from concurrent.futures import FIRST_COMPLETED, wait

        pool = fork_pool(self.n)
        try:
            futures = {pool.submit(_check_in_process, c.id, budget, seed, str(where),
                                   None if self.cache_dir is None else str(self.cache_dir), memo): c
                       for c in claims}
            pending = set(futures)
            while pending:
                ready, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in ready:
                    c = futures[f]
                    result, ok, computed, reused = f.result()  # a RunFailure (disk full) ends the run
                    self.computed += computed
                    self.reused += reused
                    done[c.id] = (result, ok)
                    finished(c, result)
        except BaseException:
            stop_pool(pool)  # interrupted or failed: the workers end now, not when their claims do
            raise
        pool.shutdown(wait=True)

    def close(self) -> None:
        pass
