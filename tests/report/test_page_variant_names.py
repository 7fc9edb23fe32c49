"""One display name per variant on the whole page: every table's Variant column, the item
browser's filter and the figures' labels use ``labels.variant_label``."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from polistemics.conditions import Variant
from polistemics.report.labels import VARIANT_LABELS, variant_label


def text_of(markup: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", markup)).strip()


def variant_cells(html: str) -> dict[str, set[str]]:
    """Per table (its id or caption): the texts of its Variant column."""
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    found: dict[str, set[str]] = {}
    for table in re.findall(r'<table class="data"(.*?)</table>', html, re.S):
        headers = [text_of(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]
        if "Variant" not in headers:
            continue
        column = headers.index("Variant")
        name = table.split(">", 1)[0] + text_of(
            (re.search(r"<caption>(.*?)</caption>", table, re.S) or re.search("", "")).group(0)
        )
        body = table.split("<tbody>", 1)[1]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            found.setdefault(name, set()).add(text_of(cells[column]))
    return found


@pytest.fixture(scope="module")
def demo_html(finished_demo_run) -> str:
    _, paths = finished_demo_run
    return paths["report"].read_text(encoding="utf-8")


def test_every_variant_column_shows_the_display_names(demo_html) -> None:
    tables = variant_cells(demo_html)
    # Table 9, the observation counts and the per-judge pass rates at least, all three variants
    assert len(tables) >= 3
    names = set(VARIANT_LABELS.values())
    for table, shown in tables.items():
        assert shown <= names, table
    assert set().union(*tables.values()) == names  # the demo run has both ablations


def test_the_item_browser_uses_the_same_names(demo_html) -> None:
    found = re.search(
        r'<script type="application/json" id="browser-data">(.*?)</script>', demo_html, re.S
    )
    assert found
    variants = dict(json.loads(found.group(1))["variants"])
    assert variants == {v.value: variant_label(v.value) for v in Variant}


def test_one_name_per_variant() -> None:
    assert set(VARIANT_LABELS) == {v.value for v in Variant}
    assert len(set(VARIANT_LABELS.values())) == len(VARIANT_LABELS)
    assert variant_label("anon") == "Anonymised labels" and variant_label("other") == "other"
