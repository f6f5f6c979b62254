"""Concurrent claims start longest first (recorded seconds, else the typical ones); results keep the ledger's order."""

import json

import pytest

from verify import cli, engine, registry
from verify.registry import Outcome

IDS = ("fixture.order_a", "fixture.order_b", "fixture.order_c")


@pytest.fixture
def three_claims():
    for cid in IDS:
        @registry.claim(cid, kind="exact", statement="a check that holds at once (a test fixture).")
        def check(budget, seed):
            return Outcome(verdict="holds", evidence="nothing to check", numbers={}, counterexample=None)
    yield registry.select(list(IDS))
    for cid in IDS:
        registry.REGISTRY.pop(cid, None)


@pytest.fixture
def started(monkeypatch):
    """The ids in the order the worker-process pool and the threads were handed them (the real run goes on)."""
    seen: list[list[str]] = []
    run = engine._ProcessPool.run
    threads = engine._run_in_threads

    def pool_run(self, claims, *args):
        seen.append([c.id for c in claims])
        return run(self, claims, *args)

    def in_threads(claims, *args):
        seen.append([c.id for c in claims])
        return threads(claims, *args)

    monkeypatch.setattr(engine._ProcessPool, "run", pool_run)
    monkeypatch.setattr(engine, "_run_in_threads", in_threads)
    return seen


def test_start_order_is_longest_recorded_first_ties_in_ledger_order(three_claims):
    a, b, c = three_claims
    assert engine.start_order(three_claims, {IDS[0]: 1.0, IDS[1]: 5.0, IDS[2]: 1.0}) == [b, a, c]
    assert engine.start_order(three_claims, {}) == [a, b, c]  # none known: all typical-default, ledger order


def test_start_order_falls_back_to_the_typical_seconds(three_claims, monkeypatch):
    a, b, c = three_claims
    monkeypatch.setitem(engine.TYPICAL_SECONDS, IDS[2], engine.TYPICAL_DEFAULT + 10)
    assert engine.start_order(three_claims, {}) == [c, a, b]
    # a recorded time wins over the typical one, and a claim with neither counts as the default
    assert engine.start_order(three_claims, {IDS[2]: 0.1, IDS[0]: engine.TYPICAL_DEFAULT + 1}) == [a, b, c]


def test_the_heaviest_claims_of_the_ledger_are_registered():
    ids = {c.id for c in registry.select()}
    assert set(engine.TYPICAL_SECONDS) <= ids  # a renamed claim would silently lose its place
    assert set(engine.TYPICAL_FULL_SECONDS) <= ids


def test_the_full_budget_orders_by_its_own_typical_seconds(three_claims, monkeypatch):
    a, b, c = three_claims
    monkeypatch.setitem(engine.TYPICAL_SECONDS, IDS[1], engine.TYPICAL_DEFAULT + 10)
    monkeypatch.setitem(engine.TYPICAL_FULL_SECONDS, IDS[2], engine.TYPICAL_DEFAULT + 10)
    assert engine.start_order(three_claims, {}) == [b, a, c]
    assert engine.start_order(three_claims, {}, "full") == [c, a, b]


@pytest.mark.parametrize("processes", [True, False])
def test_concurrent_claims_start_heaviest_first_and_results_keep_the_ledger_order(tmp_path, three_claims, started,
                                                                               processes):
    recorded = {IDS[0]: 1.0, IDS[1]: 2.0, IDS[2]: 30.0}
    res = engine.run_claims(three_claims, "quick", 0, tmp_path, workers=2, progress=False, processes=processes,
                            recorded=recorded)
    assert started == [[IDS[2], IDS[1], IDS[0]]]
    assert [r.id for r in res] == list(IDS) and not res.failed


def test_verify_orders_by_the_seconds_in_the_output_directory(tmp_path, three_claims, started, capsys):
    out = tmp_path / "out"
    args = ["verify", *IDS, "--out", str(out), "--workers", "2"]
    assert cli.main(args) == 0
    path = out / "results.json"
    doc = json.loads(path.read_text())
    assert [r["id"] for r in doc["results"]] == list(IDS)
    for row in doc["results"]:
        row["seconds"] = {IDS[0]: 0.5, IDS[1]: 9.0, IDS[2]: 3.0}[row["id"]]
    path.write_text(json.dumps(doc))
    assert cli.main(args) == 0
    assert started == [list(IDS), [IDS[1], IDS[2], IDS[0]]]  # first run: no times, ledger order; then longest first
    assert [r["id"] for r in json.loads(path.read_text())["results"]] == list(IDS)
