"""View data for the page's templates: tables, cells and figures as plain typed values.

The templates (``report/templates/``) decide every piece of markup; this module only turns data
frames and figures into strings and numbers. Text that came from a run (party and model names,
statements, ids) is never trusted: the templates escape it and isolate its direction, and
``shorten`` keeps very long names from stretching the page (the full text goes in a tooltip).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import pandas as pd

from polistemics.report.formatting import MISSING, count

NAME_LIMIT = 80  # characters of a name shown in tables; the rest is in the tooltip


def shorten(text: str, limit: int = NAME_LIMIT) -> tuple[str, str | None]:
    """``text`` cut to ``limit`` characters with an ellipsis, and the full text when it was cut
    (for ``title``)."""
    if len(text) <= limit:
        return text, None
    return text[: limit - 1] + "…", text


@dataclass(frozen=True)
class Cell:
    text: str  # user text or a formatted value, shown isolated (``<bdi>``)
    full: str | None = None  # the whole text when ``text`` was shortened
    suffix: str = ""  # shown after the isolated text, e.g. a party's score " (87.5%)"
    numeric: bool = False


@dataclass(frozen=True)
class Header:
    text: str
    title: str | None = None


@dataclass(frozen=True)
class TableView:
    headers: list[Header]
    rows: list[list[Cell]]
    caption: str | None = None
    table_id: str | None = None


@dataclass(frozen=True)
class Labelled:
    """A name followed by a value: the name is isolated so its direction cannot move the value."""

    name: str
    suffix: str


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


@dataclass(frozen=True)
class Column:
    header: str
    value: str | Callable[[pd.Series], object]  # column name or row -> value
    format: Callable[[object], str] | None = None  # default: a count in a numeric column
    numeric: bool = False
    title: str | None = None  # header tooltip
    limit: int | None = NAME_LIMIT  # longer text is shortened (None: our own long text)

    def cell(self, row: pd.Series) -> Cell:
        raw = row[self.value] if isinstance(self.value, str) else self.value(row)
        if _is_missing(raw):
            return Cell(MISSING, numeric=self.numeric)
        if isinstance(raw, Labelled):
            text, full = self._shorten(raw.name)
            return Cell(text, full, raw.suffix, self.numeric)
        text, full = self._shorten(self._format(raw))
        return Cell(text, full, numeric=self.numeric)

    def _format(self, raw: object) -> str:
        if self.format is not None:
            return self.format(raw)
        return count(raw) if self.numeric else str(raw)

    def _shorten(self, text: str) -> tuple[str, str | None]:
        return (text, None) if self.limit is None else shorten(text, self.limit)


def _header(column: Column) -> Header:
    text, full = shorten(column.header)  # some headers are data (election ids, languages)
    return Header(text, full or column.title)


def table_view(
    frame: pd.DataFrame,
    columns: Sequence[Column],
    *,
    caption: str | None = None,
    table_id: str | None = None,
) -> TableView:
    return TableView(
        headers=[_header(c) for c in columns],
        rows=[[c.cell(row) for c in columns] for _, row in frame.iterrows()],
        caption=caption,
        table_id=table_id,
    )


class FigureLike(Protocol):
    figure_id: str
    paper_ref: str
    note: str
    file_name: str

    @property
    def svg(self) -> str: ...


@dataclass(frozen=True)
class FigureView:
    figure_id: str
    paper_ref: str
    note: str
    file_name: str
    svg: str  # trusted markup from the figure code; the only markup the templates insert


def figure_view(fig: FigureLike) -> FigureView:
    return FigureView(fig.figure_id, fig.paper_ref, fig.note, fig.file_name, fig.svg)
