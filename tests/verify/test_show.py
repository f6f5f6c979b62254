"""`dpverify show ID`: one claim explained."""

from __future__ import annotations

import json

from verify import cli
from verify.registry import Result


def test_show_without_a_result_prints_statement_and_theory(tmp_path, capsys):
    assert cli.main(["show", "pagan.eq7", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pagan.eq7  (exact, paper pagan") and "Statement:" in out and "Theory:" in out
    assert "No recorded result" in out and "Mutants:" in out


def test_show_with_a_result_and_mutants(tmp_path, capsys):
    ctl = {"verdict": "violated", "reason": "n: grows", "control": {"test": "slope", "alpha": 1e-4,
           "family": "Bonferroni", "margin": 0.1, "holds_level": 0.95}}
    row = Result("pagan.eq7", "violated", {"k": 1.0}, "the evidence", {"n": 5}, 2, "quick", 1.0,
                 ["figures/x.png"], [ctl]).to_dict()
    (tmp_path / "results.json").write_text(json.dumps({"meta": {"started": "now"}, "results": [row]}))
    (tmp_path / "mutants.json").write_text(json.dumps({"mutants": [
        {"claim": "pagan.eq7", "mutant": "m1", "original": "violated", "verdict": "holds", "killed": True},
        {"claim": "pagan.eq7", "mutant": "m2", "original": "violated", "verdict": "violated", "killed": False}]}))
    assert cli.main(["show", "pagan.eq7", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Latest verdict: violated (family-wise 5%)" in out and "seed 2" in out
    assert "Decisions:" in out and "Counterexample:" in out and "figures/x.png" in out
    assert "Mutants: caught 1 of 2" in out
    assert cli.main(["show", "pagan.eq7", "--out", str(tmp_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["result"]["verdict"] == "violated" and len(doc["mutants"]) == 2


def test_show_unknown_id_suggests(capsys):
    assert cli.main(["show", "pagan.theorm2"]) == 2
    err = capsys.readouterr().err
    assert "did you mean pagan.theorem2" in err and len(err.strip().splitlines()) == 1
