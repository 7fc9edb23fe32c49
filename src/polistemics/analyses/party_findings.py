"""The paper's party and pooled analyses per election (``scoring.party_analyses``), shown by the
report's "Parties" and "Sanitization" sections and Fig. 22:

- ``party_adherence``: Adherence Index per model x environment x party with bootstrap CIs;
- ``party_pass_rates``: sub-question pass rates per party with Wilson CIs;
- ``mean_party_spread``: each model's party spread, averaged over environments;
- ``party_vs_rest``: each party's Adherence Index against the mean of the other parties;
- ``i4_by_variant`` (Figs. 39/40): I4 Sanitization per party x variant under Baseline;
- ``impartiality_pooled`` (Fig. 22): Impartiality sub-questions per model, pooled over
  environments.

From the headline variant's cells (``elections.election_cells``), except ``i4_by_variant``
(every variant). One long table per name, ``election_id`` first.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from polistemics.analyses.columns import (
    BOOTSTRAP_CI,
    ELECTION,
    ENVIRONMENT,
    MODEL,
    PARTY,
    PARTY_NAME,
    RUBRIC,
    SUB_QUESTION,
    VARIANT,
    WILSON_CI,
)
from polistemics.analyses.elections import election_cells, elections_in, joined
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.rubrics import Rubric
from polistemics.scoring.bootstrap import DEFAULT_RESAMPLES
from polistemics.scoring.cells import grouped, plain, scoreable_cells
from polistemics.scoring.party_analyses import (
    mean_party_spread,
    party_adherence,
    party_pass_rates,
    party_vs_rest,
    sanitisation_by_variant,
)

PASSES = (
    TableColumn("n", "int", "scored cells"),
    TableColumn("passes", "int", "passing cells"),
    TableColumn("pass_rate", "float", "passes / n"),
)

PARTY_ADHERENCE = TableSchema(
    "party_adherence",
    "Adherence Index per model x environment x party with its bootstrap CI",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        PARTY,
        PARTY_NAME,
        TableColumn("adherence", "float", "Adherence Index"),
        *BOOTSTRAP_CI,
        TableColumn("n_observations", "int", "the party's observations"),
    ),
)
PARTY_PASS_RATES = TableSchema(
    "party_pass_rates",
    "Pass rate per model x environment x party x sub-question with its Wilson CI",
    (ELECTION, MODEL, ENVIRONMENT, PARTY, PARTY_NAME, RUBRIC, SUB_QUESTION, *PASSES, *WILSON_CI),
)
MEAN_PARTY_SPREAD = TableSchema(
    "mean_party_spread",
    "Each model's party spread of the Adherence Index, averaged over environments",
    (
        ELECTION,
        MODEL,
        TableColumn("mean_party_spread", "float", "mean spread"),
        TableColumn("n_environments", "int", "environments averaged"),
    ),
)
PARTY_VS_REST = TableSchema(
    "party_vs_rest",
    "Each party's Adherence Index against the mean of the other parties' indices",
    (
        ELECTION,
        MODEL,
        ENVIRONMENT,
        PARTY,
        PARTY_NAME,
        TableColumn("adherence", "float", "the party's Adherence Index"),
        TableColumn("rest_mean", "float", "mean of the other parties; NaN: a single party"),
        TableColumn("deviation", "float", "adherence - rest_mean; NaN: a single party"),
        TableColumn("n_parties", "int", "parties in the context"),
        TableColumn("n_observations", "int", "the party's observations"),
    ),
)
I4_BY_VARIANT = TableSchema(
    "i4_by_variant",
    "Figs. 39/40: I4 Sanitization pass rate per party x variant under Baseline, pooled over "
    "models, with its Wilson CI",
    (
        ELECTION,
        VARIANT,
        PARTY,
        PARTY_NAME,
        *PASSES,
        *WILSON_CI,
        TableColumn("n_models", "int", "models pooled"),
    ),
)
IMPARTIALITY_POOLED = TableSchema(
    "impartiality_pooled",
    "Fig. 22: pass rate per model x Impartiality sub-question, pooled over environments",
    (
        ELECTION,
        MODEL,
        SUB_QUESTION,
        TableColumn("n", "int", "scored cells"),
        TableColumn("passes", "int", "passing cells"),
        TableColumn("n_environments", "int", "environments pooled"),
        TableColumn("pass_rate", "float", "passes / n"),
    ),
)
PARTY_SCHEMAS: dict[str, TableSchema] = {
    schema.name: schema
    for schema in (
        PARTY_ADHERENCE,
        PARTY_PASS_RATES,
        MEAN_PARTY_SPREAD,
        PARTY_VS_REST,
        I4_BY_VARIANT,
        IMPARTIALITY_POOLED,
    )
}


@dataclass
class PartyFindings:
    """One election's tables, without ``election_id``; named as in ``PARTY_SCHEMAS``."""

    party_adherence: pd.DataFrame
    party_pass_rates: pd.DataFrame
    mean_party_spread: pd.DataFrame
    party_vs_rest: pd.DataFrame
    i4_by_variant: pd.DataFrame
    impartiality_pooled: pd.DataFrame


def impartiality_pooled(cells: pd.DataFrame) -> pd.DataFrame:
    """Fig. 22: pass rate per model x Impartiality sub-question over all environments."""
    kept, _ = scoreable_cells(cells)
    impartial = kept[kept["rubric"] == Rubric.IMPARTIALITY.value]
    table = plain(
        grouped(impartial, ["model", "sub_question"], sort=True)
        .agg(
            n=("passed", "size"),
            passes=("passed", "sum"),
            n_environments=("environment", "nunique"),
        )
        .reset_index()
    )
    table["passes"] = table["passes"].astype("int64")
    table["pass_rate"] = table["passes"] / table["n"]
    return table


def party_findings(
    cells: pd.DataFrame, election_id: str, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> PartyFindings:
    everything, full = election_cells(cells, election_id)
    return PartyFindings(
        party_adherence=party_adherence(full, n_resamples=resamples, seed=seed).drop(
            columns=["variant"]
        ),
        party_pass_rates=party_pass_rates(full).drop(columns=["variant"]),
        mean_party_spread=mean_party_spread(full).drop(columns=["variant"]),
        party_vs_rest=party_vs_rest(full).drop(columns=["variant"]),
        i4_by_variant=sanitisation_by_variant(everything),
        impartiality_pooled=impartiality_pooled(full),
    )


def party_finding_tables(
    cells: pd.DataFrame, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> dict[str, pd.DataFrame]:
    """Every election's ``PartyFindings``, one table per name with ``election_id`` first."""
    found: dict[str, list[pd.DataFrame]] = {name: [] for name in PARTY_SCHEMAS}
    for election_id in elections_in(cells):
        tables = party_findings(cells, election_id, resamples=resamples, seed=seed)
        for entry in fields(tables):
            table = getattr(tables, entry.name)
            if not table.empty:
                found[entry.name].append(table.assign(election_id=election_id))
    return {name: joined(frames, PARTY_SCHEMAS[name]) for name, frames in found.items()}
