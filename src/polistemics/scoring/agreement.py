"""Inter-judge agreement (App. G.1, Tables 12-13); the repeat-call flip rate is in ``flips``.

The judge panel is a fixed panel of raters: each judged sub-question instance is one rated
item, its (fail, pass) vote counts one row of a count table. The coefficients (Fleiss' kappa,
Gwet's AC1, unanimity, prevalence) are ``stats.agreement``'s; this module says which verdicts
are rated (complete panels, scored sub-questions), and ``panel_agreement`` how they are
grouped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from polistemics.scoring.cells import scoreable_mask
from polistemics.scoring.panel_agreement import agreement_by
from polistemics.scoring.verdicts import (
    DEFAULT_PANEL_SIZE,
    JudgeVerdict,
    tally_panel,
    verdict_frame,
)


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


def scored_verdicts(verdicts: Iterable[JudgeVerdict] | pd.DataFrame) -> pd.DataFrame:
    """The verdicts of sub-questions that are scored in their environment."""
    frame = verdict_frame(verdicts)
    if frame.empty:
        return frame
    keep, _ = scoreable_mask(frame["rubric"], frame["sub_question"], frame["environment"])
    return frame[keep]
