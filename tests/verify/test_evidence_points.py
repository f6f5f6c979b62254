"""Evidence for reading: a result's summary sentence and its points (the table of what the decision used).

The points travel through results.json and back, old files without them still load, the reports and
``dpverify show`` render them as a table, the runner reads them off the decision records when a check gives
none, and the summary tables have a mutants column only when the run has mutation results.
"""

from __future__ import annotations

import html
import json

import numpy as np
import pytest

from tests.verify.evidence_support import lost_numbers
from verify import audit, cli, decide, registry, report, runner
from verify.mutants import Tally
from verify.registry import Claim, Outcome, Result
from verify.result_files import BadResults, load_results, parse_results

POINTS = [{"T": 100, "measured": 0.41, "bound": 0.52, "margin": 0.11, "note": "paper's setting"},
          {"T": 1000, "measured": 0.13, "bound": 0.164, "margin": 0.034, "within": True}]
SUMMARY = "measured ≤ bound at both horizons (T = 100, 1000): holds."
EVIDENCE = ("T=100: measured 0.41 ≤ bound 0.52 (margin 0.11, the paper's setting); "
            "T=1000: measured 0.13 ≤ bound 0.164 (margin 0.034)")


def _result(cid="evlab.bound", **kw) -> Result:
    args = dict(summary=SUMMARY, points=[dict(p) for p in POINTS])
    args.update(kw)
    return Result(cid, "holds", {"ratio": 0.8}, EVIDENCE, None, 0, "quick", 1.0, [], **args)


def _claim(cid="evlab.bound") -> Claim:
    return Claim(cid, "evlab", "The measured error stays under the bound.", "expectation", (),
                 lambda budget, seed: Outcome(verdict="holds", evidence="ok"))


# ---- the data model ---------------------------------------------------------------------------------------
def test_summary_and_points_round_trip_through_results_json(tmp_path):
    r = _result()
    report.write_reports([r], [_claim()], tmp_path)
    meta, (back,) = load_results(tmp_path / "results.json", in_dir=tmp_path)
    assert back.summary == SUMMARY and back.points == POINTS and back.evidence == EVIDENCE
    assert back.to_dict() == r.to_dict()
    assert list(back.points[0]) == list(POINTS[0])  # column order kept


def test_a_results_json_without_summary_or_points_still_loads(tmp_path):
    row = _result().to_dict()
    del row["summary"], row["points"]
    meta, (r,) = parse_results(json.dumps({"results": [row]}), "old.json")
    assert r.summary == "" and r.points == [] and r.headline == EVIDENCE


@pytest.mark.parametrize("points, fault", [
    ({"T": 1}, "points must be a list"),
    ([1.5], "points[0] must be an object"),
    ([{"T": [1, 2]}], "points[0].T must be a string, a number"),
    ([{"T": {"a": 1}}], "points[0].T must be a string, a number"),
])
def test_malformed_points_in_a_results_json_are_refused_in_one_line(points, fault):
    row = _result().to_dict()
    row["points"] = points
    with pytest.raises(BadResults) as exc:
        parse_results(json.dumps({"results": [row]}), "bad.json")
    assert fault in str(exc.value) and "\n" not in str(exc.value)


def test_outcome_checks_its_points_and_takes_numpy_scalars():
    o = Outcome(verdict="holds", evidence="e", summary="  one   sentence ",
                points=[{"n": np.int64(3), "x": np.float64(0.5), "ok": np.bool_(True)}])
    assert o.summary == "one sentence" and o.points == [{"n": 3, "x": 0.5, "ok": True}]
    assert type(o.points[0]["n"]) is int and type(o.points[0]["ok"]) is bool
    for bad in ([{"x": [1, 2]}], [{"": 1}], [3], {"x": 1}):
        with pytest.raises(TypeError):
            Outcome(verdict="holds", evidence="e", points=bad)


def test_a_non_finite_figure_marks_the_summary_as_well_as_the_evidence():
    o = Outcome(verdict="holds", evidence="e", summary="s", numbers={"x": float("nan")})
    assert o.verdict == "inconclusive" and o.summary.startswith("non-finite figures ['x']")


