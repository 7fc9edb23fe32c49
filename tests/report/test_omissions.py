"""``report.omissions``: the scored answers per variant of a compact cells frame are those of
its text columns."""

from __future__ import annotations

import pandas as pd

from polistemics.report.omissions import scored_answers
from polistemics.scoring.cells import compact_cells


def test_scored_answers_of_a_compact_frame_are_those_of_the_text_columns() -> None:
    """A variant whose cells are all left out of the frame (a category no row holds) counts
    no answers: it is absent, as with text columns, not a zero row."""
    cells = pd.DataFrame(
        {
            "election_id": ["e"] * 5,
            "model": ["m", "m", "m", "n", "m"],
            "environment": ["baseline"] * 5,
            "variant": ["full", "full", "anon", "full", "en"],
            "observation_id": ["o1", "o1", "o2", "o1", "o3"],
            "sample_index": [0, 0, 0, 0, 0],
        }
    )
    keep = cells["variant"] != "en"
    expected = scored_answers(cells[keep])
    found = scored_answers(compact_cells(cells)[keep])
    pd.testing.assert_series_equal(found, expected)
    assert found.to_dict() == {"anon": 1, "full": 2}
