"""Figures a reader can take in: every claim's figure, rendered in dpverify's style, has no overlapping or clipped
text, legends off the data, text legible on a phone, and its cases on a categorical axis.

Every claim's figures come from ``tests/verify/data/quick_figures.json``, the figure specifications of the quick
ledger at seed 0 (recorded by ``python -m tests.verify.figure_specs``): running the whole ledger here would take
minutes.  ``test_the_record_is_what_the_current_code_draws`` re-runs a sample of claims and compares, and
``test_the_record_covers_every_claim`` fails when a claim is added without re-recording.
"""

from __future__ import annotations

import json
import math

import matplotlib
import numpy as np
import pytest

from tests.verify import figure_checks, figure_specs
from verify import plots, registry
from verify.registry import Figure, Panel, Series

RECORD = figure_specs.load()
FIGURES = [(cid, f) for cid, figs in sorted(RECORD.items()) for f in figs]
#: claims re-run against the record (quick checks of a few CPU seconds each, every paper): single- and multi-panel
#: figures, log axes, categorical panels (methods, cases, seminorm families) and violation crosses among them
SAMPLE = ("adp.theorem4.1", "adp.remark4.1", "noisy_adagrad.lemma14", "dp_adam_design.section5.1",
          "adadps.table9", "adadps.theorem4", "pagan.eq7", "pagan.theorem5")


# ---- every claim's figure ------------------------------------------------------------------
@pytest.mark.parametrize("cid, figure", FIGURES, ids=[f"{c}:{f.name}" for c, f in FIGURES])
def test_every_claims_figure_reads_cleanly(cid, figure):
    fig = plots.build(figure)
    problems = figure_checks.layout_problems(fig) + figure_checks.categorical_tick_problems(fig, figure)
    assert not problems, "\n".join(problems)


def test_every_claims_figure_puts_its_cases_on_a_categorical_axis():
    problems = [line for cid, f in FIGURES for line in figure_checks.categorical_problems(f, cid)]
    assert not problems, "\n".join(problems)


def test_the_record_covers_every_claim():
    assert set(RECORD) == set(registry.load_all()), "re-record: python -m tests.verify.figure_specs"
    assert len(FIGURES) >= 50  # most claims draw a figure


@pytest.mark.parametrize("cid", SAMPLE)
def test_the_record_is_what_the_current_code_draws(cid):
    now = figure_specs.figures_of(cid)
    then = [f.to_dict() for f in RECORD[cid]]
    assert _shape(now) == _shape(then), f"{cid}: re-record (python -m tests.verify.figure_specs {cid})"
    for a, b in zip(_numbers(now), _numbers(then)):  # same seed, same code: the same numbers up to rounding
        assert (a is None and b is None) or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9,
                                                                                              abs_tol=1e-300)), cid


def _shape(figs):
    """Everything but the numbers: names, titles, labels, scales, categories, styles and series lengths."""
    return json.loads(json.dumps(figs, default=str), object_hook=lambda d: {
        k: (len(v) if k in ("x", "y", "lo", "hi") else v) for k, v in d.items()})


def _numbers(figs):
    out = []
    for f in figs:
        for p in f["panels"]:
            for s in p["series"]:
                for k in ("x", "y", "lo", "hi"):
                    out += s.get(k) or []
    return out


# ---- the checker can fail ------------------------------------------------------------------
def _line_figure(**panel) -> Figure:
    x = [1.0, 10.0, 100.0]
    return Figure("f", "A figure", [Panel("a panel", "n", "loss", [Series("measured", x, [3.0, 2.0, 1.0]),
                                                                    Series("bound", x, [4.0, 3.0, 2.0])], **panel)])


def test_a_clean_figure_passes_the_checks():
    fig = plots.build(_line_figure())
    assert figure_checks.layout_problems(fig) == []


def test_the_checker_catches_overlapping_text():
    fig = plots.build(_line_figure())
    ax = fig.axes[0]
    ax.set_title("a title pulled down onto the tick labels", y=-0.12)
    assert any("title" in p and "overlaps" in p for p in figure_checks.layout_problems(fig))


def test_the_checker_catches_run_together_tick_labels():
    fig = plots.build(_line_figure())
    ax = fig.axes[0]
    ax.set_xticks(np.linspace(1, 100, 40), [f"{v:.3f}" for v in np.linspace(1, 100, 40)])
    assert any("x tick" in p and "overlaps" in p and "x tick" in p.split("overlaps")[1]
               for p in figure_checks.layout_problems(fig))


