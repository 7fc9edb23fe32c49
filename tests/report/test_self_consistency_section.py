"""The report's Self-consistency section (issue 30, item 3), from a run whose items were
answered twice: the second sample flips one observation's verdict and one coded stance."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mechanism_records import write_mechanism_run
from polistemics.csv_tables import read_csv_table
from polistemics.report.build import build_report
from polistemics.runlog import RunDir, write_jsonl

from .test_page_in_chromium import Opened, browser  # noqa: F401 (the fixture)


def write_sampled_run(target: Path) -> Path:
    run = write_mechanism_run(target)
    files = RunDir(run)
    cells = files.read_cells()
    second = cells.assign(sample_index=1)
    # every verdict of the first observation flips in the second sample
    first_observation = sorted(cells["observation_id"].unique())[0]
    flipped = second["observation_id"] == first_observation
    second.loc[flipped, "passed"] = ~second.loc[flipped, "passed"].astype(bool)
    files.write_cells(pd.concat([cells, second], ignore_index=True))
    codes = files.read_stance_codes()
    again = [c.model_copy(update={"sample_index": 1}) for c in codes if c.kind == "answer"]
    write_jsonl(files.stance_codes, (c.model_dump(mode="json") for c in [*codes, *again]))
    return run


def test_the_section_shows_agreement_and_flips(browser, tmp_path: Path) -> None:  # noqa: F811
    report = build_report(write_sampled_run(tmp_path / "run"))
    verdicts = read_csv_table(report.parent / "tables" / "self_consistency_verdicts.csv")
    # the first observation is in each of the three environments: one flip in each
    assert list(verdicts["flipped"]) == [1, 1, 1] and (verdicts["samples"] == 2).all()
    assert list(verdicts["n_observations"]) == [3, 2, 2]  # Absent, Contradictory, Counterf.
    stances = read_csv_table(report.parent / "tables" / "self_consistency_stances.csv")
    assert (stances["agreement_rate"] == 1.0).all()
    html = report.read_text(encoding="utf-8")
    section = html[html.index('id="self-consistency"') :]
    assert 'id="self-consistency-verdicts"' in section
    assert 'id="self-consistency-stances"' in section
    # the agreement coefficients with their bootstrap intervals, as the table holds them
    low, high = verdicts.loc[0, ["percent_agreement_ci_low", "percent_agreement_ci_high"]]
    assert low <= verdicts.loc[0, "percent_agreement"] <= high
    assert "Fleiss&#39; kappa (95% CI)" in section or "Fleiss' kappa (95% CI)" in section
    assert f"[{100 * low:.1f}, {100 * high:.1f}]" in section
    opened = Opened(browser, report)
    assert opened.page.locator("#self-consistency-verdicts tbody tr").count() == 3
    assert opened.errors == [] and opened.dialogs == []


def test_a_run_with_one_sample_says_how_to_measure_it(tmp_path: Path) -> None:
    html = build_report(write_mechanism_run(tmp_path / "run")).read_text(encoding="utf-8")
    section = html[html.index('id="self-consistency"') :]
    assert "Not available: every item was answered once: set samples = 2" in section
