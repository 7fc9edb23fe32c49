"""Judge records of a small panel in a spooled ``judges.jsonl``, and the scores of a study
made from it (``run.pipeline.score_study``)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

from analyses.test_analysis_properties import item, verdict  # tests/ is on sys.path
from polistemics.conditions import Environment, Variant
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.run.pipeline import score_study
from polistemics.runlog import JudgeVerdictRecord, judge_record_lines
from polistemics.runlog.spool import SpooledJudgeRecords


def spooled_judges(records: list, folder: Path) -> SpooledJudgeRecords:
    path = folder / "judges.jsonl"
    path.write_text("".join(line + "\n" for line in judge_record_lines(records)), "utf-8")
    return SpooledJudgeRecords(path, len(records))


def scored_from_a_file(records: list, items: list, folder: Path, panel_size: int):
    result = SimpleNamespace(items=items, elections=[], verdicts=spooled_judges(records, folder))
    return score_study(result, SimpleNamespace(judges=[None] * panel_size))


def panel_records(items: list, panel_size: int) -> list[JudgeVerdictRecord]:
    """Every seat's verdicts on each item (Yes but seat 0's first sub-question), in answer
    blocks as judges.jsonl lists them."""
    return [
        verdict(
            one,
            seat,
            {
                sq.key: not (seat == 0 and n == 0)
                for n, sq in enumerate(sub_questions(rubric, one.environment))
            },
            rubric=rubric,
        )
        for one in items
        for seat in range(panel_size)
        for rubric in active_rubrics(one.environment)
    ]


ITEMS = [item(p, n, Environment.ABSENT, Variant.FULL) for p in ("p1", "p2") for n in (1, 2)]


def write_pid_then_sleep(path: str, seconds: float) -> None:
    """A child's work for as long as a test needs: its pid in a file, then a sleep."""
    Path(path).write_text(str(os.getpid()), "utf-8")
    time.sleep(seconds)
