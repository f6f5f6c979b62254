"""The progress lines of ``dpverify verify``: ``k/N`` per finished claim and the time left from recorded times."""

import json
import re

import pytest

from verify import cli, engine, registry, runner
from verify.registry import Outcome, Result

FIRST, SECOND = "fixture.progress_a", "fixture.progress_b"
LINE = re.compile(r"^\[ *(\d+)/(\d+)\] (\w+) +(\S+)  \((\d+\.\d) s\)(?:  about (.+) left)?$")


@pytest.fixture
def two_claims():
    for cid in (FIRST, SECOND):
        @registry.claim(cid, kind="exact", statement="a check that holds at once (a test fixture).")
        def check(budget, seed):
            return Outcome(verdict="holds", evidence="nothing to check", numbers={}, counterexample=None)
    yield
    for cid in (FIRST, SECOND):
        registry.REGISTRY.pop(cid, None)


def _progress(err: str) -> list[re.Match]:
    """The progress lines of stderr, parsed; every line that starts like one must be one."""
    lines = [line for line in err.splitlines() if line.startswith("[")]
    matches = [LINE.match(line) for line in lines]
    assert all(matches), lines
    return matches


def _verify(out, capsys, *extra) -> list[re.Match]:
    assert cli.main(["verify", FIRST, SECOND, "--out", str(out), *extra], runner=runner.SerialRunner()) == 0
    return _progress(capsys.readouterr().err)


def _set_seconds(out, seconds: dict) -> None:
    path = out / "results.json"
    doc = json.loads(path.read_text())
    for row in doc["results"]:
        row["seconds"] = seconds.get(row["id"], row["seconds"])
    path.write_text(json.dumps(doc))


def test_first_run_counts_claims_and_says_nothing_of_time_left(tmp_path, capsys, two_claims):
    lines = _verify(tmp_path, capsys)
    assert [(m[1], m[2], m[3], m[4]) for m in lines] == [("1", "2", "holds", FIRST), ("2", "2", "holds", SECOND)]
    assert all(m[6] is None for m in lines)  # no results.json before: no estimate, not a guess


def test_rerun_estimates_time_left_from_the_recorded_seconds(tmp_path, capsys, two_claims):
    _verify(tmp_path, capsys)
    _set_seconds(tmp_path, {FIRST: 3.0, SECOND: 125.0})
    lines = _verify(tmp_path, capsys)
    assert lines[0][6] == "2 min 05 s"  # the second claim's recorded time
    assert lines[1][6] is None  # nothing left after the last


def test_estimate_needs_every_remaining_claim_at_the_same_budget(tmp_path, capsys, two_claims):
    _verify(tmp_path, capsys)
    _set_seconds(tmp_path, {FIRST: 3.0, SECOND: 125.0})
    assert all(m[6] is None for m in _verify(tmp_path, capsys, "--budget", "full"))  # recorded at quick
    # a rerun of the first claim alone keeps the second's row at quick; at full only the first has a time
    _verify(tmp_path, capsys, "--budget", "full")
    doc = json.loads((tmp_path / "results.json").read_text())
    doc["results"] = [r for r in doc["results"] if r["id"] == FIRST]
    (tmp_path / "results.json").write_text(json.dumps(doc))
    assert all(m[6] is None for m in _verify(tmp_path, capsys, "--budget", "full"))  # the second has no time


def test_progress_lines_are_plain_when_stderr_is_not_a_terminal(tmp_path, capsys, two_claims):
    assert cli.main(["verify", FIRST, SECOND, "--out", str(tmp_path)], runner=runner.SerialRunner()) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err  # no bar redrawn in a log: one plain line per claim
    assert len(_progress(err)) == 2


def _result(cid: str, seconds: float, budget: str = "quick") -> Result:
    return Result(cid, "holds", {}, "", None, 0, budget, seconds, [])


def test_time_left_and_its_format():
    rec = engine.recorded_seconds([_result("a", 10.0), _result("b", 30.0), _result("c", 5.0, "full")], "quick")
    assert rec == {"a": 10.0, "b": 30.0}
    assert engine.time_left(["a", "b"], rec) == 40.0
    assert engine.time_left(["a", "b"], rec, concurrency=2) == 30.0  # the longest claim bounds it
    assert engine.time_left(["a", "b", "a", "a", "a"], rec, concurrency=2) == 35.0
    assert engine.time_left(["a", "c"], rec) is None  # "c" has no time at this budget
    assert engine.time_left([], rec) == 0.0
    assert [engine.format_duration(s) for s in (0.2, 59.4, 60, 3599, 3600, 7384)] == [
        "1 s", "59 s", "1 min 00 s", "59 min 59 s", "1 h 00 min", "2 h 03 min"]
    line = engine.progress_line(3, 12, _result("x.y", 1.25), 61.0)
    assert line == "[ 3/12] holds        x.y  (1.2 s)  about 1 min 01 s left"
    assert engine.progress_line(12, 12, _result("x.y", 1.25), 0.0) == "[12/12] holds        x.y  (1.2 s)"
