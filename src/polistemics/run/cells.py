"""Turn a run's judge records into the scored-cells table every index and report uses."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from polistemics.environments.items import EnvironmentItem
from polistemics.judging.panel import JudgeVerdictRecord
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict, MajorityResult, majority


def panel_judge_id(record: JudgeVerdictRecord) -> str:
    """Judges are told apart by panel seat, so a panel of one model three times is three judges."""
    return f"{record.panel_position}:{record.judge}"


def judge_verdicts(
    records: Iterable[JudgeVerdictRecord], items: dict[str, EnvironmentItem]
) -> list[JudgeVerdict]:
    verdicts = []
    for record in records:
        item = items[record.item_key]
        key = ItemKey(
            model=record.model,
            environment=item.environment,
            variant=item.variant,
            observation_id=item.observation_id,
            party_id=item.party_id,
            sample_index=record.sample_index,
            election_id=item.election_id,
            language=item.output_language,
        )
        judge = panel_judge_id(record)
        for sub_question, says_yes in record.says_yes.items():
            verdicts.append(JudgeVerdict(key, record.rubric, judge, sub_question, says_yes))
    return verdicts


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
    return pd.DataFrame(rows).drop_duplicates(["observation_id", "environment", "variant"])


def score_run(
    records: Sequence[JudgeVerdictRecord],
    items: Sequence[EnvironmentItem],
    *,
    panel_size: int,
    countries: dict[str, str],
) -> MajorityResult:
    """Majority per sub-question over the panel; items with a failed answer never get cells."""
    by_key = {item.key: item for item in items}
    verdicts = judge_verdicts(records, by_key)
    metadata = item_metadata(items, countries) if items else None
    return majority(verdicts, panel_size=panel_size, metadata=metadata)
