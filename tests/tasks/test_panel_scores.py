"""``tasks.panel_scores``: a compact cells frame gives the tables of its text columns."""

from __future__ import annotations

import numpy as np
import pandas as pd

from polistemics.scoring.cells import compact_cells
from polistemics.tasks.panel_scores import adherence, emi, rubric_scores, sub_question_rates


def _cells() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [
        (f"i{i}", model, 0, env, rubric, key, 2, 1, bool(rng.random() < 0.6))
        for i in range(12)
        for model in ("m1", "m2", "m3")
        for env in ("baseline", "absent")
        for rubric, keys in (("r1", ("a", "b")), ("r2", ("c",)))
        for key in keys
    ]
    columns = ["item_key", "model", "sample_index", "environment", "rubric", "sub_question"]
    return pd.DataFrame(rows, columns=[*columns, "yes", "no", "passed"])


def test_a_compact_frame_gives_the_tables_of_its_text_columns() -> None:
    """A model and an environment x rubric left out (categories no row holds) are absent from
    every table, as with text columns, not rows of zeros or missing values."""
    cells = _cells()
    keep = (cells["model"] != "m3") & ~(
        (cells["environment"] == "absent") & (cells["rubric"] == "r2")
    )
    for table in (sub_question_rates, rubric_scores, adherence, emi):
        expected = table(cells[keep])
        pd.testing.assert_frame_equal(table(compact_cells(cells)[keep]), expected)
        assert "m3" not in set(expected["model"])
