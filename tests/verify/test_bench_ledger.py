"""``dpverify bench --ledger``: the ledger timed with a fresh task cache, its CPU per claim, its options refused
alone."""

from __future__ import annotations

import json

import pytest

from verify import cli
from verify.registry import Result

FAST = ("pagan.example1", "pagan.example1.mu")


def test_the_ledger_row_counts_every_claim_its_cpu_and_lists_the_slowest(tmp_path, capsys):
    rc = cli.main(["bench", "--ledger", *FAST, "--out", str(tmp_path), "--json"])
    assert rc == 0
    (row,) = json.loads(capsys.readouterr().out)["benchmarks"]
    assert row["name"] == "ledger_quick" and row["claims"] == 2 and sum(row["verdicts"].values()) == 2
    assert row["failed"] == [] and {s["id"] for s in row["slowest"]} == set(FAST)
    assert [s["seconds"] for s in row["slowest"]] == sorted((s["seconds"] for s in row["slowest"]), reverse=True)
    # each claim's CPU is measured (in its worker process) and the whole run's CPU includes the workers'
    assert all(s["cpu_seconds"] is not None and s["cpu_seconds"] > 0 for s in row["slowest"])
    assert row["cpu_seconds"] >= row["sum_claim_cpu_seconds"] * 0.9 and row["wall_seconds"] > 0
    assert row["cores_busy"] == pytest.approx(row["cpu_seconds"] / row["wall_seconds"])
    assert row["longest_claim_seconds"] == row["slowest"][0]["seconds"]
    saved = json.loads((tmp_path / "bench.json").read_text())["benchmarks"][0]
    assert saved["name"] == "ledger_quick" and saved["claims"] == 2


@pytest.mark.parametrize("argv, parameter", [(["--budget", "full"], "--budget"), (["--paper", "adp"], "--paper"),
                                            (["pagan.example1"], "ID"), (["--seed", "3"], "--seed")])
def test_ledger_options_without_ledger_are_refused_before_any_work(tmp_path, capsys, argv, parameter):
    assert cli.main(["bench", *argv, "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"dpverify: error: {parameter}: accepted only with --ledger")
    assert not (tmp_path / "b").exists()


def test_ledger_refuses_a_bad_budget_and_an_unknown_claim(tmp_path, capsys):
    assert cli.main(["bench", "--ledger", "--budget", "huge", "--out", str(tmp_path / "b")]) == 2
    assert "--budget" in capsys.readouterr().err
    assert cli.main(["bench", "--ledger", "pagan.nope", "--out", str(tmp_path / "b")]) == 2
    assert not (tmp_path / "b").exists()


def test_cpu_seconds_round_trip_through_results_json_and_older_files_still_load():
    r = Result("x.y", "holds", {}, "e", None, 0, "quick", 1.5, [], cpu_seconds=2.25)
    d = r.to_dict()
    assert d["cpu_seconds"] == 2.25 and Result.from_dict(d).cpu_seconds == 2.25
    del d["cpu_seconds"]
    assert Result.from_dict(d).cpu_seconds is None


def _spin_task(seconds: float) -> dict:
    """A sweep task that burns ``seconds`` of CPU (a module-level function, so the runner can cache it by name)."""
    import time as _time

    t0 = _time.process_time()
    x = 0.0
    while _time.process_time() - t0 < seconds:
        x += 1.0
    return {"x": x}


def test_one_claim_at_a_time_records_its_sweeps_cpu_not_only_its_threads(tmp_path):
    """With one claim at a time (--workers 1) the sweep's tasks run on the embedded cluster's threads: the claim's
    cpu_seconds is the process's CPU while it ran, so it includes them (the claim's own thread only waits)."""
    from verify import engine, registry
    from verify.registry import Outcome
    from verify.runner import sweep

    @registry.claim("fixture.cpu_in_sweep", kind="exact", statement="a check whose work is its sweep (a fixture).")
    def check(budget, seed):
        sweep(_spin_task, [dict(seconds=0.4)], "spin")
        return Outcome(verdict="holds", evidence="spun", numbers={}, counterexample=None)

    try:
        (r,) = engine.run_claims(registry.select(["fixture.cpu_in_sweep"]), "quick", 0, tmp_path, workers=1,
                                 progress=False)
    finally:
        registry.REGISTRY.pop("fixture.cpu_in_sweep", None)
    assert r.verdict == "holds" and r.cpu_seconds >= 0.35
