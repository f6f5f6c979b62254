"""The dpverify command line: listing, verify end to end, run, bench, and bad input."""

import json
import subprocess
import sys

import numpy as np
import pytest

from verify import cli, engine, registry, runner
from verify.registry import Figure, Outcome, Panel, Series

DUMMY = "fixture.dummy"


def _square_task(x: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {"y": x * x, "noise": rng.standard_normal(3)}


@pytest.fixture
def dummy_claim():
    @registry.claim(DUMMY, kind="exact", statement="x² ≥ 0 for the sampled x (a test fixture).")
    def check(budget, seed):
        outs = runner.sweep(_square_task, [dict(x=float(x), seed=seed + i) for i, x in enumerate(range(-3, 4))])
        ys = np.array([float(o["y"]) for o in outs])
        fig = Figure("squares", "x²", [Panel("squares", "x", "x²", [Series("x²", np.arange(-3, 4), ys)])])
        return Outcome(verdict="holds" if ys.min() >= 0 else "violated", evidence=f"min {ys.min()}",
                       numbers={"min": float(ys.min())},
                       counterexample=None, plots=[fig])

    yield check
    registry.REGISTRY.pop(DUMMY, None)


def test_claims_json_shape(capsys):
    assert cli.main(["claims", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["claims"] and all(set(c) == {"id", "paper", "statement", "kind"} for c in doc["claims"])
    assert {"pagan.figure1", "pagan.eq7", "pagan.theorem4"} <= {c["id"] for c in doc["claims"]}


def test_python_m_verify_is_the_same_cli():
    out = subprocess.run([sys.executable, "-m", "verify", "claims", "--paper", "pagan", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert all(c["paper"] == "pagan" for c in json.loads(out.stdout)["claims"])


def test_verify_end_to_end_serial(tmp_path, capsys, dummy_claim):
    out = tmp_path / "res"
    rc = cli.main(["verify", DUMMY, "--out", str(out), "--json", "--seed", "5"], runner=runner.SerialRunner())
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    (rec,) = doc["results"]
    assert set(rec) == {"id", "verdict", "figures", "evidence", "counterexample", "seed", "budget", "seconds",
                        "plots", "control", "code", "finding", "summary", "points", "cpu_seconds"}
    assert rec["id"] == DUMMY and rec["verdict"] == "holds" and rec["seed"] == 5 and rec["budget"] == "quick"
    for f in ("results.json", "report.md", "report.html"):
        assert (out / f).is_file()
    assert (out / rec["plots"][0]).is_file()
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html
    assert json.loads((out / "results.json").read_text())["results"][0]["id"] == DUMMY


def test_dask_runner_persists_and_resumes(tmp_path, dummy_claim):
    """Tasks persist as they finish; a rerun takes them from the cache and gives the same numbers."""
    claims = registry.select([DUMMY])
    first = engine.run_claims(claims, "quick", 1, tmp_path, workers=2, progress=False)
    again = engine.run_claims(claims, "quick", 1, tmp_path, workers=2, progress=False)
    assert first.computed == 7 and first.reused == 0
    assert again.computed == 0 and again.reused == 7
    assert first[0].figures == again[0].figures
    serial = engine.run_claims(claims, "quick", 1, tmp_path / "s", runner=runner.SerialRunner(), progress=False)
    assert serial[0].figures == first[0].figures


def test_crashing_check_is_inconclusive_and_exit_1(tmp_path, capsys):
    @registry.claim("fixture.crash", kind="exact", statement="always raises (a test fixture).")
    def boom(budget, seed):
        raise RuntimeError("kaboom")

    try:
        rc = cli.main(["verify", "fixture.crash", "--out", str(tmp_path), "--json"], runner=runner.SerialRunner())
    finally:
        registry.REGISTRY.pop("fixture.crash", None)
    assert rc == 1
    (rec,) = json.loads(capsys.readouterr().out)["results"]
    assert rec["verdict"] == "inconclusive" and "kaboom" in rec["evidence"]


def test_run_writes_summary(tmp_path, capsys):
    rc = cli.main(["run", "pagan", "--problem", "abs_regression", "--epsilon", "1", "--delta", "1e-5",
                   "--trials", "6", "--steps", "40", "--out", str(tmp_path), "--json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert (tmp_path / "run.json").is_file()
    assert doc and "pagan" in json.dumps(doc)


def test_bench_unknown_name_and_one_benchmark(tmp_path):
    from kernels import InvalidParameter
    from verify.bench import run_benchmarks

    with pytest.raises(InvalidParameter, match="benchmark"):
        run_benchmarks(names=("nope",))
    (row,) = run_benchmarks(tmp_path, quick=True, names=("pagan_loop",))
    assert row["kernel"] > 0 and row["reference"] > 0
    # the headline is the median of back-to-back pairs; the ratio of the two bests is kept beside it
    assert row["speedup_vs_reference"] == pytest.approx(float(np.median(row["speedup_repeats"])))
    assert row["speedup_of_bests"] == pytest.approx(row["kernel"] / row["reference"])
    assert len(row["speedup_repeats"]) == 3 and row["limit_fraction"] is None
    assert json.loads((tmp_path / "bench.json").read_text())["benchmarks"][0]["name"] == "pagan_loop"


BAD = [
    (["run", "pagan", "--problem", "abs_regression", "--epsilon", "-1"], "--epsilon"),
    (["run", "pagan", "--problem", "abs_regression", "--epsilon", "1", "--delta", "1.5"], "--delta"),
    (["run", "pagan", "--problem", "abs_regression", "--trials", "0"], "--trials"),
    (["run", "pagan", "--problem", "mnist"], "--problem"),
    (["run", "adam", "--problem", "abs_regression"], "ALGORITHM"),
    (["run", "pagan", "--problem", "abs_regression", "--epsilon", "nan"], "--epsilon"),
    (["verify", "pagan.nonsense"], "claim"),
    (["verify", "--budget", "huge"], "--budget"),
    (["verify", "--paper", "nope"], "--paper"),
    (["verify", "--workers", "0"], "--workers"),
    (["verify", "--seed", "-3"], "--seed"),
    (["bogus-command"], ""),
]


@pytest.mark.parametrize("argv, name", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_one_line_exit_2_nothing_written(argv, name, tmp_path, capsys):
    out = tmp_path / "out"
    extra = ["--out", str(out)] if argv[0] in ("run", "verify") else []
    assert cli.main(argv + extra) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("dpverify: error:") and name in err
    assert not out.exists()


def test_claims_table_and_paper_filter(capsys):
    assert cli.main(["claims"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["id", "kind", "statement"]
    assert out[-1].endswith("claims") and int(out[-1].split()[0]) >= 1
    assert cli.main(["claims", "--paper", "adp", "--json"]) == 0
    assert all(c["paper"] == "adp" for c in json.loads(capsys.readouterr().out)["claims"])


def test_help_exits_0(capsys):
    assert cli.main(["--help"]) == 0
    assert "verify" in capsys.readouterr().out


def test_verify_human_output_and_report_files(tmp_path, capsys, dummy_claim):
    out = tmp_path / "res"
    assert cli.main(["verify", DUMMY, "--out", str(out)], runner=runner.SerialRunner()) == 0
    cap = capsys.readouterr()
    table = cap.out.splitlines()
    assert table[0].split() == ["id", "verdict", "control", "seconds", "evidence"]
    assert any(line.startswith(DUMMY) and "holds" in line for line in table)
    assert f"report: {out / 'report.md'}" in cap.out
    assert "holds" in cap.err and DUMMY in cap.err  # one progress line per finished claim
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["fixture_dummy__squares.png"]
    md = (out / "report.md").read_text()
    assert f"## `{DUMMY}` — holds" in md and "x² ≥ 0 for the sampled x" in md
    assert "](figures/fixture_dummy__squares.png)" in md and "| min | 0 |" in md
    meta = json.loads((out / "results.json").read_text())["meta"]
    assert meta["budget"] == "quick" and meta["seed"] == 0 and set(meta) == {"budget", "seed", "version",
                                                                               "started", "seconds", "ids"}
    assert meta["ids"] == [DUMMY]  # the claims this run checked


def test_verify_json_keeps_stdout_pure(tmp_path, capsys, dummy_claim):
    assert cli.main(["verify", DUMMY, "--out", str(tmp_path), "--json"], runner=runner.SerialRunner()) == 0
    cap = capsys.readouterr()
    assert set(json.loads(cap.out)) == {"results"}  # nothing but the JSON document on stdout
    assert "report:" in cap.err


EXACT = [
    (["run", "pagan", "--problem", "abs_regression", "--epsilon", "0"],
     "--epsilon: must be > 0 and finite (got 0)"),
    (["run", "pagan", "--problem", "abs_regression", "--epsilon", "abc"],
     "--epsilon: must be a real number (got abc)"),
    (["run", "pagan", "--problem", "abs_regression", "--delta", "0"],
     "--delta: must be in the open interval (0, 1) (got 0)"),
    (["run", "pagan", "--problem", "abs_regression", "--delta", "1.5"],
     "--delta: must be in the open interval (0, 1) (got 1.5)"),
    (["run", "pagan", "--problem", "abs_regression", "--trials", "2.5"],
     "--trials: must be an integer >= 1 (got 2.5)"),
    (["run", "pagan", "--problem", "abs_regression", "--steps", "0"], "--steps: must be an integer >= 1 (got 0)"),
    (["run", "pagan", "--problem", "mnist"],
     "--problem: must be one of abs_regression, linear_subgaussian, sign_mean (got mnist)"),
    (["run"], "the following arguments are required: ALGORITHM"),
    (["verify", "--budget", "huge"], "--budget: must be one of quick, full (got huge)"),
    (["verify", "--workers", "abc"], "--workers: must be an integer in [1, 256] (got abc)"),
    (["verify", "--workers", "1e9"], "--workers: must be an integer in [1, 256] (got 1e9)"),
    (["verify", "--scheduler", "notaurl"],
     "--scheduler: must be a Dask scheduler address such as tcp://host:8786 (got notaurl)"),
    (["verify", "--paper", "nope"],
     "--paper: must be one of pagan, noisy_adagrad, dp_adam_design, adadps, adp (got nope)"),
    (["verify", "--frobnicate"], "unrecognized arguments: --frobnicate"),
]


@pytest.mark.parametrize("argv, message", EXACT, ids=[" ".join(a) for a, _ in EXACT])
def test_bad_input_exact_message(argv, message, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(argv + ["--out", str(out)]) == 2
    cap = capsys.readouterr()
    assert cap.err == f"dpverify: error: {message}\n" and cap.out == ""
    assert not out.exists()


def test_bad_input_claims_and_unknown_ids(capsys):
    assert cli.main(["claims", "--paper", "nope"]) == 2
    assert capsys.readouterr().err == ("dpverify: error: --paper: must be one of pagan, noisy_adagrad, "
                                       "dp_adam_design, adadps, adp (got nope)\n")
    assert cli.main(["verify", "pagan.nonsense"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpverify: error: claim id: must be one of ") and err.endswith("(got 'pagan.nonsense')\n")
    assert err.count("\n") == 1
    assert cli.main(["verify", "pagan.theorm2"]) == 2
    err = capsys.readouterr().err
    assert "did you mean pagan.theorem2" in err and "pagan.lemma3.1" not in err  # a suggestion, not the whole list
    assert cli.main(["run", "pagen", "--problem", "abs_regression"]) == 2
    err = capsys.readouterr().err
    assert "did you mean pagan" in err and "in all)" in err and err.count("\n") == 1
    assert cli.main([]) == 2
    assert capsys.readouterr().err == "dpverify: error: the following arguments are required: COMMAND\n"


def test_subset_rerun_keeps_the_other_claims(tmp_path, capsys, dummy_claim):
    """Verifying one claim into an output that holds others keeps theirs (with their seed, budget and figures),
    and marks a result of other code as stale."""
    out = tmp_path / "res"
    assert cli.main(["verify", "pagan.eq7", DUMMY, "--out", str(out)], runner=runner.SerialRunner()) == 0
    doc = json.loads((out / "results.json").read_text())
    fig = next(r for r in doc["results"] if r["id"] == DUMMY)["plots"][0]
    # rewrite the dummy's record as if an earlier version of the code had made it
    for r in doc["results"]:
        if r["id"] == DUMMY:
            r["code"] = "0" * 16
    (out / "results.json").write_text(json.dumps(doc))
    capsys.readouterr()
    assert cli.main(["verify", "pagan.eq7", "--seed", "3", "--out", str(out)], runner=runner.SerialRunner()) == 0
    table = capsys.readouterr().out
    assert DUMMY not in table  # the table shows this run
    doc = json.loads((out / "results.json").read_text())
    by_id = {r["id"]: r for r in doc["results"]}
    assert set(by_id) == {"pagan.eq7", DUMMY}
    assert by_id["pagan.eq7"]["seed"] == 3 and by_id[DUMMY]["seed"] == 0
    assert (out / fig).is_file()  # the kept claim's figure is still there
    md = (out / "report.md").read_text()
    assert "kept from an earlier run (seed 0, budget quick); STALE: the code has changed since" in md
    assert "earlier run, stale" in (out / "report.html").read_text()


def test_verdict_filter_claims_ids_and_run_default_problem(tmp_path, capsys, dummy_claim):
    out = tmp_path / "res"
    assert cli.main(["verify", DUMMY, "--out", str(out), "--verdict", "violated"], runner=runner.SerialRunner()) == 0
    text = capsys.readouterr().out
    assert "(--verdict violated: 0 of 1 claims shown)" in text and f"{DUMMY}  holds" not in text
    assert cli.main(["verify", DUMMY, "--verdict", "maybe"]) == 2
    assert "--verdict: must be one of holds, violated, inconclusive" in capsys.readouterr().err
    assert cli.main(["claims", "pagan.eq7", "--json"]) == 0
    assert [c["id"] for c in json.loads(capsys.readouterr().out)["claims"]] == ["pagan.eq7"]
    rc = cli.main(["run", "sgd", "--steps", "20", "--trials", "2", "--out", str(tmp_path / "run"), "--json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["problem"] == "abs_regression" and doc["plot"] == "loss_curve.png"  # the paper's problem by default
