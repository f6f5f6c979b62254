"""Malformed and hostile result sets, journals and caches: one line and exit 2, or containment -- never a traceback.

* A table of malformed ``results.json`` (truncated, not JSON, lists where objects belong, missing keys, wrong
  types, NaN, overflowing numbers, non-string ids, a link, a directory): ``show``, ``compare`` and ``verify``
  exit 2 with one line naming the file; ``show`` never says "No recorded result" for a file that is there.
* Hypothesis properties (``examples(n)``: n under the ``ci`` profile, 20·n under
  ``DPVERIFY_HYPOTHESIS_PROFILE=fuzz``): documents mutated at a random place, journals and plots entries drawn
  from hostile names, caches whose entries are links, text with control characters.  Each asserts exit 0 or
  exit 2 with one line, and that nothing outside the output directory changed.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.verify.fuzz_support import examples, outside_listing
from verify import cli, contained, outputs, registry, report, runner
from verify.registry import Outcome, Result
from verify.result_files import BadResults, load_results, parse_results

CID = "fixture.fuzz_shown"
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def fast(n: int) -> settings:
    """``examples(n)`` examples (20·n under the fuzz profile), no deadline."""
    return settings(max_examples=examples(n), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module", autouse=True)
def shown_claim():
    def check(budget, seed):
        return Outcome(verdict="holds", evidence="fine", numbers={}, counterexample=None)

    registry.claim(CID, kind="exact", statement="a claim to show (a test fixture)")(check)
    yield
    registry.REGISTRY.pop(CID, None)


def _good_row(**change) -> dict:
    ctl = {"verdict": "holds", "reason": "r", "control": {"test": "t", "alpha": 0.05, "margin": 0.1}}
    row = Result(CID, "holds", {"k": 1.5, "n": 3}, "the evidence", {"n": 5}, 0, "quick", 1.25,
                 ["figures/fixture_fuzz_shown__a.png"], [ctl], "abc", summary="the summary",
                 points=[{"T": 10, "bound": 0.5, "ok": True, "note": None}]).to_dict()
    row.update(change)
    return row


def _good_doc() -> dict:
    return {"meta": {"budget": "quick", "seed": 0, "started": "2026-01-01T00:00:00+00:00"}, "results": [_good_row()]}


def _call(argv) -> tuple[int, str, str]:
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        rc = cli.main(argv, runner=runner.SerialRunner())
    return rc, out.getvalue(), err.getvalue()


def _one_error_line(err: str, names: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("dpverify: error: ") and names in lines[0], err
    assert "Traceback" not in err and not RAW_CONTROL.search(lines[0])


# --------------------------------------------------------------------------------------
# a table of malformed results.json
# --------------------------------------------------------------------------------------
def _text(doc) -> str:
    return json.dumps(doc)


GOOD = _text(_good_doc())
MALFORMED = {
    "empty": "",
    "truncated": GOOD[: len(GOOD) // 2],
    "truncated at the end": GOOD[:-1],
    "not JSON": "results: none",
    "a list": "[]",
    "a string": '"results"',
    "no results": "{}",
    "results an object": _text({"results": {}}),
    "results a string": _text({"results": "x"}),
    "meta a list": _text({"meta": [], "results": []}),
    "meta seed a string": _text({"meta": {"seed": "x"}, "results": []}),
    "a row a list": _text({"results": [[]]}),
    "a row lacks id": _text({"results": [{k: v for k, v in _good_row().items() if k != "id"}]}),
    "an id a number": _text({"results": [_good_row(id=7)]}),
    "an id null": _text({"results": [_good_row(id=None)]}),
    "an id empty": _text({"results": [_good_row(id=" ")]}),
    "an unknown verdict": _text({"results": [_good_row(verdict="maybe")]}),
    "figures a list": _text({"results": [_good_row(figures=[1])]}),
    "evidence a number": _text({"results": [_good_row(evidence=3)]}),
    "counterexample a list": _text({"results": [_good_row(counterexample=[1])]}),
    "seed a string": _text({"results": [_good_row(seed="0")]}),
    "seed a boolean": _text({"results": [_good_row(seed=True)]}),
    "seconds NaN": GOOD.replace('"seconds": 1.25', '"seconds": NaN'),
    "seconds Infinity": GOOD.replace('"seconds": 1.25', '"seconds": -Infinity'),
    "seconds overflowing": GOOD.replace('"seconds": 1.25', '"seconds": 1e999'),
    "seconds negative": _text({"results": [_good_row(seconds=-1)]}),
    "a figure NaN": GOOD.replace('"k": 1.5', '"k": NaN'),
    "seed too long": GOOD.replace('"seed": 0', '"seed": ' + "9" * 5000, 1),
    "plots a string": _text({"results": [_good_row(plots="figures/a.png")]}),
    "a plot a number": _text({"results": [_good_row(plots=[1])]}),
    "control a string": _text({"results": [_good_row(control="x")]}),
    "a control a number": _text({"results": [_good_row(control=[1])]}),
    "a control's control a list": _text({"results": [_good_row(control=[{"control": []}])]}),
    "code a number": _text({"results": [_good_row(code=1)]}),
    "nested too deeply": "[" * 100_000,
    "not UTF-8": b'{"results": [\xff]}',
}


def _plant(out: Path, content) -> Path:
    out.mkdir(exist_ok=True)
    f = out / "results.json"
    (f.write_bytes if isinstance(content, bytes) else f.write_text)(content)
    return f


@pytest.mark.parametrize("case", list(MALFORMED))
def test_show_and_compare_exit_2_naming_the_file(case, tmp_path):
    f = _plant(tmp_path / "out", MALFORMED[case])
    rc, out, err = _call(["show", CID, "--out", str(tmp_path / "out")])
    assert rc == 2 and "No recorded result" not in out
    _one_error_line(err, str(f))
    rc, _, err = _call(["compare", str(tmp_path / "out")])
    assert rc == 2
    _one_error_line(err, str(f))


@pytest.mark.parametrize("case", ["a link", "a directory"])
def test_a_results_json_that_is_not_a_plain_file_is_refused(case, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(GOOD)
    if case == "a link":
        os.symlink(elsewhere, out / "results.json")
    else:
        (out / "results.json").mkdir()
    for argv in (["show", CID, "--out", str(out)], ["compare", str(out)]):
        rc, _, err = _call(argv)
        assert rc == 2
        _one_error_line(err, str(out / "results.json"))


def test_verify_refuses_a_malformed_earlier_result_set_before_any_work(tmp_path):
    calls = []

    @registry.claim("fixture.fuzz_counted", kind="exact", statement="counts its checks (a test fixture)")
    def check(budget, seed):
        calls.append(1)
        return Outcome(verdict="holds", evidence="fine", numbers={}, counterexample=None)

    try:
        f = _plant(tmp_path / "out", MALFORMED["truncated"])
        rc, _, err = _call(["verify", "fixture.fuzz_counted", "--out", str(tmp_path / "out")])
        assert rc == 2 and calls == []
        _one_error_line(err, str(f))
        assert f.read_text() == MALFORMED["truncated"]  # kept as it was, for the user to look at
    finally:
        registry.REGISTRY.pop("fixture.fuzz_counted", None)


def test_a_good_file_still_reads(tmp_path):
    f = _plant(tmp_path / "out", GOOD)
    meta, results = load_results(f, in_dir=tmp_path / "out")
    assert meta["seed"] == 0 and results[0].id == CID
    rc, out, _ = _call(["show", CID, "--out", str(tmp_path / "out")])
    assert rc == 0 and "Latest verdict: holds" in out


MUTANTS_MALFORMED = {
    "truncated": '{"mutants": [{"claim": "x"',
    "a list": "[]",
    "mutants an object": '{"mutants": {}}',
    "a row lacks killed": json.dumps({"mutants": [{"claim": CID, "mutant": "m", "original": "holds",
                                                   "verdict": "holds"}]}),
    "killed a string": json.dumps({"mutants": [{"claim": CID, "mutant": "m", "original": "holds",
                                                "verdict": "holds", "killed": "yes"}]}),
    "a claim a number": json.dumps({"mutants": [{"claim": 1, "mutant": "m", "original": "holds",
                                                 "verdict": "holds", "killed": True}]}),
}


@pytest.mark.parametrize("case", list(MUTANTS_MALFORMED))
def test_a_malformed_mutants_json_is_one_line(case, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mutants.json").write_text(MUTANTS_MALFORMED[case])
    rc, _, err = _call(["show", CID, "--out", str(out)])
    assert rc == 2
    _one_error_line(err, str(out / "mutants.json"))
    rc, _, err = _call(["verify", CID, "--out", str(out)])
    assert rc == 2 and not (out / "results.json").exists()
    _one_error_line(err, str(out / "mutants.json"))


# --------------------------------------------------------------------------------------
# Hypothesis: documents mutated at a random place
# --------------------------------------------------------------------------------------
JUNK = st.sampled_from([None, True, 0, -1, 1.5, "", "x", "\x1b[2J", [], [1], {}, {"a": 1}, 10**30, "../x"])
TEXTS = st.text(alphabet=st.sampled_from(list("ab.-_/ ") + ["\x1b", "\r", "\x07", "\x9b", "\u202e", "\n", "\x00"]),
                max_size=12)
ROW_KEYS = ["id", "verdict", "figures", "evidence", "counterexample", "seed", "budget", "seconds", "plots",
            "control", "code", "summary", "points"]
OPTIONAL_KEYS = ("control", "code", "summary", "points")
REQUIRED_TYPES = {"id": str, "verdict": str, "figures": dict, "evidence": str, "seed": int, "budget": str,
                  "plots": list, "control": list, "code": str, "summary": str, "points": list}


@st.composite
def mutated_documents(draw):
    """(text, valid): a good document with one change, and whether the change keeps it a valid result set."""
    doc = _good_doc()
    row = doc["results"][0]
    how = draw(st.sampled_from(["drop", "junk", "text", "truncate", "wrap", "extra"]))
    if how == "drop":
        key = draw(st.sampled_from(ROW_KEYS))
        del row[key]
        return json.dumps(doc), key in OPTIONAL_KEYS
    if how == "junk":
        key = draw(st.sampled_from(ROW_KEYS))
        v = draw(JUNK)
        row[key] = v
        t = REQUIRED_TYPES.get(key)
        if key == "counterexample":
            valid = v is None or isinstance(v, dict)
        elif key == "seconds":
            valid = isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0
        elif key == "verdict":
            valid = False  # none of the junk is a verdict
        else:
            valid = isinstance(v, t) and not isinstance(v, bool) and (key != "id" or bool(str(v).strip()))
            if key == "plots":
                valid = valid and all(isinstance(p, str) for p in v)
            if key == "control":
                valid = valid and all(isinstance(c, dict) for c in v)
            if key == "points":  # rows of scalars (the junk lists hold no object, so [1] is refused)
                valid = valid and all(isinstance(c, dict) for c in v)
        return json.dumps(doc), valid
    if how == "text":  # control characters in every free text: valid, and must reach nobody's terminal raw
        row["evidence"] = draw(TEXTS)
        row["summary"] = draw(TEXTS)
        row["points"] = [{draw(TEXTS): draw(TEXTS)}]
        row["figures"] = {draw(TEXTS): 1.0}
        row["counterexample"] = {draw(TEXTS): draw(TEXTS)}
        doc["meta"]["started"] = draw(TEXTS)
        return json.dumps(doc), True
    if how == "truncate":
        text = json.dumps(doc)
        return text[: draw(st.integers(0, len(text) - 1))], False
    if how == "wrap":
        return json.dumps(draw(st.sampled_from([[doc], {"results": doc}, {"results": [[row]]}, "x", 3]))), False
    row[draw(st.text(max_size=5))] = draw(JUNK)  # an extra key: ignored
    return json.dumps(doc), True


@fast(60)
@given(mutated_documents())
def test_any_mutated_document_is_read_or_refused_in_one_line(case):
    text, valid = case
    with tempfile.TemporaryDirectory() as d:
        f = _plant(Path(d) / "out", text)
        try:
            parse_results(text, f)
            accepted = True
        except BadResults as exc:
            accepted = False
            assert "\n" not in str(exc) and str(f) in str(exc)
        assert accepted == valid
        rc, out, err = _call(["compare", str(f.parent)])
        if valid:
            assert rc == 0 and not RAW_CONTROL.search(out)
        else:
            assert rc == 2
            _one_error_line(err, str(f))


@fast(15)
@given(mutated_documents())
def test_show_reads_or_refuses_any_mutated_document(case):
    text, valid = case
    with tempfile.TemporaryDirectory() as d:
        f = _plant(Path(d) / "out", text)
        rc, out, err = _call(["show", CID, "--out", str(f.parent)])
        if valid:
            recorded = json.loads(text)["results"][0]["id"] == CID  # the id itself may have been changed
            assert rc == 0 and ("Latest verdict" in out) == recorded and not RAW_CONTROL.search(out)
        else:
            assert rc == 2 and "No recorded result" not in out
            _one_error_line(err, str(f))


@fast(15)
@given(TEXTS, TEXTS, TEXTS)
def test_reports_carry_no_control_characters(evidence, figure, key):
    r = Result(CID, "violated", {figure: 1.0}, evidence, {key: evidence}, 0, "quick", 1.0, [])
    with tempfile.TemporaryDirectory() as d:
        md = report.render_markdown([r], {}, {"budget": "quick", "seed": 0})
        html = report.render_html([r], {}, {"budget": "quick", "seed": 0}, Path(d))
    assert not RAW_CONTROL.search(md) and not RAW_CONTROL.search(html)


# --------------------------------------------------------------------------------------
# Hypothesis: journals, kept plots, caches
# --------------------------------------------------------------------------------------
def _root(d: str) -> tuple[Path, Path]:
    root = Path(d)
    out = root / "out"
    out.mkdir()
    (root / "marker.txt").write_text("marker\n")
    (root / "victim").mkdir()
    (root / "victim" / "data.txt").write_text("precious\n")
    return root, out


def _hostile_names(root: Path):
    return st.sampled_from(["../victim", "../marker.txt", str(root / "victim"), str(root / "marker.txt"), "..", ".",
                            "", "a/../../victim", "victim/../..", "/", "figures/../../marker.txt", "\x1b[2J", 7, None,
                            [], "results.json", "report.md", "figures", "cache", ".dpverify.lock",
                            ".dpverify-staging-0123456789ab", ".dpverify-previous-0123456789ab",
                            ".dpverify-staging-../../victim", ".dpverify-staging-XYZ", "LINKED"])


@st.composite
def journals(draw):
    names = _hostile_names(Path("/ROOT"))
    token = draw(st.sampled_from(["match", "other", "missing", "junk"]))
    j = {"staging": draw(names), "previous": draw(names), "names": draw(st.lists(names, max_size=4)),
         "new": draw(st.lists(names, max_size=2)),
         "token": {"match": "a" * 32, "other": "b" * 32, "junk": ["x"]}.get(token)}
    if token == "missing":
        del j["token"]
    for k in [k for k in ("staging", "previous", "names", "new") if draw(st.booleans()) and draw(st.booleans())]:
        del j[k]
    return j, draw(st.booleans())  # the journal, and whether the token file is written


def _resolve(value, root: Path):
    """Names drawn for "/ROOT" made to point at this example's root; LINKED: a link out, planted in out/."""
    if isinstance(value, list):
        return [_resolve(v, root) for v in value]
    return value.replace("/ROOT", str(root)) if isinstance(value, str) else value


