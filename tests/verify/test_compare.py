"""`dpverify compare`: verdicts that move between result sets, and contradictions."""

from __future__ import annotations

import json

from verify import cli, compare
from verify.registry import Result


def _write(path, verdicts, seed=0, budget="quick"):
    path.mkdir()
    rows = [Result(cid, v, {}, "e", None, seed, budget, 1.0, []).to_dict() for cid, v in verdicts.items()]
    (path / "results.json").write_text(json.dumps({"meta": {"seed": seed, "budget": budget}, "results": rows}))
    return path


def test_compare_flags_contradictions_not_inconclusive_moves(tmp_path, capsys):
    a = _write(tmp_path / "a", {"pagan.x": "holds", "pagan.y": "holds", "pagan.z": "violated"})
    b = _write(tmp_path / "b", {"pagan.x": "violated", "pagan.y": "inconclusive", "pagan.z": "violated"}, seed=1)
    rows = compare.table([compare.load(a), compare.load(b)])
    by_id = {r["id"]: r for r in rows}
    assert by_id["pagan.x"]["contradiction"] and by_id["pagan.x"]["moved"]
    assert by_id["pagan.y"]["moved"] and not by_id["pagan.y"]["contradiction"]
    assert not by_id["pagan.z"]["moved"]
    assert cli.main(["compare", str(a), str(b / "results.json"), "--moved"]) == 0
    out = capsys.readouterr().out
    assert "CONTRADICTION" in out and "pagan.z" not in out.split("----")[-1].split("[0]")[0]
    assert "3 claims: 2 moved, 1 contradictions" in out


def test_compare_bad_input_exits_2(tmp_path, capsys):
    (tmp_path / "junk.json").write_text("{not json")
    assert cli.main(["compare", str(tmp_path / "junk.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpverify: error: DIR:") and len(err.strip().splitlines()) == 1