def test_decision_points_are_the_decision_records():
    d = decide.mean_at_most([0.1, 0.2, 0.15, 0.12], 1.0, what="excess loss")
    (p,) = decide.decision_points([d, "not a decision"])
    assert p["test"] == d.control.test and p["verdict"] == "holds"
    assert (p["estimate"], p["holds bound"], p["violated bound"]) == (d.estimate, d.holds_bound, d.violated_bound)
    assert p["α"] == d.control.alpha and p["margin"] is None
    r = decide.rate([10, 100, 1000], [[1.0, 1.1], [1.0, 0.9], [1.05, 0.95]], axis="T",
                    asymptotic=[True] * 3, criterion="all")
    (q,) = decide.decision_points([r])
    assert q["slope"] == r.details["slope"] and q["n points"] == 3 and q["decades"] == r.details["decades"]


@pytest.fixture
def decided_claim():
    cid = "evlab.decided"

    @registry.claim(cid, kind="expectation", statement="E[X] ≤ 1 (a test fixture).", tests=1)
    def check(budget, seed):
        d = decide.mean_at_most([0.1, 0.2, 0.15, 0.12], 1.0, what="X")
        return Outcome(verdict=str(d.verdict), evidence=d.phrase(), decisions=[d])

    yield cid
    registry.REGISTRY.pop(cid, None)


def test_the_runner_fills_the_points_from_the_decisions(tmp_path, capsys, decided_claim):
    out = tmp_path / "res"
    assert cli.main(["verify", decided_claim, "--out", str(out)], runner=runner.SerialRunner()) == 0
    capsys.readouterr()
    (r,) = load_results(out / "results.json", in_dir=out)[1]
    assert r.verdict == "holds" and len(r.points) == 1
    assert r.points[0]["test"] == r.control[0]["control"]["test"]
    assert r.points[0]["estimate"] == r.control[0]["estimate"] and r.points[0]["verdict"] == "holds"
    assert '<table class="points">' in (out / "report.html").read_text()


# ---- the reports ------------------------------------------------------------------------------------------
def test_reports_show_the_summary_then_the_points_table_and_keep_the_full_evidence(tmp_path):
    report.write_reports([_result()], [_claim()], tmp_path)
    page = (tmp_path / "report.html").read_text()
    assert f"<strong>Evidence.</strong> {SUMMARY}" in page
    table = page.split('<table class="points">')[1].split("</table>")[0]
    assert "<th>T</th><th>measured</th><th>bound</th><th>margin</th><th>note</th><th>within</th>" in table
    assert '<td class="num">1000</td><td class="num">0.13</td><td class="num">0.164</td>' in table
    assert "<td>paper&#x27;s setting</td>" in table and "<td>True</td>" in table
    assert "evidence in one paragraph" in page and "margin 0.11, the paper&#x27;s setting" in page
    md = (tmp_path / "report.md").read_text()
    assert f"**Evidence.** {SUMMARY}" in md
    assert "| T | measured | bound | margin | note | within |" in md and "|---:|---:|---:|---:|---|---|" in md
    assert "| 1000 | 0.13 | 0.164 | 0.034 |  | True |" in md
    assert "evidence in one paragraph" in md and EVIDENCE in md
    # the summary table's evidence column is the summary sentence
    assert f"| {SUMMARY} |" in md


def test_a_result_without_summary_or_points_reads_as_before(tmp_path):
    r = _result(summary="", points=[])
    report.write_reports([r], [_claim()], tmp_path)
    page = (tmp_path / "report.html").read_text()
    assert '<table class="points">' not in page and "evidence in one paragraph" not in page
    assert f"<strong>Evidence.</strong> {html.escape(EVIDENCE)}" in page


def test_the_mutants_column_appears_only_when_the_run_has_mutation_results(tmp_path):
    rs = [_result(), _result("evlab.other")]
    claims = [_claim(), _claim("evlab.other")]
    report.write_reports(rs, claims, tmp_path / "plain")
    md = (tmp_path / "plain" / "report.md").read_text()
    page = (tmp_path / "plain" / "report.html").read_text()
    summary_md = md.split("## Summary")[1].split("\n\n")[1]
    assert summary_md.startswith("| id | verdict | evidence | seconds |") and "not run" not in summary_md
    summary_html = page.split('<h2 id="summary">')[1].split("</table>")[0]
    assert "<th>mutants</th>" not in summary_html and 'class="muts"' not in summary_html
    assert '<col class="m">' not in summary_html

    tally = {"evlab.bound": Tally(caught=2, total=3, refuted=1, budget="quick")}
    report.write_reports(rs, claims, tmp_path / "mut", mutants=tally)
    md = (tmp_path / "mut" / "report.md").read_text()
    page = (tmp_path / "mut" / "report.html").read_text()
    summary_md = md.split("## Summary")[1].split("\n\n")[1]
    assert summary_md.startswith("| id | verdict | mutants | evidence | seconds |")
    assert "| caught 2 of 3 |" in summary_md and "| not run |" in summary_md  # the other claim: not run
    summary_html = page.split('<h2 id="summary">')[1].split("</table>")[0]
    assert "<th>mutants</th>" in summary_html and summary_html.count('class="muts"') == 2


