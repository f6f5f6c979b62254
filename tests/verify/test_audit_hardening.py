"""``dpverify audit`` and user claims that misbehave: each failure is one line naming it, never a silent exit.

--out is checked before any run; a mechanism that never returns ends at --timeout; releases that would not fit in
memory are refused before they are allocated; a mechanism that draws randomness from anywhere but the rng it is
given is refused; ``SystemExit``/``KeyboardInterrupt`` raised by a mechanism, and ``SystemExit`` in a claim file or
a claim's check, are that mechanism's or claim's failure.  In-process through :func:`verify.cli.main`.
"""

import json
import time

import numpy as np
import pytest

from verify import cli, registry, runner
from verify.audit import MechanismError, audit_mechanism

MECHANISMS = '''
import time
import numpy as np

def honest(neighbour, rng):
    return float(neighbour + 3.0 * rng.standard_normal())

def never_returns(neighbour, rng):
    while True:
        time.sleep(0.01)

def global_numpy(neighbour, rng):          # ignores the rng it is given
    return float(neighbour + np.random.standard_normal())

def mixed(neighbour, rng):                 # the rng, plus a little global randomness
    return float(neighbour + rng.standard_normal() + 1e-3 * np.random.random())

def huge(neighbour, rng):
    return np.zeros(10**6)

def exits(neighbour, rng):
    raise SystemExit(0)

def interrupts(neighbour, rng):
    raise KeyboardInterrupt
'''


@pytest.fixture(scope="module")
def mech(tmp_path_factory):
    path = tmp_path_factory.mktemp("mech") / "mech.py"
    path.write_text(MECHANISMS)
    return path


def _audit(capsys, mech, name, *extra):
    code = cli.main(["audit", f"{mech}:{name}", "--epsilon", "1", "--delta", "1e-5", "--trials", "200", *extra])
    out, err = capsys.readouterr()
    return code, out, [ln for ln in err.splitlines() if ln.strip() and "audit runs" not in ln]


# --------------------------------------------------------------------------------------
# --out, before the work
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["empty", "under_a_file", "proc", "file"])
def test_a_bad_out_is_refused_before_the_mechanism_runs(where, mech, tmp_path, capsys, monkeypatch):
    calls = []
    monkeypatch.setattr("verify.audit.load_mechanism", lambda spec: calls.append(spec))
    (tmp_path / "f").write_text("x")
    out = {"empty": "", "under_a_file": str(tmp_path / "f" / "sub"), "proc": "/proc/dpverify-audit",
           "file": str(tmp_path / "f")}[where]
    t0 = time.monotonic()
    code, _, err = _audit(capsys, mech, "honest", "--out", out)
    assert code == 2 and len(err) == 1 and err[0].startswith("dpverify: error: --out: must be a directory"), err
    assert not calls and time.monotonic() - t0 < 10
    assert (tmp_path / "f").read_text() == "x"


def test_a_good_out_is_created_and_written(mech, tmp_path, capsys):
    out = tmp_path / "new" / "dir"
    code, _, _ = _audit(capsys, mech, "honest", "--out", str(out))
    doc = json.loads((out / "audit.json").read_text())
    assert code == 0 and doc["verdict"] == "inconclusive"  # 200 runs cannot see a leak of 1.5 × ε = 1
    assert doc["detectable_epsilon"] > 1.5 and doc["suggested_trials"] > 200


# --------------------------------------------------------------------------------------
# the per-call timeout
# --------------------------------------------------------------------------------------
def test_a_mechanism_that_never_returns_ends_at_the_timeout(mech, capsys):
    t0 = time.monotonic()
    code, _, err = _audit(capsys, mech, "never_returns", "--timeout", "0.5")
    assert code == 2 and err == ["dpverify: error: FUNCTION: did not return within 0.5 s on neighbour 0, run 0 "
                                 "(the per-call timeout; --timeout sets it)"]
    assert time.monotonic() - t0 < 30


@pytest.mark.parametrize("bad", ["0", "-1", "inf", "nan", "x"])
def test_timeout_is_validated(bad, mech, capsys):
    code, _, err = _audit(capsys, mech, "honest", "--timeout", bad)
    assert code == 2 and len(err) == 1 and err[0].startswith("dpverify: error: --timeout: must be ")
    assert err[0].endswith(f"(got {bad})")