def test_the_checker_catches_a_legend_on_the_data_and_text_off_the_canvas():
    fig = plots.build(_line_figure())
    ax = fig.axes[0]
    ax.legend(["measured", "bound"], loc="center")
    ax.text(1.3, 0.5, "beyond the right edge of the figure", transform=ax.transAxes)
    problems = figure_checks.layout_problems(fig)
    assert any("lies on the axes" in p for p in problems)
    assert any("leaves the canvas" in p for p in problems)


def test_the_checker_catches_text_too_small_for_a_phone():
    fig = plots.build(_line_figure())
    fig.axes[0].set_xlabel("n", fontsize=4)
    assert any("phone" in p for p in figure_checks.layout_problems(fig))


def test_the_checker_catches_cases_numbered_on_a_continuous_axis():
    """The old pagan Theorem 3 figure: four configurations at x = 0, 1, 2, 3 on a linear axis."""
    cases = Figure("theorem3", "t", [Panel("failure frequency", "configuration", "P(failure)", [
        Series("as stated", [0, 1, 2, 3], [0.0, 0.0, 1.0, 1.0], style="points"),
        Series("β", [0, 1, 2, 3], [0.1] * 4, style="dashed")])])
    assert figure_checks.categorical_problems(cases, "pagan.theorem3")
    named = Figure("theorem3", "t", [Panel("failure frequency", "configuration", "P(failure)", cases.panels[0].series,
                                           categories=list("abcd"))])
    assert figure_checks.categorical_problems(named, "pagan.theorem3") == []
    # a genuine quantity (n = 1, 10, 100) and a count that does not start at 0 are not cases
    assert figure_checks.categorical_problems(_line_figure()) == []
    off = Figure("g", "t", [Panel("p", "k", "y", [Series("s", [0, 0.5, 1.0], [1, 2, 3])], categories=["a", "b"])])
    assert figure_checks.categorical_problems(off)  # data between the categories


def test_the_checker_catches_a_categorical_panel_with_fractional_ticks():
    figure = Figure("g", "t", [Panel("p", "method", "accuracy", [Series("s", [0, 1, 2], [0.5, 0.6, 0.7],
                                                                        style="points")],
                                     categories=["DP-SGD", "AdaDPS", "non-private"])])
    fig = plots.build(figure)
    assert figure_checks.categorical_tick_problems(fig, figure) == []
    fig.axes[0].set_xticks([0, 0.5, 1, 1.5, 2])
    assert figure_checks.categorical_tick_problems(fig, figure)


# ---- the style -----------------------------------------------------------------------------
def test_the_style_is_in_force_only_while_a_figure_is_drawn(tmp_path):
    before = dict(matplotlib.rcParams)
    plots.render(_line_figure(), tmp_path / "f.png")
    plots.png_bytes(_line_figure(xscale="log"))
    assert dict(matplotlib.rcParams) == before
    with plots.styled():
        assert matplotlib.rcParams["legend.frameon"] is False and matplotlib.rcParams["axes.spines.top"] is False


def test_panels_stack_at_full_width_with_the_legend_below_the_axes():
    x = [1.0, 10.0, 100.0]
    panels = [Panel(f"p{i}", "n", "y", [Series("s", x, [1, 2, 3]), Series("t", x, [2, 3, 4])]) for i in range(3)]
    fig = plots.build(Figure("f", "title", panels))
    assert fig.get_figwidth() == plots.PANEL_WIDTH
    axes = fig.axes
    assert len(axes) == 3 and all(a.bbox.height / fig.dpi >= plots.AXES_HEIGHT - 0.06 for a in axes)
    assert axes[0].bbox.y0 > axes[1].bbox.y1 and axes[1].bbox.y0 > axes[2].bbox.y1  # one under another
    assert all(a.bbox.width > 0.8 * fig.bbox.width for a in axes)
    r = fig.canvas.get_renderer()
    for sf, ax in zip(fig.subfigs, axes):
        (leg,) = sf.legends
        assert leg.get_window_extent(r).y1 < ax.get_tightbbox(r).y0 + 1  # below the axes' tick labels and x label


def test_log_axes_label_short_spans_without_minor_clutter():
    series = [Series("s", [4000.0, 16000.0, 64000.0], [3.0, 2.0, 1.0])]
    fig = plots.build(Figure("f", "t", [Panel("p", "n", "loss", series, xscale="log", yscale="log")]))
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    lo, hi = ax.get_xlim()
    assert all(t.get_text() == "" for t in ax.xaxis.get_minorticklabels())
    assert 2 <= len([v for v in ax.get_xticks() if lo <= v <= hi]) <= 6 and "5000" in labels
    assert plots._log_label(2e-5) == r"$2\times10^{-5}$" and plots._log_label(1e6) == "$10^{6}$"
