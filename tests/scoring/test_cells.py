from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from polistemics.scoring.cells import (
    attach_metadata,
    compact_cells,
    compact_rows,
    compact_take,
    distinct_texts,
    empty_cells,
    first_rows,
    group_ids,
    grouped,
    plain,
    require_single,
    scoreable_cells,
    size_and_sum,
    sorted_groups,
    validate_cells,
)
from polistemics.scoring.errors import CellsError


def test_validate_cells_names_the_problem(make_cell, make_cells):
    good = make_cells([make_cell(True, "position_representation")])
    with pytest.raises(CellsError, match="missing columns"):
        validate_cells(good.drop(columns="passed"))
    with pytest.raises(CellsError, match="field 'environment'"):
        validate_cells(good.assign(environment="sunny"))
    with pytest.raises(CellsError, match="field 'passed'"):
        validate_cells(good.assign(passed=1.0))
    assert list(validate_cells(empty_cells()).columns) == list(good.columns)


def test_validate_cells_gives_canonical_cells_themselves(make_cell, make_cells):
    """Cells already in canonical column order are returned as they are, not copied (a million
    cells at 8x the paper's, issue 32); others come in canonical order."""
    good = validate_cells(make_cells([make_cell(True, "position_representation")]))
    assert validate_cells(good) is good
    reordered = good.loc[:, list(reversed(good.columns))]
    again = validate_cells(reordered)
    assert list(again.columns) == list(good.columns)
    pd.testing.assert_frame_equal(again, good)


def test_attach_metadata_fills_missing_values_only(make_cell, make_cells):
    cells = make_cells(
        [
            make_cell(True, "position_representation", observation="e__p1__s001"),
            make_cell(True, "position_representation", observation="e__p2__s001", party="p2"),
        ]
    )
    cells.loc[0, "party_name"] = None
    metadata = pd.DataFrame(
        {"observation_id": ["e__p1__s001", "e__p2__s001"], "party_name": ["One", "Two"]}
    )
    filled = attach_metadata(cells, metadata)
    assert filled["party_name"].tolist() == ["One", "P2"]
    with pytest.raises(CellsError, match="more than one row"):
        attach_metadata(cells, pd.concat([metadata, metadata]))
    with pytest.raises(CellsError, match="observation_id"):
        attach_metadata(cells, metadata.drop(columns="observation_id"))


def test_a_column_the_cells_lack_keeps_the_metadatas_integers(make_cell, make_cells):
    cells = make_cells(
        [
            make_cell(True, "position_representation", observation="e__p1__s001"),
            make_cell(True, "position_representation", observation="e__p2__s001"),
        ]
    )
    metadata = pd.DataFrame(
        {"observation_id": ["e__p1__s001", "e__p2__s001"], "vague_mode": [3, None]}
    ).astype({"vague_mode": "Int64"})
    filled = attach_metadata(cells, metadata)
    assert filled["vague_mode"].tolist() == [3, pd.NA]
    # Written as "3", not "3.0" (a lone empty field is quoted in a one-column CSV).
    assert filled.to_csv(columns=["vague_mode"], index=False).split() == ["vague_mode", "3", '""']


def test_require_single(make_cell, make_cells):
    cells = make_cells([make_cell(True, "position_representation")])
    assert require_single(cells, "variant") == "full"
    with pytest.raises(CellsError, match="expected one value"):
        require_single(pd.concat([cells, cells.assign(variant="anon")]), "variant")


def test_group_ids_number_groups_like_a_pandas_groupby():
    rng = np.random.default_rng(7)
    table = pd.DataFrame(
        {
            "name": rng.choice(np.array(["a", "b", None, float("nan"), "c"], dtype=object), 500),
            "number": rng.integers(0, 4, 500),
            "flag": rng.choice([True, False], 500),
        }
    )
    ids, n_groups = group_ids([table["name"], table["number"], table["flag"]])
    expected = table.groupby(["name", "number", "flag"], sort=False, dropna=False).ngroup()
    assert ids.tolist() == expected.tolist()  # None and NaN are one missing-value group
    assert n_groups == expected.max() + 1
    first = expected.drop_duplicates().index.tolist()
    assert first_rows(ids).tolist() == first
    assert first_rows(np.zeros(0, dtype="int64")).tolist() == []


@pytest.mark.parametrize("width", [10, 10**9])  # values as their own codes, or factorised
def test_group_ids_of_many_columns_and_values_number_groups_like_pandas(width: int):
    """Ten integer columns: more combinations than one int64 holds (numbered column by column
    on the way), values numbered by a table of first rows or by a hash table."""
    rng = np.random.default_rng(8)
    table = pd.DataFrame({f"c{i}": rng.integers(0, width, 400) for i in range(10)})
    table = pd.concat([table, table.iloc[::3]], ignore_index=True)  # groups of two rows
    ids, n_groups = group_ids([table[c] for c in table.columns])
    expected = table.groupby(list(table.columns), sort=False).ngroup()
    assert ids.tolist() == expected.tolist()
    assert n_groups == expected.max() + 1 == 400
    coded, _ = group_ids([table["c0"].to_numpy(), table["c1"].astype("category")])
    assert coded.tolist() == table.groupby(["c0", "c1"], sort=False).ngroup().tolist()


