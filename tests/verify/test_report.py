"""Reports and plots: atomic writes, the three report files, HTML embedding, the PNG renderer."""

import base64
import json
import math
import os
import struct

import numpy as np
import pytest

from verify import plots, report
from verify.registry import Claim, Figure, Outcome, Panel, Result, Series


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def _figure(n_panels=2) -> Figure:
    x = np.array([10.0, 100.0, 1000.0, 10000.0])
    panels = [
        Panel("rate", "n", "excess loss", [
            Series("measured", x, 1 / np.sqrt(x), lo=[0.05, np.nan, 0.005, -np.inf],
                   hi=[0.5, 0.2, np.inf, 0.02]),
            Series("theory", x, 2 / np.sqrt(x), style="points"),
        ], xscale="log", yscale="log"),
        Panel("steps", "t", "value", [Series("", [0, 1, 2, 3], [1, 3, 2, 4], style="step",
                                             lo=[0, 2, 1, 3], hi=[2, 4, 3, 5])]),
    ][:n_panels]
    return Figure("sweep", "A test figure", panels)


def _claim(cid="pagan.test_report") -> Claim:
    return Claim(cid, "pagan", "A statement with <markup> & a | pipe.", "rate", ("theory.pagan.bound",),
                 lambda budget, seed: Outcome(verdict="holds", evidence="ok"))


@pytest.fixture
def results(tmp_path):
    plots.render(_figure(), tmp_path / "figures" / "pagan_test_report__sweep.png")
    return [
        Result("pagan.test_report", "holds", {"slope": -0.51, "ratio_max": 1.7, "nan_one": math.nan},
               "slope -0.51 [-0.55, -0.47] contains -1/2 | <script>alert(1)</script>", None, 3, "quick", 1.234,
               ["figures/pagan_test_report__sweep.png"]),
        Result("pagan.test_violated", "violated", {"worst": 2.5}, "ratio 2.5 > 2", {"x": [1.0, -1.0], "T": 3},
               3, "quick", 0.5, []),
        Result("pagan.test_missing_plot", "inconclusive", {}, "check failed: RuntimeError: boom", None, 3,
               "quick", 0.1, ["figures/not_there.png"]),
    ]


