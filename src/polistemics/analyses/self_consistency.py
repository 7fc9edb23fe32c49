"""Self-consistency at temperature > 0 (issue 30, item 3; docs/pushback.md, "Self-consistency"):
with ``samples > 1`` every target answers every item several times; how far do the samples
agree? Per election x model x environment x variant:

- ``self_consistency_verdicts``: the panel's majority verdicts (the scored cells) of one
  observation's samples, the samples taken as raters of each (observation, sub-question): the
  percent agreement, Fleiss' kappa and Gwet's AC1 (``stats.uneven_agreement``), and the share of
  observations whose majority verdict flips between samples (on at least one sub-question) with
  its Wilson 95% interval;
- ``self_consistency_stances``: the coder panel's majority stance of each sample's answer: the
  share of observations whose samples are all coded alike, with its Wilson interval, and the
  mean share of agreeing sample pairs.

Only observations with at least two samples (two coded samples) count. Both tables are None
(no file) when no answer has a second sample: a study with ``samples = 1`` is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from polistemics.analyses.columns import ELECTION, ENVIRONMENT, MODEL, VARIANT, WILSON_CI
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.coding.records import majority_codes
from polistemics.runlog import EnvironmentItem, StanceCodeRecord
from polistemics.stats import uneven_agreement, wilson_intervals

KEYS = ["election_id", "model", "environment", "variant"]
SELF_CONSISTENCY_VERDICTS = TableSchema(
    "self_consistency_verdicts",
    "Agreement of the majority verdicts across samples, and the share of observations whose "
    "majority verdict flips between samples, per election x model x environment x variant",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        VARIANT,
        TableColumn("n_observations", "int", "observations with two or more samples"),
        TableColumn("n_cells", "int", "their (observation, sub-question) cells"),
        TableColumn("samples", "int", "the most samples of one observation"),
        TableColumn("percent_agreement", "float", "mean share of agreeing sample pairs"),
        TableColumn("fleiss_kappa", "float", "Fleiss' kappa, samples as raters"),
        TableColumn("gwet_ac1", "float", "Gwet's AC1, samples as raters"),
        TableColumn("flipped", "int", "observations with a sub-question whose verdict differs"),
        TableColumn("flip_rate", "float", "flipped / n_observations"),
        *WILSON_CI,
    ),
    optional=True,
)
SELF_CONSISTENCY_STANCES = TableSchema(
    "self_consistency_stances",
    "Agreement of the coded stances across samples per election x model x environment x variant",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        VARIANT,
        TableColumn("n_observations", "int", "observations with two or more coded samples"),
        TableColumn("all_agree", "int", "observations whose samples are all coded alike"),
        TableColumn("agreement_rate", "float", "all_agree / n_observations"),
        *WILSON_CI,
        TableColumn("pairwise_agreement", "float", "mean share of agreeing sample pairs"),
    ),
    optional=True,
)
SELF_CONSISTENCY_SCHEMAS = {
    s.name: s for s in (SELF_CONSISTENCY_VERDICTS, SELF_CONSISTENCY_STANCES)
}


def _with_interval(table: pd.DataFrame, successes: str, n: str, rate: str) -> pd.DataFrame:
    table[rate] = table[successes] / table[n]
    table["ci_low"], table["ci_high"] = wilson_intervals(
        table[successes].to_numpy(), table[n].to_numpy()
    )
    return table


def verdict_consistency(cells: pd.DataFrame) -> pd.DataFrame:
    scored = cells[cells["passed"].notna()]
    cell_keys = [*KEYS, "observation_id", "rubric", "sub_question"]
    per_cell = (
        scored.assign(passed=scored["passed"].astype(bool))
        .groupby(cell_keys, sort=True)["passed"]
        .agg(n_yes="sum", n_raters="size")
        .reset_index()
    )
    per_cell = per_cell[per_cell["n_raters"] >= 2]
    if per_cell.empty:
        return SELF_CONSISTENCY_VERDICTS.empty()
    per_cell["flips"] = (per_cell["n_yes"] > 0) & (per_cell["n_yes"] < per_cell["n_raters"])
    rows = []
    for key, group in per_cell.groupby(KEYS, sort=True):
        stats = uneven_agreement(group["n_yes"].to_numpy(), group["n_raters"].to_numpy())
        flipped = group.groupby("observation_id")["flips"].any()
        rows.append(
            {
                **dict(zip(KEYS, key, strict=True)),
                "n_observations": int(flipped.size),
                "n_cells": int(len(group)),
                "samples": int(group["n_raters"].max()),
                "percent_agreement": stats.percent_agreement,
                "fleiss_kappa": stats.fleiss_kappa,
                "gwet_ac1": stats.gwet_ac1,
                "flipped": int(flipped.sum()),
            }
        )
    table = _with_interval(pd.DataFrame(rows), "flipped", "n_observations", "flip_rate")
    return table.loc[:, SELF_CONSISTENCY_VERDICTS.names]


def stance_consistency(
    items: Sequence[EnvironmentItem], records: Sequence[StanceCodeRecord]
) -> pd.DataFrame:
    by_key = {item.key: item for item in items}
    stances: dict[tuple, list[str]] = {}
    for code in majority_codes(records):
        item = by_key.get(code.subject_key)
        if code.kind != "answer" or item is None or code.stance is None:
            continue
        key = (item.election_id, code.model, item.environment.value, item.variant.value)
        stances.setdefault((*key, item.observation_id), []).append(code.stance.value)
    rows = []
    for (*key, _), coded in stances.items():
        if len(coded) < 2:
            continue
        pairs = list(combinations(coded, 2))
        rows.append(
            {
                **dict(zip(KEYS, key, strict=True)),
                "all_agree": len(set(coded)) == 1,
                "pairwise": float(np.mean([a == b for a, b in pairs])),
            }
        )
    if not rows:
        return SELF_CONSISTENCY_STANCES.empty()
    table = (
        pd.DataFrame(rows)
        .groupby(KEYS, sort=True)
        .agg(
            n_observations=("all_agree", "size"),
            all_agree=("all_agree", "sum"),
            pairwise_agreement=("pairwise", "mean"),
        )
        .reset_index()
    )
    table["all_agree"] = table["all_agree"].astype("int64")
    table = _with_interval(table, "all_agree", "n_observations", "agreement_rate")
    return table.loc[:, SELF_CONSISTENCY_STANCES.names]


def self_consistency_tables(
    cells: pd.DataFrame,
    items: Sequence[EnvironmentItem],
    stance_codes: Sequence[StanceCodeRecord] | None,
) -> dict[str, pd.DataFrame | None]:
    """Both tables; None when no answer has a second sample (the stances table also None
    without stance codes)."""
    sampled = not cells.empty and "sample_index" in cells and (cells["sample_index"] > 0).any()
    if not sampled:
        return dict.fromkeys(SELF_CONSISTENCY_SCHEMAS)
    return {
        "self_consistency_verdicts": verdict_consistency(cells),
        "self_consistency_stances": None
        if stance_codes is None
        else stance_consistency(items, stance_codes),
    }
