"""Render plot specifications (:class:`verify.registry.Figure`) to PNG files.

Plots are data (see :mod:`verify.registry`); this module is the only place that
turns them into pictures.  It uses matplotlib's object API with the Agg canvas
directly -- never ``pyplot`` -- so rendering has no global state, opens no window
and works in worker threads and on headless machines.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as _MplFigure

from .atomic import write_with
from .registry import Figure, Panel, Series

PANEL_WIDTH = 5.2  # inches per panel
PANEL_HEIGHT = 4.0
DPI = 110
BAND_ALPHA = 0.22


def render(figure: Figure, path: str | os.PathLike) -> Path:
    """Draw ``figure`` (its panels side by side) and write it atomically as a PNG to ``path``."""
    fig = build(figure)
    return write_with(path, lambda tmp: fig.savefig(tmp, format="png", dpi=DPI))


def build(figure: Figure) -> _MplFigure:
    """The matplotlib figure for ``figure`` (attached to an Agg canvas, not shown anywhere)."""
    panels = list(figure.panels)
    n = max(1, len(panels))
    fig = _MplFigure(figsize=(PANEL_WIDTH * n, PANEL_HEIGHT), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, n, squeeze=False)[0]
    if not panels:
        axes[0].set_axis_off()
        axes[0].text(0.5, 0.5, "(no panels)", ha="center", va="center", transform=axes[0].transAxes)
    for ax, panel in zip(axes, panels):
        _draw_panel(ax, panel)
    if figure.title:
        fig.suptitle(figure.title, fontsize="large")
    return fig


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
    ax.set_xscale(panel.xscale)
    ax.set_yscale(panel.yscale)
    ax.set_title(panel.title, fontsize="medium")
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.grid(True, which="major", alpha=0.3)
    if log_x or log_y:
        ax.grid(True, which="minor", alpha=0.1)
    if labelled:
        ax.legend(fontsize="small", framealpha=0.8)


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
