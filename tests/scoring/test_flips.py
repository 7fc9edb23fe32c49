from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import Rubric
from polistemics.scoring.errors import ScoringError
from polistemics.scoring.flips import (
    BOOTSTRAP,
    FALLBACK,
    cluster_interval,
    flip_rate,
    flip_table,
    paired_flips,
)
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict
from polistemics.stats import wilson_interval

SUB_QUESTIONS = ("position_representation", "information_fabrication")


def key(obs: str, model: str = "m1") -> ItemKey:
    return ItemKey(model, Environment.BASELINE, Variant.FULL, obs, "p1", election_id="e")


def repeat_pair(flipped: set[tuple[int, str]], n_items: int = 10):
    first, second = [], []
    for i in range(n_items):
        for sq in SUB_QUESTIONS:
            first.append(JudgeVerdict(key(f"e__p1__s{i:03d}"), Rubric.FAITHFULNESS, "j1", sq, True))
            second.append(
                JudgeVerdict(
                    key(f"e__p1__s{i:03d}"), Rubric.FAITHFULNESS, "j1", sq, (i, sq) not in flipped
                )
            )
    return first, second


def test_flip_rate_counts_differing_repeat_verdicts():
    first, second = repeat_pair({(0, "information_fabrication"), (3, "information_fabrication")})
    second[0] = JudgeVerdict(
        second[0].item, second[0].rubric, "j1", second[0].sub_question, None
    )  # unparseable: skipped
    result = flip_rate(first, second)
    assert (result.n, result.flips, result.n_items) == (19, 2, 10)
    assert result.rate == pytest.approx(2 / 19)
    assert result.ci_method == BOOTSTRAP
    assert 0 <= result.ci_low <= result.rate <= result.ci_high < 1
    with pytest.raises(ScoringError, match="repeated verdicts"):
        flip_rate(first + first[:1], second)


def test_answers_of_one_item_form_one_cluster():
    first, second = repeat_pair({(0, "information_fabrication")}, n_items=4)
    other_model = [JudgeVerdict(key(v.item.observation_id, "m2"), *vars_of(v)) for v in first]
    other_second = [JudgeVerdict(key(v.item.observation_id, "m2"), *vars_of(v)) for v in second]
    result = flip_rate(first + other_model, second + other_second)
    assert (result.n, result.n_items) == (16, 4)


def vars_of(v: JudgeVerdict) -> tuple:
    return (v.rubric, v.judge, v.sub_question, v.says_yes)


def test_no_flips_falls_back_to_wilson_over_items():
    first, second = repeat_pair(set(), n_items=30)
    result = flip_rate(first, second)
    assert (result.flips, result.rate, result.ci_method) == (0, 0.0, FALLBACK)
    # 60 verdicts, but only 30 items: the interval is Wilson's at n = 30, not 60.
    assert (result.ci_low, result.ci_high) == pytest.approx(wilson_interval(0, 30))
    assert np.isnan(flip_rate([], []).rate)


def test_flip_table_groups_and_seeds_each_group_alone():
    first, second = repeat_pair({(1, SUB_QUESTIONS[0]), (2, SUB_QUESTIONS[1])}, n_items=12)
    paired = paired_flips(first, second)
    rows = flip_table(paired, ["sub_question"], resamples=500, seed=7)
    assert [r["sub_question"] for r in rows] == sorted(SUB_QUESTIONS)
    assert all(r["n"] == 12 and r["flips"] == 1 for r in rows)
    alone = flip_table(
        paired[paired["sub_question"] == SUB_QUESTIONS[0]], ["sub_question"], seed=7, resamples=500
    )
    assert alone[0] == next(r for r in rows if r["sub_question"] == SUB_QUESTIONS[0])


def clustered_sample(rng: np.random.Generator, clusters: int, size: int, rate: float, icc: float):
    """Per-cluster flip probability ~ Beta with the given mean and intra-cluster correlation."""
    concentration = (1 - icc) / icc
    p = rng.beta(rate * concentration, (1 - rate) * concentration, size=clusters)
    flips = rng.binomial(size, p)
    return flips.astype(float), np.full(clusters, float(size))


def test_cluster_bootstrap_agrees_with_statsmodels_cluster_robust_se():
    rng = np.random.default_rng(3)
    flips, trials = clustered_sample(rng, clusters=400, size=14, rate=0.076, icc=0.2)
    low, high, method = cluster_interval(flips, trials, resamples=4000, seed=1)
    assert method == BOOTSTRAP
    # The same ratio as an intercept-only regression with cluster-robust (CR1) errors.
    y = np.concatenate(
        [[1.0] * int(f) + [0.0] * int(t - f) for f, t in zip(flips, trials, strict=True)]
    )
    groups = np.repeat(np.arange(len(flips)), trials.astype(int))
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    robust_half = 1.959964 * float(fit.bse[0])
    assert (high - low) / 2 == pytest.approx(robust_half, rel=0.12)
    # A verdict-level Wilson interval ignores the clustering and is far too narrow here.
    w_low, w_high = wilson_interval(int(flips.sum()), int(trials.sum()))
    assert (w_high - w_low) < 0.7 * (high - low)


def test_cluster_bootstrap_covers_the_true_rate_where_wilson_does_not():
    rng = np.random.default_rng(11)
    rate, runs = 0.076, 300
    covered = wilson_covered = 0
    for run in range(runs):
        flips, trials = clustered_sample(rng, clusters=150, size=14, rate=rate, icc=0.15)
        low, high, _ = cluster_interval(flips, trials, resamples=400, seed=run)
        covered += low <= rate <= high
        w_low, w_high = wilson_interval(int(flips.sum()), int(trials.sum()))
        wilson_covered += w_low <= rate <= w_high
    assert 0.90 <= covered / runs <= 0.99
    assert wilson_covered / runs < 0.85


def test_paired_flips_of_empty_sets_is_empty():
    assert paired_flips([], []).empty
    assert isinstance(paired_flips([], []), pd.DataFrame)
