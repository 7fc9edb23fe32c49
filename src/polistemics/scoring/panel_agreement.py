"""The judge panel's agreement at the grains of Tables 12-13 (App. G.1), from its vote counts.

``agreement_by`` groups ``verdicts.vote_counts`` rows (one per rated instance: an item x
sub-question with a complete panel) and gives each group's coefficients
(``stats.agreement``). ``panel_agreement`` makes the four groupings the analyses write, once,
from a tally's counts: the scoring's own process makes them there and sends them back with
the tally instead of the counts (``PanelTally.agreement``, ``run.scoring_process``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from polistemics.scoring.cells import sorted_groups
from polistemics.stats.agreement import agreement_stats

_GROUPINGS = ("rubric", "sub_question", "language")
_VOTES = ("n_pass", "n_votes")


@dataclass(frozen=True)
class PanelAgreement:
    """Agreement per rubric (Table 12), rubric x sub-question, rubric x language (Table 13)
    and rubric x sub-question x language (``agreement_by``'s columns)."""

    by_rubric: pd.DataFrame
    by_sub_question: pd.DataFrame
    by_language: pd.DataFrame
    by_sub_question_language: pd.DataFrame


def panel_agreement(counts: pd.DataFrame) -> PanelAgreement:
    """The four groupings of a tally's vote counts (``PanelTally.counts``)."""
    rated = _rated(counts)
    return PanelAgreement(
        by_rubric=agreement_by(rated, ("rubric",)),
        by_sub_question=agreement_by(rated, ("rubric", "sub_question")),
        by_language=agreement_by(rated, ("rubric", "language")),
        by_sub_question_language=agreement_by(rated, ("rubric", "sub_question", "language")),
    )


def agreement_by(counts: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Agreement per group of ``verdicts.vote_counts`` rows (one per rated instance).

    An instance with fewer than two votes (a panel of one judge) shows no agreement: it is not
    rated, and a panel of one gives an empty table."""
    rated = counts["n_votes"].to_numpy() >= 2
    if not rated.all():  # rated already (``_rated``): no copy of every row
        counts = counts[rated]
    n_pass, n_votes = counts["n_pass"].to_numpy(), counts["n_votes"].to_numpy()
    rows = []
    for key, group in sorted_groups(counts, by, dropna=False):
        stats = agreement_stats(np.column_stack([n_votes[group] - n_pass[group], n_pass[group]]))
        rows.append(
            (*key, stats.n, stats.prevalence, stats.unanimity, stats.fleiss_kappa, stats.gwet_ac1)
        )
    return pd.DataFrame(
        rows, columns=[*by, "n", "prevalence", "unanimity", "fleiss_kappa", "gwet_ac1"]
    )


def _rated(counts: pd.DataFrame) -> pd.DataFrame:
    """The vote counts the groupings read: the rated instances (two votes or more, as
    ``agreement_by`` keeps them), with only the grouping columns (as categoricals: a byte per
    row, not a pointer) and the votes. ``agreement_by`` filters and groups its frame once per
    table: of the whole tally's frame, 12 columns of a million rows at 8x the paper's
    election, that was a copy of 100 MB each time (issue 32). Same groups and order: a
    categorical's values group as its text does."""
    rated = counts["n_votes"].to_numpy() >= 2
    return pd.DataFrame(
        {
            **{name: pd.Categorical(counts[name].to_numpy()[rated]) for name in _GROUPINGS},
            **{name: counts[name].to_numpy()[rated] for name in _VOTES},
        }
    )
