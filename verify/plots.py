"""Render plot specifications (:class:`verify.registry.Figure`) to PNG files.

Plots are data (see :mod:`verify.registry`); this module is the only place that
turns them into pictures.  It uses matplotlib's object API with the Agg canvas
directly -- never ``pyplot`` -- so rendering has no global state, opens no window
and works in worker threads and on headless machines.
"""

from __future__ import annotations

import math
import os
import textwrap
import threading
from pathlib import Path
from typing import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as _MplFigure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.mathtext import MathTextParser

from .atomic import write_with
from .registry import Figure, Panel, Series

PANEL_WIDTH = 5.2  # inches per panel
PANEL_HEIGHT = 4.0
DPI = 110
BAND_ALPHA = 0.22
MAX_COLUMNS = 3  # panels per row: a figure of more panels wraps onto further rows, each panel stays legible
TITLE_CHARS = 52  # characters of a panel title per line at PANEL_WIDTH
PNG_KWARGS = {"compress_level": 2}  # zlib level 2, not PIL's 6: the same pixels, encoded ~30% faster, ~5% larger
#: The mathtext parser of every figure's renderer (log-axis tick labels are mathtext), one per thread: matplotlib
#: memoises parses per parser, and an Agg renderer makes its own, so figures drawn one after another would parse the
#: same labels again. Per thread, because a parser holds FreeType fonts, which are not safe to share between threads
#: (claims rendered concurrently on a Dask cluster's threads failed in FT_Load_Glyph with one shared parser).
_MATHTEXT = threading.local()


def _mathtext_parser() -> MathTextParser:
    parser = getattr(_MATHTEXT, "parser", None)
    if parser is None:
        parser = _MATHTEXT.parser = MathTextParser("path")
    return parser


def render(figure: Figure, path: str | os.PathLike) -> Path:
    """Draw ``figure`` (its panels side by side) and write it atomically as a PNG to ``path``.

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
    _laid_out(figure).savefig(buf, format="png", dpi=DPI, pil_kwargs=PNG_KWARGS)
    return buf.getvalue()


def build(figure: Figure) -> _MplFigure:
    """The matplotlib figure for ``figure`` (attached to an Agg canvas, not shown anywhere).

    Panels sit side by side, at most :data:`MAX_COLUMNS` to a row; titles wrap to the panel width; legends
    go below their panel, outside the data.

    Parameters
    ----------
    figure : verify.registry.Figure
        The figure's data.

    Returns
    -------
    matplotlib.figure.Figure
        The drawn figure (not registered with pyplot).
    """
    return _build(figure, "constrained")


def _build(figure: Figure, layout: str | None) -> _MplFigure:
    """:func:`build`, with the figure's layout engine ``layout``."""
    panels = list(figure.panels)
    n = max(1, len(panels))
    cols = min(n, MAX_COLUMNS)
    rows = math.ceil(n / cols)
    extra = max((_legend_rows(p) for p in panels), default=0) * 0.22
    fig = _MplFigure(figsize=(PANEL_WIDTH * cols, (PANEL_HEIGHT + extra) * rows), dpi=DPI, layout=layout)
    FigureCanvasAgg(fig).get_renderer().mathtext_parser = _mathtext_parser()  # the renderer savefig at DPI reuses
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    if not panels:
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "(no panels)", ha="center", va="center", transform=axes[0].transAxes)
    for ax, panel in zip(axes, panels):
        _draw_panel(ax, panel)
    for ax in axes[len(panels) or 1:]:
        ax.set_axis_off()
    if figure.title:
        fig.suptitle("\n".join(textwrap.wrap(figure.title, int(TITLE_CHARS * 1.25 * cols))), fontsize="large")
    return fig


def _laid_out(figure: Figure) -> _MplFigure:
    """:func:`build`'s figure, laid out once by the same constrained layout, and left without a layout engine.

    With a layout engine, ``savefig`` draws the whole figure once without output to lay it out, then again to
    render it; laid out here first, at the PNG's resolution, the figure is drawn once.
    """
    fig = _build(figure, "none")
    ConstrainedLayoutEngine().execute(fig)
    return fig


def _legend_rows(panel: Panel) -> int:
    labels = [s.label for s in panel.series if s.label]
    return math.ceil(len(labels) / 2) if labels else 0


def _draw_panel(ax, panel: Panel) -> None:
    log_x = panel.xscale == "log"
    log_y = panel.yscale == "log"
    labelled = False
    for i, s in enumerate(panel.series):
        color = f"C{i % 10}"
        x, y, lo, hi = _arrays(s, log_x, log_y)
        label = s.label or None
        labelled |= bool(label)
        if s.style == "points" and lo is not None and hi is not None:
            ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(lo) & np.isfinite(hi)
            ax.errorbar(x[ok], y[ok], yerr=[np.maximum(y[ok] - lo[ok], 0), np.maximum(hi[ok] - y[ok], 0)],
                        linestyle="none", marker="o", markersize=4, capsize=3, color=color, label=label)
            continue
        if s.style == "violation":  # where a statement fails: large red crosses on top of everything
            ax.plot(x, y, linestyle="none", marker="X", markersize=10, color="#cf222e", markeredgecolor="black",
                    markeredgewidth=0.6, label=label, zorder=5)
            continue
        if s.style == "points":
            ax.plot(x, y, linestyle="none", marker="o", markersize=4, color=color, label=label)
        elif s.style == "dashed":
            ax.plot(x, y, color=color, label=label, linestyle="--")
        elif s.style == "step":
            ax.step(x, y, where="post", color=color, label=label)
        else:
            ax.plot(x, y, color=color, label=label, marker="." if x.size <= 12 else None)
        if lo is not None and hi is not None:
            ok = np.isfinite(x) & np.isfinite(lo) & np.isfinite(hi)
            if ok.any():
                order = np.argsort(x[ok], kind="stable")
                xs, ls, hs = x[ok][order], lo[ok][order], hi[ok][order]
                step = "post" if s.style == "step" else None
                ax.fill_between(xs, ls, hs, color=color, alpha=BAND_ALPHA, linewidth=0, step=step)
    if panel.categories is not None:
        ticks = list(range(len(panel.categories)))
        ax.set_xticks(ticks, ["\n".join(textwrap.wrap(str(c), 14)) or " " for c in panel.categories],
                      fontsize="small")
        ax.set_xlim(-0.5, len(ticks) - 0.5)
    else:
        ax.set_xscale(panel.xscale)
    ax.set_yscale(panel.yscale)
    ax.set_title("\n".join(textwrap.wrap(panel.title, TITLE_CHARS)), fontsize="medium")
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.grid(True, which="major", alpha=0.3)
    if log_x or log_y:
        ax.grid(True, which="minor", alpha=0.1)
    if labelled:  # below the axes: a legend never covers data
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)


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
