"""The report's "Human validation" section: said plainly without labels, agreement and corrected
score tables with labels, hostile names escaped, and the page in Chromium without errors."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from annotate.stats_run import build_stats_run  # tests/annotate (tests/ is on sys.path)
from polistemics.annotate.sample import SampleOptions, draw_sample
from polistemics.annotate.stats import annotation_stats
from polistemics.annotate.store import AnnotationStore
from polistemics.report.build import build_report
from polistemics.report.content import ReportOptions
from polistemics.report.human_validation import (
    read_human_validation,
    write_human_validation_tables,
)

from .test_page_hostile_text import MARKUP
from .test_page_in_chromium import Opened, browser  # noqa: F401 (the fixture)

OPTIONS = ReportOptions(bootstrap_resamples=20, figure_formats=("svg",))


def _section(html: str) -> str:
    return html.split('id="human-validation"', 1)[1].split("</section>", 1)[0]


def _label_everything(run: Path, says_yes: bool, who: str, items: int | None = None) -> int:
    with AnnotationStore.open(run) as store:
        sample = store.sample()[:items]
        for item in sample:
            for sq in item.sub_questions:
                store.add_label(who, item.sample_id, sq.code, says_yes)
    return len(sample)


def test_without_labels_the_section_says_what_to_run(tmp_path: Path) -> None:
    run = build_stats_run(tmp_path / "run")
    section = _section(build_report(run, options=OPTIONS).read_text(encoding="utf-8"))
    assert "No human labels yet: label the drawn sample" in section
    assert 'id="annotation-design"' in section  # the drawn sample is shown already
    assert 'id="corrected-rubric-scores"' not in section


def test_without_a_sample(tmp_path: Path) -> None:
    run = build_stats_run(tmp_path / "run", sample=False)
    section = _section(build_report(run, options=OPTIONS).read_text(encoding="utf-8"))
    assert "No human labels yet: run `polistemics annotate sample RUN`" in section


def test_demo_run_sampled_labelled_and_scored(demo_run_copy: Path) -> None:
    """The demo run: drawn by ``annotate sample``, labelled, and shown in its report. (Before
    the Chromium test: the demo fixture runs its own event loop, Playwright's holds one.)"""
    items, _ = draw_sample(demo_run_copy, SampleOptions(n=40, seed=3, overlap=2))
    with AnnotationStore.open(demo_run_copy) as store:
        store.write_sample(items)
    labelled = _label_everything(demo_run_copy, False, "ann")
    _label_everything(demo_run_copy, True, "bob", items=5)
    stats = annotation_stats(demo_run_copy)
    assert stats.n_labelled_items == labelled == len(items)
    assert stats.rubric_scores_pooled["corrected"].notna().any()
    section = _section(build_report(demo_run_copy, options=OPTIONS).read_text(encoding="utf-8"))
    assert 'id="corrected-rubric-scores-pooled"' in section and 'id="human-agreement"' in section


@pytest.fixture(scope="module")
def hostile_labelled_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = build_stats_run(tmp_path_factory.mktemp("hv") / "run", mark=MARKUP)
    _label_everything(run, True, "ann")
    _label_everything(run, False, "bob", items=10)
    return build_report(run, options=OPTIONS)


def test_labelled_run_shows_every_table_escaped(hostile_labelled_report: Path) -> None:
    html = hostile_labelled_report.read_text(encoding="utf-8")
    section = _section(html)
    for table in (
        "annotation-design",
        "human-agreement",
        "humans-vs-judges-all",
        "humans-vs-judges-sub-question",
        "humans-vs-judges-language",
        "corrected-rubric-scores",
        "corrected-rubric-scores-pooled",
        "corrected-adherence",
        "corrected-emi",
    ):
        assert f'id="{table}"' in section, table
    assert "No human labels yet" not in section
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section and "<script" not in section
    assert "<img" not in section
    tables = hostile_labelled_report.parent / "tables"
    assert (tables / "corrected_rubric_scores.csv").is_file()
    assert (tables / "humans_vs_judges_sub_question.csv").is_file()


def test_section_in_chromium(browser, hostile_labelled_report: Path) -> None:  # noqa: F811
    opened = Opened(browser, hostile_labelled_report)
    page = opened.page
    section = page.locator("#human-validation")
    section.scroll_into_view_if_needed()
    assert section.is_visible()
    assert page.locator("nav.toc a[href='#human-validation']").count() == 1
    rows = page.locator("#corrected-rubric-scores tbody tr")
    assert rows.count() == 8
    model = page.locator("#corrected-rubric-scores tbody td bdi[title]").first
    assert model.get_attribute("title") == "target-a" + MARKUP
    judge = page.locator("#humans-vs-judges-all tbody tr").nth(1).locator("td bdi").first
    assert judge.get_attribute("title") == "0:judge-a" + MARKUP
    assert page.locator("#human-validation img, #human-validation script").count() == 0
    assert opened.dialogs == [] and opened.errors == []


def test_few_labelled_items_are_flagged_in_the_section(tmp_path: Path) -> None:
    """Issue 27: corrected scores from 2 labelled items were shown with no warning."""
    run = build_stats_run(tmp_path / "run")
    _label_everything(run, True, "ann", items=2)
    section = _section(build_report(run, options=OPTIONS).read_text(encoding="utf-8"))
    assert "Warning: only 2 sample items are fully labelled (fewer than 30)" in section
    assert "Warning: Corrected Rubric Scores:" in section
    assert "fewer than 30 labelled: indicative" in section


def _doctor_after_writing(monkeypatch, name: str, column: str, value: object) -> None:
    """The human-validation tables are doctored on disk between writing and reading back."""
    import polistemics.report.build as build
    from polistemics.report.human_validation import write_human_validation_tables

    def write_then_doctor(stats, folder):
        written = write_human_validation_tables(stats, folder)
        path = folder / f"{name}.csv"
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
        table[column] = str(value)
        table.to_csv(path, index=False)
        return written

    monkeypatch.setattr(build, "write_human_validation_tables", write_then_doctor)


def test_the_section_draws_the_tables_as_read_back(tmp_path: Path, monkeypatch) -> None:
    run = build_stats_run(tmp_path / "run")
    _label_everything(run, True, "ann")
    truth = build_report(run, tmp_path / "truth", options=OPTIONS)
    tables = truth.parent / "tables"
    computed = annotation_stats(run)
    written = write_human_validation_tables(computed, tmp_path / "t")
    read = read_human_validation(computed, written, tmp_path / "t")
    for name, table in computed.tables().items():  # the files hold the statistics, typed
        assert (tables / f"{name}.csv").is_file(), name
        pd.testing.assert_frame_equal(read.tables()[name], table, check_exact=True, obj=name)

    def emi_table(page: Path) -> str:
        section = _section(page.read_text(encoding="utf-8"))
        return section.split('id="corrected-emi"', 1)[1].split("</table>", 1)[0]

    assert "42.4%" not in emi_table(truth)
    _doctor_after_writing(monkeypatch, "corrected_emi", "corrected", 0.4242)
    assert "42.4%" in emi_table(build_report(run, tmp_path / "doctored", options=OPTIONS))


def test_without_labels_the_design_is_read_back(tmp_path: Path, monkeypatch) -> None:
    run = build_stats_run(tmp_path / "run")
    _doctor_after_writing(monkeypatch, "annotation_design", "drawn", 987)
    page = build_report(run, tmp_path / "out", options=OPTIONS)
    design = _section(page.read_text(encoding="utf-8")).split('id="annotation-design"', 1)[1]
    assert "987" in design.split("</table>", 1)[0]
    assert not (page.parent / "tables" / "corrected_emi.csv").exists()
