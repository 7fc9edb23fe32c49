"""Judge nondeterminism: how often a repeat call's verdict differs from the first (paper Sec. 10).

A *flip* is a sub-question verdict that differs between two calls of the same judge on the
same prompt (matched on the answer, rubric, judge and sub-question; a verdict unparseable in
either call is skipped). The paper reports 7.6% (95% CI 6.8-8.5%) over 5,754 items.

Confidence interval: a **cluster bootstrap by item**. The verdicts of one environment item
(all its target-model answers, samples, rubrics, sub-questions and repeats) are not
independent, so resampling verdicts (or a plain Wilson interval) would be too narrow. Items are
drawn with replacement (``scipy.stats.bootstrap``, paired over each item's flips and verdict
count, percentile method) and the pooled rate recomputed. When the bootstrap distribution is
degenerate (no flips, only flips, or a single item) it carries no information on clustering,
so the interval falls back to Wilson with the number of items as the sample size: the largest
possible design effect (every verdict of an item identical).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from polistemics.scoring.agreement import scored_verdicts
from polistemics.scoring.cells import ITEM_COLUMNS
from polistemics.scoring.errors import ScoringError
from polistemics.scoring.verdicts import JudgeVerdict
from polistemics.stats import wilson_interval

# The environment item a verdict belongs to: ITEM_COLUMNS less the answer's model and sample,
# so the answers of all target models to one prompt context form one cluster.
CLUSTER_COLUMNS: tuple[str, ...] = tuple(
    c for c in ITEM_COLUMNS if c not in ("model", "sample_index")
)
PAIR_KEY: list[str] = [*ITEM_COLUMNS, "rubric", "judge", "sub_question"]
DEFAULT_RESAMPLES = 2000
BOOTSTRAP = "cluster bootstrap by item (percentile)"
FALLBACK = "Wilson at n = items (degenerate bootstrap: the largest design effect)"


@dataclass(frozen=True)
class FlipRate:
    n: int  # sub-question verdicts parseable in both calls
    flips: int  # of those, how many differ
    rate: float
    ci_low: float  # 95% interval, clustered by item (see ``ci_method``)
    ci_high: float
    n_items: int  # distinct items (clusters) compared
    ci_method: str

    def as_dict(self) -> dict:
        return asdict(self)


Verdicts = Iterable[JudgeVerdict] | pd.DataFrame


def paired_flips(first: Verdicts, second: Verdicts) -> pd.DataFrame:
    """One row per sub-question verdict parseable in both call sets: ``PAIR_KEY`` plus
    ``flipped`` (bool)."""
    a, b = scored_verdicts(first), scored_verdicts(second)
    for frame, name in ((a, "first"), (b, "second")):
        if not frame.empty and frame.duplicated(subset=PAIR_KEY).any():
            raise ScoringError(
                f"the {name} call set has repeated verdicts for the same judge and sub-question"
            )
    if a.empty or b.empty:
        return pd.DataFrame(columns=[*PAIR_KEY, "flipped"])
    paired = a.merge(b, on=PAIR_KEY, how="inner", suffixes=("_a", "_b"))
    paired = paired[paired["says_yes_a"].notna() & paired["says_yes_b"].notna()]
    flipped = paired["says_yes_a"].astype(bool) != paired["says_yes_b"].astype(bool)
    return paired[PAIR_KEY].assign(flipped=flipped.to_numpy()).reset_index(drop=True)


def flip_rate(
    first: Verdicts,
    second: Verdicts,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> FlipRate:
    """Share of sub-question verdicts that differ between two calls of the same judge on the
    same prompt, with a 95% interval clustered by item."""
    return pooled_flip_rate(paired_flips(first, second), resamples=resamples, seed=seed)


def pooled_flip_rate(
    paired: pd.DataFrame, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> FlipRate:
    """The flip rate of ``paired_flips`` rows (possibly several repeats concatenated)."""
    n = len(paired)
    if n == 0:
        nan = float("nan")
        return FlipRate(0, 0, nan, nan, nan, 0, BOOTSTRAP)
    cluster, _ = pd.factorize(pd.MultiIndex.from_frame(paired[list(CLUSTER_COLUMNS)]))
    flipped = paired["flipped"].to_numpy(dtype=bool)
    flips_per = np.bincount(cluster, weights=flipped).astype("float64")
    n_per = np.bincount(cluster).astype("float64")
    low, high, method = cluster_interval(flips_per, n_per, resamples=resamples, seed=seed)
    flips = int(flipped.sum())
    return FlipRate(n, flips, flips / n, low, high, len(n_per), method)


def cluster_interval(
    successes: np.ndarray, trials: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> tuple[float, float, str]:
    """95% interval of sum(successes) / sum(trials), resampling clusters (one entry each)."""
    successes = np.asarray(successes, dtype="float64")
    trials = np.asarray(trials, dtype="float64")
    total, hits = trials.sum(), successes.sum()
    shares = successes / trials
    if len(trials) < 2 or np.all(shares == shares[0]):
        low, high = wilson_interval(hits / total * len(trials), len(trials))  # type: ignore[arg-type]
        return low, high, FALLBACK
    from scipy import stats  # scipy when an interval is drawn, not when the module is imported

    result = stats.bootstrap(
        (successes, trials),
        lambda s, t, axis: s.sum(axis=axis) / t.sum(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return float(ci.low), float(ci.high), BOOTSTRAP


def flip_table(
    paired: pd.DataFrame,
    by: Sequence[str],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> list[dict]:
    """``pooled_flip_rate`` per group of ``by`` columns, as rows (group values first). Each
    group's generator is seeded from ``seed`` and the group's values, so a group's interval does
    not depend on which other groups exist."""
    rows = []
    if paired.empty:
        return rows
    for key, group in paired.groupby(list(by), sort=True):
        values = key if isinstance(key, tuple) else (key,)
        group_seed = zlib.crc32(repr((seed, *values)).encode("utf-8"))
        rate = pooled_flip_rate(group, resamples=resamples, seed=group_seed)
        rows.append({**dict(zip(by, values, strict=True)), **rate.as_dict()})
    return rows
