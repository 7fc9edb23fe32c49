"""What a task shows outside its own run stage (issue 29, item 1): the per-task views that
``polistemics compare`` and the annotation app read, given by each task's definition
(``Task.views``) so that a further task plugs in by filling these in, not by its name.

- ``judged_cells``: the panel's strict-majority verdicts of the task's answers, one row per
  answer x sub-question, in the scored-cells shape ``compare`` pairs and resamples
  (``CELL_FRAME_COLUMNS``; ``observation_id`` is the task's item key, ``party_id`` the party
  the item degrades, if any). None when the run did not ask the task.
- ``answer_metrics``: the task's deterministic checks per answer as ratio parts (one row per
  answer x metric: ``numerator`` and ``denominator``; a metric's value over a set of answers
  is the sum of numerators over the sum of denominators). None when the run did not ask it.
- ``judged_units``: every answer x rubric the panel judged, with what the judges were shown
  (query, labelled context, property of context, the filled sub-questions) and each seat's
  verdicts, for the annotation app. None when the run did not ask the task.

The party-position task has no views here: compare and the annotation app read it as they
always have (scores/cells.csv, judges.jsonl and the exported items).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from polistemics.conditions import Environment
from polistemics.rubrics import Rubric
from polistemics.runlog import JudgeVerdictRecord, RunDir, RunFileError

if TYPE_CHECKING:
    import pandas as pd

# The columns of a task's judged cells (the scored-cells columns compare reads).
CELL_FRAME_COLUMNS: tuple[str, ...] = (
    "model",
    "environment",
    "variant",
    "observation_id",
    "sample_index",
    "party_id",
    "election_id",
    "language",
    "rubric",
    "sub_question",
    "passed",
    "party_name",
    "country",
    "vague_mode",
)
METRIC_COLUMNS: tuple[str, ...] = (
    "model",
    "environment",
    "metric",
    "answer_id",
    "numerator",
    "denominator",
)


@dataclass(frozen=True)
class ShownChunk:
    """One passage of the context as the judges saw it: its role and its label."""

    role: Literal["target", "distractor"]
    label: str  # "[TARGET: Party A]", "[DISTRACTOR]", ...
    text: str


@dataclass(frozen=True)
class ShownQuestion:
    """One sub-question as the judges were asked it (its wording filled for the item)."""

    code: str
    key: str
    title: str
    question: str


@dataclass(frozen=True)
class JudgedUnit:
    """One answer x rubric of a task that the panel judged, with what the judges saw.

    ``seats``: "position:judge" -> sub-question code -> Yes / No / missing."""

    task: str
    item_key: str
    model: str
    sample_index: int
    rubric: Rubric
    environment: Environment
    language: str
    output_language: str
    query: str
    context: tuple[ShownChunk, ...]
    context_placeholder: str | None
    property_of_context: str
    answer: str
    questions: tuple[ShownQuestion, ...]
    seats: dict[str, dict[str, bool | None]]


@dataclass(frozen=True)
class TaskViews:
    """The readers a task gives compare and the annotation app (see the module docstring)."""

    judged_cells: Callable[[Path], pd.DataFrame | None]
    answer_metrics: Callable[[Path], pd.DataFrame | None]
    judged_units: Callable[[Path], list[JudgedUnit] | None]
    # Metric name -> what it is (docs and the compare page), in the order they are shown.
    metric_meanings: dict[str, str]


def coder_panel_size(run_dir: Path) -> int:
    """The stance coder panel's size from run.json's config (1 when it is not recorded)."""
    try:
        manifest = RunDir(run_dir).read_manifest()
    except RunFileError:
        return 1
    config = manifest.config if manifest is not None else None
    coders = (config.model_extra or {}).get("stance_coder") if config is not None else None
    return len(coders) if isinstance(coders, list) and coders else 1


def judge_panel_size(run_dir: Path, seats: int) -> int:
    """The judge panel's size from run.json (its judges), else the seats found."""
    try:
        manifest = RunDir(run_dir).read_manifest()
    except RunFileError:
        return max(seats, 1)
    judges = manifest.panel_judges if manifest is not None else []
    return len(judges) if judges else max(seats, 1)


def verdict_groups(verdicts: Iterable[JudgeVerdictRecord]) -> dict[tuple, list[JudgeVerdictRecord]]:
    """A task's judge records per answer x rubric: (item key, model, sample, rubric) -> the
    seats' records, in key order."""
    grouped: dict[tuple, list[JudgeVerdictRecord]] = defaultdict(list)
    for record in verdicts:
        grouped[(record.item_key, record.model, record.sample_index, record.rubric.value)].append(
            record
        )
    return dict(sorted(grouped.items()))


def seats_by_code(
    records: Iterable[JudgeVerdictRecord], codes: dict[str, str]
) -> dict[str, dict[str, bool | None]]:
    """Each seat's verdicts ("position:judge" -> sub-question code -> Yes / No / missing)."""
    return {
        f"{r.panel_position}:{r.judge}": {codes.get(k, k): v for k, v in r.says_yes.items()}
        for r in sorted(records, key=lambda r: r.panel_position)
    }
