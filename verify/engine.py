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
from typing import Sequence

from . import contained as _contained
from . import plots as _plots
from . import privacy as _privacy
from . import runner as _runner
from .atomic import DISK_FULL
from .registry import REGISTRY, Claim, Outcome, Result

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
        Show a progress bar and one line per finished claim on stderr.
    runner : verify.runner.Runner or None, optional
        See above.
    plots_dir : str or path or None, optional
        See above.
    claim_workers : int or None, optional
        See above.
    processes : bool, optional
        See above.

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

            bar = tqdm(total=len(claims), desc="claims", unit="claim", file=sys.stderr, disable=None)
        if n_conc > 1 and hasattr(runner, "progress"):
            runner.progress = False  # one progress bar (claims), not one per concurrent sweep
        done: dict[str, tuple[Result, bool]] = {}

        def finished(c: Claim, result: Result) -> None:
            if bar is not None:
                bar.update()
                bar.set_postfix_str(c.id, refresh=True)
            if progress:
                _say(f"{result.verdict:<12} {c.id}  ({result.seconds:.1f} s)", bar)

        if use_processes:
            runner.run(claims, budget, seed, where, done, finished)
        elif n_conc == 1:
            for c in claims:
                if bar is not None:
                    bar.set_postfix_str(c.id, refresh=True)
                done[c.id] = _run_one(c, budget, seed, where, runner)
                finished(c, done[c.id][0])
        else:
            from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

            pool = ThreadPoolExecutor(n_conc, thread_name_prefix="dpverify-claim")
            try:
                futures = {pool.submit(_run_one, c, budget, seed, where, runner): c for c in claims}
                pending = set(futures)
                while pending:
                    ready, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in ready:
                        c = futures[f]
                        done[c.id] = f.result()  # a RunFailure (scheduler lost, disk full) ends the run
                        finished(c, done[c.id][0])
            except BaseException:
                # interrupted or failed: queued claims are dropped; running ones end when the runner closes below
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown(wait=True)
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


def _disk_full(exc: BaseException) -> bool:

    return isinstance(exc, OSError) and exc.errno in DISK_FULL


def _say(line: str, bar) -> None:
    if bar is not None and not bar.disable:
        bar.write(line, file=sys.stderr)
    else:
        print(line, file=sys.stderr, flush=True)


def _run_one(c: Claim, budget: str, seed: int, out: Path, runner: _runner.Runner) -> tuple[Result, bool]:
    t0 = time.perf_counter()
    try:
        with _runner.using(runner), _runner.claim_scope(c.id):
            outcome = c.check(budget, seed)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"check returned {type(outcome).__name__}, not an Outcome")
    except _runner.RunFailure:
        raise
    except Exception as exc:  # a crash is recorded, not fatal to the run
        if _disk_full(exc):
            raise
        seconds = time.perf_counter() - t0
        print(f"dpverify: check of {c.id} failed:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return Result(c.id, "inconclusive", {}, f"check failed: {type(exc).__name__}: {exc}", None,
                      seed, budget, seconds, [], [], _runner.code_fingerprint()), False
    seconds = time.perf_counter() - t0

    paths: list[str] = []
    evidence = outcome.evidence
    ok = True
    for fig in outcome.plots:
        rel = Path(FIGURES_DIR) / figure_filename(c.id, fig.name)
        try:
            with _RENDER_LOCK:  # claims finish concurrently; matplotlib's font and text caches are shared
                _plots.render(fig, out / rel)
        except Exception as exc:
            if _disk_full(exc):
                raise
            ok = False
            print(f"dpverify: plot {fig.name!r} of {c.id} failed:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            evidence += f"; plot {fig.name} failed: {type(exc).__name__}: {exc}"
            continue
        paths.append(rel.as_posix())
    return Result(c.id, outcome.verdict, dict(outcome.numbers), evidence, outcome.counterexample,
                  seed, budget, seconds, paths, [d.to_dict() for d in outcome.decisions],
                  _runner.code_fingerprint(), outcome.finding if outcome.verdict == "violated" else None), ok


def can_fork() -> bool:
    """Whether worker processes can be forked from this one (Linux): the claims registered here are then there.

    Returns
    -------
    bool
        True on Linux when the ``fork`` start method is available.
    """
    import multiprocessing

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _check_in_process(claim_id: str, budget: str, seed: int, where: str,
                      cache_dir: str | None, memo_dir: str) -> tuple[Result, bool, int, int]:
    """A worker process's part: one claim, its tasks in order, cached under ``cache_dir``; the accountant's
    answers shared with the other workers through ``memo_dir``."""
    _privacy.share_memo(memo_dir)
    runner = _runner.CachedSerialRunner(cache_dir)
    result, ok = _run_one(REGISTRY[claim_id], budget, seed, Path(where), runner)
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
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        pool = ProcessPoolExecutor(self.n, mp_context=multiprocessing.get_context("fork"))
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
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def close(self) -> None:
        pass