@fast(60)
@given(journals())
def test_no_journal_acts_outside_the_output_directory(case):
    journal, token_file = case
    with tempfile.TemporaryDirectory() as d:
        root, out = _root(d)
        journal = {k: _resolve(v, root) for k, v in journal.items()}
        os.symlink(root / "victim", out / "LINKED")
        os.symlink(root / "victim", out / ".dpverify-staging-0123456789ab")
        (out / "results.json").write_text("kept")
        if token_file:
            (out / outputs.TOKEN_NAME).write_text("a" * 32)
        (out / outputs.JOURNAL_NAME).write_text(json.dumps(journal))
        before = outside_listing(root, out)
        err = io.StringIO()
        with redirect_stderr(err):
            outputs.recover(out)
        assert outside_listing(root, out) == before
        assert not os.path.lexists(out / outputs.JOURNAL_NAME)
        assert os.path.islink(out / "LINKED")  # a link in DIR is never moved or followed by a planted journal
        for line in err.getvalue().splitlines():
            assert line.startswith("dpverify: warning: ") and not RAW_CONTROL.search(line)


GOOD_FIGURE = "figures/fixture_fuzz_shown__a.png"
PLOT_NAMES = st.one_of(_hostile_names(Path("/ROOT")), st.sampled_from(
    [GOOD_FIGURE, "figures/link.png", "figures/dir.png", "figures/absent.png", "figures/../" + GOOD_FIGURE]))


