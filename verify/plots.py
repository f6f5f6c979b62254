"""Render plot specifications (:class:`verify.registry.Figure`) to PNG files.

Plots are data (see :mod:`verify.registry`); this module is the only place that
turns them into pictures.  It uses matplotlib's object API with the Agg canvas
directly -- never ``pyplot`` -- so rendering opens no window and works in worker threads and on
headless machines.  One style (``verify/dpverify.mplstyle``, :data:`STYLE`) gives every figure the same fonts,
grid and legends; it is in force only while a figure is built and saved (:func:`styled`), never globally.

What every figure guarantees (``tests/verify/test_plots.py`` checks it on every claim's quick-run figure): panels
one under another at the full width; no two texts (titles, axis labels, tick labels, legends) overlap and none
leaves the canvas; legends below their panel, clear of the data and the axes; configurations, methods and other
cases on a categorical axis (``Panel.categories``), one named tick each; text of at least 8 px when the figure is
shown 370 px wide (a phone).
"""

from __future__ import annotations

import contextlib
import math
import os
import textwrap
import threading
from pathlib import Path
from typing import Sequence

import matplotlib
import matplotlib.style
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as _MplFigure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.mathtext import MathTextParser
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from .atomic import write_with
from .registry import Figure, Panel, Series

#: the figure style (fonts, grid, spines, legend look), applied by :func:`styled` around every build and save
STYLE = Path(__file__).with_name("dpverify.mplstyle")
PANEL_WIDTH = 5.0  # inches: the figure's width (one panel per row); 550 px at DPI, legible scaled to a phone's 400 px
AXES_HEIGHT = 2.3  # inches of data area each panel gets at least (the figure grows when titles or legends need room)
DPI = 110
BAND_ALPHA = 0.22
#: panels per row.  One: a multi-panel figure stacks its panels, so every panel keeps the full width and its text
#: stays legible when the report is read on a phone (side by side, three panels' text would shrink to ~5 px there)
MAX_COLUMNS = 1
TITLE_CHARS = 56  # characters of a panel title per line at PANEL_WIDTH
SUPTITLE_CHARS = 48  # characters of the figure title (larger, bold) per line
LEGEND_CHARS = 56  # characters of a legend label per line (one legend column)
LEGEND_TWO_COLUMNS = 26  # labels up to this long share a legend row two by two
LEGEND_LINE = 0.19  # inches per legend text line (9 pt text, the style's label spacing)
TEXT_LINE = 0.2  # inches per line of a 10 pt title or axis label
TICK_LINE = 0.17  # inches per line of 9 pt tick text
ROTATED_CHARS = 24  # characters per line of a category name set at an angle
CHAR_WIDTH = 0.072  # inches per character of 9 pt tick text (an average, for wrapping category names)
DODGE = 0.12  # category widths between the "points" series of a categorical panel, so coincident points show
MARKER_LIMIT = 12  # a line of at most this many points marks them
PNG_KWARGS = {"compress_level": 2}  # zlib level 2, not PIL's 6: the same pixels, encoded ~30% faster, ~5% larger
#: The mathtext parser of every figure's renderer (log-axis tick labels are mathtext), one per thread: matplotlib
#: memoises parses per parser, and an Agg renderer makes its own, so figures drawn one after another would parse the
#: same labels again. Per thread, because a parser holds FreeType fonts, which are not safe to share between threads
#: (claims rendered concurrently on a Dask cluster's threads failed in FT_Load_Glyph with one shared parser).
_MATHTEXT = threading.local()
#: held while the style is in force: matplotlib's rcParams are one dictionary per process, so two threads must not
#: enter and leave the style's context interleaved (re-entrant: :func:`render` builds inside its own context)
_STYLE_LOCK = threading.RLock()


def _mathtext_parser() -> MathTextParser:
    parser = getattr(_MATHTEXT, "parser", None)
    if parser is None:
        parser = _MATHTEXT.parser = MathTextParser("path")
    return parser


@contextlib.contextmanager
def styled():
    """The block runs with dpverify's figure style (:data:`STYLE`) in force, and only the block.

    The style is entered with :func:`matplotlib.style.context`, which restores every rcParam on exit, under a
    lock, so figures rendered on several threads at once each see the style and nothing else changes for other
    code.  :func:`render`, :func:`png_bytes` and :func:`build` use it; use it yourself to draw a figure from
    :func:`build` again in the same style.

    Yields
    ------
    None
    """
    with _STYLE_LOCK, matplotlib.style.context(STYLE):
        yield


