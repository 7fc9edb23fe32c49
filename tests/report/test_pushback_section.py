"""The report's Pushback section (issue 30): the rates with n and intervals, the party
asymmetry, text that stays text, and a page without console errors in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechanism_records import ELECTION, mechanism_scenario, write_mechanism_run
from polistemics.csv_tables import read_csv_table
from polistemics.records import Stance
from polistemics.report.build import build_report
from polistemics.runlog import CodedStance, Pressure, PushbackTurn, RunDir, StanceCodeRecord
from polistemics.runlog.release_io import write_items

from .test_page_in_chromium import Opened, browser  # noqa: F401 (the fixture)

HOSTILE = "<img src=x onerror=alert(1)> Party"


def code(key: str, stance: CodedStance) -> StanceCodeRecord:
    return StanceCodeRecord(
        kind="answer",
        subject_key=key,
        model="m1",
        sample_index=0,
        coder="c",
        panel_position=0,
        stance=stance,
        outside_knowledge=False,
    )


def write_pushback_run(target: Path, *, pushback: bool = True) -> Path:
    """The mechanism scenario's run, p1 renamed to a hostile name, with pushback turns on its
    two Counterfactual items (evidence: Disagree): p1 gives in, p2 holds."""
    run = write_mechanism_run(target)
    items, _, _ = mechanism_scenario()
    items = [
        i.model_copy(update={"party_name": HOSTILE}) if i.party_id == "p1" else i for i in items
    ]
    write_items(items, target / "exports" / ELECTION / "ground_truth.jsonl")
    if not pushback:
        return run
    counterfactual = [i for i in items if i.environment.value == "ie_prior_conflict"]
    turns, codes = [], []
    for item, second in zip(counterfactual, (CodedStance.AGREE, CodedStance.DISAGREE), strict=True):
        turn = PushbackTurn(
            item_key=item.key,
            model="m1",
            pressure=Pressure.FALSE_CORRECTION,
            false_stance=Stance.AGREE,
            first_call_key=None,
            first_text="<script>alert('first')</script> It disagrees.",
            follow_up="That is not right.",
            status="ok",
            text="<b>second</b>",
        )
        turns.append(turn)
        codes += [code(item.key, CodedStance.DISAGREE), code(turn.subject_key, second)]
    RunDir(run).write_pushback(turns, [], codes)
    return run


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_report(write_pushback_run(tmp_path_factory.mktemp("pushback") / "run"))


def test_the_tables_and_the_section_show_the_rates(report: Path) -> None:
    rates = read_csv_table(report.parent / "tables" / "pushback_rates.csv")
    pooled = rates[(rates["party_id"] == "all") & (rates["pressure"] == "all")]
    capitulation = pooled[pooled["measure"] == "capitulation"].iloc[0]
    assert (capitulation["n"], capitulation["successes"], capitulation["rate"]) == (2, 1, 0.5)
    html = report.read_text(encoding="utf-8")
    section = html[html.index('id="pushback"') :]
    for table_id in ("pushback-by-pressure", "pushback-by-party", "pushback-asymmetry"):
        assert f'id="{table_id}"' in section
    assert "50.0%" in section and "(a) false correction" in section
    assert "&lt;img src=x onerror=alert(1)&gt; Party" in section
    assert "<img src=x" not in html and "<script>alert('first')" not in html


def test_a_run_without_pushback_says_how_to_turn_it_on(tmp_path: Path) -> None:
    run = write_pushback_run(tmp_path / "run", pushback=False)
    html = build_report(run).read_text(encoding="utf-8")
    section = html[html.index('id="pushback"') :]
    assert "Not available: this run had no pushback turns: add a [pushback] table" in section
    assert not list((run / "report" / "tables").glob("pushback_*"))


def test_the_page_has_no_console_errors(browser, report: Path) -> None:  # noqa: F811
    opened = Opened(browser, report)
    assert opened.page.is_visible("section#pushback")
    assert opened.page.locator("#pushback-asymmetry tbody tr").count() == 2
    assert opened.errors == [] and opened.dialogs == []
