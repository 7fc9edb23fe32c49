"""A report whose names, statements, answers and judge outputs are hostile, in headless Chromium:
nothing runs, every string stays text, a right-to-left override cannot reorder the numbers next
to a name, a huge name cannot widen the page, and the page logs no error (CSP included)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from polistemics.report.build import build_report
from polistemics.report.content import ReportOptions

from .test_page_in_chromium import Opened, browser  # noqa: F401 (the fixture)

MARKUP = (
    "<script>alert(1)</script> </script><script>window.__pwned=1</script>"
    '"><img src=x onerror=alert(1)> {{ 7*7 }} {% raw %} &amp; sep\u2028par\u2029end'
)
RLO_NAME = "\u202eRiverside Union"  # an unterminated right-to-left override
LONG_NAME = "Lantern" * 1430  # 10,010 characters, no space to wrap at
RENAMED = {
    "Riverside Union": RLO_NAME,
    "Harbour Party": "Harbour " + MARKUP,
    "Lantern Movement": LONG_NAME,
}
VIEWPORT_WIDTH = 1280


def _rewrite_jsonl(path: Path, change) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps(change(row)) + "\n" for row in rows), encoding="utf-8")


def _rename_parties(row: dict) -> dict:
    if row.get("party_name") in RENAMED:
        row["party_name"] = RENAMED[row["party_name"]]
    if "statement_text" in row:
        row["statement_text"] = f"Statement {MARKUP} {row['statement_text']}"
    return row


@pytest.fixture(scope="module")
def hostile_report(finished_demo_run, tmp_path_factory) -> Path:
    run_dir, _ = finished_demo_run
    run = tmp_path_factory.mktemp("hostile") / "run"
    shutil.copytree(run_dir, run, ignore=shutil.ignore_patterns("report", "store.sqlite*"))
    cells_path = run / "scores" / "cells.csv"
    cells = pd.read_csv(cells_path, dtype=str, keep_default_na=False)
    cells["party_name"] = cells["party_name"].replace(RENAMED)
    cells.to_csv(cells_path, index=False)
    for items in (run / "exports").rglob("ground_truth.jsonl"):
        _rewrite_jsonl(items, _rename_parties)
    _rewrite_jsonl(run / "answers.jsonl", lambda r: {**r, "text": f"Answer {MARKUP}"})
    _rewrite_jsonl(run / "judges.jsonl", lambda r: {**r, "raw_output": f"Judge {MARKUP}"})
    options = ReportOptions(model_labels={"target-a": "Model " + MARKUP}, bootstrap_resamples=20)
    return build_report(run, options=options)


@pytest.fixture(scope="module")
def opened(browser, hostile_report) -> Opened:  # noqa: F811
    return Opened(browser, hostile_report)


def test_the_page_source_holds_the_strings_escaped(hostile_report) -> None:
    html = hostile_report.read_text(encoding="utf-8")
    body = html.split("<main>", 1)[1].split("</main>", 1)[0]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<script" not in body
    assert "{{ 7*7 }}" in body and "{% raw %}" in body and "&amp;amp;" in body
    assert "\u2028" in body and "\u2029" in body
    assert "<script>window.__pwned" not in html


def test_nothing_runs_and_no_error_is_logged(opened) -> None:
    page = opened.page
    page.click("#b-list article.item details.raw summary")
    assert opened.dialogs == []
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("main img").count() == 0
    assert page.locator("main script").count() == 0
    assert opened.errors == []


def test_the_strings_stay_text(opened) -> None:
    page = opened.page
    article = page.locator("#b-list article.item").first
    assert article.locator(".answer-text").evaluate("e => e.textContent") == f"Answer {MARKUP}"
    article.locator("details.raw summary").click()
    raw = article.locator(".raw-output").first.evaluate("e => e.textContent")
    assert raw == f"Judge {MARKUP}"
    statement = article.locator(".statement bdi").evaluate("e => e.textContent")
    assert statement.startswith(f"Statement {MARKUP} ")
    model = page.locator("#leaderboard table.data tbody td bdi").first.evaluate(
        "e => e.textContent"
    )
    assert model == "Model " + MARKUP[:73] + "…"  # shortened to 80 characters
    titled = page.locator("#leaderboard table.data tbody td bdi[title]").first
    assert titled.get_attribute("title") == "Model " + MARKUP


FLAGGED_CELL_POSITIONS = """td => {
  const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
  const chars = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (let i = 0; i < n.data.length; i++) chars.push([n, i]);
  }
  const text = chars.map(([n, i]) => n.data[i]).join("");
  return chars.slice(text.lastIndexOf("(")).map(([n, i]) => {
    const range = document.createRange();
    range.setStart(n, i);
    range.setEnd(n, i + 1);
    return [n.data[i], range.getBoundingClientRect().left];
  });
}"""


def test_a_right_to_left_override_cannot_reorder_the_score_next_to_it(opened) -> None:
    # the cells of a name followed by its score (the flagged spreads; the LOO list's party
    # cells have no score beside the name)
    cells = opened.page.locator("#even-handedness table.data td", has_text="Riverside Union")
    cells = cells.filter(has_text="%)")
    assert cells.count() > 0
    for i in range(cells.count()):
        positions = cells.nth(i).evaluate(FLAGGED_CELL_POSITIONS)
        shown = "".join(char for char, _ in positions)
        assert shown.startswith("(") and shown.endswith("%)"), shown
        lefts = [left for _, left in positions]
        assert lefts == sorted(lefts) and len(set(lefts)) == len(lefts), positions
    name = cells.first.locator("bdi").first
    assert name.evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate"
    title = opened.page.locator("#b-list article.item header .title bdi").last
    assert title.evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate"


def test_a_huge_name_cannot_widen_the_page(opened) -> None:
    page = opened.page
    width = "() => document.documentElement.scrollWidth"
    assert page.evaluate(width) <= VIEWPORT_WIDTH
    long_option = page.locator(f'#f-party option[title="{LONG_NAME}"]')
    assert long_option.count() == 1
    page.select_option("#f-party", label=long_option.inner_text())
    assert opened.count() > 0
    assert page.locator("#b-list article.item header .title bdi[title]").count() > 0
    assert page.evaluate(width) <= VIEWPORT_WIDTH
    for table in page.locator("main table.data").all():
        box = table.locator("xpath=..").bounding_box()
        assert box is None or box["x"] + box["width"] <= VIEWPORT_WIDTH
    assert opened.errors == []
