"""Does the answer follow the evidence or the model's prior? (issue 16, item 5)

Only answers that commit to one side (coded agree or disagree) count; the others are left out
and counted (``not_committed``, or the code's status).

- Counterfactual: *the evidence* is the single chunk's stance (``expected_stance``, the opposing
  party's evidence presented as the target's).
- Contradictory: both chunks are evidence, so *the evidence* is the target party's own chunk
  (the one ``evidence_index`` marks, whose stance is the party's real stance), in either order.
  The prior agrees with it when the prior is accurate. ``prior_consistent`` gives, in addition,
  the share of committed answers that follow whichever chunk the prior agrees with.

The prior is the model's probe majority on the party x statement (``prior_accuracy.
prior_stances``); an answer whose prior is missing, abstains or is Neutral is left out of the
conditional rates (``no_prior``). ``overall`` needs no prior: the share of committed answers that
follow the evidence (for Counterfactual, the headline ``follows_evidence_rate``).

``conditional`` compares P(follows | prior agrees) with P(follows | prior disagrees): both
rates, their Wilson intervals, and the difference (agrees - disagrees) with a 95% Newcombe
interval, per model and per model x party.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.scoring.mechanisms.coded import OK
from polistemics.scoring.mechanisms.prior_accuracy import PRIOR_KEY
from polistemics.scoring.mechanisms.rates import (
    difference_interval,
    exclusion_counts,
    left_out,
    share_rows,
)

_SIDES = (Stance.AGREE.value, Stance.DISAGREE.value)
ENVIRONMENTS = (Environment.COUNTERFACTUAL.value, Environment.CONTRADICTORY.value)
_CONDITIONS = ("prior_agrees", "prior_disagrees")


@dataclass
class FollowsEvidence:
    answers: pd.DataFrame  # committed answers + evidence, follows, prior, condition
    overall: pd.DataFrame  # environment, variant, model[, party_id] + SHARE_COLUMNS
    conditional: pd.DataFrame  # environment, variant, model, party_id (None: all) + both rates
    prior_consistent: pd.DataFrame  # environment, variant, model[, party_id] + SHARE_COLUMNS
    excluded: pd.DataFrame  # environment, variant, model, reason, count


def evidence_stance(answers: pd.DataFrame) -> pd.Series:
    counterfactual = answers["environment"] == Environment.COUNTERFACTUAL.value
    return answers["expected_stance"].where(counterfactual, answers["target_stance"])


def follows_evidence(answers: pd.DataFrame, priors: pd.DataFrame | None) -> FollowsEvidence:
    """``answers``: the ``coded.coded_answers`` frame; ``priors``: ``prior_stances`` (None: the
    run has no probe, so only ``overall`` is measured)."""
    frame = answers[answers["environment"].isin(ENVIRONMENTS)].copy()
    frame["evidence"] = evidence_stance(frame)
    reason = pd.Series(None, index=frame.index, dtype=object)
    reason = reason.mask(~frame["committed"].isin(_SIDES), "not_committed")
    reason = reason.mask(frame["status"] != OK, frame["status"])
    reason = reason.mask(~frame["evidence"].isin(_SIDES), "no_evidence_stance")
    kept = frame[reason.isna()].copy()
    kept["follows"] = kept["committed"] == kept["evidence"]
    excluded = [left_out(frame, reason)]
    if priors is not None and not priors.empty:
        kept = kept.merge(priors.loc[:, [*PRIOR_KEY, "prior"]], on=PRIOR_KEY, how="left")
    else:
        kept["prior"] = None
    has_prior = kept["prior"].isin(_SIDES)
    kept["condition"] = None
    kept.loc[has_prior, "condition"] = (kept["prior"] == kept["evidence"])[has_prior].map(
        {True: "prior_agrees", False: "prior_disagrees"}
    )
    if priors is not None:
        excluded.append(kept[~has_prior].assign(reason="no_prior"))
    with_prior = kept[has_prior].copy()
    with_prior["follows_prior"] = with_prior["committed"] == with_prior["prior"]
    overall_keys = ["environment", "variant", "model"]
    return FollowsEvidence(
        answers=kept,
        overall=_both_levels(kept, overall_keys, "follows"),
        conditional=_conditional(with_prior),
        prior_consistent=_both_levels(
            with_prior[with_prior["environment"] == Environment.CONTRADICTORY.value],
            overall_keys,
            "follows_prior",
        ),
        excluded=exclusion_counts(pd.concat(excluded, ignore_index=True), overall_keys, "reason"),
    )


def _both_levels(frame: pd.DataFrame, keys: list[str], success: str) -> pd.DataFrame:
    """Per model (``party_id`` None) and per model x party."""
    party = share_rows(frame, [*keys, "party_id"], success)
    if frame.empty:
        return party
    model = share_rows(frame, keys, success).assign(party_id=None, party_name=None)
    return pd.concat([model, party], ignore_index=True).loc[:, party.columns]


COMPARISON_COLUMNS = (
    "environment",
    "variant",
    "model",
    "party_id",
    "party_name",
    *(f"{c}_{m}" for c in _CONDITIONS for m in ("n", "successes", "rate", "ci_low", "ci_high")),
    "difference",
    "difference_low",
    "difference_high",
)


def _conditional(frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    keys = ["environment", "variant", "model"]
    for level in (keys, [*keys, "party_id"]):
        if frame.empty:
            break
        for key, group in frame.groupby(level, sort=True, observed=True):
            row: dict = dict(zip(level, key if isinstance(key, tuple) else (key,), strict=True))
            row.setdefault("party_id", None)
            row["party_name"] = group["party_name"].iloc[0] if "party_id" in level else None
            counts = {}
            for condition in _CONDITIONS:
                part = group[group["condition"] == condition]
                shares = share_rows(part.assign(_all=0), ["_all"], "follows")
                n, k = (
                    (0, 0) if shares.empty else (int(shares["n"][0]), int(shares["successes"][0]))
                )
                counts[condition] = (k, n)
                if shares.empty:
                    values = {"n": 0, "successes": 0, "rate": None, "ci_low": None, "ci_high": None}
                else:
                    values = shares.iloc[0].loc[["n", "successes", "rate", "ci_low", "ci_high"]]
                for name, value in dict(values).items():
                    row[f"{condition}_{name}"] = value
            (ka, na), (kd, nd) = counts["prior_agrees"], counts["prior_disagrees"]
            row["difference"] = ka / na - kd / nd if na and nd else None
            row["difference_low"], row["difference_high"] = difference_interval(ka, na, kd, nd)
            rows.append(row)
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
