"""The navigation task's views for compare and the annotation app (``tasks.views``): its judged
cells, its per-answer checks as ratio parts, and its judged answers with what the judges saw.
All are read from the run's ``tasks/navigation/`` files; a run without the task gives None."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from polistemics.conditions import ABSENT_SENTINEL, Variant
from polistemics.runlog.navigation import NavigationItem, read_navigation_files
from polistemics.tasks.navigation.metrics import STANCES, AnswerCheck, checked_answers
from polistemics.tasks.navigation.prompt import (
    filled_questions,
    labelled_chunks,
    property_text,
    query,
)
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

# pandas and the panel's scores are imported where a view is read: the task's definition (a
# dry run plans its calls) needs none of them (issue 26).

TASK = "navigation"

METRIC_MEANINGS: dict[str, str] = {
    **{
        f"{what}_{stance.value}": meaning.format(stance=stance.value)
        for stance in STANCES
        for what, meaning in (
            ("precision", "parties placed on {stance} that the stance matrix places there"),
            ("recall", "parties the stance matrix places on {stance} that the answer places there"),
            ("f1", "F1 of the {stance} set: 2TP / (2TP + FP + FN)"),
        )
    },
    "omitted": "the query's parties the answer leaves out",
    "inventing": "answers naming a party that is in no election",
    "focus_handled": "answers reading the degraded party as a faithful, calibrated answer does",
}


def _ratio_parts(check: AnswerCheck) -> dict[str, tuple[int, int]]:
    parts: dict[str, tuple[int, int]] = {}
    for stance in STANCES:
        tp, fp, fn = check.tp[stance], check.fp[stance], check.fn[stance]
        parts[f"precision_{stance.value}"] = (tp, tp + fp)
        parts[f"recall_{stance.value}"] = (tp, tp + fn)
        parts[f"f1_{stance.value}"] = (2 * tp, 2 * tp + fp + fn)
    parts["omitted"] = (len(check.omitted), check.query_parties)
    parts["inventing"] = (int(bool(check.invented)), 1)
    parts["focus_handled"] = (int(check.focus_handled), 1)
    return parts


def answer_metrics(run_dir: Path) -> pd.DataFrame | None:
    """One row per readable answer x metric (``tasks.views.METRIC_COLUMNS``); answers the coder
    panel could not read are left out, as the task's tables leave them out."""
    import pandas as pd

    files = read_navigation_files(run_dir)
    if files is None:
        return None
    rows = []
    for answer, item, check in checked_answers(files, coder_panel_size(run_dir)):
        if check is None:
            continue
        answer_id = f"{answer.item_key}|{answer.sample_index}"
        for metric, (numerator, denominator) in _ratio_parts(check).items():
            rows.append(
                (answer.model, item.environment.value, metric, answer_id, numerator, denominator)
            )
    return pd.DataFrame(rows, columns=list(METRIC_COLUMNS))


def judged_cells(run_dir: Path) -> pd.DataFrame | None:
    """The panel's strict-majority cells, keyed as compare pairs them: the item key stands for
    the observation, the focus (degraded) party for the party."""
    import pandas as pd

    from polistemics.tasks.navigation.scores import majority_cells

    files = read_navigation_files(run_dir)
    if files is None:
        return None
    seats = {(r.panel_position, r.judge) for r in files.verdicts}
    cells, _ = majority_cells(files.verdicts, judge_panel_size(run_dir, len(seats)))
    items = {item.key: item for item in files.items}
    if cells.empty:
        return pd.DataFrame(columns=list(CELL_FRAME_COLUMNS))
    item_of = [items[key] for key in cells["item_key"]]
    frame = pd.DataFrame(
        {
            "model": cells["model"],
            "environment": cells["environment"],
            "variant": Variant.FULL.value,
            "observation_id": cells["item_key"],
            "sample_index": cells["sample_index"].astype("int64"),
            "party_id": [item.focus_party_id for item in item_of],
            "election_id": [item.election_id for item in item_of],
            "language": [item.output_language for item in item_of],
            "rubric": cells["rubric"],
            "sub_question": cells["sub_question"],
            "passed": cells["passed"].astype(bool),
            "party_name": [item.focus.party_name for item in item_of],
            "country": None,
            "vague_mode": None,
        }
    )
    return frame.loc[:, list(CELL_FRAME_COLUMNS)]


def _unit(item: NavigationItem, answer_text: str, records: list, model: str, sample: int):
    rubric = records[0].rubric
    questions = filled_questions(item, rubric)
    chunks = tuple(
        ShownChunk(role=chunk.role, label=label, text=chunk.text)
        for label, chunk in labelled_chunks(item)
    )
    return JudgedUnit(
        task=TASK,
        item_key=item.key,
        model=model,
        sample_index=sample,
        rubric=rubric,
        environment=item.environment,
        language=item.language,
        output_language=item.output_language,
        query=query(item),
        context=chunks,
        context_placeholder=None if chunks else ABSENT_SENTINEL,
        property_of_context=property_text(item),
        answer=answer_text,
        questions=tuple(ShownQuestion(sq.code, sq.key, sq.title, sq.question) for sq in questions),
        seats=seats_by_code(records, {sq.key: sq.code for sq in questions}),
    )


def judged_units(run_dir: Path) -> list[JudgedUnit] | None:
    """Every answer x rubric the panel judged, in item, model, sample and rubric order."""
    files = read_navigation_files(run_dir)
    if files is None:
        return None
    items = {item.key: item for item in files.items}
    answers = {(a.item_key, a.model, a.sample_index): a for a in files.answers if a.ok}
    units = []
    for (key, model, sample, _), records in verdict_groups(files.verdicts).items():
        item, answer = items.get(key), answers.get((key, model, sample))
        if item is None or answer is None:
            continue
        units.append(_unit(item, answer.text or "", records, model, sample))
    return units


NAVIGATION_VIEWS = TaskViews(
    judged_cells=judged_cells,
    answer_metrics=answer_metrics,
    judged_units=judged_units,
    metric_meanings=METRIC_MEANINGS,
)