def render(figure: Figure, path: str | os.PathLike) -> Path:
    """Draw ``figure`` (its panels one under another) and write it atomically as a PNG to ``path``.

    Parameters
    ----------
    figure : verify.registry.Figure
        The figure's data.
    path : str or path
        The PNG file (parents created).

    Returns
    -------
    Path
        ``path``.
    """
    with styled():
        fig = _laid_out(figure)
        return write_with(path, lambda tmp: fig.savefig(tmp, format="png", dpi=DPI, pil_kwargs=PNG_KWARGS))


def png_bytes(figure: Figure) -> bytes:
    """``figure`` as PNG bytes, written nowhere (for notebooks: ``display(Image(data=png_bytes(fig)))``).

    Parameters
    ----------
    figure : verify.registry.Figure
        The figure's data.

    Returns
    -------
    bytes
        The PNG image.
    """
    import io

    buf = io.BytesIO()
    with styled():
        _laid_out(figure).savefig(buf, format="png", dpi=DPI, pil_kwargs=PNG_KWARGS)
    return buf.getvalue()


def build(figure: Figure) -> _MplFigure:
    """The matplotlib figure for ``figure``, laid out in dpverify's style (attached to an Agg canvas, not shown).

    Each panel is a subfigure of its own, one under another (:data:`MAX_COLUMNS` to a row), :data:`PANEL_WIDTH`
    wide, with a data area at least :data:`AXES_HEIGHT` tall; titles wrap to the width; a panel's legend sits
    below its axes, outside the data and inside the figure; a panel with ``categories`` has one tick per
    category, named; log axes label their ticks without crowding.  The layout is computed here (the figure has no
    layout engine left), so drawing it again gives the same picture.

    Parameters
    ----------
    figure : verify.registry.Figure
        The figure's data.

    Returns
    -------
    matplotlib.figure.Figure
        The drawn figure (not registered with pyplot).
    """
    with styled():
        return _laid_out(figure)


def _laid_out(figure: Figure) -> _MplFigure:
    """The figure built and laid out once by constrained layout (at the PNG's resolution), without a layout engine.

    With a layout engine, ``savefig`` would draw the whole figure once without output to lay it out, then again to
    render it; laid out here first, the figure is drawn once more only to write it.  When a panel's data area comes
    out shorter than :data:`AXES_HEIGHT` (titles, tick labels or a legend taller than estimated), the figure is built
    once more with that panel taller by the shortfall.
    """
    panels = list(figure.panels)
    heights = [_panel_height(p) for p in panels] or [AXES_HEIGHT + 1.0]
    fig = _build(figure, heights)
    ConstrainedLayoutEngine().execute(fig)
    short = [AXES_HEIGHT - ax.bbox.height / fig.dpi for ax in _panel_axes(fig)]
    if any(s > 0.05 for s in short):
        fig = _build(figure, [h + max(s, 0.0) for h, s in zip(heights, short)])
        ConstrainedLayoutEngine().execute(fig)
    return fig


def _panel_axes(fig: _MplFigure) -> list:
    """The axes of each panel, in the order of the figure's panels."""
    return [sf.axes[0] for sf in fig.subfigs if sf.axes]


def _build(figure: Figure, heights: list[float]) -> _MplFigure:
    """The figure with panel ``i`` in a subfigure ``heights[i]`` inches tall (rows of :data:`MAX_COLUMNS`)."""
    panels = list(figure.panels)
    n = max(1, len(panels))
    cols = min(n, MAX_COLUMNS)
    rows = math.ceil(n / cols)
    row_h = [max(heights[r * cols:(r + 1) * cols]) for r in range(rows)]
    title = "\n".join(textwrap.wrap(figure.title, SUPTITLE_CHARS * cols)) if figure.title else ""
    title_h = (title.count("\n") + 1) * 0.24 + 0.1 if title else 0.0
    fig = _MplFigure(figsize=(PANEL_WIDTH * cols, sum(row_h) + title_h), dpi=DPI, layout="none")
    FigureCanvasAgg(fig).get_renderer().mathtext_parser = _mathtext_parser()  # the renderer savefig at DPI reuses
    subs = fig.subfigures(rows, cols, squeeze=False, height_ratios=row_h).ravel()
    if not panels:
        ax = subs[0].add_subplot()
        ax.set_axis_off()
        ax.text(0.5, 0.5, "(no panels)", ha="center", va="center", transform=ax.transAxes)
    for sf, panel in zip(subs, panels):
        _draw_panel(sf, sf.add_subplot(), panel)
    if title:
        fig.suptitle(title)
    return fig


def _legend_entries(panel: Panel) -> list[str]:
    return [s.label for s in panel.series if s.label]


