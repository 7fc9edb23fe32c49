"""A run's judge verdicts as integer codes: one small row per verdict, each string once (issue 32).

``verdict_table`` makes one pandas row of ten object columns per judge x sub-question verdict
(about 1.1 million rows at 4x the paper's scale). The analyses that only count verdicts need far
less: here a verdict is its record's number, its sub-question's code and its Yes/No (three
integers), a record is its item's, model's, judge's and rubric's codes and its sample index, and
each distinct item, model, judge and sub-question is held once. ``verdict_engine`` aggregates
these tables with the embedded analytical engine.

Built from ``JudgeRecords`` column by column (``says_yes`` dicts are shared by many records, so
each distinct one is unpacked once), or from any iterable of records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

import numpy as np
import pandas as pd

from polistemics.runlog import JudgeRecords, JudgeVerdictRecord
from polistemics.runlog.items import EnvironmentItem


class UnknownItemError(ValueError):
    """A judge record names an item that is not among the run's items."""


# says_yes codes: a parseable Yes or No, or no verdict (None)
YES, NO, MISSING = 1, 0, -1
ITEM_FIELDS = ("environment", "variant", "observation_id", "party_id", "election_id", "language")
_FIELDS = ("item_key", "model", "sample_index", "rubric", "panel_position", "judge", "says_yes")


@dataclass(frozen=True)
class VerdictCodes:
    """Verdicts, records and the distinct values they point to.

    ``verdicts``: record, sub_question, says_yes (one row per judge x sub-question verdict, in
    record order and, within a record, in its ``says_yes`` order). ``records``: item, model,
    sample_index, rubric, judge (one row per judge record). ``items``: ``ITEM_FIELDS`` of each
    distinct item, by code. ``models``, ``rubrics``, ``judges`` (panel seat ids, as
    ``panel_judge_id``) and ``sub_questions``: the values the codes stand for."""

    verdicts: pd.DataFrame
    records: pd.DataFrame
    items: pd.DataFrame
    models: list[str]
    rubrics: list[str]
    judges: list[str]
    sub_questions: list[str]


def verdict_codes(
    records: Iterable[JudgeVerdictRecord] | JudgeRecords,
    items: Mapping[str, EnvironmentItem | tuple],
) -> VerdictCodes:
    """The records' verdicts as codes; ``UnknownItemError`` when a record names no item.
    ``items``: by key, each item or its fields (``fields_by_key``)."""
    if isinstance(records, JudgeRecords):
        columns = [records.column(name) for name in _FIELDS]
    else:
        listed = list(records)
        columns = [list(c) for c in zip(*map(attrgetter(*_FIELDS), listed), strict=True)]
        columns = columns or [[] for _ in _FIELDS]
    item_keys, models, samples, rubrics, positions, judges, says_yes = columns
    item_of, keys = pd.factorize(np.array(item_keys, dtype=object))
    unknown = next((key for key in keys if key not in items), None)
    if unknown is not None:
        judge = judges[item_keys.index(unknown)]
        raise UnknownItemError(
            f"record for item '{unknown}' (judge {judge}): no such item among the run's items"
        )
    model_of, model_values = pd.factorize(np.array(models, dtype=object))
    rubric_of, rubric_values = pd.factorize(np.array([r.value for r in rubrics], dtype=object))
    seat_of, seats = pd.factorize(
        np.array([f"{p}:{j}" for p, j in zip(positions, judges, strict=True)], dtype=object)
    )
    verdicts, sub_question_values = _verdict_rows(says_yes)
    record_table = pd.DataFrame(
        {
            "item": item_of.astype("int32"),
            "model": model_of.astype("int32"),
            "sample_index": np.asarray(samples, dtype="int64"),
            "rubric": rubric_of.astype("int8"),
            "judge": seat_of.astype("int32"),
        }
    )
    item_table = pd.DataFrame(
        [item_fields(items[key]) for key in keys], columns=list(ITEM_FIELDS), dtype=object
    )
    return VerdictCodes(
        verdicts,
        record_table,
        item_table,
        [str(m) for m in model_values],
        [str(r) for r in rubric_values],
        [str(seat) for seat in seats],  # the text of ``panel_judge_id``
        sub_question_values,
    )


def _verdict_rows(says_yes: Sequence[dict[str, bool | None]]) -> tuple[pd.DataFrame, list[str]]:
    """One row per (record, sub-question): each distinct ``says_yes`` dict unpacked once, then
    taken per record (a padded matrix of codes, masked by each dict's length). Dicts are told
    apart by their items: records read from a file have a dict each, a few hundred distinct."""
    shared: dict[int, int] = {}  # id of a dict -> its number (``JudgeRecords`` shares them)
    distinct: dict[tuple, int] = {}  # a dict's items -> its number
    dicts: list[dict[str, bool | None]] = []
    dict_of = np.empty(len(says_yes), dtype="int64")
    for index, verdicts in enumerate(says_yes):
        number = shared.get(id(verdicts))
        if number is None:
            number = distinct.setdefault(tuple(verdicts.items()), len(dicts))
            if number == len(dicts):
                dicts.append(verdicts)
            shared[id(verdicts)] = number
        dict_of[index] = number
    keys: dict[str, int] = {}
    width = max((len(d) for d in dicts), default=0)
    sub_question = np.full((len(dicts), width), -1, dtype="int16")
    answer = np.full((len(dicts), width), MISSING, dtype="int8")
    for row, verdicts in enumerate(dicts):
        for column, (key, says) in enumerate(verdicts.items()):
            sub_question[row, column] = keys.setdefault(key, len(keys))
            answer[row, column] = MISSING if says is None else (YES if says else NO)
    present = sub_question[dict_of] >= 0  # records x width, row-major: record order
    rows = np.broadcast_to(np.arange(len(says_yes), dtype="int32")[:, None], present.shape)
    table = pd.DataFrame(
        {
            "record": rows[present],
            "sub_question": sub_question[dict_of][present],
            "says_yes": answer[dict_of][present],
        }
    )
    return table, list(keys)


def item_fields(item: EnvironmentItem | tuple) -> tuple:
    """The item's ``ITEM_FIELDS``: what tells its answers apart from other items'. A tuple is
    taken as an item's fields already (``fields_by_key``)."""
    if isinstance(item, tuple):
        return item
    return (
        item.environment.value,
        item.variant.value,
        item.observation_id,
        item.party_id,
        item.election_id,
        item.output_language,
    )


def fields_by_key(items: Iterable[EnvironmentItem]) -> dict[str, tuple]:
    """Each item's ``ITEM_FIELDS`` by its key: all that ``verdict_codes`` and the tallies read
    of an item, a few hundred bytes where the item holds its evidence (what the scoring's own
    process is sent, ``run.scoring_process``)."""
    return {item.key: item_fields(item) for item in items}


__all__ = [
    "ITEM_FIELDS",
    "MISSING",
    "NO",
    "YES",
    "UnknownItemError",
    "VerdictCodes",
    "fields_by_key",
    "item_fields",
    "verdict_codes",
]
