"""verify.findings: the scope of a violation is computed from where it failed, and findings survive results.json."""

import math

import pytest

from verify.findings import (
    Finding,
    PaperSetting,
    Region,
    Repair,
    errata_markdown,
    errata_text,
    json_document,
    rows,
    scope_of,
)
from verify.registry import Outcome, Result

HOLDS_AT_PAPER = PaperSetting(where="§6.1: d = 100", measure="bound / attained", size=0.5, fails=False)
FAILS_AT_PAPER = PaperSetting(where="§6.1: d = 100", measure="bound / attained", size=690.0, fails=True)
REPAIR = Repair(statement="holds once d ≥ 4 is required", verdict="holds", evidence="0/40 points fail")
PAPER_REPAIR = Repair(statement="with the proof's constant 2", verdict="holds", evidence="exact", source="paper")


def edge_only(holding_off_edge=30):
    return Region(explored=40, failing=2, edge="d ≤ 3", failing_on_edge=2, holding_off_edge=holding_off_edge,
                  text="only at d ≤ 3")


def test_failures_confined_to_a_named_edge_with_holding_points_elsewhere_are_a_boundary():
    assert scope_of(edge_only(), HOLDS_AT_PAPER, REPAIR) == "boundary"


def test_a_failure_at_the_papers_setting_is_in_regime_even_when_every_other_failure_is_on_the_edge():
    assert scope_of(edge_only(), FAILS_AT_PAPER, REPAIR) == "in_regime"


def test_a_failure_off_the_named_edge_is_in_regime():
    r = Region(explored=40, failing=3, edge="d ≤ 3", failing_on_edge=2, holding_off_edge=30, text="d ≤ 3 and d = 50")
    assert scope_of(r, HOLDS_AT_PAPER, REPAIR) == "in_regime"


def test_failures_without_a_named_edge_are_in_regime():
    r = Region(explored=40, failing=1, text="at d = 7")
    assert scope_of(r, HOLDS_AT_PAPER, REPAIR) == "in_regime"


def test_an_edge_with_no_explored_point_off_it_is_refused_as_evidence_for_boundary():
    with pytest.raises(ValueError, match="no explored point off it held"):
        scope_of(edge_only(holding_off_edge=0), HOLDS_AT_PAPER, REPAIR)


def test_a_repair_from_the_papers_own_proof_that_holds_is_a_misprint():
    assert scope_of(edge_only(), FAILS_AT_PAPER, PAPER_REPAIR) == "misprint"
    failed = Repair(statement="with the proof's constant 2", verdict="violated", evidence="", source="paper")
    assert scope_of(edge_only(), FAILS_AT_PAPER, failed) == "in_regime"


def test_vacuous_comes_first():
    assert scope_of(edge_only(), FAILS_AT_PAPER, PAPER_REPAIR, vacuous=True) == "vacuous"


def test_no_finding_without_a_failure():
    with pytest.raises(ValueError, match="needs a failure"):
        scope_of(Region(explored=10, failing=0, text=""), HOLDS_AT_PAPER, REPAIR)


@pytest.mark.parametrize("kwargs, match", [
    (dict(explored=3, failing=4, text=""), "at most explored"),
    (dict(explored=5, failing=2, failing_on_edge=3, edge="x", text=""), "at most failing"),
    (dict(explored=5, failing=2, holding_off_edge=4, edge="x", text=""), "explored points that hold"),
    (dict(explored=5, failing=2, failing_on_edge=1, text=""), "need a named"),
    (dict(explored=-1, failing=0, text=""), "non-negative"),
])
def test_inconsistent_regions_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Region(**kwargs)


def test_a_stated_scope_must_agree_with_the_computed_one():
    with pytest.raises(ValueError, match="computed"):
        Finding(region=edge_only(), at_paper_setting=HOLDS_AT_PAPER, repair=REPAIR, scope="in_regime")


