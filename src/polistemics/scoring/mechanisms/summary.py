"""The four headline mechanism rates per variant x model (``score --json``'s ``mechanisms``).

- ``fallback_match_rate``: fallback accuracy under Absent, union rule, all parties;
- ``first_chunk_rate``: share of committed Contradictory answers that follow the first chunk,
  original order only (the paper's setting), all parties;
- ``prior_accuracy``: closed-book probe accuracy, all parties (the same in every variant);
- ``follows_evidence_rate``: share of committed Counterfactual answers that follow the evidence.
Fractions; None where the run did not measure it (no codes, no probe, or no trials).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from polistemics.conditions import Environment
from polistemics.scoring.mechanisms.tables import MechanismTables


@dataclass(frozen=True)
class MechanismRates:
    fallback_match_rate: float | None = None
    first_chunk_rate: float | None = None
    prior_accuracy: float | None = None
    follows_evidence_rate: float | None = None

    def to_json(self) -> dict:
        return asdict(self)


def _rate(table: pd.DataFrame, **where: object) -> float | None:
    rows = table
    for column, value in where.items():
        rows = rows[rows[column].isna()] if value is None else rows[rows[column] == value]
    if rows.empty or int(rows["n"].iloc[0]) == 0:
        return None
    return float(rows["rate"].iloc[0])


def mechanism_rates(tables: MechanismTables, variant: str, model: str) -> MechanismRates:
    return MechanismRates(
        fallback_match_rate=_rate(
            tables.fallback.by_model, rule="union", variant=variant, model=model
        ),
        first_chunk_rate=_rate(
            tables.first_chunk.by_model, chunk_order="original", variant=variant, model=model
        ),
        prior_accuracy=_rate(tables.prior.by_model, model=model),
        follows_evidence_rate=_rate(
            tables.follows.overall,
            environment=Environment.COUNTERFACTUAL.value,
            variant=variant,
            model=model,
            party_id=None,
        ),
    )
