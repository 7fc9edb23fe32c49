"""The report's Mechanisms section, its CSV tables and figures, and the item browser's stance
filters, from a run whose coded stances and probe answers are known (``mechanism_records``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mechanism_records import mechanism_scenario, write_mechanism_run
from polistemics.csv_tables import read_csv_table
from polistemics.report.build import build_report
from polistemics.report.content import score_content
from polistemics.report.figures.mechanisms import mechanism_figures
from polistemics.report.labels import ModelLabels
from polistemics.report.run_inputs import load_run_inputs
from polistemics.scoring.mechanisms import mechanism_tables

from .test_page_in_chromium import Opened, browser  # noqa: F401 (the fixture)


@pytest.fixture(scope="module")
def coded_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = write_mechanism_run(tmp_path_factory.mktemp("mechanisms") / "run")
    return build_report(run)


def test_tables_and_figures_are_written(coded_report: Path):
    tables = coded_report.parent / "tables"
    fallback = read_csv_table(tables / "mechanisms_fallback_by_model.csv")
    union = fallback[fallback["rule"] == "union"].iloc[0]
    assert (union["n"], union["successes"], union["rate"]) == (2, 1, 0.5)
    first = read_csv_table(tables / "mechanisms_first_chunk_by_model.csv").set_index("chunk_order")
    assert first.loc["original", "rate"] == 0.5 and first.loc["swapped", "rate"] == 1.0
    prior = read_csv_table(tables / "mechanisms_prior_by_model.csv").iloc[0]
    assert (prior["n"], prior["successes"]) == (3, 2)
    figures = {p.name for p in (coded_report.parent / "figures").glob("mechanisms_*.svg")}
    assert figures == {
        "mechanisms_fallback_accuracy.svg",
        "mechanisms_first_chunk.svg",
        "mechanisms_prior_accuracy.svg",
    }


def test_section_shows_the_rates_with_n_and_intervals(coded_report: Path):
    html = coded_report.read_text(encoding="utf-8")
    section = html[html.index('id="mechanisms"') :]
    for table_id in ("mechanisms-fallback", "mechanisms-first-chunk", "mechanisms-prior"):
        assert f'id="{table_id}"' in section
    assert "50.0%" in section and "66.7%" in section
    assert "Not available: this run did not code stances" not in section
    # The probe answer's markup is data: it never reaches the page as markup.
    assert "<script>alert(" not in html


def test_a_run_without_codes_says_so(tmp_path: Path):
    run = write_mechanism_run(tmp_path / "run", coded=False)
    html = build_report(run).read_text(encoding="utf-8")
    section = html[html.index('id="mechanisms"') :]
    assert "Not available: this run did not code stances: set `stance_coder`" in section
    assert not list((run / "report" / "tables").glob("mechanisms_*"))


def test_browser_payload_carries_coded_and_prior_stances(tmp_path: Path):
    inputs = load_run_inputs(write_mechanism_run(tmp_path / "run"))
    payload = score_content(inputs).browser
    assert payload["hasStances"] is True
    found = sorted((row["o"][-8:], row["e"], row["cs"], row["ps"]) for row in payload["items"])
    codes = [(o, cs, ps) for o, _, cs, ps in found]
    assert codes.count(("p1__s001", "agree", "Agree")) == 2  # Absent and Contradictory
    assert ("p1__s001", "disagree", "Agree") in codes  # Counterfactual follows the evidence
    assert ("p1__s002", "agree", "Disagree") in codes
    assert sum(ps == "Disagree" for _, _, ps in codes) == 4
    swapped = [row for row in payload["items"] if row["cs"] == "disagree" and row["ps"] == "Agree"]
    assert len(swapped) == 2  # Counterfactual, and the swapped order following its first chunk
    assert not any("name no item" in note for note in inputs.notes)


def test_browser_filters_by_coded_and_prior_stance(browser, coded_report: Path) -> None:  # noqa: F811
    opened = Opened(browser, coded_report)
    page = opened.page
    assert page.is_visible("section#mechanisms")
    figures = page.locator("section#mechanisms figure.figure svg")
    assert figures.count() == 3
    assert opened.count() == 8  # the swapped-order answer too, derived from its original
    opened.choose("#f-coded", "disagree")
    assert opened.count() == 3
    opened.choose("#f-coded", "All")
    opened.choose("#f-prior", "Disagree")
    assert opened.count() == 4
    opened.choose("#f-prior", "prior = real stance")
    assert opened.count() == 5
    opened.choose("#f-prior", "prior ≠ real stance")
    assert opened.count() == 3
    opened.choose("#f-coded", "agree")
    assert opened.count() == 2  # p2 s001 under Absent and Counterfactual
    assert "Coded stance: agree" in page.locator("#b-list").inner_text()
    assert opened.errors == [] and opened.dialogs == []


def test_hostile_party_and_model_names_stay_text(tmp_path: Path):

    hostile = "<img src=x onerror=alert(1)> $\\frac{a}{b}$"
    items, records, ec4 = mechanism_scenario()
    items = [i.model_copy(update={"party_name": hostile}) for i in items]
    tables = mechanism_tables(items, records, pd.DataFrame(ec4))
    figures = mechanism_figures(tables, ModelLabels({"m1": "<b>m1</b>"}))
    assert len(figures) == 3
    for figure in figures:
        assert "<img" not in figure.svg and "<b>" not in figure.svg
        assert "&lt;img" in figure.svg