# ---- dpverify show ----------------------------------------------------------------------------------------
@pytest.fixture
def shown(tmp_path):
    """A results.json with one built-in claim whose counterexample has non-ASCII text (and a bidi override)."""
    ce = {"σ": 0.5, "note": "échec à ε = 1 — δ‖x‖²", "tricky": "a\u202eb"}
    row = Result("pagan.eq7", "violated", {"k": 1.0}, EVIDENCE, ce, 2, "quick", 1.0, [], summary=SUMMARY,
                 points=POINTS).to_dict()
    (tmp_path / "results.json").write_text(json.dumps({"meta": {"started": "now"}, "results": [row]}),
                                           encoding="utf-8")
    return tmp_path


def test_show_prints_non_ascii_as_is_and_the_points_table(shown, capsys):
    assert cli.main(["show", "pagan.eq7", "--out", str(shown)]) == 0
    out = capsys.readouterr().out
    assert '"σ": 0.5' in out and "échec à ε = 1 — δ‖x‖²" in out and "\\u03c3" not in out
    assert "\u202e" not in out and "a\\u202eb" in out  # a control character is still escaped
    lines = out.splitlines()
    i = lines.index("Points:")
    assert lines[i + 1].split() == ["T", "measured", "bound", "margin", "note", "within"]
    assert lines[i + 4].split() == ["1000", "0.13", "0.164", "0.034", "True"]
    assert "Evidence in one paragraph:" in out and SUMMARY in out


def test_show_json_is_valid_json_with_non_ascii_unescaped(shown, capsys):
    assert cli.main(["show", "pagan.eq7", "--out", str(shown), "--json"]) == 0
    out = capsys.readouterr().out
    assert "échec à ε = 1 — δ‖x‖²" in out and '"σ"' in out and "\\u03c3" not in out and "\\u00e9" not in out
    assert "\u202e" not in out and "a\\u202eb" in out
    doc = json.loads(out)
    ce = doc["result"]["counterexample"]
    assert ce["tricky"] == "a\u202eb" and ce["σ"] == 0.5
    assert doc["result"]["summary"] == SUMMARY and doc["result"]["points"] == POINTS


# ---- no fact lost: a split evidence keeps every number in its summary or its points -----------------------
def test_the_fact_check_itself_can_fail():
    assert lost_numbers("a 1.234 and 7 and 0.5", "a 7", [{"x": 1.2341}]) == ["0.5"]
    assert lost_numbers("18% of 1.23e+03 steps", "", [{"f": 0.18, "n": 1234}]) == []
    assert lost_numbers("18% of 1.23e+03 steps", "", [{"f": 0.2, "n": 1240}]) == ["18%", "1.23e+03"]


@pytest.mark.parametrize("pairs, trials, verdict", [
    (((1.5, 2.0), (1.0, 4.0)), 20_000, "holds"), (((1.5, 2.0), (1.0, 4.0)), 1000, "inconclusive"),
    (((0.5, 2.0), (1.0, 4.0)), 20_000, "inconclusive"), (((0.5, 2.0), (4.5, 4.0), (3.0, 2.5)), 1000, "violated")],
    ids=["holds", "blind", "weak", "leak"])
@pytest.mark.parametrize("budget", ["quick", "full"])
def test_an_audits_summary_and_points_keep_every_number_of_its_evidence(pairs, trials, verdict, budget):
    rows = [{"audit_epsilon_lb": lb, "accountant_epsilon": acc, "audit_method": "gdp"} for lb, acc in pairs]
    out = audit.audit_outcome("audit_x", "x", rows, [f"cfg{k}" for k in range(len(rows))], trials=trials,
                              level=0.99, budget=budget, family="the x audit tests")
    assert out.verdict == verdict
    assert "cfg" not in out.summary  # the summary says the outcome; the configurations are the points
    assert [p["configuration"] for p in out.points] == [f"cfg{k}" for k in range(len(rows))]
    assert [p["audited ε ≥"] for p in out.points] == [lb for lb, _ in pairs]
    assert [p["verdict"] for p in out.points] == [str(d.verdict) for d in out.decisions]
    assert lost_numbers(out.evidence, out.summary, out.points, out.decisions) == []
    assert out.summary.split(" (")[0].split(":")[0] in out.evidence or out.verdict == "holds"
