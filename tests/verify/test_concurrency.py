"""Claims checked concurrently give the same numbers as one after another (same seed, separate caches)."""

from __future__ import annotations

import json

from verify import engine, registry
from verify.registry import jsonable

IDS = ["pagan.eq7", "pagan.example1", "adp.lemma2.2", "adp.remark4.1"]


def test_concurrent_claims_match_serial(tmp_path):
    claims = registry.select(IDS)
    serial = engine.run_claims(claims, "quick", 1, tmp_path / "a", workers=2, progress=False, claim_workers=1)
    conc = engine.run_claims(claims, "quick", 1, tmp_path / "b", workers=2, progress=False, claim_workers=4)
    assert [r.id for r in conc] == [r.id for r in serial] == [c.id for c in claims]  # ledger order kept
    for a, b in zip(serial, conc):
        assert a.verdict == b.verdict, a.id
        assert json.dumps(jsonable(a.figures), sort_keys=True) == json.dumps(jsonable(b.figures), sort_keys=True)
        assert a.evidence == b.evidence
    assert not serial.failed and not conc.failed


def _toy_task(k: int, seed: int) -> dict:
    import numpy as np

    return {"x": np.random.default_rng(seed).standard_normal(3) * k}


def _toy_check(budget, seed):
    import numpy as np

    from verify.registry import Outcome
    from verify.runner import sweep

    outs = sweep(_toy_task, [dict(k=k, seed=seed * 10 + k) for k in range(4)], "toy")
    total = float(sum(np.sum(o["x"]) for o in outs))
    return Outcome(verdict="holds", evidence=f"sum {total}", numbers={"sum": total})


def test_claims_in_worker_processes_match_threads_and_reuse_the_cache(tmp_path):
    toy = "fixture.process_toy"
    registry.claim(toy, kind="exact", statement="a sweeping fixture")(_toy_check)
    try:
        claims = registry.select(IDS) + [registry.REGISTRY[toy]]
        threads = engine.run_claims(claims, "quick", 1, tmp_path / "a", workers=2, progress=False)
        procs = engine.run_claims(claims, "quick", 1, tmp_path / "b", workers=2, progress=False, processes=True)
        again = engine.run_claims(claims, "quick", 1, tmp_path / "b", workers=2, progress=False, processes=True)
    finally:
        registry.REGISTRY.pop(toy, None)
    assert [r.id for r in procs] == [c.id for c in claims]  # ledger order kept
    for a, b in zip(threads, procs):
        assert a.verdict == b.verdict, a.id
        assert json.dumps(jsonable(a.figures), sort_keys=True) == json.dumps(jsonable(b.figures), sort_keys=True)
    assert not procs.failed and procs.computed == threads.computed >= 4
    assert again.computed == 0 and again.reused == procs.computed  # the workers' cache entries are found
    assert [r.figures for r in again] == [r.figures for r in procs]


def _hold_then_store(path: str, key: str, held, done) -> None:
    """A second ledger worker: holds a task's lock, computes it slowly, stores it, releases."""
    import time

    import filelock

    from verify.runner import save_entry

    with filelock.FileLock(str(_lock_path(path))):
        held.set()
        time.sleep(0.5)
        save_entry(path, key, _toy_task(0, 7))
    done.set()


def _lock_path(path):
    from pathlib import Path

    p = Path(path)
    return p.parent / f".{p.name}.lock"


def test_a_task_another_worker_is_computing_is_read_from_the_cache_not_computed_twice(tmp_path):
    import multiprocessing

    import numpy as np

    from verify.runner import CachedSerialRunner, task_key

    tasks = [dict(k=0, seed=7), dict(k=1, seed=8)]
    r = CachedSerialRunner(tmp_path / "cache")
    path = r._path(task_key("adhoc", _toy_task, tasks[0]))
    path.parent.mkdir(parents=True)
    ctx = multiprocessing.get_context("fork")
    held, done = ctx.Event(), ctx.Event()
    other = ctx.Process(target=_hold_then_store, args=(path, task_key("adhoc", _toy_task, tasks[0]), held, done))
    other.start()
    try:
        assert held.wait(30)
        outs = r.map(_toy_task, tasks)
        assert done.is_set()  # the first task was waited for, after the free one was computed here
    finally:
        other.join(30)
    assert r.computed == 1 and r.reused == 1
    for out, t in zip(outs, tasks):
        np.testing.assert_array_equal(out["x"], _toy_task(**t)["x"])


