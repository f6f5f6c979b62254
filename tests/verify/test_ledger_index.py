"""The committed index of the built-in ledger (verify/_ledger_index.py) is the registry and the run table.

``dpverify claims``, the refusal of unknown ids and ``dpverify run --help`` read the index instead of importing
the claim packs; these tests prove it equal to what the registry and ``verify.runs`` hold, its digests current,
and the command line's output the same on both routes.  When one fails after a claim or an algorithm changed:
run ``python -m verify.ledger`` and commit verify/_ledger_index.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from verify import _ledger_index as index
from verify import ledger, registry, runs

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "out of date: run `python -m verify.ledger` and commit verify/_ledger_index.py"


def test_index_holds_every_registered_claim_as_the_registry_describes_it():
    reg = registry.load_all()
    # in the index's canonical order: the registry's own order depends on which test imported a claim module first
    builtin = [c.to_dict() for c in sorted((c for c in reg.values() if c.paper in registry.PAPERS),
                                           key=ledger.canonical)]
    assert list(index.CLAIMS) == builtin, REGENERATE


def test_index_holds_the_run_table():
    table = [{"name": r.name, "paper": r.paper, "problems": tuple(r.problems), "private": r.private}
             for r in runs.RUNNABLES.values() if r.name in runs._BUILTIN]
    assert list(index.ALGORITHMS) == table, REGENERATE


def test_index_digests_are_those_of_the_sources_now():
    assert index.CLAIMS_SOURCES == ledger.digest(ledger.claim_sources()), REGENERATE
    assert index.ALGORITHMS_SOURCES == ledger.digest(ledger.algorithm_sources()), REGENERATE


def test_the_committed_file_is_what_the_generator_writes():
    if any(c.paper not in registry.PAPERS for c in registry.load_all().values()) or set(runs.RUNNABLES) != set(
            runs._BUILTIN):
        pytest.skip("claims or algorithms of other tests are loaded in this process")
    assert ledger.render(ledger.build()) == ledger.INDEX_PATH.read_text(encoding="utf-8"), REGENERATE


def test_digest_covers_names_and_contents(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    d = ledger.digest([a, b], root=tmp_path)
    assert d == ledger.digest([a, b], root=tmp_path)
    b.write_text("y = 3\n")
    assert ledger.digest([a, b], root=tmp_path) != d
    b.write_text("y = 2\n")
    b.rename(tmp_path / "c.py")
    assert ledger.digest([a, tmp_path / "c.py"], root=tmp_path) != d
    assert ledger.digest([a, tmp_path / "missing.py"], root=tmp_path) is None


def test_a_stale_or_missing_index_is_not_used(monkeypatch):
    stale = types.SimpleNamespace(CLAIMS_SOURCES="0" * 64, ALGORITHMS_SOURCES="0" * 64, CLAIMS=[], ALGORITHMS=[])
    monkeypatch.setattr(ledger, "_cache", {"index": stale, "packs": False})
    monkeypatch.setattr(registry, "REGISTRY", {})
    monkeypatch.delitem(sys.modules, "verify.runs")
    assert ledger.claims() is None and ledger.algorithms() is None
    monkeypatch.setattr(ledger, "_cache", {"index": None, "packs": False})
    assert ledger.claims() is None and ledger.algorithms() is None


def test_the_index_gives_way_to_registered_claims_installed_packs_and_a_loaded_run_table(monkeypatch):
    fresh = types.SimpleNamespace(CLAIMS_SOURCES=ledger.digest(ledger.claim_sources()),
                                  ALGORITHMS_SOURCES=ledger.digest(ledger.algorithm_sources()),
                                  CLAIMS=index.CLAIMS, ALGORITHMS=index.ALGORITHMS)
    monkeypatch.setattr(ledger, "_cache", {"index": fresh, "packs": False})
    monkeypatch.setattr(registry, "REGISTRY", {})
    assert [e.to_dict() for e in ledger.claims()] == list(index.CLAIMS)
    monkeypatch.setattr(registry, "REGISTRY", {"mylab.x": object()})  # a claim registered in this process
    assert ledger.claims() is None
    monkeypatch.setattr(registry, "REGISTRY", {})
    monkeypatch.setattr(ledger, "_cache", {"index": fresh, "packs": True})  # an installed claim pack
    assert ledger.claims() is None
    assert ledger.algorithms() is None  # verify.runs is imported here (a user's algorithm may be in it)
    monkeypatch.delitem(sys.modules, "verify.runs")
    assert [e.name for e in ledger.algorithms()] == [d["name"] for d in index.ALGORITHMS]


# the same commands through the index and through the registry, each route in one fresh process
SAME = [["claims"], ["claims", "--json"], ["claims", "--paper", "noisy_adagrad"],
        ["claims", "adp.audit.dp_sgd", "pagan.eq7"], ["claims", "pagan.theorm3"], ["claims", "--paper", "nope"],
        ["show", "pagan.nope"], ["run", "--help"],
        ["run", "dp_sdg"], ["run", "adadps_adam", "--problem", "sparse_linear_regression"],
        ["verify", "no_such.claim"], ["verify", "--paper", "nope"]]

_DRIVER = """
import contextlib, io, json, sys
from verify import cli, ledger
if sys.argv[1] == "registry":
    ledger.claims = lambda: None
    ledger.algorithms = lambda: None
done = []
for argv in json.loads(sys.argv[2]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    done.append([rc, out.getvalue(), err.getvalue()])
heavy = sorted(m for m in ("numpy", "sympy", "numba", "scipy") if m in sys.modules)
print(json.dumps({"done": done, "heavy": heavy}))
"""


def _route(route: str, tmp_path: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), COLUMNS="100")
    out = subprocess.run([sys.executable, "-c", _DRIVER, route, json.dumps(SAME)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_index_and_registry_routes_print_the_same_bytes(tmp_path):
    light, full = _route("index", tmp_path), _route("registry", tmp_path)
    assert light["heavy"] == [] and full["heavy"] != []  # each route is the one it claims to be
    for argv, a, b in zip(SAME, light["done"], full["done"]):
        assert a == b, argv
    assert [rc for rc, _, _ in light["done"]] == [0, 0, 0, 0, 2, 2, 2, 0, 2, 2, 2, 2]
