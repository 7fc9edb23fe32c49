from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from html import unescape
from pathlib import Path

import pandas as pd
import pytest

from polistemics.report.build import build_any, build_release_report, build_report
from polistemics.report.content import ReportOptions
from polistemics.report.inputs import ReportInputError
from polistemics.report.sections import SECTIONS


def browser_data(html: str) -> dict:
    found = re.search(
        r'<script type="application/json" id="browser-data">(.*?)</script>', html, re.S
    )
    assert found
    return json.loads(found.group(1))


def test_finish_run_writes_the_report(finished_demo_run) -> None:
    run_dir, paths = finished_demo_run
    report = paths["report"]
    assert report == run_dir / "report" / "report.html"
    html = report.read_text(encoding="utf-8")
    for section_id, _ in SECTIONS:
        assert f'id="{section_id}"' in html
    for figure_id in (
        "demo_en-fig02",
        "demo_en-fig03",
        "demo_en-fig04",
        "demo_en-fig16",
        "demo_en-fig13",
    ):
        assert f'data-figure="{figure_id}"' in html
    for number in (36, 37, 38):  # the demo run has both ablations
        assert f'data-figure="demo_en-fig{number}"' in html
    assert "Not available: judge agreement" not in html
    assert "http://" not in html.split("<body>", 1)[1].split('id="browser-data"')[0].replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )  # no network reference outside the data (the SVG namespace is a name, not a request)


def test_the_report_from_the_files_equals_the_one_finish_run_built_from_memory(
    finished_demo_run, tmp_path: Path
) -> None:
    run_dir, paths = finished_demo_run
    ours = paths["report"].parent
    again = build_report(run_dir, tmp_path / "again").parent
    files = sorted(p.relative_to(ours) for p in ours.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert len(files) > 20

    def page(folder: Path) -> str:
        html = (folder / "report.html").read_text(encoding="utf-8")
        return re.sub(r"Generated \S+ by", "Generated (time) by", html)

    for name in files:
        if name.name != "report.html":
            assert (ours / name).read_bytes() == (again / name).read_bytes(), name
    assert page(ours) == page(again)


def test_static_figures_and_csv_tables(finished_demo_run) -> None:
    run_dir, paths = finished_demo_run
    folder = paths["report"].parent
    svgs = sorted((folder / "figures").glob("*.svg"))
    assert len(svgs) >= 5 + 6 + 3  # Figs. 2-4, 13, 16, one per environment, three ablations
    for svg in svgs:
        ET.parse(svg)
    tables = {p.stem for p in (folder / "tables").glob("*.csv")}
    assert {
        "leaderboard",
        "adherence_by_environment",
        "party_spread",
        "loo_deviations",
        "sub_question_pass_rates",
        "ablation_deltas",
        "agreement_by_rubric",
        "agreement_by_language",
        "standardisation",
        "environment_counts",
        "fidelity",
        "calls",
    } <= tables
    leaderboard = pd.read_csv(folder / "tables" / "leaderboard.csv")
    summary = json.loads((run_dir / "scores" / "summary.json").read_text())
    full = {s["model"]: s["emi"] for s in summary if s["variant"] == "full"}
    assert dict(zip(leaderboard["model"], leaderboard["emi"], strict=True)) == pytest.approx(full)


def test_release_report_of_the_runs_own_export(finished_demo_run, tmp_path: Path) -> None:
    run_dir, _ = finished_demo_run
    report = build_release_report(
        run_dir / "exports" / "demo_en", tmp_path / "out", ReportOptions(bootstrap_resamples=50)
    )
    html = report.read_text(encoding="utf-8")
    # the sections a release cannot fill are left out, and said at the top (omissions.py)
    left_out = {
        "judges",
        "judge-strictness",
        "human-validation",
        "mechanisms",
        "pushback",
        "self-consistency",
        "cross-election",
    }
    for section_id, _ in SECTIONS:
        assert (f'<section class="report-section" id="{section_id}"' in html) is (
            section_id not in left_out
        ), section_id
    summary = unescape(html.split('id="release-summary"', 1)[1].split("</div>", 1)[0])
    assert "each judge's own verdicts: a release holds only the panel's final verdicts" in summary
    assert "the run's record (run.json)" in summary  # Table 5 and the calls are not shown
    assert 'data-unavailable="true"' not in html
    data = browser_data(html)
    assert data["hasJudges"] is False and data["embedded"] > 0
    assert all(not item["j"] for item in data["items"])


def test_build_any_detects_the_kind_and_rejects_other_folders(
    demo_run_copy: Path, tmp_path: Path
) -> None:
    run_dir = demo_run_copy  # a copy: other options rewrite the run's tables/
    options = ReportOptions(bootstrap_resamples=20, max_browser_answers=5)
    report = build_any(run_dir, tmp_path / "run-report", options)
    data = browser_data(report.read_text(encoding="utf-8"))
    assert data["embedded"] == 5 and data["total"] > 5
    assert "embeds a seeded random sample of 5" in report.read_text(encoding="utf-8")
    with pytest.raises(ReportInputError, match="neither a finished run"):
        build_any(tmp_path, None, options)
    with pytest.raises(ReportInputError, match="no such folder"):
        build_any(tmp_path / "missing", None, options)


def test_model_labels_replace_ids(demo_run_copy: Path) -> None:
    report = build_report(
        demo_run_copy,
        options=ReportOptions(model_labels={"target-a": "Target A (demo)"}, bootstrap_resamples=20),
    )
    html = report.read_text(encoding="utf-8")
    assert "Target A (demo)" in html
    assert browser_data(html)["models"] == [["target-a", "Target A (demo)"]]


def test_bad_run_files_name_the_file_and_record(demo_run_copy: Path) -> None:
    judges = demo_run_copy / "judges.jsonl"
    lines = judges.read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[2])
    broken["rubric"] = "charm"
    lines[2] = json.dumps(broken)
    judges.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReportInputError, match=r"judges\.jsonl, record 3, field 'rubric'"):
        build_report(demo_run_copy)