# ---- atomic writes ------------------------------------------------------------------------
def test_write_atomic_writes_and_leaves_no_temp(tmp_path):
    p = report.write_atomic(tmp_path / "sub" / "a.txt", "héllo\n")
    assert p.read_text(encoding="utf-8") == "héllo\n"
    assert os.listdir(tmp_path / "sub") == ["a.txt"]
    assert (p.stat().st_mode & 0o777) == 0o666 & ~_umask()  # ordinary permissions, not mkstemp's 0600


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def test_write_atomic_failure_keeps_old_file_and_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "results.json"
    target.write_text("old complete file")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(report.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        report.write_atomic(target, "new")
    assert target.read_text() == "old complete file"
    assert os.listdir(tmp_path) == ["results.json"]


def test_render_failure_writes_nothing(tmp_path, results, monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("render failed")

    monkeypatch.setattr(report, "render_html", broken)
    with pytest.raises(RuntimeError):
        report.write_reports(results, [_claim()], tmp_path)
    assert not any((tmp_path / f).exists() for f in ("results.json", "report.md", "report.html"))
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


# ---- the three files ----------------------------------------------------------------------
def test_results_json_shape(tmp_path, results):
    paths = report.write_reports(results, [_claim()], tmp_path, budget="quick", seed=3,
                                 started="2026-01-01T00:00:00+00:00", seconds=2.0)
    assert set(paths) == {"json", "md", "html"}
    doc = json.loads((tmp_path / "results.json").read_text())
    assert set(doc) == {"results", "meta"}
    assert doc["meta"] == {"budget": "quick", "seed": 3, "version": report.__version__,
                           "started": "2026-01-01T00:00:00+00:00", "seconds": 2.0}
    assert [r["id"] for r in doc["results"]] == [r.id for r in results]
    assert doc["results"][0] == results[0].to_dict()
    assert doc["results"][0]["figures"]["nan_one"] == "nan"  # valid JSON, no bare NaN
    assert doc["results"][1]["counterexample"] == {"x": [1.0, -1.0], "T": 3}


def test_markdown_report(tmp_path, results):
    report.write_reports(results, [_claim()], tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "| id | verdict | evidence | seconds |" in md and "| not run |" not in md  # no mutation run: no column
    assert "contains -1/2 \\| <script>" in md  # pipes in cells escaped
    assert "## `pagan.test_report` — holds" in md
    assert "> A statement with <markup> & a | pipe." in md
    assert "| slope | -0.51 |" in md
    assert "**Counterexample.**" in md and '"T": 3' in md
    assert "![pagan_test_report__sweep](figures/pagan_test_report__sweep.png)" in md
    assert (tmp_path / "figures" / "pagan_test_report__sweep.png").is_file()  # the link resolves


def test_html_is_self_contained_and_coloured(tmp_path, results):
    report.write_reports(results, [_claim()], tmp_path)
    page = (tmp_path / "report.html").read_text()
    png = (tmp_path / "figures" / "pagan_test_report__sweep.png").read_bytes()
    assert f'src="data:image/png;base64,{base64.b64encode(png).decode()}"' in page
    assert "figures/pagan_test_report__sweep.png\"" not in page  # no external image reference
    assert page.count("<script>") == 1 and "&lt;script&gt;" in page  # only the page's own filter script; text escaped
    assert "http://" not in page.split("<script>")[1] and "https://" not in page  # no network
    assert "&lt;markup&gt; &amp; a | pipe." in page
    for verdict, colour in report.VERDICT_COLOURS.items():
        assert f'class="verdict {verdict}"' in page and colour in page
    assert "plot figures/not_there.png is missing" in page
    assert page.lstrip().startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


def test_terminal_table():
    rs = [Result("pagan.a", "holds", {}, "fine " * 50, None, 0, "quick", 1.0, []),
          Result("pagan.longer_id", "violated", {}, "bad", None, 0, "quick", 12.345, [])]
    text = report.format_table(rs, width=80)
    lines = text.splitlines()
    assert lines[0].split() == ["id", "verdict", "control", "seconds", "evidence"]
    assert all(len(line) <= 80 for line in lines)
    assert "pagan.longer_id  violated" in text and "12.35" in text
    assert "2 claims: holds 1, violated 1, inconclusive 0" in lines
    assert lines[-1].endswith("what would decide it")  # the legend closes the table
    # evidence is cut at a word boundary
    row = next(line for line in lines if line.startswith("pagan.a "))
    assert row.endswith("fine…")
    assert "\033[" not in text and "\033[31m" in report.format_table(rs, width=80, colour=True)


# ---- plots --------------------------------------------------------------------------------
def test_render_png_panels_one_under_another(tmp_path):
    one = plots.render(_figure(1), tmp_path / "one.png")
    two = plots.render(_figure(2), tmp_path / "two.png")
    (w1, h1), (w2, h2) = _png_size(one), _png_size(two)
    assert w1 == w2 and h2 > 1.6 * h1
    assert sorted(os.listdir(tmp_path)) == ["one.png", "two.png"]


def test_render_axes_and_band():
    fig = plots.build(_figure(2))
    ax0, ax1 = fig.axes
    assert ax0.get_xscale() == "log" and ax0.get_yscale() == "log" and ax1.get_xscale() == "linear"
    assert ax0.get_title() == "rate" and ax0.get_xlabel() == "n" and ax0.get_ylabel() == "excess loss"
    assert fig.get_suptitle() == "A test figure"
    legend0, legend1 = (sf.legends for sf in fig.subfigs)  # each panel's legend belongs to its subfigure
    assert [t.get_text() for t in legend0[0].get_texts()] == ["measured", "theory"]
    assert legend1 == []  # an unlabelled series gets no legend
    assert len(ax0.collections) == 1 and len(ax1.collections) == 1  # one shaded band each


def test_render_round_trips_through_dict(tmp_path):
    f = Figure.from_dict(json.loads(json.dumps(_figure().to_dict())))
    assert _png_size(plots.render(f, tmp_path / "rt.png"))[0] > 0


def test_render_rejects_ragged_series(tmp_path):
    bad = Figure("bad", "", [Panel("p", "x", "y", [Series("s", [1, 2, 3], [1, 2])])])
    with pytest.raises(ValueError, match="differ in length"):
        plots.render(bad, tmp_path / "bad.png")
    assert os.listdir(tmp_path) == []


def test_verdict_wording_names_its_control():
    ctl = {"verdict": "violated", "reason": "n: grows", "estimate": 0.5, "holds_bound": 0.7, "violated_bound": 0.3,
           "control": {"test": "slope", "alpha": 1e-4, "family": "Bonferroni", "margin": 0.1, "holds_level": 0.95}}
    r = Result("pagan.x", "violated", {}, "e", None, 0, "quick", 1.0, [], [ctl])
    assert report.verdict_phrase(r) == "violated (family-wise 5%)"
    held = Result("pagan.x", "holds", {}, "e", None, 0, "quick", 1.0, [], [dict(ctl, verdict="holds")])
    assert report.verdict_phrase(held) == "holds (95%, margin 0.1)"
    undecided = Result("pagan.x", "inconclusive", {}, "e", None, 0, "quick", 1.0, [],
                       [dict(ctl, verdict="inconclusive", reason="n: window 0.5 decade: --budget full would decide")])
    assert report.verdict_phrase(undecided) == "inconclusive (needs --budget full)"
    exact = Result("pagan.x", "violated", {}, "e", None, 0, "quick", 1.0, [])
    assert report.verdict_phrase(exact) == "violated (exact)"
    (line,) = report.control_lines(r)
    assert "level 0.0001" in line and "Bonferroni" in line and "margin 0.1" in line


def test_figures_wrap_panels_and_draw_categorical_axes(tmp_path):
    from verify.registry import Figure, Panel, Series

    panels = [Panel(f"p{i}", "n", "y", [Series("s", [1, 2, 3], [1, 2, 3])]) for i in range(5)]
    panels.append(Panel("audit", "configuration", "ε", [Series("audited", [0, 1], [1.0, 2.0], style="points"),
                                                         Series("where it fails", [1], [2.0], style="violation")],
                        categories=["n=1 T=1", "n=4 T=3"]))
    fig = plots.build(Figure("f", "title", panels))
    axes = [a for a in fig.axes if a.axison]
    assert len(fig.axes) == 6 and len(axes) == 6
    w, h = fig.get_size_inches()
    assert w == plots.PANEL_WIDTH * plots.MAX_COLUMNS and h > 6 * plots.AXES_HEIGHT  # six rows of one
    cat = axes[-1]
    assert [t.get_text() for t in cat.get_xticklabels()] == ["n=1 T=1", "n=4 T=3"]
    assert len(fig.subfigs[-1].legends) == 1  # below the panel, outside the axes
    # categories survive the results.json round trip
    assert Panel.from_dict(panels[-1].to_dict()).categories == ["n=1 T=1", "n=4 T=3"]


def test_html_groups_by_paper_with_contents_filters_and_sections(tmp_path):
    rs = [Result("pagan.a", "holds", {}, "fine", None, 0, "quick", 1.0, []),
          Result("adp.b", "violated", {}, "bad", {"T": 3, "eps": 1.5}, 0, "quick", 2.0, []),
          Result("pagan.audit.k", "inconclusive", {}, "no leak", {"rows": [1, 2]}, 0, "quick", 3.0, [])]
    page = report.render_html(rs, {}, {"budget": "quick", "seed": 0}, tmp_path)
    for r in rs:
        assert f'href="#{r.id}"' in page and f'id="{r.id}"' in page
    findings, audits = page.index('id="claims"'), page.index('id="audits"')
    assert findings < page.index('<section class="claim" id="pagan.a"') < audits
    assert audits < page.index('<section class="claim" id="pagan.audit.k"')
    assert page.index('id="pagan.a"', findings) < page.index('id="adp.b"', findings)  # ledger order of papers
    assert 'class="vf" value="violated"' in page and '<option value="adp">adp</option>' in page
    assert "<td>T</td><td>3</td>" in page  # a flat counterexample as a small table
    assert "<details><summary>counterexample as JSON" in page  # a nested one collapsed


def test_each_thread_renders_with_its_own_mathtext_parser():
    """A mathtext parser holds FreeType fonts, which threads must not share (claims render concurrently on a Dask
    cluster's threads): one parser per thread, reused by that thread's figures."""
    import threading

    from verify import plots

    mine = plots._mathtext_parser()
    assert plots._mathtext_parser() is mine
    other = []
    t = threading.Thread(target=lambda: other.append(plots._mathtext_parser()))
    t.start()
    t.join()
    assert other and other[0] is not mine
