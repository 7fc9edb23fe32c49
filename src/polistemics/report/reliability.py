"""Judge reliability (App. G.1, Tables 12-13) from a run's raw judge verdicts.

``verdict_table`` turns ``judges.jsonl`` records into the verdict table of
``scoring.verdicts`` (one row per judge x sub-question, judges told apart by panel seat as in
``run.cells.judge_verdicts``) without building a dataclass per verdict, so runs of the paper's
size stay fast. Agreement uses ``scoring.agreement.agreement_stats`` on the panel votes of
``scoring.verdicts.panel_votes``, grouped like ``agreement_table`` but computed once for all
the report's groupings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from polistemics.environments.items import EnvironmentItem
from polistemics.judging.panel import JudgeVerdictRecord
from polistemics.report.inputs import ReportInputError
from polistemics.run.cells import panel_judge_id
from polistemics.scoring.agreement import agreement_stats
from polistemics.scoring.verdicts import ITEM_RUBRIC, VERDICT_COLUMNS, panel_votes


class UnknownItemError(ReportInputError):
    """A judge record names an item that is not among the run's items."""


def verdict_table(
    records: Iterable[JudgeVerdictRecord], items: Mapping[str, EnvironmentItem]
) -> pd.DataFrame:
    """One row per judge x sub-question verdict with ``VERDICT_COLUMNS``."""
    rows = []
    item_fields: dict[str, tuple] = {}
    for record in records:
        fields = item_fields.get(record.item_key)
        if fields is None:
            item = items.get(record.item_key)
            if item is None:
                raise UnknownItemError(
                    f"judges.jsonl: record for item '{record.item_key}' (judge {record.judge}): "
                    "no such item in the run's exports"
                )
            fields = item_fields[record.item_key] = (
                item.environment.value,
                item.variant.value,
                item.observation_id,
                item.party_id,
                item.election_id,
                item.output_language,
            )
        env, variant, oid, party, election, language = fields
        judge = panel_judge_id(record)
        rubric = record.rubric.value
        for key, says_yes in record.says_yes.items():
            rows.append(
                (
                    record.model,
                    env,
                    variant,
                    oid,
                    record.sample_index,
                    party,
                    election,
                    language,
                    rubric,
                    judge,
                    key,
                    says_yes,
                )
            )
    frame = pd.DataFrame(rows, columns=list(VERDICT_COLUMNS))
    frame["sample_index"] = frame["sample_index"].astype("int64")
    frame["says_yes"] = frame["says_yes"].astype("object")
    return frame


@dataclass
class ReliabilityTables:
    by_rubric: pd.DataFrame  # Table 12
    by_sub_question: pd.DataFrame
    by_language: pd.DataFrame  # Table 13 (output language: the English ablation is its own)
    by_sub_question_language: pd.DataFrame
    excluded: pd.DataFrame  # items x rubric without a complete panel
    panel_size: int


def reliability_tables(verdicts: pd.DataFrame, panel_size: int) -> ReliabilityTables:
    """Agreement at every grain from one pass over the panel votes."""
    panel = panel_votes(verdicts, panel_size)
    per_item = per_item_counts(panel.votes)
    excluded = panel.excluded
    return ReliabilityTables(
        by_rubric=agreement_by(per_item, ("rubric",)),
        by_sub_question=agreement_by(per_item, ("rubric", "sub_question")),
        by_language=agreement_by(per_item, ("rubric", "language")),
        by_sub_question_language=agreement_by(per_item, ("rubric", "sub_question", "language")),
        excluded=excluded.loc[:, [*ITEM_RUBRIC, "n_complete_judges"]]
        if not excluded.empty
        else excluded,
        panel_size=panel_size,
    )


def per_item_counts(votes: pd.DataFrame) -> pd.DataFrame:
    """One row per rated instance (item x rubric x sub-question): passing and total votes."""
    if votes.empty:
        return pd.DataFrame(columns=["rubric", "sub_question", "language", "n_pass", "n_votes"])
    return (
        votes.groupby(["item_id", "sub_question"], sort=False)
        .agg(
            rubric=("rubric", "first"),
            language=("language", "first"),
            n_pass=("passes", "sum"),
            n_votes=("passes", "size"),
        )
        .reset_index()
    )


def agreement_by(per_item: pd.DataFrame, by: tuple[str, ...]) -> pd.DataFrame:
    """``scoring.agreement.agreement_table`` on precomputed per-instance vote counts."""
    columns = [*by, "n", "prevalence", "unanimity", "fleiss_kappa", "gwet_ac1"]
    rows = []
    for key, group in per_item.groupby(list(by), dropna=False, sort=True):
        counts = np.column_stack([group["n_votes"] - group["n_pass"], group["n_pass"]])
        stats = agreement_stats(counts)
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            (*key, stats.n, stats.prevalence, stats.unanimity, stats.fleiss_kappa, stats.gwet_ac1)
        )
    return pd.DataFrame(rows, columns=columns)
