"""One report for a multi-election study: ``report A B`` and a run with two elections give one
page with each election's sections, the cross-election deltas and Figs. 36-38 side by side."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.compare import load_side
from polistemics.conditions import Environment, Variant
from polistemics.report.build import build_combined, build_report
from polistemics.report.content import ReportOptions
from polistemics.report.inputs import ReportInputError
from polistemics.report.sections import SECTIONS
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.runlog import RunDir

from .conftest import cells_frame, rate_cells
from .test_page_in_chromium import Opened, browser  # noqa: F401 (the fixture)

OPTIONS = ReportOptions(bootstrap_resamples=50, figure_formats=("svg",))
ENVS = (Environment.BASELINE, Environment.VAGUE)


def election_cells(election: str, passes: dict[str, int]) -> pd.DataFrame:
    """Two models, Baseline and Vague, two parties, every active sub-question; full and
    anonymised variants; 10 observations per party, ``passes[model]`` of them passing."""
    rows = []
    for variant in (Variant.FULL, Variant.ANONYMIZED):
        spec = [
            (model, env, f"{election}_p{p}", sq.key, count, 10)
            for model, count in passes.items()
            for env in ENVS
            for p in (1, 2)
            for rubric in active_rubrics(env)
            for sq in sub_questions(rubric, env)
        ]
        rows.extend(rate_cells(spec, variant=variant, election=election))
    cells = cells_frame(rows)
    cells["country"] = election.split("_")[0].upper()
    return cells


def run(folder: Path, cells: pd.DataFrame) -> Path:
    RunDir(folder).write_cells(cells)
    return folder


def two_runs_in(folder: Path) -> tuple[Path, Path]:
    return (
        run(folder / "de", election_cells("de_x", {"m1": 7, "m2": 9})),
        run(folder / "nl", election_cells("nl_x", {"m1": 8, "m2": 10})),
    )


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    return two_runs_in(tmp_path)


@pytest.fixture(scope="module")
def combined(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple[Path, Path], Path]:
    """The two runs and their combined report, built once for the tests that only read them."""
    folder = tmp_path_factory.mktemp("combined")
    runs = two_runs_in(folder)
    return runs, build_combined(list(runs), folder / "out", OPTIONS)


def test_report_of_two_runs_has_cross_election_deltas(combined) -> None:
    _, page = combined
    html = page.read_text(encoding="utf-8")
    assert 'id="cross-election"' in html
    assert "nl_x − de_x" in html
    tables = {p.name for p in (page.parent / "tables").iterdir()}
    assert {"cross1_delta_emi.csv", "cross1_rank_correlation.csv"} <= tables
    emi = pd.read_csv(page.parent / "tables" / "cross1_delta_emi.csv")
    full = emi[emi["variant"] == "full"].set_index("model")
    # Baseline and Vague pass rates 0.7 -> 0.8 (m1) and 0.9 -> 1.0 (m2), every rubric.
    assert np.allclose(full.loc["m1", "delta"], 0.1) and np.allclose(full.loc["m2", "delta"], 0.1)
    # Figs. 36 and 38 (anonymised labels) are drawn side by side: (a) de_x, (b) nl_x.
    assert html.count('class="side-by-side"') == 2
    figures = {p.name for p in (page.parent / "figures").glob("*.svg")}
    assert (
        "de_x_fig36_anon_baseline_delta.svg" in figures
        and "cross1_fig30_adherence_delta.svg" in figures
    )


def test_a_run_with_two_elections_gives_the_same_cross_election_deltas(combined, tmp_path) -> None:
    two_runs, two_page = combined
    both = pd.concat([load_side(str(p)).cells for p in two_runs], ignore_index=True)
    page = build_report(run(tmp_path / "both", both), tmp_path / "one", OPTIONS)
    one = pd.read_csv(page.parent / "tables" / "cross1_delta_adherence.csv")
    two = pd.read_csv(two_page.parent / "tables" / "cross1_delta_adherence.csv")
    pd.testing.assert_frame_equal(one, two)


def test_one_election_says_the_section_is_not_available(two_runs, tmp_path) -> None:
    html = build_report(two_runs[0], tmp_path / "single", OPTIONS).read_text(encoding="utf-8")
    assert "the report covers one election" in html
    assert 'class="side-by-side"' not in html


def test_the_same_election_twice_is_refused(two_runs, tmp_path) -> None:
    with pytest.raises(ReportInputError, match="election 'de_x' is in both"):
        build_combined([two_runs[0], two_runs[0]], tmp_path / "x", OPTIONS)


def test_cli_report_of_two_sources_needs_out(two_runs, tmp_path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["report", *map(str, two_runs)])
    assert result.exit_code == 2 and "needs --out" in result.stderr
    out = tmp_path / "cli"
    result = runner.invoke(
        app,
        [
            "report",
            *map(str, two_runs),
            "--out",
            str(out),
            "--resamples",
            "20",
            "--figure-format",
            "svg",
        ],
    )
    assert result.exit_code == 0, result.output
    assert (out / "report.html").is_file()


def test_multi_election_report_in_chromium(browser, release_dir, tmp_path) -> None:  # noqa: F811
    """The Dutch release with a fixture second election (its cells relabelled and 15% of the
    outcomes flipped), full and anonymised variants."""
    rng = np.random.default_rng(42)
    dutch = pd.concat(
        [load_side(str(release_dir)).cells, load_side(str(release_dir / "anon_v1")).cells]
    )
    german = dutch.copy()
    flip = rng.random(len(german)) < 0.15
    german["passed"] = np.where(flip, ~german["passed"], german["passed"])
    german["observation_id"] = "de_fixture__" + german["observation_id"].str.split("__", n=1).str[
        1
    ].str.replace("nl_", "de_", regex=False)
    german["party_id"] = german["party_id"].str.replace("nl_", "de_", regex=False)
    german["election_id"], german["country"] = "de_fixture", "DE"
    page = build_combined(
        [run(tmp_path / "de", german), release_dir],
        tmp_path / "report",
        ReportOptions(bootstrap_resamples=100, figure_formats=("svg",)),
    )
    opened = Opened(browser, page)
    p = opened.page
    linked = p.locator("nav.toc a").evaluate_all("links => links.map(a => a.hash.slice(1))")
    for section_id in linked:
        assert p.is_visible(f"section#{section_id}"), section_id
    # the release has no judge verdicts, stance codes or labels: those sections are left out,
    # and the top of the page names them (omissions.py)
    left_out = {s for s, _ in SECTIONS} - set(linked)
    assert left_out <= {
        "judges",
        "judge-strictness",
        "human-validation",
        "mechanisms",
        "pushback",
        "self-consistency",
    }
    summary = p.inner_text("#release-summary")
    assert all(dict(SECTIONS)[s] in summary for s in left_out)
    assert p.locator("section.report-section").count() == len(linked)
    cross = p.locator("section#cross-election")
    assert "nl_tk2025 − de_fixture" in cross.locator("h3").first.inner_text()
    assert cross.locator("figure.figure").count() >= 7  # Figs. 30-32, 22b, 24b-27b
    rows = p.locator("section#ablations .side-by-side")
    assert rows.count() == 2  # Figs. 36 and 38: the fixture has no English-output variant
    for i in range(rows.count()):
        panels = rows.nth(i).locator(".panel")
        assert panels.count() == 2
        assert panels.nth(0).locator("h4").inner_text().startswith("(a)")
        assert rows.nth(i).evaluate("e => getComputedStyle(e).display") == "flex"
    p.screenshot(path=str(tmp_path / "multi.png"), full_page=False)
    assert opened.errors == []
