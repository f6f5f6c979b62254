"""Scale-out: a real multi-process Dask cluster gives the in-process numbers; a killed run resumes.

The claim used is ``adp.theorem4.1`` at the quick budget: its 16 sweep tasks are accountant
computations (no JIT), so worker processes start fast and the test stays short.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

from verify import engine, registry, runner

CLAIM = "adp.theorem4.1"


def _figures(results):
    (r,) = results
    return r.verdict, r.figures, r.counterexample


@pytest.fixture(scope="module")
def serial_reference(tmp_path_factory):
    claims = registry.select([CLAIM])
    return engine.run_claims(claims, "quick", 3, tmp_path_factory.mktemp("serial"), runner=runner.SerialRunner(),
                             progress=False)


def test_multiprocess_cluster_gives_the_in_process_numbers(tmp_path, serial_reference):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        with distributed.Client(cluster) as client:
            client.wait_for_workers(2, timeout=60)
            pids = set(client.run(os.getpid).values())
            assert len(pids) == 2 and os.getpid() not in pids  # two worker processes, not this one
            with distributed.get_task_stream(client) as stream:
                res = engine.run_claims(registry.select([CLAIM]), "quick", 3, tmp_path,
                                        scheduler=cluster.scheduler_address, progress=False)
    assert res.computed > 0 and res.reused == 0
    assert _figures(res) == _figures(serial_reference)
    # each task is named by its sweep function (what the dashboard shows), and every key is distinct
    keys = [str(t["key"]) for t in stream.data]
    assert len(keys) == res.computed == len(set(keys))
    names = {k.rsplit("-", 1)[0] for k in keys}
    assert len(names) == 1 and names != {"_call"} and names.pop().isidentifier()


def test_killed_run_resumes_without_recomputing(tmp_path, serial_reference):
    """Kill ``dpverify verify`` mid-sweep, rerun: finished tasks come from the cache, results are identical."""
    out = tmp_path / "run"
    cache = out / engine.CACHE_DIR / CLAIM
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.Popen([sys.executable, "-m", "verify", "verify", CLAIM, "--out", str(out), "--seed", "3",
                             "--workers", "1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(list(cache.glob("*.npz"))) < 3:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        finished_before_kill = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    if finished_before_kill:
        pytest.fail("the run finished before it could be interrupted; the test needs a longer sweep")
    saved = sorted(p.name for p in cache.glob("*.npz"))
    assert saved, "no task was persisted before the kill"
    for name in saved:  # every persisted task is complete (a killed write leaves only a hidden .tmp file)
        assert runner.load_npz(cache / name)
    assert not (out / "results.json").exists()  # the killed run never wrote a complete-looking report
    runner.code_fingerprint.cache_clear()  # the key includes the code as it is on disk now, as the killed run saw it
    res = engine.run_claims(registry.select([CLAIM]), "quick", 3, out, workers=1, progress=False)
    assert res.reused == len(saved) and res.computed > 0
    assert _figures(res) == _figures(serial_reference)


def test_bit_identical_across_worker_counts_and_runners(tmp_path):
    """Same seed ⇒ the same numbers with 1 or 2 Dask worker threads and in-process (a kernel-backed claim)."""
    claims = registry.select(["pagan.audit.dp_sgd"])
    one = engine.run_claims(claims, "quick", 5, tmp_path / "w1", workers=1, progress=False)
    two = engine.run_claims(claims, "quick", 5, tmp_path / "w2", workers=2, progress=False)
    serial = engine.run_claims(claims, "quick", 5, tmp_path / "s", runner=runner.SerialRunner(), progress=False)
    assert one.computed == two.computed == 4
    assert _figures(one) == _figures(two) == _figures(serial)