def test_a_finding_without_a_repair_must_say_why():
    with pytest.raises(ValueError, match="no_repair_reason"):
        Finding(region=edge_only(), at_paper_setting=HOLDS_AT_PAPER)
    f = Finding(region=edge_only(), at_paper_setting=HOLDS_AT_PAPER, no_repair_reason="the proof is missing")
    assert f.repair_sentence() == "no repair known: the proof is missing"


def test_a_finding_belongs_to_a_violated_outcome_only():
    f = Finding(region=edge_only(), at_paper_setting=HOLDS_AT_PAPER, repair=REPAIR)
    assert Outcome(verdict="violated", evidence="", finding=f).finding is f
    with pytest.raises(ValueError, match="violated outcome"):
        Outcome(verdict="holds", evidence="", finding=f)
    with pytest.raises(TypeError, match="Finding"):
        Outcome(verdict="violated", evidence="", finding={"scope": "boundary"})


def test_a_finding_round_trips_through_a_result_entry():
    f = Finding(region=edge_only(), at_paper_setting=PaperSetting(where="w", measure="δ", size=math.nan, fails=False),
                repair=REPAIR, reading="eq. (10) read as ½·max(σ, d^-3/2)")
    r = Result("p.c", "violated", {}, "e", {"d": 2}, 0, "quick", 1.0, [], [], "", f)
    back = Result.from_dict(r.to_dict())
    assert back.finding.region == f.region and back.finding.repair == f.repair and back.finding.reading == f.reading
    assert math.isnan(back.finding.at_paper_setting.size)
    assert back.finding.scope == "boundary"
    assert r.to_dict()["finding"]["at_paper_setting"]["size"] == "nan"
    g = Finding(region=edge_only(), at_paper_setting=FAILS_AT_PAPER, no_repair_reason="none known")
    assert Result.from_dict(Result("p.c", "violated", {}, "e", None, 0, "quick", 1.0, [], [], "", g).to_dict()
                            ).finding == g


def test_errata_rows_put_in_regime_first_and_name_violations_without_a_finding():
    boundary = Finding(region=edge_only(), at_paper_setting=HOLDS_AT_PAPER, repair=REPAIR)
    in_regime = Finding(region=edge_only(), at_paper_setting=FAILS_AT_PAPER, repair=REPAIR)
    results = [Result("p.a", "violated", {}, "", {"d": 2}, 0, "quick", 0.0, [], [], "", boundary),
               Result("p.b", "violated", {}, "", None, 0, "quick", 0.0, [], [], "", in_regime),
               Result("p.c", "violated", {}, "", None, 0, "quick", 0.0, [], [], "", None),
               Result("p.d", "holds", {}, "", None, 0, "quick", 0.0, [], [], "", None)]
    found = rows(results)
    assert [x["claim"] for x in found] == ["p.b", "p.a", "p.c"]
    assert [x["scope"] for x in found] == ["in_regime", "boundary", None]
    doc = json_document(found)
    assert doc["counts"] == {"p": {"in_regime": 1, "boundary": 1, "none": 1}}
    assert set(doc["findings"][0]) == {"claim", "scope", "region", "at_paper_setting", "counterexample", "repair",
                                       "repair_verdict"}
    md = errata_markdown(found)
    assert md.index("p.b") < md.index("p.a") and "no finding recorded" in md
    assert "d = 2" in errata_text(found)


