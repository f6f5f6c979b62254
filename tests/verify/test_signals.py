"""Processes and signals: a dpverify command that is killed, terminated or interrupted ends, and so does its work.

Real processes (``python -m verify``).  The claims of ``verify`` are a test pack loaded with --load whose checks
write their process id into a marker directory and then wait (up to two minutes) for a release file: the test
knows when the claims are running and in which processes, and nothing depends on how fast the machine is.  Every
wait polls for a condition with a generous deadline; the bounds asserted (tens of seconds) are far below the two
minutes a check would otherwise run, and far above what the stop takes on a loaded machine (seconds).
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verify import cli, outputs, registry, runner
from verify.registry import Outcome

ENV = dict(os.environ, MPLBACKEND="Agg")
DEADLINE = 300  # seconds any condition is waited for (start-up under load included)
STOPPED_WITHIN = 40  # seconds a stopped command may take to end (a check would otherwise run 120 s)

WAITING_CLAIMS = '''
import os
import time
from pathlib import Path

from verify import claim, Outcome

MARKS = Path(os.environ["DPVERIFY_TEST_MARKS"])


def _waiting(name):
    @claim(f"waitlab.{name}", kind="exact", statement=f"a check that waits for its release file ({name}; a fixture)")
    def check(budget, seed):
        (MARKS / f"{name}.pid").write_text(str(os.getpid()))
        t0 = time.monotonic()
        while not (MARKS / "release").exists() and time.monotonic() - t0 < 120:
            time.sleep(0.05)
        return Outcome(verdict="holds", evidence="released")
    return check


a = _waiting("a")
b = _waiting("b")
'''


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie counts as gone: it computes and writes nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_for(condition, what: str, proc=None, deadline: float = DEADLINE) -> None:
    t_end = time.monotonic() + deadline
    while not condition():
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"the command ended before {what}: {proc.stderr.read() if proc.stderr else ''}")
        if time.monotonic() > t_end:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def waiting(tmp_path):
    """(claims file, marker directory, start(*extra) -> Popen of `verify waitlab.a waitlab.b --workers 2`)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    pack = tmp_path / "waiting_claims.py"
    pack.write_text(WAITING_CLAIMS)
    procs = []

    def start(out: Path, *extra):
        p = subprocess.Popen([sys.executable, "-m", "verify", "verify", "waitlab.a", "waitlab.b", "--load", str(pack),
                              "--workers", "2", "--out", str(out), *extra],
                             env=dict(ENV, DPVERIFY_TEST_MARKS=str(marks)), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        procs.append(p)
        _wait_for(lambda: (marks / "a.pid").exists() and (marks / "b.pid").exists(), "both claims started", p)
        return p, [int((marks / f"{n}.pid").read_text()) for n in "ab"]

    yield start, marks
    (marks / "release").write_text("")  # whatever is left running ends its check
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=60)


def _workers_gone(pids, parent) -> bool:
    return not any(_alive(q) for q in pids if q != parent)


def test_worker_processes_end_when_their_parent_is_killed(waiting, tmp_path):
    """SIGKILL to `verify --workers 2` alone: its worker processes end too (they used to go on writing into --out
    without its lock, then wait for work forever)."""
    start, marks = waiting
    proc, pids = start(tmp_path / "out")
    assert all(q != proc.pid for q in pids), "the claims ran in worker processes"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    _wait_for(lambda: _workers_gone(pids, proc.pid), "the orphaned workers to end", deadline=STOPPED_WITHIN)


@pytest.mark.parametrize("sig, mode, status", [(signal.SIGTERM, "processes", 143), (signal.SIGINT, "threads", 130)])
def test_a_signal_to_the_parent_alone_ends_the_run_within_seconds(sig, mode, status, waiting, tmp_path):
    """SIGTERM/SIGINT to the command (not its process group) while its claims run in worker processes, or in
    threads (--threads): it ends within seconds, its workers with it, and nothing of the run is left in --out."""
    start, marks = waiting
    out = tmp_path / "out"
    proc, pids = start(out, *(["--threads"] if mode == "threads" else []))
    t0 = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=STOPPED_WITHIN + 60)
    took = time.monotonic() - t0
    assert proc.returncode == status, err
    assert took < STOPPED_WITHIN, f"the run took {took:.1f} s to stop"
    assert err.strip().splitlines()[-1].startswith("dpverify: ")
    _wait_for(lambda: _workers_gone(pids, proc.pid), "the workers to end", deadline=10)
    (marks / "release").write_text("")  # a claim still running somewhere would now finish and write
    time.sleep(1.0)
    left = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert not [n for n in left if n not in (outputs.LOCK_NAME, outputs.HOLDER_NAME)], left


