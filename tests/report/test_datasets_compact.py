"""``report.datasets.observation_counts`` of a compact cells frame (``compact_cells``, as a
run's finish scores them): the rows of its text columns, no row per unused combination."""

from __future__ import annotations

import pandas as pd

from polistemics.report.datasets import observation_counts
from polistemics.scoring.cells import compact_cells


def test_observation_counts_of_a_compact_frame_are_those_of_its_text_columns() -> None:
    cells = pd.DataFrame(
        {
            "election_id": ["e1", "e1", "e2", "e2"],
            "variant": ["full", "full", "anon", "full"],
            "environment": ["baseline", "absent", "baseline", "baseline"],
            "model": ["m1", "m1", "m2", "m1"],
            "observation_id": ["o1", "o1", "o2", "o3"],
            "sample_index": [0, 0, 0, 0],
        }
    )
    expected = observation_counts([], cells)
    found = observation_counts([], compact_cells(cells))
    pd.testing.assert_frame_equal(found, expected)
    assert len(found) == 4  # not the 2 x 2 x 2 x 2 combinations of the categories


def test_scored_answers_count_each_answer_once_as_drop_duplicates_does() -> None:
    key = ["election_id", "variant", "environment", "model", "observation_id", "sample_index"]
    cells = pd.DataFrame(
        {
            "election_id": ["e1"] * 7 + [None],
            "variant": ["full"] * 8,
            "environment": ["baseline"] * 6 + ["absent", "baseline"],
            "model": ["m1", "m1", "m1", "m2", "m1", "m1", "m1", "m1"],
            "observation_id": ["o1", "o1", "o2", "o1", "o1", "o2", "o1", "o1"],
            "sample_index": [0, 0, 0, 0, 1, 0, 0, 0],
            "sub_question": ["a", "b", "a", "a", "a", "b", "a", "a"],
        }
    )
    expected = (
        cells.drop_duplicates(key)
        .groupby(key[:4], observed=True)
        .size()
        .rename("scored_answers")
        .reset_index()
    )
    for frame in (cells, compact_cells(cells)):
        found = observation_counts([], frame)
        merged = found.merge(expected, on=key[:4], suffixes=("", "_expected"), how="outer")
        assert len(merged) == len(expected) == 3  # the cell of no election is not counted
        assert (merged["scored_answers"] == merged["scored_answers_expected"]).all()