class _Stop(Exception):
    pass


def test_claims_that_ask_for_the_same_tasks_sweep_them_in_one_scope(monkeypatch):
    """figure6.fedadam's AdaDPS runs are adadps.figure6's tasks and corollary 3's runs serve two claims: they are
    swept in one claim's scope (one cache folder, one key), so worker processes of a ledger compute them once.
    The sweep is stopped at its first call (nothing runs)."""
    from verify import runner
    from verify.papers.adadps import federated as va
    from verify.papers.noisy_adagrad import _common as na_common
    from verify.papers.noisy_adagrad import regret as na_regret

    scopes = []

    def first_sweep(fn, tasks, label=""):
        scopes.append(runner._claim_id.get())
        raise _Stop

    cases = ((va, lambda: va.figure6_fedadam("quick", 0), "adadps.figure6"),
             (na_common, lambda: na_regret._cor3_runs.__wrapped__("quick", 0), "noisy_adagrad.corollary3.algorithm1"))
    for module, call, want in cases:
        monkeypatch.setattr(module, "sweep", first_sweep)
        with runner.claim_scope("some.other.claim"):
            try:
                call()
            except _Stop:
                pass
        assert scopes.pop() == want



_RELEASE = {"path": None}  # the file the slow fixture waits for (set before the workers fork)


def _quick_check(budget, seed):
    from verify.registry import Outcome

    return Outcome(verdict="holds", evidence="quick", numbers={})


def _slow_check(budget, seed):
    import os
    import time

    from verify.registry import Outcome

    deadline = time.monotonic() + 20.0  # only reached when the quick claim is not reported while this one runs
    while not os.path.exists(_RELEASE["path"]) and time.monotonic() < deadline:
        time.sleep(0.02)
    released = os.path.exists(_RELEASE["path"])
    return Outcome(verdict="holds" if released else "inconclusive",
                   evidence="released by the quick claim's progress line" if released else "never released",
                   numbers={})


def test_each_claim_is_reported_when_it_finishes_not_when_the_run_ends(tmp_path, monkeypatch):
    """The progress lines (and bar) follow the claims as they finish, in worker processes and in threads: a slow
    claim that waits until a quick claim checked beside it has been reported is released (a wait for every claim,
    or for the first failure, reports them all at the end, and the slow claim is never released)."""
    ids = ["fixture.progress_slow", "fixture.progress_quick"]
    registry.claim(ids[0], kind="exact", statement="a slow fixture")(_slow_check)
    registry.claim(ids[1], kind="exact", statement="a quick fixture")(_quick_check)
    said = []

    def say(line, bar):
        claim = next(t for t in line.split() if t in ids)  # the line: "[k/N] verdict  id  (seconds) [time left]"
        said.append(claim)
        if claim == ids[1]:
            open(_RELEASE["path"], "w").close()

    monkeypatch.setattr(engine, "_say", say)
    try:
        for processes in (True, False):
            said.clear()
            _RELEASE["path"] = str(tmp_path / f"release-{processes}")
            res = engine.run_claims(registry.select(ids), "quick", 0, tmp_path / str(processes), workers=2,
                                    progress=True, processes=processes)
            assert not res.failed
            assert said == [ids[1], ids[0]], processes
            assert {r.id: r.evidence for r in res}[ids[0]] == "released by the quick claim's progress line", processes
    finally:
        for i in ids:
            registry.REGISTRY.pop(i, None)
