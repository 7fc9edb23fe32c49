"""Pushback and self-consistency between runs (issue 30): each side's per-unit outcomes, their
rates with Wilson 95% intervals, and the difference B - A with a bootstrap 95% interval and a
two-sample test (Holm over each table).

Units and outcomes (one row per unit and measure, ``success`` true or false):

- ``delta_pushback``: a conversation (model, item, sample) and each measure of
  ``analyses.pushback`` its first answer makes it count for (capitulation, gave_up,
  calibration_kept, overcorrection); per variant x model x environment x pressure type, and
  pooled over pressure types and over both environment and pressure ("all");
- ``delta_self_consistency``: an observation with two or more samples; ``verdict_flip`` (its
  majority verdict differs between samples on a sub-question, ``analyses.self_consistency``) and
  ``stance_all_alike`` (its samples' coded stances all agree); per variant x model x
  environment, and pooled over environments ("all").

Like ``compare.matching``: a model (variant) each side has alone is compared with the other
side's, relabelled to A's; units pair when both sides have the same unit and measure in the same
row. With any pair the table is paired (unpaired units are left out): the delta is over the
pairs, its interval a paired bootstrap over them, the test the exact McNemar test of the
discordant pairs. With none, each side keeps its own units: an independent bootstrap of each
side and the bootstrap-z test (``stats.bootstrap_test``). Only a run side has these files; a
table exists only when both sides have its outcomes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from polistemics.analyses.columns import ENVIRONMENT, MODEL, VARIANT
from polistemics.analyses.pushback import PushbackRecords, conversation_frame, measure_rows
from polistemics.analyses.schema import TableColumn
from polistemics.analyses.self_consistency import flipped_observations, stance_observations
from polistemics.compare.sides import Side
from polistemics.runlog import RunDir, RunFileError
from polistemics.stats import (
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    holm,
    mcnemar_many,
    percentile_ci,
    resample_weights,
    stratum_rng,
    wilson_intervals,
)
from polistemics.stats.bootstrap_test import bootstrap_z_pvalues

ALL = "all"
PAIRED_TEST = "exact McNemar (two-sided)"
UNPAIRED_TEST = "bootstrap z (difference / bootstrap SE, two-sided)"
SMALL_SAMPLE_UNITS = 30
OUTCOME_COLUMNS = ["variant", "model", "environment", "pressure", "measure", "unit", "success"]
# Each table's row keys and the keys pooled (set to "all") in its further groupings.
TABLES: dict[str, tuple[list[str], tuple[tuple[str, ...], ...]]] = {
    "delta_pushback": (
        ["variant", "model", "environment", "pressure", "measure"],
        ((), ("pressure",), ("environment", "pressure")),
    ),
    "delta_self_consistency": (
        ["variant", "model", "environment", "measure"],
        ((), ("environment",)),
    ),
}

_OWN = {
    "pressure": ("text", "the pressure type; all: pooled"),
    "measure": ("text", "what is counted (see the comparison page)"),
    "units_a": ("int", "side A's units (conversations or observations) in the row"),
    "units_b": ("int", "side B's units in the row"),
    "successes_a": ("int", "of side A's units, those counted"),
    "successes_b": ("int", "of side B's units, those counted"),
    "rate_a": ("float", "successes_a / units_a"),
    "rate_b": ("float", "successes_b / units_b"),
    "rate_ci_low_a": ("float", "Wilson 95% CI of rate_a, lower bound"),
    "rate_ci_high_a": ("float", "its upper bound"),
    "rate_ci_low_b": ("float", "Wilson 95% CI of rate_b, lower bound"),
    "rate_ci_high_b": ("float", "its upper bound"),
    "pairs": ("int", "paired: units both sides have (the rows' units are these)"),
    "only_a": ("int", "paired: pairs counted on A only"),
    "only_b": ("int", "paired: pairs counted on B only"),
    "test": ("text", "the two-sample test of the row"),
}
COLUMNS: dict[str, TableColumn] = {
    "variant": VARIANT,
    "model": MODEL,
    "environment": ENVIRONMENT,
} | {name: TableColumn(name, kind, meaning) for name, (kind, meaning) in _OWN.items()}


def run_outcomes(side: Side) -> dict[str, pd.DataFrame]:
    """A run side's pushback and self-consistency outcomes (``OUTCOME_COLUMNS``), by table;
    none for a release or a run without them."""
    if side.kind != "run":
        return {}
    run = RunDir(side.source)
    found: dict[str, pd.DataFrame] = {}
    try:
        pushback = run.read_pushback()
        items = run.read_items() if pushback is not None or _sampled(side.cells) else []
        if pushback is not None:
            first = run.read_judge_records() or []
            frame = conversation_frame(items, PushbackRecords(*pushback), first)
            found["delta_pushback"] = _pushback_outcomes(frame)
        if _sampled(side.cells):
            found["delta_self_consistency"] = _consistency_outcomes(
                side.cells, items, run.read_stance_codes()
            )
    except RunFileError:
        return {}
    return {name: table for name, table in found.items() if not table.empty}


def _sampled(cells: pd.DataFrame) -> bool:
    return bool((cells["sample_index"] > 0).any())


def _pushback_outcomes(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty:
        return pd.DataFrame(columns=OUTCOME_COLUMNS)
    rows = measure_rows(frame)
    unit = rows["model"] + "|" + rows["item_key"] + "|" + rows["sample_index"].astype(str)
    return rows.assign(unit=unit, success=rows["success"].astype(bool)).loc[:, OUTCOME_COLUMNS]


def _consistency_outcomes(cells: pd.DataFrame, items, codes) -> pd.DataFrame:
    parts = []
    flips = flipped_observations(cells)
    parts.append(flips.assign(measure="verdict_flip", success=flips["flipped"]))
    if codes is not None:
        stances = stance_observations(items, codes)
        parts.append(stances.assign(measure="stance_all_alike", success=stances["all_agree"]))
    frame = pd.concat(parts, ignore_index=True)
    unit = frame["election_id"] + "|" + frame["observation_id"]
    frame = frame.assign(unit=unit, pressure=ALL, success=frame["success"].astype(bool))
    return frame.loc[:, OUTCOME_COLUMNS]


def _relabelled(a: pd.DataFrame, b: pd.DataFrame, column: str) -> pd.DataFrame:
    """B with a value of ``column`` it has alone renamed to the one A has alone."""
    in_a, in_b = set(a[column]), set(b[column])
    if not in_a & in_b and len(in_a) == len(in_b) == 1:
        return b.assign(**{column: next(iter(in_a))})
    return b


def conversation_deltas(
    a: Side,
    b: Side,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    alpha: float = DEFAULT_ALPHA,
) -> dict[str, pd.DataFrame]:
    """The tables both sides have outcomes for (none: an empty dict, the comparison as
    before)."""
    outcomes_a, outcomes_b = run_outcomes(a), run_outcomes(b)
    tables = {}
    for name in TABLES:
        if name in outcomes_a and name in outcomes_b:
            found_a = outcomes_a[name]
            found_b = _relabelled(found_a, outcomes_b[name], "model")
            found_b = _relabelled(found_a, found_b, "variant")
            tables[name] = outcome_deltas(
                name, found_a, found_b, resamples, seed, confidence, alpha
            )
    return tables


def outcome_deltas(
    name: str,
    a: pd.DataFrame,
    b: pd.DataFrame,
    resamples: int,
    seed: int,
    confidence: float,
    alpha: float,
) -> pd.DataFrame:
    """One table: per row of ``TABLES[name]``, both sides' rates and the difference."""
    keys, poolings = TABLES[name]
    pair_keys = [*keys, "unit"]
    pairs = a.merge(b, on=[c for c in OUTCOME_COLUMNS if c != "success"], suffixes=("_a", "_b"))
    paired = not pairs.empty
    rows = []
    for pooled in poolings:
        view = {"a": a.assign(**dict.fromkeys(pooled, ALL))}
        view["b"] = b.assign(**dict.fromkeys(pooled, ALL))
        view["pairs"] = pairs.assign(**dict.fromkeys(pooled, ALL))
        groups = (
            _keys_of(view["pairs"], keys)
            if paired
            else sorted(set(_keys_of(view["a"], keys)) & set(_keys_of(view["b"], keys)))
        )
        for key in groups:
            names = [name, *map(str, key)]
            if paired:
                mine = _select(view["pairs"], keys, key).drop_duplicates(pair_keys)
                rows.append(_paired_row(keys, key, mine, names, seed, resamples, confidence))
            else:
                side_a = _select(view["a"], keys, key)["success"].to_numpy(bool)
                side_b = _select(view["b"], keys, key)["success"].to_numpy(bool)
                rows.append(
                    _unpaired_row(keys, key, side_a, side_b, names, seed, resamples, confidence)
                )
    table = pd.DataFrame(rows, columns=[*keys, *_VALUE_COLUMNS])
    if table.empty:
        return table
    for side in ("a", "b"):
        low, high = wilson_intervals(table[f"successes_{side}"], table[f"units_{side}"])
        table[f"rate_ci_low_{side}"], table[f"rate_ci_high_{side}"] = low, high
    if paired:
        table["p_value"] = mcnemar_many(table["only_a"], table["only_b"])
    else:
        table["p_value"] = [row.pop("_p") for row in rows]
    table["test"] = PAIRED_TEST if paired else UNPAIRED_TEST
    tested = table["p_value"].notna()
    table["p_holm"] = np.nan
    table["significant"] = False
    if tested.any():
        adjusted, reject = holm(table.loc[tested, "p_value"].to_numpy(), alpha)
        table.loc[tested, "p_holm"] = adjusted
        table.loc[tested, "significant"] = reject
    table["significant"] = table["significant"].astype(bool)
    fewest = table[["units_a", "units_b"]].min(axis=1)
    table["small_sample"] = (fewest < SMALL_SAMPLE_UNITS).astype(bool)
    return table.loc[:, [*keys, *_ORDER]].reset_index(drop=True)


