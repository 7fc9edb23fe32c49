"""The small-sample rule of the human-validation figures (issue 27).

Agreement coefficients, accuracies and PPI-corrected scores come with normal-approximation or
Wilson intervals; on fewer than ``MIN_UNITS`` labelled sample items they are rough and easily
read as surer than they are. Every such row carries ``small_sample`` = True, and the tables say
so in words (``warning``). The unit is the labelled sample item (an answer x rubric): the
sub-questions of one item are not independent, so they do not count as more units.
"""

from __future__ import annotations

import pandas as pd

MIN_UNITS = 30  # labelled sample items below which a figure is flagged
COLUMN = "small_sample"


def is_small(n_units: object) -> bool:
    """Whether a figure resting on ``n_units`` labelled items is flagged (missing: flagged)."""
    try:
        return not int(n_units) >= MIN_UNITS  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return True


def flag(frame: pd.DataFrame, units: str) -> pd.DataFrame:
    """``frame`` with ``small_sample`` set from its ``units`` column."""
    return frame.assign(**{COLUMN: [is_small(n) for n in frame[units]]}).astype({COLUMN: bool})


def warning(table: str, frame: pd.DataFrame) -> str | None:
    """A sentence for ``table`` when any of its rows is flagged; None otherwise."""
    if frame.empty or COLUMN not in frame or not frame[COLUMN].any():
        return None
    flagged = int(frame[COLUMN].sum())
    return (
        f"{table}: {flagged} of {len(frame)} rows rest on fewer than {MIN_UNITS} labelled "
        "items; their figures and intervals are rough (read them as indicative only)"
    )