@fast(40)
@given(st.lists(PLOT_NAMES, max_size=5))
@example(["results.json", "report.md", "figures", GOOD_FIGURE])
@example(["figures/link.png", "figures/dir.png", "/ROOT/marker.txt", "../marker.txt"])
def test_kept_plots_are_only_the_tool_s_figures_inside_the_directory(plots):
    with tempfile.TemporaryDirectory() as d:
        root, out = _root(d)
        plots = _resolve(plots, root)
        (out / "figures").mkdir()
        (out / GOOD_FIGURE).write_bytes(b"png")
        os.symlink(root / "marker.txt", out / "figures" / "link.png")
        os.symlink(root / "victim", out / "figures" / "dir.png")
        (out / "report.md").write_text("a report")
        row = _good_row(plots=[p for p in plots if isinstance(p, str)])
        (out / "results.json").write_text(json.dumps({"meta": {}, "results": [row]}))
        staged = out / ".dpverify-staging-abcdefabcdef"
        staged.mkdir()
        before = outside_listing(root, out)
        err = io.StringIO()
        with redirect_stderr(err):
            merged = report.merge_previous([], out, staged, [CID])
        assert outside_listing(root, out) == before
        assert set(merged[0].plots) <= {GOOD_FIGURE}
        for p in merged[0].plots:
            assert (staged / p).is_file() and not (staged / p).is_symlink()
        assert all(ln.startswith("dpverify: warning: ") for ln in err.getvalue().splitlines())