def test_answers_are_never_markup(demo_run_copy: Path) -> None:
    answers = demo_run_copy / "answers.jsonl"
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    rows[0]["text"] = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options = ReportOptions(bootstrap_resamples=20, figure_formats=("svg",))
    html = build_report(demo_run_copy, options=options).read_text(encoding="utf-8")
    assert "<img src=x" not in html and "window.pwned=1</script>" not in html
    assert browser_data(html)["strings"].count(rows[0]["text"]) == 1


def test_a_run_without_scored_cells_still_gets_a_report(demo_run_copy: Path) -> None:
    cells = demo_run_copy / "scores" / "cells.csv"
    cells.write_text(cells.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    html = build_report(demo_run_copy).read_text(encoding="utf-8")
    # leaderboard, robustness, even-handedness, sub-questions, ablations; party findings,
    # failure co-occurrence, expansion and I4
    assert html.count("Not available: the source has no scored cells") == 8
    data = browser_data(html)
    assert data["embedded"] > 0 and all(set(item["c"]) == {"-"} for item in data["items"])


def test_judge_records_of_unknown_items_are_refused(demo_run_copy: Path) -> None:
    judges = demo_run_copy / "judges.jsonl"
    rows = [json.loads(line) for line in judges.read_text(encoding="utf-8").splitlines()]
    rows[0]["item_key"] = "elsewhere__xx__s999|baseline|full"
    judges.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(ReportInputError, match=r"elsewhere__xx__s999\|baseline\|full"):
        build_report(demo_run_copy)


def test_a_run_without_exports_reports_scores_only(demo_run_copy: Path) -> None:
    shutil.rmtree(demo_run_copy / "exports")
    html = build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20)).read_text(
        encoding="utf-8"
    )
    assert "contexts unknown" in html and "Not available: judge agreement" in html
    assert browser_data(html)["embedded"] == 0


def test_a_linked_report_folder_or_page_is_refused_and_nothing_written_through_it(
    demo_run_copy: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (demo_run_copy / "report").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ReportInputError, match="report is a symbolic link"):
        build_report(demo_run_copy)
    assert list(elsewhere.iterdir()) == []
    (demo_run_copy / "report").unlink()
    (demo_run_copy / "report").mkdir()
    victim = tmp_path / "victim.html"
    victim.write_text("precious")
    (demo_run_copy / "report" / "report.html").symlink_to(victim)
    with pytest.raises(ReportInputError, match="report.html is a symbolic link"):
        build_report(demo_run_copy)
    assert victim.read_text() == "precious"


def test_the_robustness_section_shows_each_dispersion_with_its_interval_and_n(
    finished_demo_run,
) -> None:
    from polistemics.analyses.election_scores import DISPERSION
    from polistemics.runlog import RunDir

    run_dir, paths = finished_demo_run
    html = paths["report"].read_text(encoding="utf-8")
    section = text_of_section(html, "robustness")
    table = DISPERSION.read(RunDir(run_dir).tables)
    assert not table.empty
    for row in table.itertuples():
        low, high = 100 * row.dispersion_ci_low, 100 * row.dispersion_ci_high
        shown = f"{100 * row.dispersion:.1f}% [{low:.1f}, {high:.1f}] (n = {row.n_observations:,})"
        assert shown in section


def text_of_section(html: str, section_id: str) -> str:
    section = html.split(f'id="{section_id}"', 1)[1].split("</section>", 1)[0]
    return unescape(re.sub(r"<[^>]+>", "", section))
