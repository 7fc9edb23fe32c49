"""Turn a run's judge records into the verdict table, and its majority into the scored cells
every index and report uses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from operator import attrgetter

import numpy as np
import pandas as pd

from polistemics.rubrics import Rubric
from polistemics.runlog import JudgeRecords, JudgeVerdictRecord
from polistemics.runlog.items import EnvironmentItem
from polistemics.scoring.verdict_codes import UnknownItemError
from polistemics.scoring.verdict_engine import engine_tally
from polistemics.scoring.verdicts import (
    VERDICT_COLUMNS,
    MajorityResult,
    PanelTally,
    majority_of,
    tally_panel,
)

# The item's share of a verdict row (ITEM_COLUMNS less the answer's model and sample).
_ITEM_FIELDS = ("environment", "variant", "observation_id", "party_id", "election_id", "language")


def panel_judge_id(record: JudgeVerdictRecord) -> str:
    """Judges are told apart by panel seat, so a panel of one model three times is three judges."""
    return f"{record.panel_position}:{record.judge}"


_RECORD_FIELD_NAMES = (
    "item_key", "model", "sample_index", "rubric", "panel_position", "judge", "says_yes"
)  # fmt: skip
_RECORD_FIELDS = attrgetter(*_RECORD_FIELD_NAMES)


def verdict_table(
    records: Iterable[JudgeVerdictRecord] | JudgeRecords, items: Mapping[str, EnvironmentItem]
) -> pd.DataFrame:
    """One row per judge x sub-question verdict with ``VERDICT_COLUMNS`` (judge = panel seat).

    Built column by column: each record's own values once, its item's by number, both repeated
    over the record's sub-questions (no object per verdict: paper-scale runs stay fast).
    """
    if isinstance(records, JudgeRecords):  # read by column: no record made (issue 32)
        fields = [records.column(name) for name in _RECORD_FIELD_NAMES]
    else:
        records = list(records)
        fields = zip(*map(_RECORD_FIELDS, records), strict=True) if records else [()] * 7
    item_keys_of, models, samples, rubrics_of, positions, judges, says_yes = fields
    item_of, item_keys = pd.factorize(np.array(item_keys_of, dtype=object))
    _reject_unknown_items(records, item_keys, items)
    seats = {seat: index for index, seat in enumerate(zip(positions, judges, strict=True))}
    judge_ids = {seat: panel_judge_id(records[index]) for seat, index in seats.items()}
    rubric_values = {rubric: rubric.value for rubric in Rubric}
    sizes = np.fromiter(map(len, says_yes), dtype="int64", count=len(records))

    def repeat(values: Iterable, dtype: str = "object") -> np.ndarray:
        return np.repeat(np.array(list(values), dtype=dtype), sizes)

    item_fields = _item_fields([items[key] for key in item_keys])
    row_item = np.repeat(item_of, sizes)
    columns = {name: item_fields[:, i].take(row_item) for i, name in enumerate(_ITEM_FIELDS)}
    columns |= {
        "model": repeat(models),
        "sample_index": repeat(samples, "int64"),
        "rubric": repeat(map(rubric_values.__getitem__, rubrics_of)),
        "judge": repeat(map(judge_ids.__getitem__, zip(positions, judges, strict=True))),
        "sub_question": np.array(list(chain.from_iterable(says_yes)), dtype=object),
        "says_yes": np.array(list(chain.from_iterable(map(dict.values, says_yes))), dtype=object),
    }
    return pd.DataFrame({name: columns[name] for name in VERDICT_COLUMNS}, copy=False)


def _reject_unknown_items(
    records: list[JudgeVerdictRecord],
    item_keys: Iterable[str],
    items: Mapping[str, EnvironmentItem],
) -> None:
    unknown = next((key for key in item_keys if key not in items), None)
    if unknown is not None:
        judge = next(r.judge for r in records if r.item_key == unknown)
        raise UnknownItemError(
            f"record for item '{unknown}' (judge {judge}): no such item among the run's items"
        )


def _item_fields(items: list[EnvironmentItem]) -> np.ndarray:
    """items x ``_ITEM_FIELDS`` values."""
    table = np.empty((len(items), len(_ITEM_FIELDS)), dtype=object)
    for row, item in enumerate(items):
        table[row] = (
            item.environment.value,
            item.variant.value,
            item.observation_id,
            item.party_id,
            item.election_id,
            item.output_language,
        )
    return table


def item_metadata(items: Iterable[EnvironmentItem], countries: dict[str, str]) -> pd.DataFrame:
    rows = [
        {
            "observation_id": item.observation_id,
            "environment": item.environment.value,
            "variant": item.variant.value,
            "party_name": item.party_name,
            "country": countries.get(item.election_id, ""),
            "vague_mode": item.vague_mode,
        }
        for item in items
    ]
    table = pd.DataFrame(rows).drop_duplicates(["observation_id", "environment", "variant"])
    # A mode number, or none outside Vague: nullable integers (a float column writes "1.0").
    return table.astype({"vague_mode": "Int64"})


def score_run(
    records: Sequence[JudgeVerdictRecord],
    items: Sequence[EnvironmentItem],
    *,
    panel_size: int,
    countries: dict[str, str],
) -> MajorityResult:
    """Majority per sub-question over the panel; items with a failed answer never get cells."""
    tally = panel_tally(records, {item.key: item for item in items}, panel_size)
    metadata = item_metadata(items, countries) if items else None
    return majority_of(tally, metadata)


def panel_tally(
    records: Iterable[JudgeVerdictRecord] | JudgeRecords,
    items: Mapping[str, EnvironmentItem],
    panel_size: int,
) -> PanelTally:
    """``tally_panel(verdict_table(records, items), panel_size)``, counted by the engine from the
    verdicts' codes (``verdict_engine.engine_tally``: no frame of every verdict, issue 32): the
    same counts, exclusions and ignored keys in the same order. Records that fail a check of the
    panel (a duplicate verdict, more judges than the panel, a key under another rubric), or none,
    go the pandas way, which raises its error (or makes the empty tables)."""
    records = records if isinstance(records, JudgeRecords) else list(records)
    tally = engine_tally(records, items, panel_size)
    return tally if tally is not None else tally_panel(verdict_table(records, items), panel_size)
