"""The scored-cells table: one row per answer x rubric x sub-question with its final pass/fail.

Every source of scores (our own judge panel via ``verdicts.majority``, the authors' release via
``release.load_release``) produces this table, and every index and analysis consumes it.
Enum-valued columns hold the release names (``Environment.value``, ``Rubric.value``,
``Variant.value``) so the table groups, sorts and serialises as plain strings.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from polistemics.conditions import ENVIRONMENT_ORDER, Environment, Variant
from polistemics.rubrics import BY_KEY, Rubric
from polistemics.runlog.tables import compact_frame, compact_values
from polistemics.scoring.errors import CellsError

# What identifies one answer (an "item"): the model's answer to one observation in one
# environment and variant. ``language`` is the language the answer was asked in (the output
# language, so the English-output ablation forms its own group).
ITEM_COLUMNS: tuple[str, ...] = (
    "model",
    "environment",
    "variant",
    "observation_id",
    "sample_index",
    "party_id",
    "election_id",
    "language",
)
METADATA_COLUMNS: tuple[str, ...] = ("party_name", "country", "vague_mode")
CELL_COLUMNS: tuple[str, ...] = (
    *ITEM_COLUMNS,
    "rubric",
    "sub_question",
    "passed",
    *METADATA_COLUMNS,
)

# Keys a metadata table may be joined on (observation_id is always required).
METADATA_JOIN_KEYS: tuple[str, ...] = (
    "observation_id",
    "environment",
    "variant",
    "model",
    "sample_index",
)

_ENVIRONMENTS = {e.value for e in ENVIRONMENT_ORDER}
_VARIANTS = {v.value for v in Variant}
_RUBRICS = {r.value for r in Rubric}


def empty_cells() -> pd.DataFrame:
    return pd.DataFrame({column: pd.Series(dtype=_dtype(column)) for column in CELL_COLUMNS})


def _dtype(column: str) -> str:
    if column == "passed":
        return "bool"
    if column == "sample_index":
        return "int64"
    return "object"


def validate_cells(cells: pd.DataFrame, *, source: str = "scored cells") -> pd.DataFrame:
    """Check the schema and value domains; return the table with columns in canonical order
    (``cells`` itself, not a copy, when they are: a million cells at 8x the paper's, issue 32;
    its readers do not change it)."""
    missing = [c for c in CELL_COLUMNS if c not in cells.columns]
    if missing:
        raise CellsError(f"missing columns {missing}", record=source)
    for column, known in (
        ("environment", _ENVIRONMENTS),
        ("variant", _VARIANTS),
        ("rubric", _RUBRICS),
    ):
        bad = set(cells[column].unique()) - known
        if bad:
            raise CellsError(f"unknown values {sorted(map(str, bad))}", record=source, field=column)
    if len(cells) and not pd.api.types.is_bool_dtype(cells["passed"]):
        raise CellsError("must be boolean (True = pass)", record=source, field="passed")
    if list(cells.columns) == list(CELL_COLUMNS):
        return cells
    return cells.loc[:, list(CELL_COLUMNS)]


def compact_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` with each text column as a categorical of its sorted distinct values: a code of
    one or two bytes per cell instead of an 8-byte pointer, so the analyses' subsets, masks and
    groupings of a million cells cost megabytes, not the whole frame again (issue 32).

    The analyses group it with ``observed=True`` (``grouped``); the categories are sorted, so
    sorted groups come in the order the text columns give, and ``plain`` turns the key columns
    of their (small) result tables back into text. A column whose values are not all text (or
    that is categorical already) is left as it is; so is a frame with no text column."""
    return compact_frame(cells)


def compact_take(values: np.ndarray, codes: np.ndarray) -> pd.Categorical | np.ndarray:
    """``values[codes]`` as ``compact_cells`` codes it (an object array when not all text),
    without the object array of every row: ``values`` is small (the distinct values, or a few
    per distinct value), ``codes`` indexes it once per row."""
    used, inverse = np.unique(codes, return_inverse=True)
    coded = compact_values(values[used])
    if coded is None:
        return values[codes]
    return pd.Categorical.from_codes(coded.codes[inverse.reshape(-1)], dtype=coded.dtype)


def compact_rows(column: pd.Series, rows: np.ndarray) -> pd.Categorical | np.ndarray:
    """The ``rows`` (positions) of ``column`` as ``compact_cells`` codes them: a categorical
    column's rows (without the categories no row holds: a ``compact_cells`` column of those
    rows), an object column through ``compact_take``; any other column's values taken as they
    are."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.array.take(rows).remove_unused_categories()
    if pd.api.types.is_object_dtype(column.dtype):
        codes, uniques = pd.factorize(column.to_numpy(), use_na_sentinel=False)
        return compact_take(np.asarray(uniques, dtype=object), codes[rows])
    return column.to_numpy()[rows]


def plain(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its categorical columns as plain values again (a result table of a
    ``compact_cells`` frame: what the same analysis of the text columns gives)."""
    categorical = [
        name for name, dtype in table.dtypes.items() if isinstance(dtype, pd.CategoricalDtype)
    ]
    if not categorical:
        return table
    return table.astype({name: object for name in categorical})