_VALUE_COLUMNS = [
    "units_a",
    "successes_a",
    "rate_a",
    "units_b",
    "successes_b",
    "rate_b",
    "delta",
    "ci_low",
    "ci_high",
    "pairs",
    "only_a",
    "only_b",
]
_ORDER = [
    "units_a",
    "successes_a",
    "rate_a",
    "rate_ci_low_a",
    "rate_ci_high_a",
    "units_b",
    "successes_b",
    "rate_b",
    "rate_ci_low_b",
    "rate_ci_high_b",
    "delta",
    "ci_low",
    "ci_high",
    "pairs",
    "only_a",
    "only_b",
    "test",
    "p_value",
    "p_holm",
    "significant",
    "small_sample",
]


def _keys_of(frame: pd.DataFrame, keys: list[str]) -> list[tuple]:
    return sorted(set(map(tuple, frame[keys].to_numpy())))


def _select(frame: pd.DataFrame, keys: list[str], key: tuple) -> pd.DataFrame:
    mask = np.ones(len(frame), dtype=bool)
    for column, value in zip(keys, key, strict=True):
        mask &= frame[column].to_numpy() == value
    return frame[mask]


def _paired_row(keys, key, pairs, names, seed, resamples, confidence) -> dict:
    x = pairs["success_a"].to_numpy(bool).astype(float)
    y = pairs["success_b"].to_numpy(bool).astype(float)
    n = len(x)
    weights = resample_weights(stratum_rng(seed, *names), n, resamples)
    with np.errstate(invalid="ignore", divide="ignore"):
        deltas = (weights @ (y - x)) / weights.sum(axis=1)
    low, high = percentile_ci(deltas[1:, None], confidence)
    return {
        **dict(zip(keys, key, strict=True)),
        "units_a": n,
        "successes_a": int(x.sum()),
        "rate_a": x.mean(),
        "units_b": n,
        "successes_b": int(y.sum()),
        "rate_b": y.mean(),
        "delta": y.mean() - x.mean(),
        "ci_low": float(low[0]),
        "ci_high": float(high[0]),
        "pairs": n,
        "only_a": int(((x == 1) & (y == 0)).sum()),
        "only_b": int(((x == 0) & (y == 1)).sum()),
    }


def _unpaired_row(keys, key, a, b, names, seed, resamples, confidence) -> dict:
    draws = []
    for side, values in (("a", a), ("b", b)):
        weights = resample_weights(stratum_rng(seed, *names, side), len(values), resamples)
        draws.append((weights @ values.astype(float)) / len(values))
    deltas = draws[1] - draws[0]
    low, high = percentile_ci(deltas[1:, None], confidence)
    return {
        **dict(zip(keys, key, strict=True)),
        "units_a": len(a),
        "successes_a": int(a.sum()),
        "rate_a": a.mean(),
        "units_b": len(b),
        "successes_b": int(b.sum()),
        "rate_b": b.mean(),
        "delta": float(deltas[0]),
        "ci_low": float(low[0]),
        "ci_high": float(high[0]),
        "pairs": 0,
        "only_a": 0,
        "only_b": 0,
        "_p": float(bootstrap_z_pvalues(deltas[:1], deltas[1:, None])[0]),
    }
