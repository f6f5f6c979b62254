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


def test_compare_of_different_claim_sets_says_how_many_were_compared(tmp_path, capsys):
    a = _write(tmp_path / "a", {"pagan.x": "holds", "pagan.y": "holds", "pagan.z": "violated"})
    b = _write(tmp_path / "b", {"pagan.x": "holds", "pagan.w": "inconclusive"}, seed=1)
    sets = [compare.load(a), compare.load(b)]
    assert compare.coverage(sets) == {"claims": [3, 2], "total": 4, "compared": 1, "absent": [1, 2]}
    assert cli.main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert ("the claim sets differ: [0] has 3, [1] has 2 claims; 1 of 4 compared (present in every set); "
            "absent (shown as '-'): 1 from [0], 2 from [1]") in out
    assert cli.main(["compare", str(a), str(b), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["coverage"]["compared"] == 1
    assert cli.main(["compare", str(a), str(a)]) == 0
    assert "the same 3 claims in every set: all compared" in capsys.readouterr().out