def test_scoreable_cells_keeps_app_f_keys_active_in_the_environment(make_cell, make_cells):
    cells = make_cells(
        [
            make_cell(True, "position_representation"),
            make_cell(True, "structural_balance"),  # not an App. F key
            make_cell(False, "false_synthesis"),  # inactive in Baseline
            make_cell(False, "information_fabrication"),
        ]
    )
    kept, ignored = scoreable_cells(cells)
    assert kept["sub_question"].tolist() == ["position_representation", "information_fabrication"]
    assert ignored == {
        "structural_balance (not an App. F sub-question)": 1,
        "false_synthesis (inactive in baseline)": 1,
    }
    clean = cells[cells["sub_question"].isin(kept["sub_question"])]
    again, none_ignored = scoreable_cells(clean)
    assert not none_ignored
    pd.testing.assert_frame_equal(again, clean)


@pytest.mark.parametrize("dropna", [True, False])
def test_sorted_groups_iterate_like_a_sorted_pandas_groupby(dropna: bool):
    rng = np.random.default_rng(11)
    table = pd.DataFrame(
        {
            "name": rng.choice(np.array(["b", "a", None, "c"], dtype=object), 300),
            "number": rng.integers(0, 3, 300),
        }
    )
    ours = list(sorted_groups(table, ["name", "number"], dropna=dropna))
    expected = list(table.groupby(["name", "number"], sort=True, dropna=dropna))
    assert len(ours) == len(expected) > 6
    for (key, rows), (pandas_key, group) in zip(ours, expected, strict=True):
        assert [k if k == k else None for k in key] == [k if k == k else None for k in pandas_key]
        assert rows.tolist() == group.index.tolist()
    assert list(sorted_groups(table.iloc[:0], ["name"], dropna=dropna)) == []


def test_compact_cells_codes_the_text_columns_in_sorted_order(make_cell, make_cells):
    cells = make_cells(
        [
            make_cell(True, "position_representation", model="m2", country=None),
            make_cell(False, "information_fabrication", model="m1"),
            make_cell(True, "position_representation", model="m2", vague_mode=2),
        ]
    )
    cells["country"] = cells["country"].where(cells["country"].notna(), np.nan)  # not None
    compact = compact_cells(cells)
    assert isinstance(compact["model"].dtype, pd.CategoricalDtype)
    assert compact["model"].cat.categories.tolist() == ["m1", "m2"]  # sorted, as text sorts
    assert compact["country"].isna().tolist() == [True, False, False]
    # Numbers and flags stay as they are; a frame without text columns is returned as it is.
    for column in ("passed", "sample_index", "vague_mode"):
        assert compact[column].dtype == cells[column].dtype
    numbers = cells[["passed", "sample_index"]]
    assert compact_cells(numbers) is numbers
    pd.testing.assert_frame_equal(plain(compact), cells)
    # Grouped as codes: the same groups, numbered alike.
    columns = ["model", "country", "sub_question"]
    assert (
        group_ids([compact[c] for c in columns])[0].tolist()
        == group_ids([cells[c] for c in columns])[0].tolist()
    )
    kept, _ = scoreable_cells(compact)
    pd.testing.assert_frame_equal(plain(kept), scoreable_cells(cells)[0])


def test_grouped_keeps_only_the_combinations_present(make_cell, make_cells):
    cells = compact_cells(
        make_cells(
            [
                make_cell(True, "position_representation", model="m1"),
                make_cell(False, "position_representation", model="m2", party="p2"),
            ]
        )
    )
    sizes = grouped(cells, ["model", "party_id"], sort=True).size()
    assert sizes.index.tolist() == [("m1", "p1"), ("m2", "p2")]  # not m1 x p2, m2 x p1


_VALUES = np.array(["b", None, "a", "=c", "b", np.nan], dtype=object)


@pytest.mark.parametrize("codes", [[0, 1, 2, 4], [5, 5, 1], [3, 0, 0, 2], [], [1]])
def test_compact_take_codes_the_rows_as_compact_cells_would(codes):
    """Categories only of the values taken, sorted; missing values missing."""
    codes = np.array(codes, dtype="int64")
    taken = pd.DataFrame({"x": _VALUES[codes]})
    expected = compact_cells(taken)["x"]
    pd.testing.assert_series_equal(pd.Series(compact_take(_VALUES, codes), name="x"), expected)


def test_compact_take_leaves_values_that_are_not_all_text_as_they_are():
    values = np.array(["a", 1, "b"], dtype=object)
    found = compact_take(values, np.array([0, 1, 1]))
    assert isinstance(found, np.ndarray) and list(found) == ["a", 1, 1]


