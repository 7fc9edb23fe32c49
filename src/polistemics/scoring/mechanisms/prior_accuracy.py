"""Prior accuracy from the closed-book probe: the share of a target's coded probe answers that
state the party's real (VAA) stance, per model x party and per model.

Every probe sample is a trial. ``no_position`` and ``both`` count as not accurate and are also
reported as the abstention rate (same denominator). Left out and counted: a Neutral ground
truth, a probe whose party and statement no item of the run covers (``no_ground_truth``), a
missing code, no coder majority.

``prior_stances`` gives the model's prior on each party x statement, the input of the
follows-evidence analysis: the strict majority of its samples' coded stances (None without one).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pandas as pd

from polistemics.records import Stance
from polistemics.runlog import CodedStance
from polistemics.scoring.mechanisms.coded import OK
from polistemics.scoring.mechanisms.rates import (
    SHARE_COLUMNS,
    exclusion_counts,
    left_out,
    share_rows,
)

_ABSTAINING = (CodedStance.NO_POSITION.value, CodedStance.BOTH.value)
PRIOR_KEY = ["model", "election_id", "party_id", "statement_id"]


@dataclass
class PriorAccuracy:
    probes: pd.DataFrame  # the counted probe codes + accurate, abstains
    by_party: pd.DataFrame  # model, party_id, party_name + SHARE_COLUMNS + abstentions
    by_model: pd.DataFrame  # model + SHARE_COLUMNS + abstentions
    excluded: pd.DataFrame  # model, reason, count


def prior_accuracy(probes: pd.DataFrame) -> PriorAccuracy:
    """``probes``: the ``coded.coded_probes`` frame."""
    reason = pd.Series(None, index=probes.index, dtype=object)
    reason = reason.mask(probes["status"] != OK, probes["status"])
    reason = reason.mask(probes["stance_label"] == Stance.NEUTRAL.value, "neutral_ground_truth")
    reason = reason.mask(probes["stance_label"].isna(), "no_ground_truth")
    kept = probes[reason.isna()].copy()
    kept["accurate"] = kept["committed"] == kept["stance_label"]
    kept["abstains"] = kept["code"].isin(_ABSTAINING)
    return PriorAccuracy(
        probes=kept,
        by_party=_with_abstentions(kept, ["model", "party_id"]),
        by_model=_with_abstentions(kept, ["model"]),
        excluded=exclusion_counts(left_out(probes, reason), ["model"], "reason"),
    )


def _with_abstentions(kept: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    table = share_rows(kept, by, "accurate")
    if table.empty:
        return table.assign(
            abstentions=pd.Series(dtype="int64"), abstention_rate=pd.Series(dtype=float)
        )
    abstentions = (
        kept.groupby(by, sort=True, observed=True)["abstains"]
        .sum()
        .astype("int64")
        .rename("abstentions")
    )
    table = table.merge(abstentions.reset_index(), on=by, how="left")
    table["abstention_rate"] = table["abstentions"] / table["n"]
    return table


def prior_stances(probes: pd.DataFrame) -> pd.DataFrame:
    """Per model x election x party x statement: ``prior`` (a Stance value, or None when the
    model's readable samples have no strict majority or the majority does not commit)."""
    readable = probes[probes["status"] == OK]
    rows = []
    for key, group in readable.groupby(PRIOR_KEY, sort=True, observed=True):
        counts = Counter(group["code"])
        value, count = counts.most_common(1)[0]
        prior = CodedStance(value).committed if count * 2 > len(group) else None
        rows.append((*key, None if prior is None else prior.value, len(group)))
    return pd.DataFrame(rows, columns=[*PRIOR_KEY, "prior", "prior_samples"])


__all__ = ["SHARE_COLUMNS", "PriorAccuracy", "prior_accuracy", "prior_stances"]