def test_a_malformed_finding_in_results_json_is_refused_in_one_line_naming_the_file():
    import json

    from verify.result_files import BadResults, parse_results

    f = Finding(region=edge_only(), at_paper_setting=HOLDS_AT_PAPER, repair=REPAIR)
    row = Result("p.c", "violated", {}, "e", None, 0, "quick", 1.0, [], [], "", f).to_dict()
    assert parse_results(json.dumps({"results": [row]}), "R.json")[1][0].finding.scope == "boundary"
    cases = [({**row, "finding": {**row["finding"], "scope": "in_regime"}}, "scope is computed"),
             ({**row, "finding": {k: v for k, v in row["finding"].items() if k != "region"}}, "lacks region"),
             ({**row, "finding": {**row["finding"], "region": {**row["finding"]["region"], "failing": 99}}},
              "at most explored"),
             ({**row, "verdict": "holds"}, "belongs to a violated result"),
             ({**row, "finding": [1]}, "must be an object or null")]
    for bad, match in cases:
        with pytest.raises(BadResults, match=match) as info:
            parse_results(json.dumps({"results": [bad]}), "R.json")
        assert str(info.value).startswith("R.json: ") and "\n" not in str(info.value)


def _result_set(tmp_path):
    import json

    boundary = Finding(region=edge_only(), at_paper_setting=HOLDS_AT_PAPER, repair=REPAIR)
    in_regime = Finding(region=Region(explored=5, failing=5, text="at every n swept"),
                        at_paper_setting=FAILS_AT_PAPER, no_repair_reason="the proof does not give the factor")
    rs = [Result("pagan.eq7.rate", "violated", {}, "e", {"n": 10}, 0, "quick", 0.0, [], [], "", boundary),
          Result("adp.theorem4.1", "violated", {}, "e", None, 0, "quick", 0.0, [], [], "", in_regime),
          Result("adp.lemma2.1", "violated", {}, "e", None, 0, "quick", 0.0, [], [], "", None),
          Result("pagan.eq9", "holds", {}, "e", None, 0, "quick", 0.0, [], [], "", None)]
    (tmp_path / "results.json").write_text(json.dumps({"results": [r.to_dict() for r in rs], "meta": {}}))
    return rs


def test_the_reports_open_with_the_findings_in_regime_first(tmp_path):
    from verify import report

    rs = _result_set(tmp_path)
    md = report.render_markdown(rs, {}, {"budget": "quick", "seed": 0})
    assert md.index("## Findings") < md.index("## Summary")
    assert md.index("adp.theorem4.1 — in_regime") < md.index("pagan.eq7.rate — boundary")
    assert "none known: the proof does not give the factor" in md
    page = report.render_html(rs, {}, {"budget": "quick", "seed": 0}, tmp_path)
    assert page.index('id="findings"') < page.index('id="contents"') < page.index('id="claims"')
    assert page.index('data-scope="in_regime"') < page.index('data-scope="boundary"')
    assert 'data-scope="no finding recorded"' in page


def test_dpverify_findings_prints_the_errata_sheet_as_text_json_and_markdown(tmp_path, capsys):
    import json

    from verify import cli

    _result_set(tmp_path)
    assert cli.main(["findings", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert text.index("adp: 1 in_regime, 1 none") < text.index("pagan: 1 boundary")
    assert "adp.lemma2.1  [no finding recorded]" in text and "holds once d ≥ 4 is required -> holds" in text
    assert cli.main(["findings", "--out", str(tmp_path), "--paper", "pagan", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["claim"] for f in doc["findings"]] == ["pagan.eq7.rate"]
    assert doc["findings"][0]["scope"] == "boundary" and doc["findings"][0]["repair_verdict"] == "holds"
    assert doc["findings"][0]["counterexample"] == {"n": 10} and doc["counts"] == {"pagan": {"boundary": 1}}
    assert cli.main(["findings", "--out", str(tmp_path), "--markdown"]) == 0
    assert capsys.readouterr().out.startswith("## Findings")


def test_dpverify_findings_refuses_a_directory_without_results_and_an_unknown_paper(tmp_path, capsys):
    from verify import cli

    assert cli.main(["findings", "--out", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "results.json" in err and len(err.strip().splitlines()) == 1
    _result_set(tmp_path)
    assert cli.main(["findings", "--out", str(tmp_path), "--paper", "pagn"]) == 2
    assert "--paper" in capsys.readouterr().err
