"""First-chunk preference under Contradictory (paper Sec. 7.2, 7.5).

A Contradictory item shows two chunks with strictly opposing stances. An answer *commits* when
its coded stance is one of the two (agree or disagree); it *follows the first chunk* when that
stance is the first chunk's. Rates are per chunk order (``original``: the party's own evidence
first; ``swapped``: the opposing party's first).

With both orders in the run, pooled over orders:
- ``position``: the share that follows the first chunk, whichever it is (position bias);
- ``prior``: the share that follows the party's real position (``stance_label``), wherever it
  stands (prior preference).
And a paired test per model over the answers (model x variant x observation x sample) committed
in both orders, McNemar's exact test (statsmodels):
- ``position`` test, outcome "follows the real position": discordant pairs are "first chunk in
  both orders" against "second chunk in both orders"; H0: no position bias;
- ``prior`` test, outcome "follows the first chunk": discordant pairs are "real position in both
  orders" against "opposing position in both orders"; H0: no prior preference.
A test needs at least one discordant pair; otherwise its p-value is None.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.scoring.mechanisms.coded import OK
from polistemics.scoring.mechanisms.rates import exclusion_counts, left_out, share_rows

_SIDES = (Stance.AGREE.value, Stance.DISAGREE.value)
_PAIR = ["variant", "model", "observation_id", "sample_index"]
PAIRED_COLUMNS = (
    "variant",
    "model",
    "test",
    "pairs",
    "concordant",
    "discordant_for",
    "discordant_against",
    "p_value",
)


@dataclass
class FirstChunkPreference:
    answers: pd.DataFrame  # committed Contradictory answers + follows_first, follows_real
    by_party: pd.DataFrame  # chunk_order, variant, model, party_id, party_name + SHARE_COLUMNS
    by_model: pd.DataFrame  # chunk_order, variant, model + SHARE_COLUMNS
    pooled: pd.DataFrame  # measure (position / prior), variant, model[, party_id] + SHARE_COLUMNS
    paired: pd.DataFrame  # PAIRED_COLUMNS
    excluded: pd.DataFrame  # chunk_order, variant, model, reason, count


def contradictory_commitments(answers: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The committed Contradictory answers (with ``follows_first``, ``follows_real``) and the
    counts of the others by reason (status, ``not_committed``, ``chunks_not_opposed``)."""
    frame = answers[answers["environment"] == Environment.CONTRADICTORY.value]
    opposed = frame["first_stance"].isin(_SIDES) & frame["second_stance"].isin(_SIDES)
    opposed &= frame["first_stance"] != frame["second_stance"]
    reason = pd.Series(None, index=frame.index, dtype=object)
    reason = reason.mask(~frame["committed"].isin(_SIDES), "not_committed")
    reason = reason.mask(frame["status"] != OK, frame["status"])
    reason = reason.mask(~opposed, "chunks_not_opposed")
    kept = frame[reason.isna()].copy()
    kept["follows_first"] = kept["committed"] == kept["first_stance"]
    kept["follows_real"] = kept["committed"] == kept["stance_label"]
    excluded = exclusion_counts(
        left_out(frame, reason), ["chunk_order", "variant", "model"], "reason"
    )
    return kept, excluded


def first_chunk_preference(answers: pd.DataFrame) -> FirstChunkPreference:
    kept, excluded = contradictory_commitments(answers)
    both = kept.groupby(["variant", "model"], observed=True)["chunk_order"].transform("nunique") > 1
    pooled_rows = kept[both]
    pooled = pd.concat(
        [
            share_rows(pooled_rows, by, success).assign(measure=measure)
            for measure, success in (("position", "follows_first"), ("prior", "follows_real"))
            for by in (["variant", "model"], ["variant", "model", "party_id"])
        ],
        ignore_index=True,
    )
    if not pooled.empty:
        pooled = pooled.loc[:, ["measure", *[c for c in pooled.columns if c != "measure"]]]
    return FirstChunkPreference(
        answers=kept,
        by_party=share_rows(kept, ["chunk_order", "variant", "model", "party_id"], "follows_first"),
        by_model=share_rows(kept, ["chunk_order", "variant", "model"], "follows_first"),
        pooled=pooled,
        paired=paired_tests(kept),
        excluded=excluded,
    )


def paired_tests(kept: pd.DataFrame) -> pd.DataFrame:
    """McNemar exact tests per variant x model on the answers committed in both orders."""
    from statsmodels.stats.contingency_tables import mcnemar  # statsmodels when first asked

    original = kept[kept["chunk_order"] == "original"]
    swapped = kept[kept["chunk_order"] == "swapped"]
    pairs = original.merge(swapped, on=_PAIR, suffixes=("_o", "_s"))
    rows = []
    for (variant, model), group in pairs.groupby(["variant", "model"], sort=True, observed=True):
        for test, outcome in (("position", "follows_real"), ("prior", "follows_first")):
            a, b = group[f"{outcome}_o"], group[f"{outcome}_s"]
            table = [
                [int((a & b).sum()), int((a & ~b).sum())],
                [int((~a & b).sum()), int((~a & ~b).sum())],
            ]
            discordant = table[0][1] + table[1][0]
            p_value = float(mcnemar(table, exact=True).pvalue) if discordant else None
            # In both tests the (yes in original, no in swapped) cell is the one the named
            # effect predicts: first chunk both times (position), real position both (prior).
            for_, against = table[0][1], table[1][0]
            rows.append(
                (
                    variant,
                    model,
                    test,
                    len(group),
                    table[0][0] + table[1][1],
                    for_,
                    against,
                    p_value,
                )
            )
    return pd.DataFrame(rows, columns=list(PAIRED_COLUMNS))
