"""The dataset's tables: their columns and their rows, from a run's typed records.

- ``items``: one row per environment item (observation x environment x variant), with every field
  of ``EnvironmentItem`` (its chunks as a list of structs), the stance the judges check against
  (``judged_expected_stance``) and the task prompt exactly as the answerer got it;
- ``ground_truth``: one row per observation: the party's real stance on the statement, the raw
  rationale and the standardised evidence passage (with ``[PARTY]``);
- ``answers``: one row per target answer (item x model x sample);
- ``verdicts``: the panel's majority verdict per answer x sub-question (``scores/cells.csv``);
- ``panel_verdicts``: each judge seat's Yes/No per answer x sub-question (``judges.jsonl``).

Rows are plain dicts; ``schema`` gives each table's Arrow types, so an empty table keeps them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from polistemics.conditions import Environment, Variant
from polistemics.environments.task_prompt import task_messages
from polistemics.records import Evidence
from polistemics.runlog import Answer, EnvironmentItem, JudgeVerdictRecord
from polistemics.runlog.items import Chunk

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

ITEMS = "items"
GROUND_TRUTH = "ground_truth"
ANSWERS = "answers"
VERDICTS = "verdicts"
PANEL_VERDICTS = "panel_verdicts"
CONFIGS = (ITEMS, GROUND_TRUTH)  # always written
OPTIONAL_CONFIGS = {"answers": (ANSWERS,), "verdicts": (VERDICTS, PANEL_VERDICTS)}
SPLIT = "test"  # a benchmark: every table is one evaluation split

# What each table holds, for the dataset card.
DESCRIPTIONS = {
    ITEMS: "one row per environment item (observation x environment x variant): the context "
    "chunks, the task prompt as sent, and the stance the judges check against",
    GROUND_TRUTH: "one row per observation: the party's stance on the statement, its rationale "
    "and the standardised evidence passage",
    ANSWERS: "one row per target-model answer (item x model x sample)",
    VERDICTS: "the judge panel's strict-majority verdict per answer x sub-question",
    PANEL_VERDICTS: "each judge seat's Yes/No per answer x sub-question",
}


def schema(config: str) -> pa.Schema:
    """The Arrow schema of a table (pyarrow is imported here, not on import of the module)."""
    import pyarrow as pa

    text, integer, number, flag = pa.string(), pa.int64(), pa.float64(), pa.bool_()
    chunk = pa.struct(
        [
            ("text", text),
            ("role", text),
            ("party_id", text),
            ("statement_id", text),
            ("stance", text),
        ]
    )
    columns: dict[str, list[tuple[str, pa.DataType]]] = {
        ITEMS: [
            ("key", text),
            ("observation_id", text),
            ("election_id", text),
            ("party_id", text),
            ("party_name", text),
            ("party_anonymized", text),
            ("party_label", text),
            ("statement_id", text),
            ("statement_number", integer),
            ("statement_text", text),
            ("stance_label", text),
            ("rationale_text", text),
            ("environment", text),
            ("variant", text),
            ("language", text),
            ("output_language", text),
            ("chunks", pa.list_(chunk)),
            ("evidence_index", integer),
            ("expected_stance", text),
            ("judged_expected_stance", text),
            ("conflict_party_id", text),
            ("vague_mode", integer),
            ("chunk_order", text),
            ("system_prompt", text),
            ("user_prompt", text),
        ],
        GROUND_TRUTH: [
            ("observation_id", text),
            ("election_id", text),
            ("country", text),
            ("language", text),
            ("party_id", text),
            ("party_name", text),
            ("party_anonymized", text),
            ("statement_id", text),
            ("statement_number", integer),
            ("statement_text", text),
            ("stance_label", text),
            ("rationale_text", text),
            ("evidence_text", text),
        ],
        ANSWERS: [
            ("item_key", text),
            ("observation_id", text),
            ("environment", text),
            ("variant", text),
            ("model", text),
            ("sample_index", integer),
            ("status", text),
            ("text", text),
            ("error", text),
            ("finish_reason", text),
            ("refusal", flag),
            ("empty", flag),
            ("input_tokens", integer),
            ("output_tokens", integer),
            ("reasoning_tokens", integer),
            ("cost", number),
            ("latency_ms", number),
        ],
        VERDICTS: [
            ("item_key", text),
            ("observation_id", text),
            ("election_id", text),
            ("party_id", text),
            ("environment", text),
            ("variant", text),
            ("language", text),
            ("model", text),
            ("sample_index", integer),
            ("rubric", text),
            ("sub_question", text),
            ("passed", flag),
        ],
        PANEL_VERDICTS: [
            ("item_key", text),
            ("environment", text),
            ("model", text),
            ("sample_index", integer),
            ("rubric", text),
            ("judge", text),
            ("panel_position", integer),
            ("sub_question", text),
            ("says_yes", flag),
            ("parsed", flag),
            ("error", text),
        ],
    }
    return pa.schema(columns[config])


def item_rows(items: Iterable[EnvironmentItem]) -> list[dict[str, Any]]:
    rows = []
    for item in items:
        system, user = (message["content"] for message in task_messages(item))
        row = item.model_dump(mode="json")
        row.update(
            key=item.key,
            party_label=item.party_label,
            judged_expected_stance=item.judged_expected_stance.value,
            system_prompt=system,
            user_prompt=user,
        )
        rows.append(row)
    return rows


def item_from_row(row: Mapping[str, Any]) -> EnvironmentItem:
    """The ``EnvironmentItem`` an ``items`` row was made from (derived columns are ignored)."""
    fields = {
        name: _plain(row.get(name))
        for name in EnvironmentItem.model_fields
        if name != "chunks" and name in row
    }
    listed = row.get("chunks")  # a list, or an array where pandas read the table
    chunks = [
        Chunk(**{name: _plain(value) for name, value in chunk.items()})
        for chunk in (() if listed is None else listed)
    ]
    return EnvironmentItem(**fields, chunks=chunks)


def _plain(value: Any) -> Any:
    """A table's missing value (None, or NaN where a reader made the column float) as None,
    and whole floats (an integer column with gaps, read by pandas) as int."""
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if value.is_integer():
            return int(value)
    return value


def ground_truth_rows(
    items: Iterable[EnvironmentItem], evidence: Iterable[Evidence] | None
) -> list[dict[str, Any]]:
    """One row per observation, taken from its full-variant items where there are any (the
    ablations' items carry other labels and languages)."""
    passages = {ev.observation_id: ev for ev in evidence or ()}
    chosen: dict[str, EnvironmentItem] = {}
    for item in items:
        held = chosen.get(item.observation_id)
        if held is None or (held.variant is not Variant.FULL and item.variant is Variant.FULL):
            chosen[item.observation_id] = item
    rows = []
    for observation_id, item in sorted(chosen.items()):
        passage = passages.get(observation_id)
        rows.append(
            {
                "observation_id": observation_id,
                "election_id": item.election_id,
                "country": passage.position.country if passage else None,
                "language": item.language,
                "party_id": item.party_id,
                "party_name": item.party_name,
                "party_anonymized": item.party_anonymized,
                "statement_id": item.statement_id,
                "statement_number": item.statement_number,
                "statement_text": item.statement_text,
                "stance_label": item.stance_label.value,
                "rationale_text": item.rationale_text,
                "evidence_text": passage.text if passage else None,
            }
        )
    return rows


def answer_rows(
    answers: Iterable[Answer], items: Mapping[str, EnvironmentItem]
) -> list[dict[str, Any]]:
    """Answers to the dataset's items (swapped-order ones, which are never judged, are left)."""
    rows = []
    for answer in answers:
        item = items.get(answer.item_key)
        if item is None:
            continue
        row = answer.model_dump(mode="json", exclude={"call_key"})
        row.update(
            observation_id=item.observation_id,
            environment=item.environment.value,
            variant=item.variant.value,
        )
        rows.append(row)
    return rows


def verdict_rows(cells: pd.DataFrame) -> list[dict[str, Any]]:
    """The majority-voted cells, each with the key of the item it belongs to."""
    rows = []
    for cell in cells.to_dict("records"):
        environment = Environment(cell["environment"]).value
        variant = Variant(cell["variant"]).value
        rows.append(
            {
                "item_key": f"{cell['observation_id']}|{environment}|{variant}",
                **{name: _plain(cell.get(name)) for name in _CELL_FIELDS},
                "sample_index": int(cell["sample_index"]),
                "passed": bool(cell["passed"]),
            }
        )
    return rows


_CELL_FIELDS = (
    "observation_id",
    "election_id",
    "party_id",
    "environment",
    "variant",
    "language",
    "model",
    "rubric",
    "sub_question",
)


def panel_rows(records: Iterable[JudgeVerdictRecord]) -> list[dict[str, Any]]:
    """Each judge seat's verdict per sub-question (None: not read, ``error`` says why)."""
    rows = []
    for record in records:
        for sub_question, says_yes in record.says_yes.items():
            rows.append(
                {
                    "item_key": record.item_key,
                    "environment": record.environment.value,
                    "model": record.model,
                    "sample_index": record.sample_index,
                    "rubric": record.rubric.value,
                    "judge": record.judge,
                    "panel_position": record.panel_position,
                    "sub_question": sub_question,
                    "says_yes": says_yes,
                    "parsed": record.parsed,
                    "error": record.error,
                }
            )
    return rows