def _twice(x: float) -> dict:
    return {"y": np.array(2 * x)}


@fast(25)
@given(st.lists(st.sampled_from(["absent", "real", "link to a file", "link to a directory", "a directory",
                                 "garbage", "a dangling link"]), min_size=3, max_size=3),
       st.sampled_from(["real", "link"]))
def test_a_cache_of_links_and_junk_never_reaches_outside(entries, claim_dir):
    with tempfile.TemporaryDirectory() as d:
        root, out = _root(d)
        cache = out / "cache"
        tasks = [dict(x=float(i)) for i in range(3)]
        r = runner.CachedSerialRunner(cache)
        with runner.using(r), runner.claim_scope(CID):
            runner.sweep(_twice, tasks)
        files = sorted((cache / CID).glob("*.npz"))
        for f, how in zip(files, entries):
            if how == "real":
                continue
            f.unlink()
            if how == "link to a file":
                os.symlink(root / "marker.txt", f)
            elif how == "link to a directory":
                os.symlink(root / "victim", f)
            elif how == "a directory":
                f.mkdir()
            elif how == "garbage":
                f.write_bytes(b"garbage")
            elif how == "a dangling link":
                os.symlink(root / "nowhere", f)
        if claim_dir == "link":
            os.rename(cache / CID, root / "victim" / "moved")
            os.symlink(root / "victim" / "moved", cache / CID)
        before = outside_listing(root, out)
        err = io.StringIO()
        with redirect_stderr(err), runner.using(runner.CachedSerialRunner(cache)), runner.claim_scope(CID):
            outs = runner.sweep(_twice, tasks)
        assert [float(o["y"]) for o in outs] == [0.0, 2.0, 4.0]
        assert outside_listing(root, out) == before
        assert all(ln.startswith("dpverify: warning: ") for ln in err.getvalue().splitlines())


