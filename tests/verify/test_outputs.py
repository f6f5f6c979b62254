"""Outputs a user can trust: --out checked first, locked, result sets swapped whole, a verified cache.

Real processes where the behaviour is between processes (the lock, SIGKILL/SIGTERM mid-run, a lost Dask
scheduler): ``python -m verify verify`` on ``noisy_adagrad.lemma12`` (exact, ten tiny tasks: the run is
mostly interpreter start-up) or ``adp.theorem4.1`` (accountant tasks of ~0.3 s each, long enough to be
interrupted mid-sweep).  In-process (``cli.main`` with a test claim) elsewhere.
"""

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from verify import cli, engine, outputs, registry, runner
from verify.registry import Figure, Outcome, Panel, Series

FAST = "noisy_adagrad.lemma12"  # the quickest real claim
SWEEP = "adp.theorem4.1"  # 16 accountant tasks, the same for every seed: a run that can be stopped mid-sweep
DUMMY = "fixture.outputs_dummy"
ENV = dict(os.environ, MPLBACKEND="Agg")
SET = ("results.json", "report.md", "report.html")


def _verify(out, *extra, claim=FAST, **kw):
    return subprocess.Popen([sys.executable, "-m", "verify", "verify", claim, "--out", str(out), "--workers", "1",
                             *extra], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)


def _errors(stderr: str) -> list[str]:
    """stderr without progress bars: the lines a user reads."""
    lines = stderr.replace("\r", "\n").splitlines()
    return [ln for ln in lines if ln.strip() and not ("|" in ln and ("it/s" in ln or "s/it" in ln or "%" in ln))]


def _snapshot(out: Path) -> dict:
    """Every file of the result set (figures included), by relative path -> bytes."""
    files = [out / n for n in SET] + sorted((out / "figures").glob("*"))
    return {str(p.relative_to(out)): p.read_bytes() for p in files if p.is_file()}