@pytest.mark.parametrize("rows", [[0, 2, 3], [1, 5], [4], []])
def test_compact_rows_of_a_plain_or_compact_column_are_the_rows_compact(rows):
    rows = np.array(rows, dtype="int64")
    column = pd.Series(_VALUES, name="x")
    expected = compact_cells(column.iloc[rows].reset_index(drop=True).to_frame())["x"]
    for source in (column, compact_cells(column.to_frame())["x"]):
        found = pd.Series(compact_rows(source, rows), name="x")
        pd.testing.assert_series_equal(found, expected)


@pytest.mark.parametrize("dropna", [True, False])
def test_sorted_groups_of_more_combinations_than_an_integer_holds(dropna: bool):
    """Ten columns of up to 300 values each: more combinations than one int64 key, grouped
    by the table of codes, still as pandas groups them."""
    rng = np.random.default_rng(12)
    table = pd.DataFrame({f"c{i}": rng.integers(0, 1000, 300) for i in range(10)})
    table["c0"] = rng.choice(np.array(["b", "a", None], dtype=object), 300)
    table = pd.concat([table, table.iloc[:50]], ignore_index=True)  # groups of two rows
    by = list(table.columns)
    ours = list(sorted_groups(table, by, dropna=dropna))
    expected = list(table.groupby(by, sort=True, dropna=dropna))
    assert len(ours) == len(expected) > 100
    for (key, rows), (pandas_key, group) in zip(ours, expected, strict=True):
        assert [k if k == k else None for k in key] == [k if k == k else None for k in pandas_key]
        assert rows.tolist() == group.index.tolist()


def test_sorted_groups_of_a_compact_frame_are_those_of_its_text_columns():
    """The codes of sorted categories stand for the values (missing last, dropped or not),
    also when the frame is a subset whose categories some rows no longer hold."""
    frame = pd.DataFrame(
        {
            "a": ["y", None, "x", "y", "z", "x", None],
            "b": ["q", "p", "p", None, "q", "p", "p"],
            "keep": [True, True, True, True, False, True, True],
        }
    )
    subset = frame[frame["keep"]]
    compact = compact_cells(frame)
    for dropna in (True, False):
        for by in (["a"], ["b", "a"]):
            plain_groups = [(k, r.tolist()) for k, r in sorted_groups(subset, by, dropna=dropna)]
            coded = sorted_groups(compact[compact["keep"]], by, dropna=dropna)
            assert [(k, r.tolist()) for k, r in coded] == plain_groups


@pytest.mark.parametrize("compact", [False, True])
def test_distinct_texts_are_the_sorted_texts_of_the_values(compact: bool) -> None:
    column = pd.Series(["b", None, "a", "b", "c", None], dtype=object)
    if compact:
        column = column.astype("category")
    assert distinct_texts(column) == sorted(column.dropna().astype(str).unique())
    assert distinct_texts(pd.Series([2, 10, 2])) == ["10", "2"]  # texts, sorted as texts
    assert distinct_texts(pd.Series([], dtype=object)) == []


def _pandas_size_and_sum(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    table = grouped(frame, keys, sort=True)["passed"].agg(n="size", passes="sum")
    return plain(table.reset_index()).astype({"n": "int64", "passes": "int64"})


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("observations", [5, 4000])  # combinations as counts' index, or hashed
def test_size_and_sum_are_a_sorted_pandas_groupbys(compact: bool, observations: int) -> None:
    rng = np.random.default_rng(13)
    rows = 3000
    frame = pd.DataFrame(
        {
            "model": rng.choice(np.array(["m-b", "m-a", "m-c"], dtype=object), rows),
            "observation_id": rng.choice(
                np.array([f"o{i}" for i in range(observations)], dtype=object), rows
            ),
            "sample_index": rng.integers(0, 3, rows),
            "party_id": rng.choice(np.array([f"p{i}" for i in range(50)], dtype=object), rows),
            "passed": rng.random(rows) < 0.6,
        }
    )
    if compact:
        frame = compact_cells(frame)
        # categories in an order of their own: groups come in the categories' order
        frame["model"] = frame["model"].cat.reorder_categories(["m-c", "m-a", "m-b"])
    keys = ["model", "observation_id", "sample_index", "party_id"]
    found = size_and_sum(frame, keys, "passed")
    assert found is not None
    pd.testing.assert_frame_equal(found, _pandas_size_and_sum(frame, keys))
    part = frame[frame["sample_index"] > 0]  # a subset: categories no row holds any more
    pd.testing.assert_frame_equal(
        size_and_sum(part, keys, "passed"), _pandas_size_and_sum(part, keys)
    )


def test_size_and_sum_leave_missing_keys_and_other_values_to_pandas() -> None:
    frame = pd.DataFrame({"k": ["a", None, "b"], "passed": [True, False, True]})
    assert size_and_sum(frame, ["k"], "passed") is None  # dropna would matter
    assert size_and_sum(frame.iloc[:0], ["k"], "passed") is None
    assert size_and_sum(frame.assign(passed=[1, 0, 1]), ["k"], "passed") is None
