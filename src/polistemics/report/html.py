"""HTML building blocks: escaped text, data tables, figures, sections and "not available" notes.

Everything interpolated into markup goes through ``esc``; only SVG produced by ``report.svg``
(which escapes its own text) is inserted as markup.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import pandas as pd


def esc(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


@dataclass(frozen=True)
class Column:
    header: str
    value: str | Callable[[pd.Series], object]  # column name or row -> value
    format: Callable[[object], str] | None = None
    numeric: bool = False
    title: str | None = None  # header tooltip

    def cell(self, row: pd.Series) -> str:
        raw = row[self.value] if isinstance(self.value, str) else self.value(row)
        if _is_missing(raw):
            return "–"
        return self.format(raw) if self.format else str(raw)


def _attr(name: str, value: str | None) -> str:
    return f' {name}="{esc(value)}"' if value else ""


def data_table(
    frame: pd.DataFrame,
    columns: Sequence[Column],
    *,
    caption: str | None = None,
    table_id: str | None = None,
    row_class: Callable[[pd.Series], str] | None = None,
) -> str:
    head = "".join(f"<th{_attr('title', c.title)}>{esc(c.header)}</th>" for c in columns)
    body = []
    for _, row in frame.iterrows():
        cells = "".join(
            f"<td{_attr('class', 'num' if c.numeric else None)}>{esc(c.cell(row))}</td>"
            for c in columns
        )
        body.append(f"<tr{_attr('class', row_class(row) if row_class else None)}>{cells}</tr>")
    caption_html = f"<caption>{esc(caption)}</caption>" if caption else ""
    return (
        f'<div class="table-scroll"><table class="data"{_attr("id", table_id)}>{caption_html}'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def figure(figure_id: str, svg: str, paper_ref: str, note: str, file_name: str) -> str:
    return (
        f'<figure class="figure" id="{esc(figure_id)}" data-figure="{esc(figure_id)}">{svg}'
        f"<figcaption><b>{esc(paper_ref)}.</b> {esc(note)} "
        f'<span class="small">(figures/{esc(file_name)})</span></figcaption></figure>'
    )


def unavailable(message: str) -> str:
    return f'<p class="unavailable" data-unavailable="true">Not available: {esc(message)}</p>'


def paragraph(text: str, css_class: str = "lead") -> str:
    return f'<p class="{esc(css_class)}">{esc(text)}</p>'


def heading(level: int, text: str, anchor: str | None = None) -> str:
    ident = f' id="{esc(anchor)}"' if anchor else ""
    return f"<h{level}{ident}>{esc(text)}</h{level}>"


def section(section_id: str, title: str, body: Sequence[str]) -> str:
    return (
        f'<section class="report-section" id="{esc(section_id)}" data-section="{esc(section_id)}">'
        f"<h2>{esc(title)}</h2>{''.join(body)}</section>"
    )