# --------------------------------------------------------------------------------------
# a signal during the commit
# --------------------------------------------------------------------------------------
COMMIT_CLAIM = "fixture.signals_commit"


@pytest.fixture
def quick_claim():
    @registry.claim(COMMIT_CLAIM, kind="exact", statement="a check that holds at once (a test fixture).")
    def check(budget, seed):
        return Outcome(verdict="holds", evidence="at once")

    yield check
    registry.REGISTRY.pop(COMMIT_CLAIM, None)


@pytest.mark.parametrize("sig, status, what", [(signal.SIGINT, 130, "interrupted"),
                                              (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_a_signal_during_the_commit_reports_the_set_as_written(sig, status, what, quick_claim, tmp_path, capsys,
                                                               monkeypatch):
    """The commit defers SIGINT/SIGTERM to its end: the new set is in place, and the message says so (it used to
    say that the previous set was kept)."""
    out = tmp_path / "out"
    real = outputs._roll_forward

    def signalled(*a, **k):
        os.kill(os.getpid(), sig)  # arrives in the middle of the commit
        return real(*a, **k)

    monkeypatch.setattr(outputs, "_roll_forward", signalled)
    assert cli.main(["verify", COMMIT_CLAIM, "--out", str(out), "--seed", "4"], runner=runner.SerialRunner()) == status
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("dpverify:")]
    assert err == [f"dpverify: {what}: stopped after the new result set was written in {out} (the signal came during "
                   "its commit, which completed)"]
    assert '"seed": 4' in (out / "results.json").read_text()


def test_a_signal_before_the_commit_still_reports_the_previous_set_kept(quick_claim, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr("verify.report.write_reports", interrupted)
    assert cli.main(["verify", COMMIT_CLAIM, "--out", str(out)], runner=runner.SerialRunner()) == 130
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("dpverify:")]
    assert err == ["dpverify: interrupted: stopped; any previous result set is kept as it was, finished sweep tasks "
                   "are in the cache"]
    assert not (out / "results.json").exists()


# --------------------------------------------------------------------------------------
# a signal during start-up
# --------------------------------------------------------------------------------------
SLOW_IMPORT = '''
import os
import sys
import time
from pathlib import Path


class _SlowRegistry:
    """Holds the import of verify.registry (one of the command's start-up imports) until the test signals."""

    def find_spec(self, name, path=None, target=None):
        if name == "verify.registry":
            Path(os.environ["DPVERIFY_TEST_IMPORTING"]).write_text("")
            t0 = time.monotonic()
            while time.monotonic() - t0 < 120:
                time.sleep(0.02)
        return None


sys.meta_path.insert(0, _SlowRegistry())
'''


@pytest.mark.parametrize("sig, status, what", [(signal.SIGINT, 130, "interrupted"),
                                              (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_a_signal_during_start_up_imports_is_one_line_and_the_conventional_status(sig, status, what, tmp_path):
    """A sitecustomize on the path holds the command in its start-up imports; the signal lands there."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SLOW_IMPORT)
    marker = tmp_path / "importing"
    env = dict(ENV, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), ENV.get("PYTHONPATH", "")]),
               DPVERIFY_TEST_IMPORTING=str(marker))
    proc = subprocess.Popen([sys.executable, "-m", "verify", "claims"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(marker.exists, "the start-up imports", proc)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=STOPPED_WITHIN + 60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == status, err
    assert err.strip().splitlines() == [f"dpverify: {what}: stopped during start-up; nothing was written"]
    assert out == ""


# --------------------------------------------------------------------------------------
# a long compiled loop
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_long_compiled_kernel_loop_is_interruptible(sig, status, tmp_path):
    """`dpverify run pagan --steps 1e9` (minutes in one compiled call) stops within seconds of the signal."""
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "verify", "run", "pagan", "--steps", "1e9", "--trials", "1",
                             "--out", str(out)], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        staged = lambda: out.is_dir() and any(p.name.startswith(outputs.STAGING_PREFIX) for p in out.iterdir())  # noqa: E731
        _wait_for(staged, "the run to start", proc)
        time.sleep(2.0)  # the staging directory is made just before the run: now it is in the kernel's loop
        t0 = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=STOPPED_WITHIN + 60)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == status, err
    assert took < STOPPED_WITHIN, f"the run took {took:.1f} s to stop"
    assert err.strip().splitlines()[-1].startswith("dpverify: ")
    assert not (out / "run.json").exists()
