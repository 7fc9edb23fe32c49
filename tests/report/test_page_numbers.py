"""Numbers on the rendered page are written one way: counts as integers (``245``, never
``245.0``), one mark for a missing value (the en dash of ``formatting.MISSING``), rates in
percent."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from polistemics.report.build import build_release_report
from polistemics.report.content import ReportOptions
from polistemics.report.formatting import MISSING, count
from polistemics.report.view import Column, table_view

# A column whose header states a unit holds measurements, not counts: one decimal is its style
# ("-28.0 pp", "2.0 seconds").
UNIT_HEADER = re.compile(r"\bpp\b|%|second|\(ms\)|×|deviation|spread", re.I)
OTHER_MISSING_MARKS = {"nan", "NaN", "None", "<NA>", "NA", "n/a", "-", "—", "null", ""}


def text_of(markup: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", markup)).strip()


def numeric_cells(html: str) -> list[tuple[str, str, str]]:
    """(table, header, text) of every numeric cell of every data table on the page."""
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    found = []
    for table in re.findall(r'<table class="data"(.*?)</table>', html, re.S):
        name = (re.match(r' id="([^"]*)"', table) or re.match("", table)).group(0)
        headers = [text_of(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]
        body = table.split("<tbody>", 1)[1]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
            for i, (attributes, cell) in enumerate(re.findall(r"<td([^>]*)>(.*?)</td>", row, re.S)):
                if 'class="num"' in attributes:
                    found.append((name, headers[i], text_of(cell)))
    return found


@pytest.fixture(scope="module")
def pages(finished_demo_run, fixtures_dir: Path, tmp_path_factory) -> dict[str, str]:
    _, paths = finished_demo_run
    release = build_release_report(
        fixtures_dir / "scoring" / "release_small",
        tmp_path_factory.mktemp("release-small"),
        ReportOptions(bootstrap_resamples=20, figure_formats=("svg",)),
    )
    return {
        "demo run": paths["report"].read_text(encoding="utf-8"),
        "release": release.read_text(encoding="utf-8"),
    }


def test_counts_are_integers_on_the_whole_page(pages) -> None:
    for name, html in pages.items():
        cells = numeric_cells(html)
        assert len(cells) > 100, name
        floats = [c for c in cells if re.fullmatch(r"[+-]?[\d,]+\.0", c[2])]
        assert [c for c in floats if not UNIT_HEADER.search(c[1])] == [], name
        assert not re.search(r"\d+\.0 /", html), name


def test_one_missing_mark_on_the_whole_page(pages) -> None:
    for name, html in pages.items():
        texts = [c[2] for c in numeric_cells(html)]
        assert not OTHER_MISSING_MARKS & set(texts), name
    assert MISSING in [c[2] for c in numeric_cells(pages["release"])]  # the release lacks some


def test_a_count_column_with_a_gap_shows_integers_and_the_missing_mark() -> None:
    """pandas stores a column of counts with a missing value as floats (245.0)."""
    frame = pd.DataFrame({"answers": [245, None, 1424], "failed": [0, None, 3]})
    assert frame["answers"].dtype == float
    table = table_view(
        frame,
        [Column("Answers", "answers", numeric=True), Column("Failed", "failed", numeric=True)],
    )
    assert [[c.text for c in row] for row in table.rows] == [
        ["245", "0"],
        [MISSING, MISSING],
        ["1,424", "3"],
    ]


def test_count() -> None:
    assert count(245.0) == "245" and count(np.float64(11184)) == "11,184"
    assert count(np.int64(3)) == "3" and count(37.5) == "37.5" and count(0.125) == "0.125"
    assert count(None) == count(float("nan")) == count(pd.NA) == MISSING
    assert count("not recorded") == "not recorded" and count(True) == "True"