def test_escape_controls_leaves_nothing_raw():
    every = "".join(chr(i) for i in range(0x00, 0xa0)) + "\u2028\u2029\u202a\u202e\u2066\u2069"
    assert not RAW_CONTROL.search(contained.escape_controls(every).replace("\n", ""))
    assert "\n" not in contained.escape_controls(every)


def test_ids_and_evidence_with_control_characters_reach_the_terminal_escaped(tmp_path):
    hostile = "fixture.x\x1b]0;title\x07\x1b[2J\rmoved\u202e"
    rows = [_good_row(id=hostile), _good_row(evidence="\x1b[31mred")]
    doc = {"meta": {"seed": 0, "budget": "quick"}, "results": rows}
    f = _plant(tmp_path / "out", json.dumps(doc))
    rc, out, _ = _call(["compare", str(f.parent)])
    assert rc == 0 and not RAW_CONTROL.search(out)
    assert "fixture.x\\x1b]0;title\\x07\\x1b[2J\\rmoved\\u202e" in out
    rc, out, _ = _call(["show", CID, "--out", str(f.parent)])
    assert rc == 0 and not RAW_CONTROL.search(out) and "\\x1b[31mred" in out
    rc, _, err = _call(["show", hostile, "--out", str(f.parent)])
    assert rc == 2
    _one_error_line(err, "ID:")