def grouped(frame: pd.DataFrame, keys: str | Sequence[str], **options):
    """``frame.groupby(keys, observed=True, **options)``: only the key combinations present,
    as with text columns, when keys are categorical (``compact_cells``)."""
    return frame.groupby(keys if isinstance(keys, str) else list(keys), observed=True, **options)


def _codes(column: pd.Series | np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes (missing: -1) and their number (the codes are below it), without hashing
    the values of a categorical column or of small non-negative integers (their own codes)."""
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(), len(column.cat.categories)
    values = np.asarray(column)
    if values.dtype.kind in "iu" and len(values):  # small non-negative integers: their own codes
        low, high = int(values.min()), int(values.max())
        if low >= 0 and high < max(4 * len(values), 2**16):
            return values, high + 1
    codes, uniques = pd.factorize(values)
    return codes, len(uniques)


def scoreable_mask(
    rubric: pd.Series, sub_question: pd.Series, environment: pd.Series
) -> tuple[pd.Series, Counter[str]]:
    """Which rows are App. F sub-questions of their rubric, active in their environment.

    The rest are counted (by key, with the reason) and never scored: keys outside App. F
    (e.g. the release's ``structural_balance``) and sub-questions inactive in the environment.
    A known key filed under another rubric is an error, not something to skip.
    """
    ignored: Counter[str] = Counter()
    columns = [rubric, sub_question, environment]
    codes, n_combos = group_ids(columns)
    counts = np.bincount(codes, minlength=n_combos)
    keep_combo = np.ones(n_combos, dtype=bool)
    for i, row in enumerate(first_rows(codes)):
        rub, key, env = (column.iloc[row] for column in columns)
        sq = BY_KEY.get(key)
        if sq is None:
            ignored[f"{key} (not an App. F sub-question)"] += int(counts[i])
            keep_combo[i] = False
        elif sq.rubric.value != rub:
            raise CellsError(
                f"sub-question '{key}' belongs to {sq.rubric.value}, not {rub}",
                field="sub_question",
            )
        elif not sq.is_active(Environment(env)):
            ignored[f"{key} (inactive in {env})"] += int(counts[i])
            keep_combo[i] = False
    return pd.Series(keep_combo[codes], index=sub_question.index), ignored


def group_ids(columns: Sequence[pd.Series | np.ndarray]) -> tuple[np.ndarray, int]:
    """Each row's group over ``columns``, numbered in order of first appearance (missing values
    form a group), and the number of groups: what ``groupby(sort=False, dropna=False).ngroup()``
    gives, without building the groups. Each column is factorised on its own and the integer
    codes combined into one integer a row (much faster than hashing tuples), which is numbered
    by a table of first rows when the combinations are few (as a run's keys are), without the
    hash table of a factorisation: at 8x the paper's scale (a million cells) 30 MB less at each
    grouping (issue 32)."""
    n_rows = len(columns[0]) if columns else 0
    if not n_rows:
        return np.zeros(0, dtype="int64"), 0
    combined = np.zeros(n_rows, dtype="int64")
    combinations = 1
    for column in columns:
        codes, n_values = _codes(column)
        missing = bool((codes < 0).any())  # missing: -1, so shift by one
        radix = n_values + missing
        if combinations * radix >= 2**62:  # renumber what is combined so far: at most n_rows
            combined, combinations = _appearance_ids(combined, combinations)
        combined *= radix
        combined += codes
        if missing:
            combined += 1
        combinations *= radix
    return _appearance_ids(combined, combinations)


def _appearance_ids(values: np.ndarray, bound: int) -> tuple[np.ndarray, int]:
    """``values`` (integers in [0, bound)) numbered in order of first appearance, and how many
    distinct ones there are."""
    n_rows = len(values)
    if bound > max(2 * n_rows, 2**16):
        ids, distinct = pd.factorize(values)
        return ids.astype("int64", copy=False), len(distinct)
    rows = "int32" if n_rows < 2**31 else "int64"
    first = np.full(bound, n_rows, dtype=rows)  # each value's first row (n_rows: none)
    np.minimum.at(first, values, np.arange(n_rows, dtype=rows))
    present = np.flatnonzero(first < n_rows)
    number = np.empty(bound, dtype="int64")  # read only where a value is present
    number[present[np.argsort(first[present], kind="stable")]] = np.arange(len(present))
    return number[values], len(present)


def first_rows(ids: np.ndarray) -> np.ndarray:
    """Row of the first appearance of each group of ``group_ids`` (ids in appearance order)."""
    if not len(ids):
        return np.zeros(0, dtype="int64")
    seen = np.maximum.accumulate(ids)
    return np.flatnonzero(np.concatenate(([True], seen[1:] > seen[:-1])))


def sorted_groups(
    frame: pd.DataFrame, by: Sequence[str], *, dropna: bool
) -> Iterator[tuple[tuple, np.ndarray]]:
    """Each group of ``frame`` over ``by`` as iterating ``frame.groupby(list(by), sort=True,
    dropna=dropna)`` gives it: its key and its rows (positions, in frame order), groups in key
    order with missing values (NaN in the key) last. Without pandas' per-group frames, so many
    small groups stay fast."""
    codes, keys = [], []
    keep = np.ones(len(frame), dtype=bool)
    for column in by:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype) and _sorted_text(values.cat.categories):
            # a compact column's codes are its sorted values' (missing: -1), as factorised
            column_codes = values.cat.codes.to_numpy().astype("int64")
            uniques = values.cat.categories.to_numpy(dtype=object)
        else:
            column_codes, uniques = pd.factorize(values.to_numpy(), sort=True)
        missing = column_codes < 0
        if dropna:
            keep &= ~missing
        column_codes[missing] = len(uniques)
        codes.append(column_codes)
        keys.append([*uniques.tolist(), np.nan])
    rows = np.flatnonzero(keep)
    if not len(rows):
        return
    radices = [len(values) for values in keys]  # each column's codes, missing included
    if math.prod(radices) >= 2**62:  # too many combinations for one integer key
        yield from _sorted_groups_of_table(codes, keys, rows)
        return
    # One integer per row whose order is the columns' order (mixed radix): one array of the
    # rows, not a table of every column's codes and its sorted copies (issue 32).
    combined = np.zeros(len(rows), dtype="int64")
    for column_codes, radix in zip(codes, radices, strict=True):
        combined = combined * radix + column_codes[rows]
    order = np.argsort(combined, kind="stable")  # stable: rows of a group keep their order
    rows, combined = rows[order], combined[order]
    starts = np.flatnonzero(np.diff(combined, prepend=-1) != 0)
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(rows)], strict=True):
        first = rows[start]
        key = tuple(values[c[first]] for values, c in zip(keys, codes, strict=True))
        yield key, rows[start:end]


def size_and_sum(frame: pd.DataFrame, keys: Sequence[str], value: str) -> pd.DataFrame | None:
    """``plain(grouped(frame, keys, sort=True)[value].agg(n="size", passes="sum")
    .reset_index())`` with ``n`` and ``passes`` as int64, for a boolean ``value``: the pooled
    totals of every score and of the bootstrap's observations.

    Counted from one mixed-radix integer per row (each key's sorted codes), not from pandas'
    codes of every key and their compressed copy: at 8x the paper's scale (a million cells)
    that transient was 50-60 MB, several times in each finish (issue 32). None, for the caller
    to group with pandas, when there are no rows, ``value`` is not boolean, a key has a missing
    value (where ``dropna`` would matter) or the keys' combinations overflow an int64."""
    if not len(frame) or not pd.api.types.is_bool_dtype(frame[value].dtype):
        return None
    combined = np.zeros(len(frame), dtype="int64")
    decoders: list[tuple[pd.Series, int, np.ndarray | None]] = []
    combinations = 1
    for key in keys:
        column = frame[key]
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes, uniques = column.cat.codes.to_numpy(), None  # groupby's order: the codes'
            radix = len(column.cat.categories)
        else:
            codes, uniques = pd.factorize(column.to_numpy(), sort=True)
            radix = len(uniques)
        combinations *= max(radix, 1)
        if combinations >= 2**62 or (codes < 0).any():
            return None
        combined *= radix
        combined += codes
        decoders.append((column, radix, uniques))
    passed = frame[value].to_numpy()
    if combinations <= max(len(frame), 2**16):  # the combinations themselves index the counts
        sizes = np.bincount(combined, minlength=combinations)
        present = np.flatnonzero(sizes)
        n, passes = sizes[present], np.bincount(combined[passed], minlength=combinations)[present]
    else:
        groups, present = pd.factorize(combined, sort=True)
        n = np.bincount(groups, minlength=len(present))
        passes = np.bincount(groups[passed], minlength=len(present))
    del combined
    table: dict[str, object] = {}
    for column, radix, uniques in reversed(decoders):
        codes = present % radix
        present = present // radix
        table[column.name] = (
            pd.Categorical.from_codes(codes, dtype=column.dtype)
            if uniques is None
            else uniques[codes]
        )
    frame_of_keys = pd.DataFrame({key: table[key] for key in keys})
    frame_of_keys["n"] = n.astype("int64")
    frame_of_keys["passes"] = passes.astype("int64")
    return plain(frame_of_keys)


def _sorted_groups_of_table(
    codes: list[np.ndarray], keys: list[list], rows: np.ndarray
) -> Iterator[tuple[tuple, np.ndarray]]:
    """``sorted_groups`` by a table of the columns' codes (more combinations than an int64)."""
    table = np.column_stack(codes)[rows]
    order = np.lexsort(table.T[::-1])  # stable: rows of a group keep their order
    rows, table = rows[order], table[order]
    starts = np.flatnonzero(np.any(np.diff(table, axis=0, prepend=-1) != 0, axis=1))
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(rows)], strict=True):
        key = tuple(values[code] for values, code in zip(keys, table[start], strict=True))
        yield key, rows[start:end]


def _sorted_text(categories: pd.Index) -> bool:
    """Whether ``categories`` are text in sorted order (a ``compact_cells`` column's)."""
    return categories.inferred_type in ("string", "empty") and categories.is_monotonic_increasing


def scoreable_cells(cells: pd.DataFrame) -> tuple[pd.DataFrame, Counter[str]]:
    """The rows of ``cells`` that count towards scores, and the ignored keys with counts.

    ``cells`` itself (not a copy) when every row counts, as in every table the pipeline builds.
    """
    if cells.empty:
        return cells, Counter()
    keep, ignored = scoreable_mask(cells["rubric"], cells["sub_question"], cells["environment"])
    return (cells if not ignored else cells[keep]), ignored


def attach_metadata(cells: pd.DataFrame, metadata: pd.DataFrame | None) -> pd.DataFrame:
    """Fill party_name / country / vague_mode (and any other shared column) from ``metadata``.

    ``metadata`` must have ``observation_id`` and may add any of ``METADATA_JOIN_KEYS`` to
    narrow the match (e.g. ``environment`` for ``vague_mode``); it must be unique on them.
    Values it provides replace missing ones only.
    """
    if metadata is None or metadata.empty or cells.empty:
        return cells
    keys = metadata_keys(metadata)
    fill = [c for c in metadata.columns if c not in keys and c in cells.columns]
    merged = cells.merge(metadata[keys + fill], on=keys, how="left", suffixes=("", "__meta"))
    for column in fill:
        given, own = merged.pop(f"{column}__meta"), merged[column]
        # Where the cells have none of a column, it comes as the metadata has it (its dtype too:
        # integer mode numbers stay integers).
        merged[column] = given if own.isna().all() else own.where(own.notna(), given)
    merged.index = cells.index
    return merged


def metadata_keys(metadata: pd.DataFrame) -> list[str]:
    """The keys ``attach_metadata`` joins ``metadata`` on; ``CellsError`` when it has no
    ``observation_id`` or more than one row for a key."""
    if "observation_id" not in metadata.columns:
        raise CellsError("metadata table needs an 'observation_id' column", field="observation_id")
    keys = [k for k in METADATA_JOIN_KEYS if k in metadata.columns]
    duplicated = metadata.duplicated(subset=keys)
    if duplicated.any():
        first = metadata.loc[duplicated.idxmax(), keys].to_dict()
        raise CellsError(f"metadata has more than one row for {first}", field=",".join(keys))
    return keys


def distinct_texts(column: pd.Series) -> list[str]:
    """The column's distinct values other than missing ones, as sorted texts. The distinct
    values are found first, then made texts: no text per row (a compact column's
    ``astype(str)`` makes one per cell, a million at 8x)."""
    distinct = pd.Series(column.dropna().unique())
    return sorted(distinct.astype(str).unique())


def rows_where(frame: pd.DataFrame, mask: pd.Series) -> pd.DataFrame:
    """``frame[mask]``, or ``frame`` itself (not a copy) when every row is kept: a study of one
    election has a million cells at 8x the paper's (issue 32). Its readers do not change it."""
    return frame if bool(mask.all()) else frame[mask]


def require_single(cells: pd.DataFrame, column: str) -> str:
    values = cells[column].dropna().unique()
    if len(values) != 1:
        raise CellsError(f"expected one value, found {sorted(map(str, values))}", field=column)
    return str(values[0])


def group_keys(by: Sequence[str]) -> list[str]:
    """Group columns always lead with ``variant``: scores of different variants never pool."""
    keys = ["variant"]
    keys.extend(k for k in by if k != "variant")
    return keys
