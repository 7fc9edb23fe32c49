"""The comparison page (``compare --out``): its HTML, and in headless Chromium every section,
every figure, no console error; names from the data stay text."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from markupsafe import escape

from polistemics.compare import CompareOptions, compare_pair, compare_sides, load_side
from polistemics.conditions import Environment
from polistemics.report.compare_page import COMPARE_FILE, COMPARE_SECTIONS, write_compare_page
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.runlog import RunDir

from .conftest import cells_frame, rate_cells
from .test_page_in_chromium import Opened, browser  # noqa: F401 (the fixture)

HOSTILE_MODEL = '<img src=x onerror=alert(1)>"model'
HOSTILE_PARTY = "<script>alert('party')</script>"
OPTIONS = CompareOptions(resamples=100, seed=1)


def side_cells(drop: dict[str, int]):
    """Two models x Baseline, Vague x two parties (one with a hostile name) x every active
    sub-question: 20 observations each, 18 passing minus ``drop[model]``."""
    spec = [
        (model, env, party, sq.key, 18 - drop.get(model, 0), 20)
        for model in (HOSTILE_MODEL, "m2")
        for env in (Environment.BASELINE, Environment.VAGUE)
        for party in ("p1", "p2")
        for rubric in active_rubrics(env)
        for sq in sub_questions(rubric, env)
    ]
    cells = cells_frame(rate_cells(spec))
    cells.loc[cells["party_id"] == "p1", "party_name"] = HOSTILE_PARTY
    return cells


def run_side(folder: Path, drop: dict[str, int]):
    RunDir(folder).write_cells(side_cells(drop))
    return load_side(str(folder))


def hostile_sides(tmp_path: Path):
    return (
        run_side(tmp_path / "before", {}),
        run_side(tmp_path / "after", {"m2": 12}),
        run_side(tmp_path / "later", {HOSTILE_MODEL: 2}),
    )


@pytest.fixture
def hostile_page(tmp_path: Path) -> Path:
    a, b, c = hostile_sides(tmp_path)
    return write_compare_page(compare_sides([a, b, c], OPTIONS), tmp_path / "out")


def test_page_files_and_escaping(hostile_page: Path) -> None:
    html = hostile_page.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in html and "<script" not in html.replace("&lt;script", "")
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<img src=x" not in html
    for section_id, _ in COMPARE_SECTIONS:
        assert f'id="{section_id}"' in html
    tables = sorted(p.name for p in (hostile_page.parent / "tables").glob("*.csv"))
    assert "delta_sub_questions.csv" in tables and "vs3_delta_sub_questions.csv" in tables
    assert len(list((hostile_page.parent / "figures").glob("*.svg"))) >= 8


def test_compare_page_in_chromium(browser, hostile_page: Path) -> None:  # noqa: F811
    opened = Opened(browser, hostile_page, ready="section#parties")
    page = opened.page
    for section_id, _ in COMPARE_SECTIONS:
        assert page.is_visible(f"section#{section_id}"), section_id
        assert page.is_visible(f'nav.toc a[href="#{section_id}"]')
    figures = page.locator("figure.figure")
    assert figures.count() == len(list((hostile_page.parent / "figures").glob("*.svg")))
    for i in range(figures.count()):
        box = figures.nth(i).locator("svg").bounding_box()
        assert box and box["width"] > 100 and box["height"] > 60
    # Two comparisons (after - before, later - before), each with its heading per section.
    assert page.locator("section#summary h3").count() == 2
    assert HOSTILE_MODEL in page.locator("section#indices").inner_text()
    assert page.locator("img[src=x]").count() == 0
    assert opened.dialogs == [] and opened.errors == []


def test_dutch_full_vs_anon_page_in_chromium(browser, release_dir, tmp_path) -> None:  # noqa: F811
    full = load_side(str(release_dir))
    anon = load_side(f"{release_dir}/anon_v1")
    path = write_compare_page([compare_pair(full, anon, OPTIONS)], tmp_path / "nl")
    assert path.name == COMPARE_FILE
    opened = Opened(browser, path, ready="section#parties")
    text = opened.page.locator("section#summary").inner_text()
    assert "paired" in text and "21 of 15110 cells of anon_v1" in text
    assert opened.page.locator("section#parties figure.figure").count() == 2
    assert opened.errors == []


def test_a_linked_output_folder_is_refused(tmp_path: Path) -> None:
    from polistemics.compare import CompareError

    a, b, _ = hostile_sides(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(CompareError, match="out is a symbolic link"):
        write_compare_page(compare_sides([a, b], OPTIONS), tmp_path / "out")
    assert list(elsewhere.iterdir()) == []


def election_side(folder: Path, election: str, drop: dict[str, int]):
    cells = side_cells(drop)
    cells["election_id"] = election
    cells["observation_id"] = election + "__" + cells["observation_id"].str.split("__", n=1).str[1]
    RunDir(folder).write_cells(cells)
    return load_side(str(folder))


def test_the_page_draws_the_tables_it_wrote_and_read_back(tmp_path: Path, monkeypatch) -> None:
    """The tables are computed once, written to tables/ and read back; the page (summary,
    tables) shows what was read, so a value changed in between shows on the page."""
    import polistemics.report.compare_page as compare_page
    from polistemics.compare.tables import comparison_tables, read_comparison_tables

    a, b, _ = hostile_sides(tmp_path)
    comparisons = compare_sides([a, b], OPTIONS)
    computed = comparison_tables(comparisons)
    seen = {}

    def doctored(written, folder):
        tables = read_comparison_tables(written, folder)
        seen.update({name: table.copy() for name, table in tables.items()})
        tables["delta_emi"].loc[0, "delta"] = 0.4242  # not a value the comparison computed
        return tables

    monkeypatch.setattr(compare_page, "read_comparison_tables", doctored)
    page = write_compare_page(comparisons, tmp_path / "out", tables=computed)
    for name, table in computed.items():  # the files round-trip exactly, types included
        pd.testing.assert_frame_equal(seen[name], table, check_exact=True)
    html = page.read_text(encoding="utf-8")
    assert "+42.4" in html.split('id="summary"')[0]  # the summary in words, from the tables
    assert "+42.4" in html.split('id="indices"')[1]  # the EMI table


def test_unpaired_page_opens_with_the_summary_verdicts_and_warnings(tmp_path: Path) -> None:
    from polistemics.compare.tables import comparison_tables, with_tables
    from polistemics.report.comparison_views import comparison_summary, small_sample_warnings

    de = election_side(tmp_path / "de", "de_x", {})
    nl = election_side(tmp_path / "nl", "nl_x", {"m2": 12})
    comparisons = compare_sides([de, nl], OPTIONS)
    page = write_compare_page(comparisons, tmp_path / "out")
    html = page.read_text(encoding="utf-8")
    assert html.index('id="in-short"') < html.index('id="summary"')
    shown = with_tables(comparisons, comparison_tables(comparisons))[0]
    sentences = comparison_summary(shown)
    warnings = small_sample_warnings(shown)
    assert sentences[0].startswith("nl − de: an unpaired comparison of 2 models")
    assert warnings  # 20 observations per side and row: every interval is flagged
    in_short = html.split('id="in-short"')[1].split('id="summary"')[0]
    for text in [*sentences, *warnings]:
        assert escape(text) in in_short
    assert "CI excludes 0" in html and "Significant after Holm" in html and "⚠" in html
    sub = shown.deltas.sub_questions
    m2 = sub[sub["model"] == "m2"]
    assert m2["significant"].all() and m2["excludes_zero"].all()  # 18/20 against 6/20
    assert not sub.loc[sub["model"] != "m2", "excludes_zero"].any()
    assert f"{int(sub['significant'].sum())} are significant after Holm" in in_short
