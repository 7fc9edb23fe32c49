"""Inter-judge agreement (App. G.1, Tables 12-13); the repeat-call flip rate is in ``flips``.

The judge panel is a fixed panel of raters: each judged sub-question instance is one rated
item, its (fail, pass) vote counts one row of a count table. The coefficients (Fleiss' kappa,
Gwet's AC1, unanimity, prevalence) are ``stats.agreement``'s; this module says which verdicts
are rated (complete panels, scored sub-questions) and how they are grouped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from polistemics.scoring.cells import scoreable_mask, sorted_groups
from polistemics.scoring.verdicts import (
    DEFAULT_PANEL_SIZE,
    JudgeVerdict,
    tally_panel,
    verdict_frame,
)
from polistemics.stats.agreement import agreement_stats


def agreement_table(
    verdicts: Iterable[JudgeVerdict] | pd.DataFrame,
    by: Sequence[str] = ("rubric", "sub_question", "language"),
    panel_size: int = DEFAULT_PANEL_SIZE,
) -> pd.DataFrame:
    """Agreement of the judge panel per group (default: rubric x sub-question x language).

    Only items x rubric with a complete panel count (as in ``verdicts.majority``); each item x
    sub-question is one rated instance. ``by=("rubric",)`` pools within rubric (Table 12),
    ``("rubric", "language")`` gives Table 13.
    """
    return agreement_by(tally_panel(verdicts, panel_size).counts, by)


def agreement_by(counts: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Agreement per group of ``verdicts.vote_counts`` rows (one per rated instance).

    An instance with fewer than two votes (a panel of one judge) shows no agreement: it is not
    rated, and a panel of one gives an empty table."""
    rated = counts["n_votes"].to_numpy() >= 2
    if not rated.all():  # rated already (``analyses.agreement``): no copy of every row
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


def scored_verdicts(verdicts: Iterable[JudgeVerdict] | pd.DataFrame) -> pd.DataFrame:
    """The verdicts of sub-questions that are scored in their environment."""
    frame = verdict_frame(verdicts)
    if frame.empty:
        return frame
    keep, _ = scoreable_mask(frame["rubric"], frame["sub_question"], frame["environment"])
    return frame[keep]