def _square_task(x: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {"y": x * x, "noise": rng.standard_normal(3), "maybe_nan": np.array([np.nan, x])}


@pytest.fixture
def dummy_claim():
    @registry.claim(DUMMY, kind="exact", statement="x² ≥ 0 for the sampled x (a test fixture).")
    def check(budget, seed):
        outs = runner.sweep(_square_task, [dict(x=float(x), seed=seed + i) for i, x in enumerate(range(-3, 4))])
        ys = np.array([float(o["y"]) for o in outs])
        noise = float(sum(np.sum(o["noise"]) for o in outs))
        fig = Figure("squares", "x²", [Panel("squares", "x", "x²", [Series("x²", np.arange(-3, 4), ys)])])
        return Outcome(verdict="holds" if ys.min() >= 0 else "violated", evidence=f"min {ys.min()}",
                       numbers={"min": float(ys.min()), "sum": float(ys.sum()), "noise": noise}, counterexample=None,
                       plots=[fig])

    yield check
    registry.REGISTRY.pop(DUMMY, None)


# --------------------------------------------------------------------------------------
# the lock
# --------------------------------------------------------------------------------------
def test_a_held_directory_is_refused_naming_the_holder(tmp_path):
    """This process holds --out; a real `verify` into it exits 2 with one line naming this pid, writes nothing."""
    out = tmp_path / "out"
    out.mkdir()
    with outputs.OutputLock(out, command="test holder"):
        proc = _verify(out)
        _, err = proc.communicate(timeout=300)
    assert proc.returncode == 2, err
    (line,) = _errors(err)
    assert line.startswith(f"dpverify: error: --out: {out} is in use by another dpverify command "
                           f"(pid {os.getpid()} on ")
    assert "test holder" in line and "--wait" in line
    assert not any((out / n).exists() for n in SET + ("figures", "cache"))


def test_wait_waits_for_the_holder_then_runs(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    lock = outputs.OutputLock(out, command="test holder")
    lock.__enter__()
    try:
        proc = _verify(out, "--wait")
        deadline = time.monotonic() + 300
        line = ""
        while time.monotonic() < deadline and "waiting for" not in line:  # it said it is waiting, and for whom
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "the waiting run ended"
        assert f"in use by another dpverify command (pid {os.getpid()}" in line
        assert proc.poll() is None and not (out / "results.json").exists()
    finally:
        lock.__exit__(None, None, None)
    proc.communicate(timeout=300)
    assert proc.returncode == 0
    assert json.loads((out / "results.json").read_text())["results"][0]["id"] == FAST


def test_two_real_runs_into_one_directory_leave_one_consistent_set(tmp_path):
    """Seed 0 and seed 1 into one --out (the second with --wait): the set is the last run's, whole."""
    out = tmp_path / "out"
    a = _verify(out, "--seed", "0")
    deadline = time.monotonic() + 300
    while not (out / outputs.HOLDER_NAME).exists() and a.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    b = _verify(out, "--seed", "1", "--wait")
    assert a.wait(timeout=300) == 0 and b.wait(timeout=300) == 0
    doc = json.loads((out / "results.json").read_text())
    assert doc["meta"]["seed"] == 1 and [r["seed"] for r in doc["results"]] == [1]
    assert "seed 1" in (out / "report.md").read_text() and "seed 1" in (out / "report.html").read_text()
    plots = [p for r in doc["results"] for p in r["plots"]]
    assert sorted(p.name for p in (out / "figures").iterdir()) == sorted(Path(p).name for p in plots)
    assert not [p for p in out.iterdir() if p.name.startswith((outputs.STAGING_PREFIX, outputs.PREVIOUS_PREFIX))]


# --------------------------------------------------------------------------------------
# staging: an interrupted or failed run keeps the previous complete set
# --------------------------------------------------------------------------------------
def _kill_mid_sweep(out, sig, *extra):
    cache = out / engine.CACHE_DIR / SWEEP
    # SWEEP's tasks do not depend on the seed (exact accountant answers): the tasks an earlier stopped run cached
    # would be reused, and a run with only a task or two left to compute finishes before the signal lands (the
    # task cache is not part of the result set, so dropping it changes nothing the tests compare)
    shutil.rmtree(cache, ignore_errors=True)
    proc = _verify(out, *extra, claim=SWEEP)
    deadline = time.monotonic() + 300
    before = {p.name for p in cache.glob("*.npz")}
    while time.monotonic() < deadline and len({p.name for p in cache.glob("*.npz")} - before) < 2:
        if proc.poll() is not None:
            pytest.fail("the run finished before it could be interrupted")
        time.sleep(0.02)
    proc.send_signal(sig)
    t0 = time.monotonic()
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err, time.monotonic() - t0


def test_killed_terminated_and_interrupted_runs_keep_the_previous_set(tmp_path):
    out = tmp_path / "out"
    first = _verify(out, "--seed", "0")  # the previous set: another claim's (its tasks are not the sweep's)
    assert first.wait(timeout=300) == 0
    before = _snapshot(out)
    assert "results.json" in before and any(k.startswith("figures") for k in before)

    rc, _, _ = _kill_mid_sweep(out, signal.SIGKILL, "--seed", "1")
    assert rc == -signal.SIGKILL
    assert _snapshot(out) == before  # nothing of the killed run reached the set

    rc, err, seconds = _kill_mid_sweep(out, signal.SIGTERM, "--seed", "2")
    assert rc == 143
    assert _errors(err)[-1].startswith("dpverify: terminated (SIGTERM): stopped; any previous result set is kept")
    assert _snapshot(out) == before

    rc, err, seconds = _kill_mid_sweep(out, signal.SIGINT, "--seed", "3")
    assert rc == 130
    assert _errors(err)[-1].startswith("dpverify: interrupted: stopped; any previous result set is kept")
    assert _snapshot(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(outputs.STAGING_PREFIX)]


def test_a_failed_run_keeps_the_previous_set_and_its_figures(tmp_path, dummy_claim, monkeypatch, capsys):
    out = tmp_path / "out"
    assert cli.main(["verify", DUMMY, "--out", str(out)], runner=runner.SerialRunner()) == 0
    before = _snapshot(out)
    assert any(k.startswith("figures") for k in before)

    # the run fails after the claim's figure was rendered (writing the report)
    def broken(*a, **k):
        raise runner.SchedulerLost("lost the Dask scheduler at tcp://test:1 while tasks were running")

    monkeypatch.setattr("verify.report.render_html", broken)
    capsys.readouterr()
    assert cli.main(["verify", DUMMY, "--out", str(out), "--seed", "9"], runner=runner.SerialRunner()) == 1
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("dpverify:")]
    assert line.startswith("dpverify: error: lost the Dask scheduler at tcp://test:1 while tasks were running; no "
                           f"result set written, the previous result set in {out} (started ")
    assert _snapshot(out) == before


def test_an_interrupted_commit_is_rolled_forward(tmp_path):
    """A journal left by a commit stopped half-way: the next command into DIR completes the swap."""
    out = tmp_path / "out"
    out.mkdir()
    for name, text in (("results.json", "old"), ("report.md", "old"), ("stale.txt", "old")):
        (out / name).write_text(text)
    staged = outputs.ResultSet(out, ("figures", "report.md", "results.json", "stale.txt"))
    with staged:
        (staged.dir / "results.json").write_text("new")
        (staged.dir / "report.md").write_text("new")
        (staged.dir / "figures").mkdir()
        (staged.dir / "figures" / "a.png").write_text("new")
        previous, token = ".dpverify-previous-0123456789ab", "0123456789abcdef" * 2
        journal = {"staging": staged.dir.name, "previous": previous, "names": list(staged.names),
                   "new": ["figures", "report.md", "results.json"], "token": token}
        (out / outputs.TOKEN_NAME).write_text(token + "\n")
        (out / outputs.JOURNAL_NAME).write_text(json.dumps(journal))
        # stopped after moving figures in and the old report.md out
        os.replace(staged.dir / "figures", out / "figures")
        (out / previous).mkdir()
        os.replace(out / "report.md", out / previous / "report.md")
        staged.committed = True  # the "process" died: its staging directory stays
    outputs.recover(out)
    assert sorted(p.name for p in out.iterdir()) == ["figures", "report.md", "results.json"]
    assert [(out / n).read_text() for n in ("report.md", "results.json")] == ["new", "new"]
    assert (out / "figures" / "a.png").read_text() == "new"


# --------------------------------------------------------------------------------------
# the cache
# --------------------------------------------------------------------------------------
def _tamper(path: Path) -> None:
    d = dict(np.load(path))
    d["y"] = d["y"] * 1000 + 1  # "+ 1": the entry of x = 0 has y = 0, which ×1000 alone would leave unchanged
    with open(path, "wb") as f:
        np.savez(f, **d)


def _drop_key(path: Path) -> None:
    d = dict(np.load(path))
    del d["noise"]
    with open(path, "wb") as f:
        np.savez(f, **d)


def _drop_checksum(path: Path) -> None:
    d = dict(np.load(path))
    del d[runner.ENTRY_SUM]
    with open(path, "wb") as f:
        np.savez(f, **d)


def test_corrupt_foreign_and_tampered_cache_entries_are_recomputed(tmp_path, dummy_claim, capfd):
    claims = registry.select([DUMMY])
    clean = engine.run_claims(claims, "quick", 1, tmp_path, workers=1, progress=False)
    assert clean.computed == 7
    entries = sorted((tmp_path / engine.CACHE_DIR / DUMMY).glob("*.npz"))
    assert len(entries) == 7
    damage = {
        "truncated": lambda p: p.write_bytes(p.read_bytes()[:200]),
        "garbage": lambda p: p.write_bytes(b"this is not an npz file\n" * 20),
        "empty": lambda p: p.write_bytes(b""),
        "missing array": _drop_key,
        "numbers x1000": _tamper,
        "foreign": lambda p: p.write_bytes(entries[-1].read_bytes()),  # another task's valid entry
        "no checksum": _drop_checksum,
    }
    for (what, fn), p in zip(damage.items(), entries):
        fn(p)
    capfd.readouterr()
    again = engine.run_claims(claims, "quick", 1, tmp_path, workers=1, progress=False)
    err = capfd.readouterr().err
    warnings = [ln for ln in err.splitlines() if ln.startswith("dpverify: warning: cache entry ")]
    assert len(warnings) == 7
    for p in entries:  # one line each, naming the path
        assert sum(str(p) in ln and ln.endswith("recomputing it") for ln in warnings) == 1
    assert again.computed == 7 and again.reused == 0
    assert again[0].verdict == clean[0].verdict and again[0].figures == clean[0].figures
    # the recomputed entries are sound: a third run reuses all, silently, with the same numbers
    third = engine.run_claims(claims, "quick", 1, tmp_path, workers=1, progress=False)
    assert third.reused == 7 and "warning" not in capfd.readouterr().err
    assert third[0].figures == clean[0].figures


def test_entries_with_nan_are_not_corrupt(tmp_path):
    p = tmp_path / "e.npz"
    data = {"x": np.array([np.nan, 1.0, np.inf]), "n": np.int64(3)}
    runner.save_entry(p, "k1", data)
    back = runner.load_entry(p, "k1")
    assert set(back) == {"x", "n"} and np.array_equal(back["x"], data["x"], equal_nan=True)
    with pytest.raises(runner.CorruptEntry, match="another task"):
        runner.load_entry(p, "k2")


# --------------------------------------------------------------------------------------
# --out, the disk, the scheduler, the workers
# --------------------------------------------------------------------------------------
def _out_cases(tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    return [
        ("", "--out: must be a directory path (got '')"),
        (str(f), f"--out: must be a directory, not an existing file (got {f})"),
        (str(f / "sub" / "dir"), f"--out: must be a directory path, but {f} is a file (got {f / 'sub' / 'dir'})"),
        ("/proc/dpverify-out", "--out: must be a directory this process can create and write in "
                               "(got /proc/dpverify-out: "),
    ]


@pytest.mark.parametrize("i", range(4), ids=["empty", "a file", "under a file", "/proc"])
@pytest.mark.parametrize("command", [["verify", DUMMY], ["run", "sgd", "--problem", "abs_regression"], ["bench"]])
def test_bad_out_is_refused_before_any_work(i, command, tmp_path, dummy_claim, capsys, monkeypatch):
    if i == 3 and not Path("/proc").is_dir():
        pytest.skip("no /proc")
    raw, message = _out_cases(tmp_path)[i]
    monkeypatch.chdir(tmp_path)
    called = []
    monkeypatch.setattr(engine, "run_claims", lambda *a, **k: called.append(1))
    monkeypatch.setattr("verify.runs.run", lambda *a, **k: called.append(1))
    before = sorted(tmp_path.rglob("*"))
    assert cli.main(command + ["--out", raw]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"dpverify: error: {message}")
    assert not called and sorted(tmp_path.rglob("*")) == before


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_out_is_refused(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert cli.main(["verify", FAST, "--out", str(ro / "out")]) == 2
    finally:
        ro.chmod(0o700)
    err = capsys.readouterr().err
    assert err.startswith("dpverify: error: --out: must be a directory this process can create and write in")
    assert not (ro / "out").exists()


def test_read_only_filesystem_is_refused(tmp_path, capsys, monkeypatch):
    """A read-only filesystem (creating the probe file fails with EROFS): exit 2, one line, nothing left."""
    def read_only(*a, **k):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(outputs.tempfile, "mkstemp", read_only)
    out = tmp_path / "new" / "out"
    assert cli.main(["verify", FAST, "--out", str(out)]) == 2
    assert capsys.readouterr().err == ("dpverify: error: --out: must be a directory this process can create and "
                                       f"write in (got {out}: Read-only file system)\n")
    assert list(tmp_path.iterdir()) == []


def test_full_disk_keeps_the_previous_set(tmp_path, dummy_claim, monkeypatch, capsys):
    """ENOSPC while writing the set (os.fsync of results.json fails as on a full disk): exit 1, one line."""
    out = tmp_path / "out"
    assert cli.main(["verify", DUMMY, "--out", str(out)], runner=runner.SerialRunner()) == 0
    before = _snapshot(out)
    started = json.loads((out / "results.json").read_text())["meta"]["started"]

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    capsys.readouterr()
    assert cli.main(["verify", DUMMY, "--out", str(out), "--seed", "4"], runner=runner.SerialRunner()) == 1
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("dpverify:")]
    assert line == (f"dpverify: error: No space left on device writing {out / 'results.json'}; no result set written, "
                    f"the previous result set in {out} (started {started}) is kept")
    monkeypatch.undo()
    assert _snapshot(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(outputs.STAGING_PREFIX)]


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE")
def test_file_size_limit_in_a_real_run(tmp_path):
    """A real `verify` under RLIMIT_FSIZE (SIGXFSZ ignored, so writes fail with EFBIG as on a full disk)."""
    import resource

    out = tmp_path / "out"
    first = _verify(out)
    assert first.wait(timeout=300) == 0
    before = _snapshot(out)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))  # cache entries fit, figures do not

    proc = _verify(out, "--seed", "3", preexec_fn=limit)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err
    line = _errors(err)[-1]
    assert line.startswith("dpverify: error: File too large writing ") and line.endswith(
        "; no result set written, the previous result set in " + str(out) + " (started "
        + json.loads(before["results.json"])["meta"]["started"] + ") is kept")
    assert _snapshot(out) == before


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_lost_scheduler_is_a_run_failure(tmp_path):
    """Kill the Dask scheduler mid-run: exit 1, one line, no result set (not an 'inconclusive' verdict)."""
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                              "--port", str(port), "--no-dashboard"], **quiet)
    worker = None
    try:
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nthreads", "1",
                                   "--no-dashboard"], **quiet)
        out = tmp_path / "out"
        proc = _verify(out, "--scheduler", addr, claim=SWEEP)
        cache = out / engine.CACHE_DIR / SWEEP
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and len(list(cache.glob("*.npz"))) < 2:
            assert proc.poll() is None, proc.communicate()[1]
            time.sleep(0.02)
        sched.kill()
        _, err = proc.communicate(timeout=120)
    finally:
        for p in (sched, worker):
            if p is not None and p.poll() is None:
                p.kill()
            if p is not None:
                p.wait(timeout=30)
    assert proc.returncode == 1, err
    line = _errors(err)[-1]
    assert line.startswith(f"dpverify: error: lost the Dask scheduler at {addr} while tasks were running")
    assert "no result set written, there was no previous result set in" in line
    assert "Traceback" not in err and "check failed" not in err
    assert not (out / "results.json").exists() and not (out / "figures").exists()