# --------------------------------------------------------------------------------------
# memory, randomness
# --------------------------------------------------------------------------------------
def test_releases_too_large_for_memory_are_refused_before_the_runs(mech, capsys, monkeypatch):
    monkeypatch.setattr("dpvalidate.available_memory", lambda: 2**30)
    code, _, err = _audit(capsys, mech, "huge", "--trials", "100000")
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("dpverify: error: --trials: must be small enough that the 2 × 100000 × 1000000 array "
                             "it sets fits in memory")


@pytest.mark.parametrize("name", ["global_numpy", "mixed"])
def test_randomness_from_outside_the_given_rng_is_refused(name, mech, capsys):
    code, _, err = _audit(capsys, mech, name)
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("dpverify: error: FUNCTION: two calls on neighbour 0 with generators of the same seed "
                             "returned different releases: it must draw all its randomness from the rng it is given")


def test_the_probe_does_not_change_an_audit():
    """The determinism probe (two calls per neighbour first) uses its own generators: the audit's runs draw the
    streams (seed, 0) and (seed, 1) from their start, as without the probe."""
    calls = []

    def mech(neighbour, rng):
        x = float(rng.standard_normal())
        calls.append((neighbour, x))
        return neighbour + 2.0 * x

    audit_mechanism(mech, 1.0, 1e-5, trials=200, seed=3)
    assert len(calls) == 4 + 400
    for nb in (0, 1):
        used = [x for n, x in calls[4:] if n == nb]
        assert used == list(np.random.default_rng([3, nb]).standard_normal(200))


# --------------------------------------------------------------------------------------
# SystemExit / KeyboardInterrupt raised by user code
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, what", [("exits", "SystemExit"), ("interrupts", "KeyboardInterrupt")])
def test_an_exit_inside_a_mechanism_is_its_failure(name, what, mech, capsys):
    code, _, err = _audit(capsys, mech, name)
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith(f"dpverify: error: FUNCTION: raised {what} on neighbour 0")


def test_an_exit_inside_a_mechanism_is_its_failure_in_the_api():
    def mech(neighbour, rng):
        raise SystemExit(3)

    with pytest.raises(MechanismError, match="raised SystemExit"):
        audit_mechanism(mech, 1.0, 1e-5, trials=100)


CLAIMS = '''
from verify import claim, Outcome

@claim("exitlab.exits", kind="exact", statement="a check that calls sys.exit (a test fixture)")
def exits(budget, seed):
    raise SystemExit(0)

@claim("exitlab.fine", kind="exact", statement="a check that holds (a test fixture)")
def fine(budget, seed):
    return Outcome(verdict="holds", evidence="fine")
'''


@pytest.fixture
def exit_claims(tmp_path):
    path = tmp_path / "exit_claims.py"
    path.write_text(CLAIMS)
    yield path
    for cid in ("exitlab.exits", "exitlab.fine"):
        registry.REGISTRY.pop(cid, None)


def test_sys_exit_in_a_check_is_recorded_and_the_other_claims_kept(exit_claims, tmp_path, capsys):
    out = tmp_path / "out"
    code = cli.main(["verify", "exitlab.exits", "exitlab.fine", "--load", str(exit_claims), "--out", str(out)],
                    runner=runner.SerialRunner())
    assert code == 1  # a check failed: recorded, the run went on
    doc = json.loads((out / "results.json").read_text())
    by_id = {r["id"]: r for r in doc["results"]}
    assert by_id["exitlab.exits"]["verdict"] == "inconclusive"
    assert by_id["exitlab.exits"]["evidence"].startswith("check failed: SystemExit: 0")
    assert by_id["exitlab.fine"]["verdict"] == "holds"
    assert "could not run 1 claim(s): exitlab.exits" in capsys.readouterr().err


def test_sys_exit_while_a_claim_file_is_imported_is_one_line(tmp_path, capsys):
    path = tmp_path / "exits_at_import.py"
    path.write_text("import sys\nsys.exit(0)\n")
    code = cli.main(["claims", "--load", str(path)])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and err == [f"dpverify: error: --load: {str(path)!r} failed to load: SystemExit: 0"]
