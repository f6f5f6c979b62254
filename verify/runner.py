"""Sweep runner: claims fan their work out as tasks; tasks run on Dask and persist.

A claim's ``check`` calls :func:`sweep` with a pure, module-level function and a
list of keyword-argument dicts.  The active :class:`Runner` decides where the
tasks run:

* :class:`SerialRunner` (the default outside ``dpverify verify``): in this thread,
  no cache.  This is what tests and notebooks get when they call a check directly.
* :class:`DaskRunner`: an embedded in-process ``dask.distributed`` cluster (threads;
  the kernels release the GIL) or an existing cluster given by its scheduler
  address.  Each task's output is written to ``cache_dir`` as soon as it finishes,
  keyed by (claim, function, parameters), so an interrupted run resumes without
  recomputing finished tasks.
* :class:`CachedSerialRunner`: in this thread, in order, with the same cache (each claim
  of ``dpverify verify``'s default process-parallel mode runs its tasks this way).

Task functions return a dict of numbers / arrays; the cache stores it as ``.npz``
together with the task key it belongs to and a SHA-256 checksum of its arrays
(names, dtypes, shapes and bytes).  An entry that cannot be read, lacks them, belongs
to another task or fails its checksum is reported (one warning line naming its path)
and recomputed.  Every task dict must carry its own explicit seed: the same task
always gives the same numbers, wherever it runs.

Failures of the machinery rather than of a check -- the Dask scheduler lost mid-run,
a full disk under the cache -- raise :class:`RunFailure`, which ends the run instead
of being recorded as a claim's verdict.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from verify.atomic import DISK_FULL, write_with
from verify.contained import refusal
from verify.contained import warn as _contained_warn

_current: contextvars.ContextVar["Runner | None"] = contextvars.ContextVar("dpverify_runner", default=None)
_claim_id: contextvars.ContextVar[str] = contextvars.ContextVar("dpverify_claim", default="adhoc")


def task_key(claim_id: str, fn: Callable, params: Mapping[str, Any]) -> str:
    """A stable hash of the claim, the task function's qualified name, its parameters and the code.

    The code fingerprint (:func:`code_fingerprint`) makes a cache written by other code a miss, so
    an edited kernel or claim never reads results computed before the edit.

    Parameters
    ----------
    claim_id : str
        The claim the task belongs to.
    fn : callable
        The task function (its module and qualified name enter the key).
    params : mapping
        The task's keyword arguments (NumPy values made canonical; floats by their repr).

    Returns
    -------
    str
        The first 24 hex digits of the SHA-256 of the canonical JSON of all four.
    """
    blob = json.dumps(
        {"claim": claim_id, "fn": f"{fn.__module__}.{fn.__qualname__}", "params": _canonical(params),
         "code": code_fingerprint()},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 of every ``.py`` source of the ``theory``, ``kernels`` and ``verify`` packages.

    Conservative on purpose: any change to the suite's code invalidates every cached task.
    Computed once per process (cached).

    Returns
    -------
    str
        The first 16 hex digits of the hash over each file's relative path and bytes, in path order.
    """
    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for pkg in ("theory", "kernels", "verify"):
        for f in sorted((root / pkg).rglob("*.py")):
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _canonical(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _canonical(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_canonical(x) for x in v]
    if isinstance(v, np.ndarray):
        return {"ndarray": v.tolist(), "dtype": str(v.dtype)}
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return repr(float(v))
    return v


def _as_dict(out: Any) -> dict:
    if not isinstance(out, Mapping):
        raise TypeError("a sweep task must return a dict of numbers/arrays")
    return {k: np.asarray(v) for k, v in out.items()}


def save_atomic_npz(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` to ``path`` so that a crash leaves either the old file or the new one.

    Parameters
    ----------
    path : Path
        The ``.npz`` file to write (replaced if present).
    data : mapping of str to array_like
        The arrays to store, by name.
    """

    def write(tmp: Path) -> None:
        with open(tmp, "xb") as f:
            np.savez(f, **{k: np.asarray(v) for k, v in data.items()})

    write_with(path, write)


def load_npz(path: Path) -> dict:
    """Every array of an ``.npz`` file (pickled objects refused).

    Parameters
    ----------
    path : Path
        The ``.npz`` file.

    Returns
    -------
    dict of str to numpy.ndarray
        The arrays by name, read into memory.
    """
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


class RunFailure(RuntimeError):
    """The run cannot go on (scheduler lost, disk full under the cache): not a claim's verdict."""


class SchedulerLost(RunFailure):
    """The Dask scheduler (or the connection to it) went away while tasks were running."""


class CorruptEntry(ValueError):
    """A cache entry that cannot be trusted (the message says why)."""


ENTRY_KEY = "__dpverify_task__"  # the task key an entry belongs to
ENTRY_SUM = "__dpverify_sha256__"  # checksum of the entry's arrays


def checksum(data: Mapping[str, Any]) -> str:
    """SHA-256 over the arrays of ``data`` in name order: each name, dtype, shape and bytes.

    Parameters
    ----------
    data : mapping of str to array_like
        The arrays, by name.

    Returns
    -------
    str
        The hex digest (64 characters).
    """
    h = hashlib.sha256()
    for k in sorted(data):
        a = np.ascontiguousarray(np.asarray(data[k]))
        h.update(json.dumps([k, a.dtype.str, list(a.shape)]).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def save_entry(path: Path, key: str, data: Mapping[str, Any]) -> None:
    """Write one task's output with its task key and checksum (atomically).

    Parameters
    ----------
    path : Path
        The cache entry (``.npz``) to write.
    key : str
        The task key (:func:`task_key`), stored under :data:`ENTRY_KEY`.
    data : mapping of str to array_like
        The task's output; its checksum is stored under :data:`ENTRY_SUM`.

    Raises
    ------
    ValueError
        When ``data`` uses one of the reserved names :data:`ENTRY_KEY`, :data:`ENTRY_SUM`.
    """
    arrays = {k: np.asarray(v) for k, v in data.items()}
    if ENTRY_KEY in arrays or ENTRY_SUM in arrays:
        raise ValueError(f"a sweep task may not return the reserved names {ENTRY_KEY}, {ENTRY_SUM}")
    save_atomic_npz(path, {**arrays, ENTRY_KEY: np.array(key), ENTRY_SUM: np.array(checksum(arrays))})


def load_entry(path: Path, key: str) -> dict:
    """The task output stored at ``path`` for task ``key``; :class:`CorruptEntry` when it is not that, intact.

    Parameters
    ----------
    path : Path
        The cache entry (``.npz``).
    key : str
        The task key the entry must belong to.

    Returns
    -------
    dict of str to numpy.ndarray
        The stored output, without the key and checksum entries.

    Raises
    ------
    CorruptEntry
        When the file cannot be read, lacks its key or checksum, belongs to another task, or fails its checksum.
    """
    try:
        raw = load_npz(path)
    except Exception as exc:  # truncated, garbage, empty, pickled: numpy/zipfile raise many types
        raise CorruptEntry(f"cannot be read ({type(exc).__name__})") from None
    stored_key, stored_sum = raw.pop(ENTRY_KEY, None), raw.pop(ENTRY_SUM, None)
    if stored_key is None or stored_sum is None or stored_key.shape or stored_sum.shape:
        raise CorruptEntry("has no task key or checksum")
    if str(stored_key) != key:
        raise CorruptEntry(f"belongs to another task ({str(stored_key)[:24]})")
    if str(stored_sum) != checksum(raw):
        raise CorruptEntry("does not match its checksum (its contents were changed)")
    return raw


def _warn(line: str) -> None:
    _contained_warn(line)  # one line, control characters escaped


class Runner:
    """Runs lists of tasks; subclasses decide where."""

    progress: bool = False

    def map(self, fn: Callable[..., Mapping], tasks: Sequence[Mapping[str, Any]], label: str = "") -> list[dict]:
        """Run ``fn(**task)`` for every task; outputs in task order (each subclass decides where).

        Parameters
        ----------
        fn : callable
            A module-level task function returning a mapping of numbers or arrays.
        tasks : sequence of mappings
            The keyword arguments of each call.
        label : str, optional
            A name for the progress display.

        Returns
        -------
        list of dict
            One dict of NumPy arrays per task, in the order of ``tasks``.

        Raises
        ------
        NotImplementedError
            Always, here: the subclasses implement it.
        """
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - trivial
        """Release what the runner holds (nothing, here)."""
        pass


class SerialRunner(Runner):
    """In this thread, in order, nothing cached."""

    def __init__(self, progress: bool = False):
        self.progress = progress

    def map(self, fn, tasks, label=""):
        """Run ``fn(**task)`` for every task; outputs in task order.

        Parameters
        ----------
        fn : callable
            A module-level task function returning a mapping of numbers or arrays.
        tasks : sequence of mappings
            The keyword arguments of each call.
        label : str, optional
            A name for the progress display (default ``fn``'s name).

        Returns
        -------
        list of dict
            One dict of NumPy arrays per task, in the order of ``tasks``.

        Raises
        ------
        TypeError
            When a task returns something other than a mapping; a task's own exception
            propagates unchanged.
        """
        it = tasks
        if self.progress and len(tasks) > 1:
            from tqdm.auto import tqdm

            it = tqdm(tasks, desc=label or fn.__name__, leave=False)
        return [_as_dict(fn(**t)) for t in it]


class _CachingRunner(Runner):
    """What both caching runners share: each task's output persisted under ``cache_dir/<claim>/<key>.npz`` as
    soon as it is computed, and taken from there on a later run (an entry found corrupt is recomputed)."""

    cache_dir: Path | None = None

    def _init_cache(self, cache_dir: str | os.PathLike | None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.computed = 0  # tasks computed in this session (not taken from the cache)
        self.reused = 0  # tasks taken from the cache
        self.corrupt = 0  # cache entries found corrupt, foreign or tampered with (recomputed)
        self._refused: set[str] = set()  # claims (cache directories) and entries not the tool's (warned once)

    def _path(self, key: str) -> Path | None:
        """The entry of task ``key`` of the current claim; None without a cache, or when the claim's directory in
        it is not one the tool made (a symbolic link, a file: the claim then runs uncached, one warning)."""
        if self.cache_dir is None:
            return None
        claim = _claim_id.get()
        why = refusal(self.cache_dir, claim, kind="dir")
        if why is not None:
            if claim not in self._refused:
                self._refused.add(claim)
                _warn(f"cache directory {self.cache_dir / claim} {why}; not used, its tasks are computed uncached")
            return None
        return self.cache_dir / claim / f"{key}.npz"

    def _plain_entry(self, path: Path) -> bool:
        """Whether the cache entry ``path`` exists as a plain file (one warning for anything else there)."""
        if not os.path.lexists(path):
            return False
        why = refusal(path.parent, path.name, kind="file")
        if why is not None:
            if str(path) not in self._refused:
                self._refused.add(str(path))
                _warn(f"cache entry {path} {why}; not read, recomputed")
            return False
        return True

    def _lookup(self, fn, tasks) -> tuple[list, dict, dict]:
        """(results with the cached ones filled in, index -> cache path of each task to compute, index -> key)."""
        results: list[dict | None] = [None] * len(tasks)
        pending: dict[int, Path | None] = {}
        keys: dict[int, str] = {}
        for i, t in enumerate(tasks):
            keys[i] = task_key(_claim_id.get(), fn, t)
            p = self._path(keys[i])
            if p is not None and self._plain_entry(p):
                try:
                    results[i] = load_entry(p, keys[i])
                    self.reused += 1
                    continue
                except CorruptEntry as exc:
                    self.corrupt += 1
                    _warn(f"cache entry {p} {exc}; recomputing it")
                    try:
                        p.unlink()
                    except OSError:
                        pass
            pending[i] = p
        return results, pending, keys

    def _store(self, path: Path | None, key: str, out: dict) -> None:
        if path is None or (os.path.lexists(path) and refusal(path.parent, path.name, kind="file") is not None):
            return  # no cache, or something not the tool's at the entry's name (warned by _plain_entry): left as is
        try:
            save_entry(path, key, out)
        except OSError as exc:
            if exc.errno in DISK_FULL:
                raise RunFailure(f"{exc.strerror} writing {exc.filename or path}") from exc
            raise


class CachedSerialRunner(_CachingRunner):
    """In this thread, in order, each result persisted like :class:`DaskRunner`'s (the runner of a claim checked
    in a worker process of ``dpverify verify``: the claims, not their tasks, run in parallel)."""

    def __init__(self, cache_dir: str | os.PathLike | None = None, progress: bool = False):
        self._init_cache(cache_dir)
        self.progress = progress

    def map(self, fn, tasks, label=""):
        """Run ``fn(**task)`` for every task not in the cache, in order; outputs in task order.

        Parameters
        ----------
        fn : callable
            A module-level task function returning a mapping of numbers or arrays.
        tasks : sequence of mappings
            The keyword arguments of each call.
        label : str, optional
            A name for the progress display (default ``fn``'s name).

        Returns
        -------
        list of dict
            One dict of NumPy arrays per task, in the order of ``tasks``.

        Raises
        ------
        RunFailure
            When the disk under the cache is full; a task's own exception propagates unchanged.
        """
        results, pending, keys = self._lookup(fn, tasks)
        if self.cache_dir is None:
            for i in pending:
                results[i] = self._compute(fn, tasks[i], None, keys[i])
            return results  # type: ignore[return-value]
        # Worker processes of one ledger share this cache: a task another process is computing (its lock is held)
        # is left for later and then read from the cache once that process is done, not computed twice.  Which
        # process computes a task never changes its numbers (a task is a pure function of its arguments).
        import filelock

        deferred = []
        for i, path in pending.items():
            if path is None:  # the claim's cache directory was refused (_path)
                results[i] = self._compute(fn, tasks[i], None, keys[i])
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = filelock.FileLock(str(path.parent / f".{path.name}.lock"))
            try:
                lock.acquire(timeout=0)
            except filelock.Timeout:
                deferred.append((i, path, lock))
                continue
            except OSError as exc:  # e.g. a symbolic link planted at the lock's name: never opened through it
                _warn(f"cache lock {path.parent / f'.{path.name}.lock'} cannot be taken "
                      f"({exc.strerror or type(exc).__name__}); the task is computed uncached")
                results[i] = self._compute(fn, tasks[i], None, keys[i])
                continue
            try:
                results[i] = self._cached_or_computed(fn, tasks[i], path, keys[i])
            finally:
                lock.release()
        for i, path, lock in deferred:
            with lock:  # the other process's computation ends (or fails) before this returns
                results[i] = self._cached_or_computed(fn, tasks[i], path, keys[i])
        return results  # type: ignore[return-value]

    def _compute(self, fn, task, path: Path | None, key: str) -> dict:
        out = _as_dict(fn(**task))
        self._store(path, key, out)
        self.computed += 1
        return out

    def _cached_or_computed(self, fn, task, path: Path, key: str) -> dict:
        """The entry another process stored meanwhile (under the task's lock), else computed here and stored."""
        if self._plain_entry(path):
            try:
                out = load_entry(path, key)
                self.reused += 1
                return out
            except CorruptEntry as exc:
                self.corrupt += 1
                _warn(f"cache entry {path} {exc}; recomputing it")
        return self._compute(fn, task, path, key)


class DaskRunner(_CachingRunner):
    """Tasks on a dask.distributed cluster, each result persisted as it finishes."""

    def __init__(
        self,
        cache_dir: str | os.PathLike | None = None,
        workers: int | None = None,
        scheduler: str | None = None,
        progress: bool = True,
    ):
        from distributed import Client, LocalCluster

        self._init_cache(cache_dir)
        self.progress = progress
        self.scheduler = scheduler
        if scheduler:
            self._cluster = None
            self.client = Client(scheduler, timeout="20s")
        else:
            n = workers or os.cpu_count() or 1
            self._cluster = LocalCluster(
                processes=False, n_workers=1, threads_per_worker=n, dashboard_address=":0"
            )
            self.client = Client(self._cluster)

    def map(self, fn, tasks, label=""):
        """Run ``fn(**task)`` on the cluster for every task not in the cache; outputs in task order.

        Parameters
        ----------
        fn : callable
            A module-level task function returning a mapping of numbers or arrays.
        tasks : sequence of mappings
            The keyword arguments of each call.
        label : str, optional
            A name for the progress display (default ``fn``'s name).

        Returns
        -------
        list of dict
            One dict of NumPy arrays per task, in the order of ``tasks``.

        Raises
        ------
        SchedulerLost
            When the scheduler or the connection to it goes away while tasks run (all futures are released).
        RunFailure
            When the disk under the cache is full; a task's own exception propagates unchanged.
        """
        from distributed import as_completed

        results, pending, keys = self._lookup(fn, tasks)
        if pending:
            futures = {}
            # named by the task function, so that the dashboard's task stream and `get_task_stream` say whose it is
            name = getattr(fn, "__name__", "task")
            for i in pending:
                fut = self.client.submit(_call, fn, tasks[i], key=f"{name}-{uuid.uuid4().hex}")
                futures[fut] = i
            bar = None
            if self.progress and len(futures) > 1:
                from tqdm.auto import tqdm

                bar = tqdm(total=len(futures), desc=f"  {label or fn.__name__}", leave=False)
            try:
                for fut in as_completed(list(futures)):
                    i = futures[fut]
                    try:
                        out = _as_dict(fut.result())
                    except Exception as exc:
                        lost = self._lost(exc)
                        if lost:
                            raise SchedulerLost(lost) from exc
                        raise
                    self._store(pending[i], keys[i], out)
                    results[i] = out
                    self.computed += 1
                    if bar is not None:
                        bar.update()
            except BaseException:
                for fut in futures:  # nothing left running for a run that ends here
                    fut.release()
                raise
            finally:
                if bar is not None:
                    bar.close()
        return results  # type: ignore[return-value]

    def _lost(self, exc: BaseException) -> str | None:
        """Why the cluster, not the task, failed (a description), or None when the task itself raised."""
        import asyncio

        from distributed.client import FutureCancelledError

        try:
            from distributed.comm.core import CommClosedError
        except ImportError:  # pragma: no cover
            CommClosedError = ()  # type: ignore[assignment]
        where = f"the Dask scheduler at {self.scheduler}" if self.scheduler else "the embedded Dask cluster"
        status = getattr(self.client, "status", "running")
        if isinstance(exc, (FutureCancelledError, asyncio.CancelledError, CommClosedError)) or status != "running":
            return f"lost {where} while tasks were running ({type(exc).__name__}; client {status})"
        return None

    def close(self):
        """Close the client and the embedded cluster (if any) at once, with Dask's shutdown logging silenced."""
        import logging

        # an interrupted or failed run closes at once: no waiting on a lost scheduler, no shutdown chatter
        quiet = [logging.getLogger(n) for n in ("distributed", "distributed.client", "distributed.worker",
                                                  "distributed.nanny", "distributed.scheduler", "tornado")]
        levels = [lg.level for lg in quiet]
        for lg in quiet:
            lg.setLevel(logging.CRITICAL)
        try:
            try:
                self.client.close(timeout=5)
            except Exception:
                pass
            if self._cluster is not None:
                try:
                    self._cluster.close(timeout=5)
                except Exception:
                    pass
        finally:
            for lg, lv in zip(quiet, levels):
                lg.setLevel(lv)


def _call(fn, kwargs):
    return fn(**kwargs)


def current() -> Runner:
    """The active runner (set by :func:`using`).

    Returns
    -------
    Runner
        The runner of the innermost :func:`using` block, else a new :class:`SerialRunner`.
    """
    r = _current.get()
    return r if r is not None else SerialRunner()


@contextlib.contextmanager
def using(runner: Runner) -> Iterator[Runner]:
    """Make ``runner`` the active runner inside a ``with`` block (restored on leaving it).

    Parameters
    ----------
    runner : Runner
        The runner :func:`sweep` uses in the block.

    Yields
    ------
    Runner
        ``runner`` itself.
    """
    token = _current.set(runner)
    try:
        yield runner
    finally:
        _current.reset(token)


@contextlib.contextmanager
def claim_scope(claim_id: str) -> Iterator[None]:
    """Attribute the tasks swept inside a ``with`` block to ``claim_id`` (their cache folder and task keys).

    Parameters
    ----------
    claim_id : str
        The claim being checked (outside any scope: "adhoc").

    Yields
    ------
    None
    """
    token = _claim_id.set(claim_id)
    try:
        yield
    finally:
        _claim_id.reset(token)


def sweep(fn: Callable[..., Mapping], tasks: Sequence[Mapping[str, Any]], label: str = "") -> list[dict]:
    """Run ``fn(**task)`` for every task on the active runner; outputs in task order.

    Parameters
    ----------
    fn : callable
        A module-level function (the runner may send it to Dask workers) taking a task's entries as
        keyword arguments and returning a mapping of numbers or arrays.
    tasks : sequence of mappings
        One mapping of keyword arguments per call; each carries its own seed.
    label : str, optional
        A name for the progress display (default ``fn``'s name).

    Returns
    -------
    list of dict
        ``fn``'s outputs, in the order of ``tasks`` whatever order they finished in.

    Raises
    ------
    verify.runner.RunFailure
        When the machinery fails (the Dask scheduler lost: :class:`SchedulerLost`; a full disk under the cache).
        A task's own exception propagates unchanged; a task returning a non-mapping raises TypeError.
    """
    return current().map(fn, list(tasks), label)