def _legend_layout(labels: list[str]) -> tuple[int, list[str]]:
    """Columns of a panel's legend and its labels wrapped to fit them (two columns only for short labels)."""
    cols = 2 if len(labels) > 1 and max(len(x) for x in labels) <= LEGEND_TWO_COLUMNS else 1
    width = LEGEND_CHARS if cols == 1 else LEGEND_TWO_COLUMNS
    return cols, ["\n".join(textwrap.wrap(x, width)) or x for x in labels]


def _category_labels(categories: Sequence[str]) -> tuple[list[str], int]:
    """Category names wrapped to their share of the axis width, and the rotation of the tick labels (degrees).

    Upright when every name fits its share in at most three lines; otherwise wrapped at
    :data:`ROTATED_CHARS` and set at 30° when the share is at least twice a name's height across (tilted names
    then clear their neighbours), else at 90° (a name's height across must fit its share; past that, one line).
    """
    slot = (PANEL_WIDTH - 0.9) / max(1, len(categories))
    chars = max(6, int(slot / CHAR_WIDTH) - 1)
    wrapped = ["\n".join(textwrap.wrap(str(c), chars)) or " " for c in categories]
    if max(w.count("\n") + 1 for w in wrapped) <= 3:
        return wrapped, 0
    wrapped = ["\n".join(textwrap.wrap(str(c), ROTATED_CHARS)) or " " for c in categories]
    across = max(w.count("\n") + 1 for w in wrapped) * TICK_LINE
    if slot >= 2 * across:
        return wrapped, 30
    return (wrapped if slot >= across else [" ".join(str(c).split()) or " " for c in categories]), 90


def _tick_inches(names: list[str], rotation: int) -> float:
    """The height below the axis that category tick labels take, in inches."""
    lines = max(n.count("\n") + 1 for n in names) * TICK_LINE
    if not rotation:
        return lines
    longest = max(len(line) for n in names for line in n.split("\n")) * CHAR_WIDTH
    angle = math.radians(rotation)
    return longest * math.sin(angle) + lines * math.cos(angle)


def _panel_height(panel: Panel) -> float:
    """Estimated inches a panel needs: its title, a data area of :data:`AXES_HEIGHT`, ticks, axis label, legend."""
    title_lines = len(textwrap.wrap(panel.title, TITLE_CHARS)) if panel.title else 0
    xlabel_lines = panel.xlabel.count("\n") + 1 if panel.xlabel else 0
    ticks = TICK_LINE
    if panel.categories is not None and len(panel.categories):
        ticks = _tick_inches(*_category_labels(panel.categories))
    labels = _legend_entries(panel)
    legend = 0.0
    if labels:
        cols, wrapped = _legend_layout(labels)
        lines = [w.count("\n") + 1 for w in wrapped]
        legend = 0.12 + LEGEND_LINE * sum(max(lines[i:i + cols]) for i in range(0, len(lines), cols))
    return 0.2 + TEXT_LINE * (title_lines + xlabel_lines) + ticks + AXES_HEIGHT + legend + 0.1


