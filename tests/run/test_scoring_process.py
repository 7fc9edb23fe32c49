"""A large study is scored in a spawned process of its own (``run.scoring_process``): what comes
back is what this process makes, but for the tally's vote counts, whose agreement comes
instead; records the streamed tally declines are tallied here, for their error."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from dataclasses import fields
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from scoring_helpers import spooled_judges
from study_helpers import finish_hashes_by_switch

from analyses.test_analysis_properties import item, verdict  # tests/ is on sys.path
from polistemics.analyses.agreement import agreement_tables
from polistemics.conditions import Environment, Variant
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.run import scoring_process
from polistemics.run.pipeline import score_study
from polistemics.run.scoring_process import (
    SCORING_PROCESS_MIN_RECORDS,
    ScoringInput,
    own_process_scoring,
    wants_scoring_process,
)
from polistemics.runlog import spool
from polistemics.runlog.spool import SpooledJudgeRecords
from polistemics.scoring.errors import VerdictError
from polistemics.scoring.panel_agreement import PanelAgreement, panel_agreement
from polistemics.scoring.verdict_table import score_run
from polistemics.testing import FakeOpenAIServer

ITEMS = [
    item(party, number, environment, Variant.FULL)
    for party in ("p1", "p2", "p3")
    for number in (1, 2, 3)
    for environment in (Environment.ABSENT, Environment.NOISY)
]


def mixed_records(items: list, panel_size: int) -> list:
    """Every seat's verdicts on each item in answer blocks, Yes and No mixed so that the
    panel's agreement is neither perfect nor undefined."""
    return [
        verdict(
            one,
            seat,
            {
                sq.key: not ((n + index) % 4 == 0 or (seat == 0 and (n + index) % 3 == 0))
                for n, sq in enumerate(sub_questions(rubric, one.environment))
            },
            rubric=rubric,
        )
        for index, one in enumerate(items)
        for seat in range(panel_size)
        for rubric in active_rubrics(one.environment)
    ]


def scored(records: list, folder: Path, panel_size: int, switch: str, monkeypatch):
    monkeypatch.setenv("POLISTEMICS_SCORING_PROCESS", switch)
    result = SimpleNamespace(
        items=ITEMS, elections=[], verdicts=spooled_judges(records, folder), parsing_counts=None
    )
    return score_study(result, SimpleNamespace(judges=[None] * panel_size)), result


def assert_same_agreement(one: PanelAgreement, other: PanelAgreement) -> None:
    for grain in fields(PanelAgreement):
        pd.testing.assert_frame_equal(getattr(one, grain.name), getattr(other, grain.name))


@pytest.mark.parametrize("panel_size", [3, 2])  # 2: ties, which are left out of the cells
def test_the_own_process_gives_what_this_process_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, panel_size: int
) -> None:
    monkeypatch.setattr(spool, "RECORDS_PER_READ", 5)  # here: chunks cut through answers
    records = mixed_records(ITEMS, panel_size)
    here, here_state = scored(records, tmp_path, panel_size, "off", monkeypatch)
    there, there_state = scored(records, tmp_path, panel_size, "on", monkeypatch)
    pd.testing.assert_frame_equal(there.cells, here.cells)
    pd.testing.assert_frame_equal(there.ties, here.ties)
    pd.testing.assert_frame_equal(there.tally.excluded, here.tally.excluded)
    pd.testing.assert_frame_equal(there.tally.judge_totals, here.tally.judge_totals)
    n_verdicts = sum(len(record.says_yes) for record in records)
    assert (there.tally.panel_size, there.tally.n_verdicts) == (panel_size, n_verdicts)
    assert here.tally.n_verdicts == n_verdicts
    # no vote counts came back (their columns, no rows): their agreement did
    assert there.tally.counts.empty and list(there.tally.counts) == list(here.tally.counts)
    assert not here.tally.counts.empty and here.tally.agreement is None
    assert_same_agreement(there.tally.agreement, panel_agreement(here.tally.counts))
    assert 0 < there.tally.agreement.by_rubric["unanimity"].min() < 1
    # the analyses' agreement tables are the same from either tally
    for grain in fields(agreement_tables(here.tally)):
        pd.testing.assert_frame_equal(
            getattr(agreement_tables(there.tally), grain.name),
            getattr(agreement_tables(here.tally), grain.name),
        )
    # run.json's parsing figures, counted in the same pass there
    assert there_state.parsing_counts.complete
    assert there_state.parsing_counts.by_judge == here_state.parsing_counts.by_judge


