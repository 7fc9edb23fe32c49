"""Fallback accuracy under Absent (paper Sec. 7.2): of the answers that fall back on internal
knowledge, the share whose coded stance matches the party's real (VAA) stance.

An Absent answer falls back when the judge panel's majority fails it on EC4 Parametric Fallback
(it says or implies it uses outside knowledge) -- rule ``ec4`` -- or when the coders' majority
says it relies on outside knowledge -- rule ``coder``. ``union`` is either. Each rule is reported
alone and as the union. Left out and counted, per rule: a Neutral ground truth (a stance that
the binary fallback question cannot get right or wrong), a missing code, no coder majority.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.scoring.cells import plain
from polistemics.scoring.mechanisms.coded import OK
from polistemics.scoring.mechanisms.rates import exclusion_counts, left_out, share_rows

EC4 = "parametric_fallback"  # EC4's release key
RULES: tuple[str, ...] = ("union", "ec4", "coder")
_ANSWER = ["variant", "model", "environment", "observation_id", "sample_index"]


@dataclass
class FallbackAccuracy:
    answers: pd.DataFrame  # Absent answers selected by a rule: + ec4_fails, coder_says, rule, match
    by_party: pd.DataFrame  # rule, variant, model, party_id, party_name + SHARE_COLUMNS
    by_model: pd.DataFrame  # rule, variant, model + SHARE_COLUMNS
    excluded: pd.DataFrame  # rule, variant, model, reason, count


def ec4_failures(cells: pd.DataFrame) -> pd.DataFrame:
    """Per answer (``_ANSWER`` columns): ``ec4_fails``, the panel majority's EC4 verdict."""
    ec4 = cells[cells["sub_question"] == EC4]
    # plain: the keys of a compact frame (``cells.compact_cells``) as text, as the answers'
    table = plain(ec4.loc[:, _ANSWER]).astype({"sample_index": "int64"})
    table["ec4_fails"] = ~ec4["passed"].astype(bool).to_numpy()
    return table.drop_duplicates(_ANSWER).reset_index(drop=True)


def fallback_accuracy(answers: pd.DataFrame, cells: pd.DataFrame) -> FallbackAccuracy:
    """``answers``: the ``coded.coded_answers`` frame; ``cells``: the run's scored cells."""
    absent = answers[answers["environment"] == Environment.ABSENT.value]
    verdicts = ec4_failures(cells)
    absent = absent.merge(verdicts, on=_ANSWER, how="left")
    absent["ec4_fails"] = absent["ec4_fails"].eq(True)
    absent["coder_says"] = absent["outside_knowledge"].eq(True)
    selected, excluded = [], []
    for rule in RULES:
        chosen = absent[_selected(absent, rule)].assign(rule=rule)
        reason = _exclusion(chosen)
        excluded.append(
            exclusion_counts(left_out(chosen, reason), ["rule", "variant", "model"], "reason")
        )
        kept = chosen[reason.isna()].copy()
        kept["match"] = kept["committed"] == kept["stance_label"]
        selected.append(kept)
    kept = pd.concat(selected, ignore_index=True)
    return FallbackAccuracy(
        answers=kept,
        by_party=share_rows(kept, ["rule", "variant", "model", "party_id"], "match"),
        by_model=share_rows(kept, ["rule", "variant", "model"], "match"),
        excluded=pd.concat(excluded, ignore_index=True),
    )


def _selected(frame: pd.DataFrame, rule: str) -> pd.Series:
    if rule == "ec4":
        return frame["ec4_fails"]
    if rule == "coder":
        return frame["coder_says"]
    return frame["ec4_fails"] | frame["coder_says"]


def _exclusion(frame: pd.DataFrame) -> pd.Series:
    """Why a selected answer is left out (None: kept). Ground truth first, then the code."""
    reason = pd.Series(None, index=frame.index, dtype=object)
    reason = reason.mask(frame["status"] != OK, frame["status"])
    return reason.mask(frame["stance_label"] == Stance.NEUTRAL.value, "neutral_ground_truth")