def _draw_panel(sf, ax, panel: Panel) -> None:
    log_x = panel.xscale == "log" and panel.categories is None
    log_y = panel.yscale == "log"
    handles, labels = [], []
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    dodged = {id(s): k for k, s in enumerate(s for s in panel.series if s.style == "points")}
    dodged = dodged if panel.categories is not None and len(dodged) > 1 else {}
    for i, s in enumerate(panel.series):
        color = colors[i % len(colors)]
        x, y, lo, hi = _arrays(s, log_x, log_y)
        if id(s) in dodged:  # side by side within a category: equal values stay visible
            x = x + DODGE * (dodged[id(s)] - (len(dodged) - 1) / 2)
        label = s.label or None
        if s.style == "points" and lo is not None and hi is not None:
            ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(lo) & np.isfinite(hi)
            h = ax.errorbar(x[ok], y[ok], yerr=[np.maximum(y[ok] - lo[ok], 0), np.maximum(hi[ok] - y[ok], 0)],
                            linestyle="none", marker="o", markersize=4, color=color)
        elif s.style == "violation":  # where a statement fails: large red crosses on top of everything
            (h,) = ax.plot(x, y, linestyle="none", marker="X", markersize=10, color="#cf222e", markeredgecolor="black",
                           markeredgewidth=0.6, zorder=5)
        elif s.style == "points":
            (h,) = ax.plot(x, y, linestyle="none", marker="o", markersize=4, color=color)
        elif s.style == "dashed":
            (h,) = ax.plot(x, y, color=color, linestyle="--")
        elif s.style == "step":
            (h,) = ax.step(x, y, where="post", color=color)
        else:
            (h,) = ax.plot(x, y, color=color, marker="." if x.size <= MARKER_LIMIT else None)
        if s.style not in ("points", "violation") and lo is not None and hi is not None:
            ok = np.isfinite(x) & np.isfinite(lo) & np.isfinite(hi)
            if ok.any():
                order = np.argsort(x[ok], kind="stable")
                xs, ls, hs = x[ok][order], lo[ok][order], hi[ok][order]
                step = "post" if s.style == "step" else None
                ax.fill_between(xs, ls, hs, color=color, alpha=BAND_ALPHA, linewidth=0, step=step)
        if label:
            handles.append(h)
            labels.append(label)
    if panel.categories is not None:
        names, rotation = _category_labels(panel.categories)
        ax.set_xticks(range(len(names)), names, rotation=rotation, ha="right" if rotation else "center",
                      va="center" if rotation == 90 else "top", rotation_mode="anchor" if rotation else "default")
        ax.set_xlim(-0.5, len(names) - 0.5)
        ax.grid(False, axis="x")
    else:
        ax.set_xscale(panel.xscale)
        if log_x:
            _log_ticks(ax.xaxis)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
    ax.set_yscale(panel.yscale)
    if log_y:
        _log_ticks(ax.yaxis)
    if panel.title:
        ax.set_title("\n".join(textwrap.wrap(panel.title, TITLE_CHARS)))
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    if log_x or log_y:
        ax.grid(True, which="minor", alpha=0.1)
    if labels:  # below the axes, outside the data, inside the figure: constrained layout makes the room
        cols, wrapped = _legend_layout(labels)
        sf.legend(handles, wrapped, loc="outside lower center", ncols=cols)


def _log_ticks(axis) -> None:
    """Label a log axis at powers of ten, or at 1, 2, 5 × 10^k (and more) when it spans under two decades; never
    label its minor ticks (matplotlib labels them on short spans, where they run together)."""
    axis.set_major_locator(_ShortSpanLogLocator())
    axis.set_major_formatter(FuncFormatter(_log_label))
    axis.set_minor_formatter(NullFormatter())


class _ShortSpanLogLocator(LogLocator):
    """Powers of ten over two decades or more; more ticks per decade as the span shrinks (:attr:`SUBS`)."""

    #: (least span in decades, the multiples of 10^k ticked)
    SUBS = ((2.0, (1.0,)), (1.0, (1.0, 2.0, 5.0)), (0.5, (1.0, 2.0, 3.0, 5.0)),
            (0.0, (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)))

    def __init__(self):
        super().__init__(base=10.0, numticks=7)

    def tick_values(self, vmin, vmax):
        lo, hi = sorted((vmin, vmax))
        span = math.log10(hi / lo) if lo > 0 and hi > 0 else 99.0
        self._subs = np.array(next(subs for least, subs in self.SUBS if span >= least))
        return super().tick_values(vmin, vmax)


def _log_label(v: float, _pos=None) -> str:
    """A log-axis tick label: plain digits from 0.001 to 99999, else m×10^k (mathtext): 0.05, 20000, 10⁶, 2×10⁻⁵."""
    if not np.isfinite(v) or v <= 0:
        return ""
    if 1e-3 <= v < 1e5:
        return f"{v:.6g}"
    k = math.floor(math.log10(v) + 1e-9)
    m = v / 10**k
    if abs(m - round(m)) < 1e-6 * max(1.0, m):
        m = round(m)
    return f"$10^{{{k}}}$" if m == 1 else f"${m:g}\\times10^{{{k}}}$"


def _arrays(s: Series, log_x: bool, log_y: bool):
    """x, y, lo, hi as float arrays; non-finite (and, on log axes, non-positive) values become NaN."""

    def arr(v: Sequence[float] | None, log: bool):
        if v is None:
            return None
        a = np.array([np.nan if e is None else e for e in np.ravel(np.asarray(v, dtype=object))], dtype=float)
        a[~np.isfinite(a)] = np.nan
        if log:
            a[a <= 0] = np.nan
        return a

    x, y = arr(s.x, log_x), arr(s.y, log_y)
    if x.shape != y.shape:
        raise ValueError(f"series {s.label!r}: x and y differ in length ({x.size} vs {y.size})")
    lo, hi = arr(s.lo, log_y), arr(s.hi, log_y)
    for name, b in (("lo", lo), ("hi", hi)):
        if b is not None and b.shape != y.shape:
            raise ValueError(f"series {s.label!r}: {name} and y differ in length ({b.size} vs {y.size})")
    return x, y, lo, hi
