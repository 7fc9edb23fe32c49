"""A small SVG heatmap writer (no plotting library): labelled cells, an optional side strip,
rubric blocks, bordered (flagged) cells and a colour bar. The same SVG is inlined in the report
and written beside it for papers. Every text is XML-escaped."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from polistemics.report.colours import ColourScale
from polistemics.report.labels import percent

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
FONT_SIZE = 11
CHAR_WIDTH = 6.4  # average advance at FONT_SIZE, for layout estimates
CELL_HEIGHT = 26
MIN_CELL_WIDTH = 46
PAD = 10
GROUP_GAP = 4  # white gap between column blocks (rubric blocks)
STRIP_GAP = 14


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
    figure_id: str  # unique within a page: prefixes gradient ids
    title: str
    rows: Sequence[str]
    columns: Sequence[str]
    values: Sequence[Sequence[float | None]]  # rows x columns; None = not scored (grey)
    scale: ColourScale
    annotations: Sequence[Sequence[str]] | None = None  # default: the value in %
    bordered: frozenset[tuple[int, int]] = frozenset()  # (row, column) cells to outline
    column_groups: Sequence[ColumnGroup] = ()
    column_titles: Sequence[str] | None = None  # tooltips, e.g. full sub-question titles
    row_titles: Sequence[str] | None = None
    strip: Strip | None = None
    footnote: str = ""  # small text under the colour bar
    cell_width: float | None = None

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


def text_width(text: str, size: float = FONT_SIZE) -> float:
    return len(text) * CHAR_WIDTH * size / FONT_SIZE


def _text(
    x: float,
    y: float,
    content: str,
    *,
    anchor: str = "middle",
    size: float = FONT_SIZE,
    weight: str = "normal",
    fill: str = "#222222",
    title: str | None = None,
    css_class: str | None = None,
) -> str:
    cls = f' class="{css_class}"' if css_class else ""
    tip = f"<title>{escape(title)}</title>" if title else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" '
        f'font-weight="{weight}" fill="{fill}"{cls}>{tip}{escape(content)}</text>'
    )


def _default_annotation(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return percent(value).rstrip("%")


def render_heatmap(heatmap: Heatmap) -> str:
    """The heatmap as a standalone SVG document (no external resources)."""
    heatmap.validate()
    n_rows, n_cols = len(heatmap.rows), len(heatmap.columns)
    label_w = max([text_width(r) for r in heatmap.rows] + [20]) + PAD
    cell_w = heatmap.cell_width or max(
        MIN_CELL_WIDTH, max([text_width(c) for c in heatmap.columns] + [0]) + 10
    )
    gaps = _gap_offsets(heatmap.column_groups, n_cols)
    has_groups = bool(heatmap.column_groups)
    top = PAD + 18 + (16 if has_groups else 0) + 16
    left = PAD + label_w
    grid_w = n_cols * cell_w + gaps[-1] if n_cols else 0
    strip_w = 0.0
    if heatmap.strip is not None:
        strip_w = STRIP_GAP + max(MIN_CELL_WIDTH, text_width(heatmap.strip.label) + 10)
    width = left + grid_w + strip_w + PAD
    grid_bottom = top + n_rows * CELL_HEIGHT
    legend_top = grid_bottom + 14
    legend_h = 34 + (14 if heatmap.footnote else 0)
    height = legend_top + legend_h + PAD
    legend_right = PAD + label_w + 200 + 8 + text_width(heatmap.scale.caption, 10)
    if heatmap.strip is not None:
        legend_right = PAD + label_w + 250 + 120 + 8 + text_width(heatmap.strip.scale.caption, 10)
    width = max(
        width,
        legend_right + PAD,
        text_width(heatmap.title, 13) + 2 * PAD,
        text_width(heatmap.footnote, 10) + 2 * PAD,
    )

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(heatmap.title)}" '
        f'font-family="{escape(FONT)}" data-figure="{escape(heatmap.figure_id)}">',
        f"<title>{escape(heatmap.title)}</title>",
        '<rect x="0" y="0" width="100%" height="100%" fill="#ffffff"/>',
        _text(PAD, PAD + 12, heatmap.title, anchor="start", size=13, weight="bold"),
    ]

    def col_x(j: int) -> float:
        return left + j * cell_w + gaps[j]

    for group in heatmap.column_groups:
        x0, x1 = col_x(group.start), col_x(group.stop - 1) + cell_w
        y = PAD + 18 + 12
        out.append(_text((x0 + x1) / 2, y, group.label, weight="bold"))
        out.append(
            f'<line x1="{x0 + 2:.1f}" y1="{y + 3:.1f}" x2="{x1 - 2:.1f}" y2="{y + 3:.1f}" '
            'stroke="#888888" stroke-width="1"/>'
        )
    for j, column in enumerate(heatmap.columns):
        tip = heatmap.column_titles[j] if heatmap.column_titles else None
        out.append(_text(col_x(j) + cell_w / 2, top - 5, column, title=tip, css_class="col-label"))
    if heatmap.strip is not None:
        sx = left + grid_w + STRIP_GAP
        sw = strip_w - STRIP_GAP
        out.append(_text(sx + sw / 2, top - 5, heatmap.strip.label, css_class="col-label"))

    for i, row in enumerate(heatmap.rows):
        y = top + i * CELL_HEIGHT
        tip = heatmap.row_titles[i] if heatmap.row_titles else None
        out.append(
            _text(
                left - 6,
                y + CELL_HEIGHT / 2 + 4,
                row,
                anchor="end",
                title=tip,
                css_class="row-label",
            )
        )
        for j in range(n_cols):
            value = heatmap.values[i][j]
            label = heatmap.annotations[i][j] if heatmap.annotations else _default_annotation(value)
            out.append(
                _cell(col_x(j), y, cell_w, value, label, heatmap.scale, (i, j) in heatmap.bordered)
            )
        if heatmap.strip is not None:
            value = heatmap.strip.values[i]
            label = (
                heatmap.strip.annotations[i]
                if heatmap.strip.annotations
                else _default_annotation(value)
            )
            out.append(
                _cell(
                    left + grid_w + STRIP_GAP,
                    y,
                    strip_w - STRIP_GAP,
                    value,
                    label,
                    heatmap.strip.scale,
                    False,
                )
            )

    out.append(_colour_bar(heatmap.figure_id, heatmap.scale, PAD + label_w, legend_top))
    if heatmap.strip is not None and heatmap.strip.scale is not heatmap.scale:
        out.append(
            _colour_bar(
                f"{heatmap.figure_id}-strip",
                heatmap.strip.scale,
                PAD + label_w + 250,
                legend_top,
                bar_width=120,
            )
        )
    if heatmap.footnote:
        out.append(
            _text(PAD, legend_top + 44, heatmap.footnote, anchor="start", size=10, fill="#555555")
        )
    out.append("</svg>")
    return "\n".join(out)


def _gap_offsets(groups: Sequence[ColumnGroup], n_cols: int) -> list[float]:
    """Horizontal offset of each column caused by the gaps before it (last entry: total)."""
    starts = {g.start for g in groups if g.start > 0}
    offsets, total = [], 0.0
    for j in range(n_cols):
        if j in starts:
            total += GROUP_GAP
        offsets.append(total)
    offsets.append(total)
    return offsets


def _cell(
    x: float,
    y: float,
    w: float,
    value: float | None,
    label: str,
    scale: ColourScale,
    bordered: bool,
) -> str:
    fill = scale.colour(value)
    parts = [
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{CELL_HEIGHT}" fill="{fill}" '
        f'stroke="#ffffff" stroke-width="1"/>'
    ]
    if bordered:
        parts.append(
            f'<rect class="flagged" x="{x + 1.5:.1f}" y="{y + 1.5:.1f}" width="{w - 3:.1f}" '
            f'height="{CELL_HEIGHT - 3}" fill="none" stroke="#000000" stroke-width="2.2"/>'
        )
    if label:
        parts.append(
            _text(x + w / 2, y + CELL_HEIGHT / 2 + 4, label, fill=scale.text_colour(value))
        )
    return "".join(parts)


def _colour_bar(bar_id: str, scale: ColourScale, x: float, y: float, bar_width: float = 200) -> str:
    gradient = f"grad-{_safe_id(bar_id)}"
    stops = "".join(
        f'<stop offset="{i / (len(scale.stops) - 1):.3f}" stop-color="{c}"/>'
        for i, c in enumerate(scale.stops)
    )
    parts = [
        f'<defs><linearGradient id="{gradient}" x1="0" x2="1" y1="0" y2="0">{stops}'
        "</linearGradient></defs>",
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_width}" height="10" fill="url(#{gradient})" '
        'stroke="#999999" stroke-width="0.5"/>',
    ]
    for tick in scale.ticks():
        tx = x + scale.position(tick) * bar_width
        text = (
            f"{100 * tick:+.0f}"
            if scale.kind == "diverging" and abs(tick) > 1e-9
            else f"{100 * tick:.0f}"
        )
        if scale.percent:
            text += "%" if scale.kind != "diverging" else " pp"
        parts.append(
            f'<line x1="{tx:.1f}" y1="{y + 10:.1f}" x2="{tx:.1f}" y2="{y + 13:.1f}" stroke="#666666"/>'
        )
        parts.append(_text(tx, y + 24, text, size=9, fill="#444444"))
    if scale.caption:
        parts.append(
            _text(x + bar_width + 8, y + 9, scale.caption, anchor="start", size=10, fill="#444444")
        )
    return "".join(parts)


def _safe_id(value: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in value)
