"""What makes a rendered figure hard to read, found mechanically: texts that overlap or leave the canvas, legends on
the axes, text too small for a phone, and categorical data drawn on a continuous axis.

Used by ``tests/verify/test_plots.py`` on every claim's recorded figure; each finder returns a list of problems
(empty when the figure is fine), each naming the figure, panel and texts involved.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from matplotlib.text import Text

from verify import plots
from verify.registry import Figure

#: pixels two boxes may share, or a box may pass the canvas edge, before it counts (anti-aliasing, rounding)
SLACK_PX = 1.0
#: the width a figure is shown at on a phone: a 400-px screen less the report's margins
PHONE_PX = 370
#: the smallest text height, in pixels of the phone view, that reads without zooming
MIN_PHONE_TEXT_PX = 8.0
#: panels whose x values are small integers 0..k-1 because the quantity itself is a count from zero (an
#: iteration, a round, a step), not because they number configurations: (claim id, panel title) -> the quantity
INTEGER_QUANTITY_AXES: dict[tuple[str, str], str] = {
    ("pagan.theorem4", "f(x̄_T) − f(x*) at PAGAN/PASAN outputs (ε = 1)"):
        "the rank of an output among the sorted runs (an empirical quantile plot), not a named case",
}


def _visible_text(t) -> bool:
    return isinstance(t, Text) and t.get_visible() and bool(t.get_text().strip())


def text_boxes(fig) -> list[tuple[str, object]]:
    """Every visible text of a drawn figure with its box in display pixels, a legend as one box.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure from :func:`verify.plots.build` (laid out; drawn here without output).

    Returns
    -------
    list of (str, Bbox)
        A readable name (``"panel 2 x tick '0.5'"``) and the text's window extent.
    """
    with plots.styled():
        fig.draw_without_rendering()
    r = fig.canvas.get_renderer()
    out = []
    if fig._suptitle is not None and _visible_text(fig._suptitle):
        out.append(("figure title", fig._suptitle.get_window_extent(r)))
    legends = list(fig.legends)
    for sf in fig.subfigs:
        legends += sf.legends
    for i, ax in enumerate(fig.axes, 1):
        if not ax.axison:
            continue
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
        named = [("title", ax.title), ("left title", ax._left_title), ("right title", ax._right_title),
                 ("x label", ax.xaxis.label), ("y label", ax.yaxis.label),
                 ("x offset", ax.xaxis.get_offset_text()), ("y offset", ax.yaxis.get_offset_text())]
        for which, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if lo - 1e-12 * max(1.0, abs(lo)) <= tick.get_loc() <= hi + 1e-12 * max(1.0, abs(hi)):
                    named += [(f"{which} tick", tick.label1), (f"{which} tick", tick.label2)]
        named += [("text", t) for t in ax.texts]
        for what, t in named:
            if _visible_text(t):
                out.append((f"panel {i} {what} {t.get_text()!r}", t.get_window_extent(r)))
    for k, leg in enumerate(legends, 1):
        out.append((f"legend {k}", leg.get_window_extent(r)))
    for f in [fig, *fig.subfigs]:
        out += [(f"figure text {t.get_text()!r}", t.get_window_extent(r)) for t in f.texts
                if _visible_text(t) and t is not fig._suptitle]
    return out


def _overlap(a, b) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK_PX and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK_PX


def layout_problems(fig) -> list[str]:
    """Texts that overlap one another, leave the canvas, sit on an axes (legends) or read too small on a phone.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure from :func:`verify.plots.build`.

    Returns
    -------
    list of str
        One line per problem; empty when there is none.
    """
    boxes = text_boxes(fig)
    canvas = fig.bbox
    problems = []
    for name, b in boxes:
        if (b.x0 < canvas.x0 - SLACK_PX or b.y0 < canvas.y0 - SLACK_PX or b.x1 > canvas.x1 + SLACK_PX
                or b.y1 > canvas.y1 + SLACK_PX):
            problems.append(f"{name} leaves the canvas: {_px(b)} outside {_px(canvas)}")
    for (na, a), (nb, b) in itertools.combinations(boxes, 2):
        if _overlap(a, b):
            problems.append(f"{na} overlaps {nb}: {_px(a)} and {_px(b)}")
    for name, b in boxes:
        if name.startswith("legend"):
            for i, ax in enumerate(fig.axes, 1):
                if ax.axison and _overlap(b, ax.bbox):
                    problems.append(f"{name} lies on the axes of panel {i}: {_px(b)} and {_px(ax.bbox)}")
    scale = min(1.0, PHONE_PX / canvas.width) * fig.dpi / 72
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if _visible_text(t)]
    if sizes and min(sizes) * scale < MIN_PHONE_TEXT_PX:
        problems.append(f"smallest text {min(sizes):g} pt is {min(sizes) * scale:.1f} px on a {PHONE_PX}-px phone "
                        f"view (figure {canvas.width:.0f} px wide), under {MIN_PHONE_TEXT_PX:g} px")
    return problems


def _px(b) -> str:
    return f"[{b.x0:.0f}, {b.x1:.0f}]×[{b.y0:.0f}, {b.y1:.0f}]"


def categorical_problems(figure: Figure, claim_id: str = "") -> list[str]:
    """Categorical data on a continuous axis, and a categorical axis with positions that are not its categories.

    A panel without ``categories`` whose every x value (all series together) is one of 0, 1, …, k − 1 with each of
    them used (k ≥ 2) numbers its cases: it must name them with ``categories`` (unless
    :data:`INTEGER_QUANTITY_AXES` lists it as a count from zero).  A panel with ``categories`` must place its
    data at the integers 0 … len(categories) − 1.

    Parameters
    ----------
    figure : verify.registry.Figure
        The figure's data.
    claim_id : str, optional
        The claim that draws it (for :data:`INTEGER_QUANTITY_AXES` and the messages).

    Returns
    -------
    list of str
        One line per problem; empty when there is none.
    """
    problems = []
    for p in figure.panels:
        xs = np.array([np.nan if v is None else float(v) for s in p.series for v in s.x], dtype=float)
        xs = xs[np.isfinite(xs)]
        where = f"{claim_id} figure {figure.name!r} panel {p.title!r}"
        if p.categories is None:
            if xs.size == 0 or (claim_id, p.title) in INTEGER_QUANTITY_AXES:
                continue
            k = int(xs.max()) + 1 if np.all(xs == np.round(xs)) and xs.min() >= 0 else 0
            if 2 <= k <= 30 and set(xs.astype(int).tolist()) == set(range(k)):
                problems.append(f"{where}: x values are the positions 0…{k - 1} on a continuous axis "
                                f"(x label {p.xlabel!r}); name them with Panel.categories")
        else:
            k = len(p.categories)
            bad = [v for v in xs if not (v == math.floor(v) and 0 <= v < k)]
            if bad:
                problems.append(f"{where}: x values {sorted(set(bad))[:5]} are not category positions 0…{k - 1}")
    return problems


def categorical_tick_problems(fig, figure: Figure) -> list[str]:
    """A categorical panel drawn with ticks other than one per category, at 0, 1, …, named by the categories.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        :func:`verify.plots.build` of ``figure``.
    figure : verify.registry.Figure
        The figure's data.

    Returns
    -------
    list of str
        One line per problem; empty when there is none.
    """
    problems = []
    for ax, p in zip([a for a in fig.axes if a.axison], figure.panels):
        if p.categories is None:
            continue
        locs = list(ax.get_xticks())
        names = ["".join(t.get_text().split()) for t in ax.get_xticklabels()]  # wrapped names: compare the letters
        if locs != list(range(len(p.categories))):
            problems.append(f"panel {p.title!r}: ticks at {locs}, not at 0…{len(p.categories) - 1}")
        elif names != ["".join(str(c).split()) for c in p.categories]:
            problems.append(f"panel {p.title!r}: tick labels {names} are not the categories {list(p.categories)}")
    return problems
