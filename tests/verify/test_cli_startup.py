"""The command line's light paths import no numerical library, and the start-up benchmark rows.

Each command runs as ``python -X importtime -m verify ...`` in a fresh process (exactly as a user runs it);
``-X importtime`` writes one line to stderr for every module imported, so the test sees the whole import graph.
NumPy is among the forbidden modules: the light paths do without it too.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from verify import bench_cli, cli

ROOT = Path(__file__).resolve().parents[2]

#: the numerical stack (and the project's packages that import it at once)
HEAVY = ("numpy", "numba", "llvmlite", "sympy", "scipy", "dask", "distributed", "matplotlib", "dp_accounting",
         "kernels", "theory")

_IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|(\s*)(\S+)\s*$")


def _run(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), COLUMNS="100")
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "verify", *args], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=120)
    modules = {m.group(2) for m in map(_IMPORTED.match, out.stderr.splitlines()) if m}
    out.stderr = "\n".join(ln for ln in out.stderr.splitlines() if not ln.startswith("import time:"))
    return out, modules


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


LIGHT = [
    (["--help"], 0, "usage: dpverify"),
    (["claims", "--help"], 0, "usage: dpverify claims"),
    (["verify", "--help"], 0, "usage: dpverify verify"),
    (["run", "--help"], 0, "adp_sgd_adaptive"),  # the algorithms' table of the epilog
    (["mutants", "--help"], 0, "usage: dpverify mutants"),
    (["show", "--help"], 0, "usage: dpverify show"),
    (["findings", "--help"], 0, "usage: dpverify findings"),
    (["compare", "--help"], 0, "usage: dpverify compare"),
    (["bench", "--help"], 0, "--cli"),
    (["audit", "--help"], 0, "usage: dpverify audit"),
    (["claims"], 0, "pagan.theorem3"),
    (["claims", "--json"], 0, '"id": "adp.'),
    (["claims", "--paper", "adp"], 0, "adp."),
    (["claims", "pagan.theorm3"], 2, "did you mean pagan.theorem3"),
    (["claims", "--paper", "nope"], 2, "--paper: must be one of pagan"),
    (["show", "pagan.nope"], 2, "ID: must be a claim id"),
    (["verify", "--out", "{bad_out}"], 2, "--out: must be a directory path"),
    (["verify", "no_such.claim"], 2, "claim id: must be one of the"),
    (["mutants", "--out", "{bad_out}"], 2, "--out: must be a directory path"),
    (["run", "dp_sgd", "--epsilon", "0"], 2, "--epsilon: must be > 0"),
    (["run", "dp_sgd", "--delta", "1.5"], 2, "--delta: must be in the open interval (0, 1)"),
    (["run", "dp_sdg"], 2, "ALGORITHM: must be one of"),
    (["run", "sgd", "--problem", "nope"], 2, "--problem: must be one of"),
    (["run", "sgd", "--out", "{bad_out}"], 2, "--out: must be a directory path"),
    (["audit", "m.py:f", "--epsilon", "-1", "--delta", "0.1"], 2, "--epsilon: must be > 0"),
    (["audit", "m.py:f", "--epsilon", "1", "--delta", "0"], 2, "--delta: must be in the open interval (0, 1)"),
    (["findings", "--out", "{empty}"], 2, "with a results.json"),
    (["bench", "--out", "{bad_out}"], 2, "--out: must be a directory path"),
    (["verify", "--seed", "-1"], 2, "--seed: must be an integer >= 0"),
]


@pytest.mark.parametrize("args, status, says", LIGHT, ids=[" ".join(a) for a, _, _ in LIGHT])
def test_light_command_imports_no_numerical_library(args, status, says, tmp_path):
    (tmp_path / "a-file").write_text("")
    (tmp_path / "empty").mkdir()
    args = [a.format(bad_out=tmp_path / "a-file" / "out", empty=tmp_path / "empty") for a in args]
    out, modules = _run(args, tmp_path)
    assert out.returncode == status, out.stderr
    assert says in (out.stdout if status == 0 else out.stderr)
    assert "verify.cli" in modules  # the import graph was seen
    assert _heavy(modules) == [], f"dpverify {' '.join(args)} imported {_heavy(modules)}"
    assert not (tmp_path / "a-file" / "out").exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "a-file", "empty"]


def test_a_command_that_works_still_imports_the_stack(tmp_path):
    """The check can see the stack: `show` of a known claim pretty-prints its theory with SymPy."""
    out, modules = _run(["show", "pagan.theorem3", "--out", str(tmp_path)], tmp_path)
    assert out.returncode == 0, out.stderr
    assert {"numpy", "sympy"} <= modules


# --------------------------------------------------------------------------------------
# the start-up rows of `dpverify bench`
# --------------------------------------------------------------------------------------
def test_cli_bench_rows_measure_each_command_in_a_fresh_process():
    rows = bench_cli.run_cli_benchmarks(repeats=2, names=("cli_help", "cli_bad_out"))
    assert [r["name"] for r in rows] == ["cli_help", "cli_bad_out"]
    assert [r["exit_status"] for r in rows] == [0, 2]
    for r in rows:
        assert len(r["cpu_repeats"]) == 2 and all(s > 0 for s in r["cpu_repeats"])
        assert r["cpu_seconds"] == statistics.median(r["cpu_repeats"])
        assert r["within_target"] == (r["cpu_seconds"] <= r["target"])
    assert rows[1]["command"] == "dpverify verify --out <a path under a file>"
    text = bench_cli.format_cli_bench(rows)
    assert "cli_bad_out" in text and "target" in text and "median of 2" in text
    with pytest.raises(ValueError, match="names"):
        bench_cli.run_cli_benchmarks(names=("nope",))


def test_cpu_seconds_reports_a_child_that_does_not_finish_as_killed():
    seconds, status = bench_cli.cpu_seconds([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.3)
    assert status is None and seconds >= 0


def test_bench_cli_prints_only_the_start_up_rows(monkeypatch, capsys, tmp_path):
    row = {"name": "cli_help", "command": "dpverify --help", "unit": "CPU s", "cpu_seconds": 0.1,
           "cpu_repeats": [0.1, 0.1, 0.1], "target": 0.3, "within_target": True, "exit_status": 0}
    monkeypatch.setattr(bench_cli, "run_cli_benchmarks", lambda *a, **k: [row])
    monkeypatch.chdir(tmp_path)
    assert cli.main(["bench", "--cli", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"cli": [row]}
    assert "cli_help" in captured.err and list(tmp_path.iterdir()) == []  # written nowhere


def test_bench_writes_the_start_up_rows_beside_the_kernel_rows(monkeypatch, capsys, tmp_path):
    import verify.bench

    row = {"name": "cli_help", "command": "dpverify --help", "unit": "CPU s", "cpu_seconds": 0.1,
           "cpu_repeats": [0.1], "target": 0.3, "within_target": True, "exit_status": 0}
    kernel = {"name": "pagan_loop", "unit": "steps/s", "kernel": 2.0, "reference": 1.0}

    def kernel_rows(out_dir, *a, **k):
        (Path(out_dir) / "bench.json").write_text(json.dumps({"benchmarks": [kernel], "meta": {"cpus": 2}}))
        return [kernel]

    monkeypatch.setattr(bench_cli, "run_cli_benchmarks", lambda *a, **k: [row])
    monkeypatch.setattr(verify.bench, "run_benchmarks", kernel_rows)
    assert cli.main(["bench", "--out", str(tmp_path / "b"), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"benchmarks": [kernel], "cli": [row]}
    assert json.loads((tmp_path / "b" / "bench.json").read_text()) == {"benchmarks": [kernel], "meta": {"cpus": 2},
                                                                      "cli": [row]}
    assert captured.err.index("pagan_loop") < captured.err.index("cli_help")