def test_records_the_streamed_tally_declines_are_tallied_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = mixed_records(ITEMS, 3)
    # out of answer blocks: the child declines, this process tallies them all at once
    shuffled = [records[i] for i in (*range(1, len(records), 2), *range(0, len(records), 2))]
    again, state = scored(shuffled, tmp_path, 3, "on", monkeypatch)
    assert again.tally.judge_totals is None and state.parsing_counts is None
    whole = score_run(shuffled, ITEMS, panel_size=3, countries={})
    pd.testing.assert_frame_equal(again.cells, whole.cells)
    # a failed check of the panel raises its own error here
    with pytest.raises(VerdictError, match="more than one verdict"):
        scored([*records, records[-1]], tmp_path, 3, "on", monkeypatch)


def test_an_error_in_the_own_process_is_raised_here(tmp_path: Path) -> None:
    missing = SpooledJudgeRecords(tmp_path / "judges.jsonl", 3)
    with (
        own_process_scoring(ScoringInput(missing, {}, None, 3)) as future,
        pytest.raises(FileNotFoundError),
    ):
        future.result()


# Run by a child Python: the own process sleeps for a minute, and this one is killed once it
# has started (the child's pid in its file), before the block's end could wait for it.
_KILLED_PARENT = """
import os, signal, sys, time
sys.path[:0] = [{here!r}, {tests!r}]
from polistemics.run.scoring_process import in_own_process
from scoring_helpers import write_pid_then_sleep
with in_own_process(write_pid_then_sleep, {pid_file!r}, 60.0):
    while not os.path.exists({pid_file!r}):
        time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _running(pid: int) -> bool:
    """Whether the process is there and not a zombie (a reaper may be slow to collect it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
def test_the_own_process_ends_when_this_one_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    here = Path(__file__).parent
    script = _KILLED_PARENT.format(here=str(here), tests=str(here.parent), pid_file=str(pid_file))
    parent = subprocess.run([sys.executable, "-c", script], timeout=60, check=False)
    assert parent.returncode == -signal.SIGKILL
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(child), "the own process worked on after its parent was killed"


def test_the_size_decides_unless_the_switch_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POLISTEMICS_SCORING_PROCESS", raising=False)
    assert not wants_scoring_process(SCORING_PROCESS_MIN_RECORDS - 1)
    assert wants_scoring_process(SCORING_PROCESS_MIN_RECORDS)
    monkeypatch.setenv("POLISTEMICS_SCORING_PROCESS", " OFF ")
    assert not wants_scoring_process(10 * SCORING_PROCESS_MIN_RECORDS)
    monkeypatch.setenv("POLISTEMICS_SCORING_PROCESS", "on")
    assert wants_scoring_process(1)
    monkeypatch.setattr(scoring_process, "SCORING_PROCESS_MIN_RECORDS", 5)
    monkeypatch.setenv("POLISTEMICS_SCORING_PROCESS", "")
    assert wants_scoring_process(5) and not wants_scoring_process(4)


def test_a_finish_scored_in_its_own_process_writes_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exports are written while the child scores (the judge records in their file
    first): the scores, tables and exports are those of a finish scored in one process."""
    with FakeOpenAIServer() as server:
        hashes = finish_hashes_by_switch(
            tmp_path, server.base_url, "POLISTEMICS_SCORING_PROCESS", monkeypatch.setenv
        )
    assert "scores/cells.csv" in hashes["on"] and "tables/agreement_by_rubric.csv" in hashes["on"]
    assert hashes["on"] == hashes["off"]
    assert (tmp_path / "run" / "judges.jsonl").is_file()
    assert not (tmp_path / "run" / ".spool").exists()
