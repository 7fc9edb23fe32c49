"""One annotated heatmap drawn with matplotlib's object API (no pyplot state, Agg canvas):
labelled cells, an optional side strip with its own scale, column blocks with headers,
bordered (flagged) cells, colour bars and a footnote.

Layout is computed in inches from the number of rows and columns and the label lengths, so
figures grow with the data instead of squeezing it; files are saved with a tight bounding box.
Every drawn string goes through ``display_label``/``display_text`` and is drawn with
``parse_math=False``.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib import rcParams
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.image import BboxImage
from matplotlib.lines import Line2D
from matplotlib.markers import TICKDOWN
from matplotlib.patches import Rectangle
from matplotlib.transforms import Bbox, ScaledTranslation, TransformedBbox

from polistemics.report.colours import ColourScale
from polistemics.report.figures.text import display_label, display_text
from polistemics.report.formatting import percent

FONT_SIZE = 8.0  # points: cell values and labels
TITLE_SIZE = 10.0
NOTE_SIZE = 7.0
CHAR_IN = 0.072  # average advance of one character at FONT_SIZE, in inches (layout estimate)
CELL_H = 0.27  # inches
MIN_CELL_W = 0.46
GROUP_GAP = 0.06  # white gap between column blocks, inches
STRIP_GAP = 0.18
BAR_W, BAR_H = 2.2, 0.11
ROTATE_OVER = 8  # with many columns, labels longer than this (characters) are drawn rotated
WRAP_CHARS = 14


class HeatmapError(ValueError):
    """A heatmap whose rows, columns and values do not fit together."""


@dataclass(frozen=True)
class ColumnGroup:
    """Consecutive columns ``start``..``stop - 1`` drawn as one labelled block."""

    label: str
    start: int
    stop: int


@dataclass(frozen=True)
class Strip:
    """One extra column beside the heatmap with its own scale (Fig. 3's dispersion)."""

    label: str
    values: Sequence[float | None]
    scale: ColourScale
    annotations: Sequence[str] | None = None


@dataclass(frozen=True)
class Heatmap:
    figure_id: str  # unique within a page
    title: str
    rows: Sequence[str]
    columns: Sequence[str]
    values: Sequence[Sequence[float | None]]  # rows x columns; None = not scored (grey)
    scale: ColourScale
    annotations: Sequence[Sequence[str]] | None = None  # default: the value in %
    bordered: frozenset[tuple[int, int]] = frozenset()  # (row, column) cells to outline
    column_groups: Sequence[ColumnGroup] = ()
    column_titles: Sequence[str] | None = None  # full names, e.g. sub-question titles
    strip: Strip | None = None
    footnote: str = ""

    def validate(self) -> None:
        if len(self.values) != len(self.rows):
            raise HeatmapError(
                f"{self.figure_id}: {len(self.rows)} rows but {len(self.values)} value rows"
            )
        for i, row in enumerate(self.values):
            if len(row) != len(self.columns):
                raise HeatmapError(
                    f"{self.figure_id}: row {i} has {len(row)} values for {len(self.columns)} columns"
                )
        if self.annotations is not None and (
            len(self.annotations) != len(self.rows)
            or any(len(a) != len(self.columns) for a in self.annotations)
        ):
            raise HeatmapError(f"{self.figure_id}: annotations do not match the values' shape")
        for group in self.column_groups:
            if not 0 <= group.start < group.stop <= len(self.columns):
                raise HeatmapError(f"{self.figure_id}: column group '{group.label}' out of range")
        if self.strip is not None and len(self.strip.values) != len(self.rows):
            raise HeatmapError(f"{self.figure_id}: strip needs one value per row")

    def annotation(self, i: int, j: int) -> str:
        if self.annotations is not None:
            return self.annotations[i][j]
        return cell_text(self.values[i][j])


def cell_text(value: float | None) -> str:
    """A cell's number as the page shows it, without the % sign (``0.951`` -> ``95.1``)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return percent(value).rstrip("%")


def cell_gid(i: int, j: int | str) -> str:
    """SVG id of cell (i, j)'s annotation (``j = "strip"`` for the side strip); the page's
    inline copy prefixes it with the figure id."""
    return f"cell-{i}-{j}"


def _width(text: str, size: float = FONT_SIZE) -> float:
    return len(text) * CHAR_IN * size / FONT_SIZE


def draw_heatmap(heatmap: Heatmap) -> Figure:
    heatmap.validate()
    rows = [display_label(r) for r in heatmap.rows]
    columns = [display_label(c) for c in heatmap.columns]
    n_rows, n_cols = len(rows), len(columns)
    rotated = any(len(c) > ROTATE_OVER for c in columns) and n_cols > 6
    if not rotated:  # long labels wrap onto lines of WRAP_CHARS, not widen every cell
        columns = ["\n".join(textwrap.wrap(c, WRAP_CHARS)) or c for c in columns]
    lines = [c.split("\n") for c in columns]
    cell_w = (
        MIN_CELL_W
        if rotated
        else max([MIN_CELL_W] + [_width(line) + 0.14 for c in lines for line in c])
    )
    starts = sorted({g.start for g in heatmap.column_groups if g.start > 0})
    col_x = [j * cell_w + sum(GROUP_GAP for s in starts if s <= j) for j in range(n_cols)]
    grid_w = (col_x[-1] + cell_w) if n_cols else cell_w
    grid_h = max(n_rows, 1) * CELL_H

    label_h = (
        max((_width(c) for c in columns), default=0) * 0.87 + 0.1
        if rotated
        else 0.14 * max((len(c) for c in lines), default=1) + 0.08
    )
    groups_h = 0.26 if heatmap.column_groups else 0.0
    top = 0.34 + groups_h + label_h
    left = max([_width(r) for r in rows] + [0.3]) + 0.15
    strip_w = 0.0
    if heatmap.strip is not None:
        strip_w = STRIP_GAP + max(MIN_CELL_W, _width(display_label(heatmap.strip.label)) + 0.14)
    footnote = display_text(heatmap.footnote, 600)
    bars_w = BAR_W + 1.0 + (BAR_W * 0.6 + 1.0 if heatmap.strip is not None else 0.0)
    width = max(left + grid_w + strip_w + 0.15, left + bars_w, 4.0)
    wrap_chars = max(50, int(width / (CHAR_IN * NOTE_SIZE / FONT_SIZE)))
    footnote_lines = textwrap.wrap(footnote, wrap_chars) if footnote else []
    bottom = 0.22 + BAR_H + 0.32 + 0.14 * len(footnote_lines) + 0.08
    height = top + grid_h + bottom

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)  # Agg: no display, and no pyplot state
    fig.patch.set_facecolor("white")

    def rect(x: float, y: float, w: float, h: float) -> list[float]:
        """Figure fractions of a box given in inches from the top-left corner."""
        return [x / width, 1 - (y + h) / height, w / width, h / height]

    ax = fig.add_axes(rect(left, top, grid_w, grid_h))
    ax.set_xlim(0, grid_w)
    ax.set_ylim(max(n_rows, 1), 0)
    _draw_cells(ax, heatmap, col_x, cell_w)
    _row_labels(ax, rows)
    _column_labels(
        ax,
        [x + cell_w / 2 for x in col_x],
        columns,
        rotation=60 if rotated else 0,
        ha="left" if rotated else "center",
        rotation_mode="anchor" if rotated else "default",
    )
    _bare(ax)
    for group in heatmap.column_groups:
        _group_header(fig, ax, group, col_x, cell_w, label_h)
    fig.text(
        left / width,
        1 - 0.08 / height,
        display_text(heatmap.title),
        ha="left",
        va="top",
        fontsize=TITLE_SIZE,
        fontweight="bold",
        parse_math=False,
    )

    bar_top = top + grid_h + 0.22
    _colour_bar(fig, heatmap.scale, rect(left, bar_top, BAR_W, BAR_H))
    if heatmap.strip is not None:
        strip_ax = fig.add_axes(rect(left + grid_w + STRIP_GAP, top, strip_w - STRIP_GAP, grid_h))
        _draw_strip(strip_ax, heatmap)
        _colour_bar(fig, heatmap.strip.scale, rect(left + BAR_W + 1.0, bar_top, BAR_W * 0.6, BAR_H))
    if footnote_lines:
        fig.text(
            left / width,
            1 - (bar_top + BAR_H + 0.32) / height,
            "\n".join(footnote_lines),
            ha="left",
            va="top",
            fontsize=NOTE_SIZE,
            color="#555555",
            parse_math=False,
        )
    return fig


# Row and column labels are plain text placed where matplotlib puts tick labels (LABEL_PAD
# points from the axes, its alignments), not tick labels: an axis builds three lines and two
# texts per tick and lays them out again at every draw, which cost most of a heatmap's drawing
# time (each figure is drawn twice: once for its extent, once into its file).
LABEL_PAD = 3.0  # points


def _bare(ax: Axes) -> None:
    """No axis lines, ticks or tick labels (the labels are texts of their own)."""
    ax.xaxis.set_visible(False)
    ax.yaxis.set_visible(False)
    for spine in ax.spines.values():
        spine.set_visible(False)


def _row_labels(ax: Axes, rows: list[str]) -> None:
    """Right-aligned left of the axes, as y tick labels are."""
    pad = ScaledTranslation(-LABEL_PAD / 72, 0, ax.figure.dpi_scale_trans)
    transform = ax.get_yaxis_transform() + pad
    for i, row in enumerate(rows):
        ax.text(
            0,
            i + 0.5,
            row,
            transform=transform,
            ha="right",
            va="center_baseline",
            fontsize=FONT_SIZE,
            parse_math=False,
            clip_on=False,
        )


def _column_labels(
    ax: Axes,
    xs: list[float],
    labels: list[str],
    rotation: float = 0,
    ha: str = "center",
    rotation_mode: str = "default",
) -> None:
    """Above the axes, as top x tick labels are."""
    pad = ScaledTranslation(0, LABEL_PAD / 72, ax.figure.dpi_scale_trans)
    transform = ax.get_xaxis_transform() + pad
    for x, label in zip(xs, labels, strict=True):
        ax.text(
            x,
            1,
            label,
            transform=transform,
            ha=ha,
            va="bottom",
            rotation=rotation,
            rotation_mode=rotation_mode,
            fontsize=FONT_SIZE,
            parse_math=False,
            clip_on=False,
        )


def _draw_cells(ax: Axes, heatmap: Heatmap, col_x: list[float], cell_w: float) -> None:
    scale = heatmap.scale
    patches, colours = [], []
    for i, row in enumerate(heatmap.values):
        for j, value in enumerate(row):
            patches.append(Rectangle((col_x[j], i), cell_w, 1))
            colours.append(scale.colour(value))
            _annotate(
                ax,
                heatmap.annotation(i, j),
                col_x[j] + cell_w / 2,
                i + 0.5,
                scale,
                value,
                cell_gid(i, j),
            )
    ax.add_collection(
        PatchCollection(patches, facecolors=colours, edgecolors="white", linewidths=1.0)
    )
    for i, j in sorted(heatmap.bordered):
        ax.add_patch(
            Rectangle(
                (col_x[j] + 0.025, i + 0.08),
                cell_w - 0.05,
                0.84,
                fill=False,
                edgecolor="black",
                linewidth=1.6,
                zorder=3,
            )
        )


def _annotate(
    ax: Axes, text: str, x: float, y: float, scale: ColourScale, value: float | None, gid: str
) -> None:
    text = display_label(text, 12)
    if not text:
        return
    ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        fontsize=FONT_SIZE,
        color=scale.text_colour(value),
        parse_math=False,
        gid=gid,
        zorder=4,
    )


def _draw_strip(ax: Axes, heatmap: Heatmap) -> None:
    strip = heatmap.strip
    assert strip is not None
    n = len(strip.values)
    ax.set_xlim(0, 1)
    ax.set_ylim(max(n, 1), 0)
    ax.add_collection(
        PatchCollection(
            [Rectangle((0, i), 1, 1) for i in range(n)],
            facecolors=[strip.scale.colour(v) for v in strip.values],
            edgecolors="white",
            linewidths=1.0,
        )
    )
    for i, value in enumerate(strip.values):
        text = strip.annotations[i] if strip.annotations else cell_text(value)
        _annotate(ax, text, 0.5, i + 0.5, strip.scale, value, cell_gid(i, "strip"))
    _column_labels(ax, [0.5], [display_label(strip.label)])
    _bare(ax)


def _group_header(
    fig: Figure, ax: Axes, group: ColumnGroup, col_x: list[float], cell_w: float, label_h: float
) -> None:
    x0, x1 = col_x[group.start], col_x[group.stop - 1] + cell_w
    lift = ScaledTranslation(0, label_h + 0.05, fig.dpi_scale_trans)
    transform = ax.get_xaxis_transform() + lift
    ax.plot(
        [x0 + 0.03, x1 - 0.03],
        [1, 1],
        color="#888888",
        linewidth=0.8,
        transform=transform,
        clip_on=False,
    )
    ax.text(
        (x0 + x1) / 2,
        1,
        display_label(group.label),
        transform=transform + ScaledTranslation(0, 0.04, fig.dpi_scale_trans),
        ha="center",
        va="bottom",
        fontsize=FONT_SIZE,
        fontweight="bold",
        parse_math=False,
    )


def _tick_text(scale: ColourScale, tick: float) -> str:
    points = round(100 * tick, 6)
    digits = 0 if points == round(points) else 1  # ±2.5 stays ±2.5, not a rounded ±2 / +3
    if scale.kind == "diverging":
        text = "0" if points == 0 else f"{points:+.{digits}f}"
        return text + (" pp" if scale.percent else "")
    if not scale.percent:
        return f"{points:.{digits}f}"
    return f"{points:.{digits}f}" + (" pp" if scale.unit == "pp" else "%")


# The colour bar is made of plain artists in figure coordinates, not ``fig.colorbar``: that
# builds an axes (two axes' tick machinery), a locator, a formatter and a mesh of the scale's
# 257 cells that is rasterised into every SVG and PDF, which took half of a heatmap's building
# time and a good part of its drawing. It shows the same: the scale's colours low to high, a
# 0.4 pt outline, ticks pointing down as matplotlib draws them (its tick markers, 2 pt long),
# their labels 1.5 pt below, and the caption on the right.
BAR_OUTLINE = 0.4  # points
TICK_LENGTH = 2.0  # points
TICK_PAD = 1.5  # points, from a tick's end to its label


def _colour_bar(fig: Figure, scale: ColourScale, box: list[float]) -> None:
    x0, y0, width, height = box
    in_figure = fig.transFigure
    gradient = BboxImage(
        TransformedBbox(Bbox.from_bounds(x0, y0, width, height), in_figure),
        interpolation="nearest",
    )
    gradient.set_data(scale.cmap(np.arange(scale.cmap.N))[np.newaxis])  # 1 x N, RGBA
    fig.add_artist(gradient)
    fig.add_artist(
        Rectangle(
            (x0, y0),
            width,
            height,
            transform=in_figure,
            fill=False,
            edgecolor=rcParams["axes.edgecolor"],
            linewidth=BAR_OUTLINE,
        )
    )
    ticks = scale.ticks()
    xs = [x0 + width * scale.position(tick) for tick in ticks]
    fig.add_artist(
        Line2D(
            xs,
            [y0] * len(xs),
            transform=in_figure,
            linestyle="none",
            marker=TICKDOWN,
            markersize=TICK_LENGTH,
            markeredgewidth=rcParams["xtick.major.width"],
            color=rcParams["xtick.color"],
        )
    )
    below = in_figure + ScaledTranslation(0, -(TICK_LENGTH + TICK_PAD) / 72, fig.dpi_scale_trans)
    for x, tick in zip(xs, ticks, strict=True):
        fig.text(
            x,
            y0,
            _tick_text(scale, tick),
            transform=below,
            ha="center",
            va="top",
            fontsize=NOTE_SIZE,
            parse_math=False,
        )
    if scale.caption:
        fig.text(
            x0 + 1.04 * width,
            y0 + 0.5 * height,
            display_label(scale.caption),
            ha="left",
            va="center",
            fontsize=NOTE_SIZE,
            color="#444444",
            parse_math=False,
        )
