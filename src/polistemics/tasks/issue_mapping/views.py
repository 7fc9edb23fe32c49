"""The issue-mapping task's views for compare and the annotation app (``tasks.views``): its
judged cells, its checks per answer as ratio parts, and its judged answers with what the judges
saw. Read from the run's ``tasks/issue_mapping/`` files; a run without the task gives None."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from polistemics.conditions import Variant
from polistemics.runlog.issue_mapping import IssueMappingItem, read_issue_mapping_files
from polistemics.tasks.issue_mapping.metrics import MappingCheck, checked_mappings
from polistemics.tasks.issue_mapping.prompt import active_questions, property_text, query
from polistemics.tasks.issue_mapping.questions import ISSUE_MAPPING_QUESTIONS
from polistemics.tasks.views import (
    CELL_FRAME_COLUMNS,
    METRIC_COLUMNS,
    JudgedUnit,
    ShownChunk,
    ShownQuestion,
    TaskViews,
    coder_panel_size,
    judge_panel_size,
    seats_by_code,
    verdict_groups,
)

if TYPE_CHECKING:
    import pandas as pd

# pandas and the panel's scores are imported where a view is read (as in navigation's views).

TASK = "issue_mapping"
BY_KEY = {sq.key: sq for sq in ISSUE_MAPPING_QUESTIONS}
METRIC_MEANINGS = {
    "coverage": "(party, conflict) pairs the answer places on a side, of all pairs",
    "faithfulness": "pairs placed on the side the stance matrix gives, of the pairs placed",
    "conflicts_covered": "conflicts with a party that agrees and one that disagrees placed right",
    "inventing": "answers naming a party that is in no election",
}


def _ratio_parts(check: MappingCheck) -> dict[str, tuple[int, int]]:
    return {
        "coverage": (check.placed, check.pairs),
        "faithfulness": (check.placed_true, check.placed),
        "conflicts_covered": (check.conflicts_covered, check.conflicts),
        "inventing": (int(bool(check.invented)), 1),
    }


def answer_metrics(run_dir: Path) -> pd.DataFrame | None:
    import pandas as pd

    files = read_issue_mapping_files(run_dir)
    if files is None:
        return None
    rows = [
        (answer.model, item.environment.value, metric, f"{answer.item_key}|{answer.sample_index}")
        + parts
        for answer, item, check in checked_mappings(files, coder_panel_size(run_dir))
        for metric, parts in _ratio_parts(check).items()
    ]
    return pd.DataFrame(rows, columns=list(METRIC_COLUMNS))


def judged_cells(run_dir: Path) -> pd.DataFrame | None:
    """The panel's strict-majority cells, the item key standing for the observation (no party
    is degraded: the party columns are empty)."""
    import pandas as pd

    from polistemics.tasks.navigation.scores import majority_cells

    files = read_issue_mapping_files(run_dir)
    if files is None:
        return None
    seats = {(r.panel_position, r.judge) for r in files.verdicts}
    cells, _ = majority_cells(files.verdicts, judge_panel_size(run_dir, len(seats)), BY_KEY)
    if cells.empty:
        return pd.DataFrame(columns=list(CELL_FRAME_COLUMNS))
    items = {item.key: item for item in files.items}
    item_of = [items[key] for key in cells["item_key"]]
    frame = pd.DataFrame(
        {
            "model": cells["model"],
            "environment": cells["environment"],
            "variant": Variant.FULL.value,
            "observation_id": cells["item_key"],
            "sample_index": cells["sample_index"].astype("int64"),
            "party_id": None,
            "election_id": [item.election_id for item in item_of],
            "language": [item.output_language for item in item_of],
            "rubric": cells["rubric"],
            "sub_question": cells["sub_question"],
            "passed": cells["passed"].astype(bool),
            "party_name": None,
            "country": None,
            "vague_mode": None,
        }
    )
    return frame.loc[:, list(CELL_FRAME_COLUMNS)]


def _context(item: IssueMappingItem) -> tuple[ShownChunk, ...]:
    names = {p.party_id: p.party_name for p in item.parties}
    numbers = {s.statement_id: s.number for s in item.statements}
    return tuple(
        ShownChunk(
            role=chunk.role,
            label=f"[TARGET: {names.get(chunk.party_id, chunk.party_id)}] (statement "
            f"{numbers[statement_id]})",
            text=chunk.text,
        )
        for chunk, statement_id in zip(item.chunks, item.chunk_statements, strict=True)
    )


def judged_units(run_dir: Path) -> list[JudgedUnit] | None:
    files = read_issue_mapping_files(run_dir)
    if files is None:
        return None
    items = {item.key: item for item in files.items}
    answers = {(a.item_key, a.model, a.sample_index): a for a in files.answers if a.ok}
    units = []
    for (key, model, sample, _), records in verdict_groups(files.verdicts).items():
        item, answer = items.get(key), answers.get((key, model, sample))
        if item is None or answer is None:
            continue
        rubric = records[0].rubric
        questions = active_questions(item, rubric)
        units.append(
            JudgedUnit(
                task=TASK,
                item_key=key,
                model=model,
                sample_index=sample,
                rubric=rubric,
                environment=item.environment,
                language=item.language,
                output_language=item.output_language,
                query=query(item),
                context=_context(item),
                context_placeholder=None,
                property_of_context=property_text(item),
                answer=answer.text or "",
                questions=tuple(
                    ShownQuestion(sq.code, sq.key, sq.title, sq.question) for sq in questions
                ),
                seats=seats_by_code(records, {sq.key: sq.code for sq in questions}),
            )
        )
    return units


ISSUE_MAPPING_VIEWS = TaskViews(
    judged_cells=judged_cells,
    answer_metrics=answer_metrics,
    judged_units=judged_units,
    metric_meanings=METRIC_MEANINGS,
)
