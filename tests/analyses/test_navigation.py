"""The navigation tables' intervals against scipy: Wilson intervals of precision, recall and the
omission rate, and F1's percentile bootstrap interval over answers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats

from polistemics.analyses.navigation import party_table, set_metrics
from polistemics.runlog import CodedStance
from polistemics.tasks.navigation.metrics import STANCES, AnswerCheck

A = CodedStance.AGREE


def _check(tp: int, fp: int, fn: int, omitted: int = 0, invented: int = 0) -> AnswerCheck:
    zero = dict.fromkeys(STANCES, 0)
    return AnswerCheck(
        tp={**zero, A: tp},
        fp={**zero, A: fp},
        fn={**zero, A: fn},
        query_parties=4,
        omitted=tuple(f"p{i}" for i in range(omitted)),
        invented=tuple(f"x{i}" for i in range(invented)),
        outside_query=(),
        focus_outcome="placed_true",
    )


def _checks(seed: int = 3, n: int = 60) -> list[AnswerCheck]:
    rng = np.random.default_rng(seed)
    return [
        _check(
            int(rng.integers(0, 4)),
            int(rng.integers(0, 2)),
            int(rng.integers(0, 2)),
            int(rng.integers(0, 2)),
            int(rng.random() < 0.2),
        )
        for _ in range(n)
    ]


def test_precision_and_recall_carry_n_and_scipys_wilson_interval() -> None:
    checks = _checks()
    row = set_metrics({("m", "baseline"): checks}).query("stance == 'agree'").iloc[0]
    tp, fp, fn = (sum(getattr(c, k)[A] for c in checks) for k in ("tp", "fp", "fn"))
    assert (row.tp, row.fp, row.fn) == (tp, fp, fn)
    for what, n in (("precision", tp + fp), ("recall", tp + fn)):
        assert row[f"{what}_n"] == n and row[what] == pytest.approx(tp / n)
        ci = scipy_stats.binomtest(tp, n).proportion_ci(method="wilson")
        assert row[f"{what}_low"] == pytest.approx(ci.low, abs=1e-12)
        assert row[f"{what}_high"] == pytest.approx(ci.high, abs=1e-12)
    assert row.f1 == pytest.approx(2 * tp / (2 * tp + fp + fn))


def test_f1_interval_agrees_with_scipys_percentile_bootstrap() -> None:
    checks = _checks(n=200)
    row = (
        set_metrics({("m", "baseline"): checks}, resamples=4000).query("stance == 'agree'").iloc[0]
    )
    data = np.array([[c.tp[A], c.fp[A], c.fn[A]] for c in checks], dtype=float)

    def f1(indices, axis=-1):
        sums = data[np.asarray(indices, dtype=int)].sum(axis=-2)
        return 2 * sums[..., 0] / (2 * sums[..., 0] + sums[..., 1] + sums[..., 2])

    theirs = scipy_stats.bootstrap(
        (np.arange(len(checks)),),
        f1,
        method="percentile",
        n_resamples=4000,
        random_state=np.random.default_rng(0),
        vectorized=True,
    ).confidence_interval
    assert row.f1_low < row.f1 < row.f1_high
    assert row.f1_low == pytest.approx(theirs.low, abs=0.01)
    assert row.f1_high == pytest.approx(theirs.high, abs=0.01)


def test_omitted_and_invented_rates_carry_n_and_a_wilson_interval() -> None:
    checks = _checks()
    row = party_table({("m", "absent"): checks}, {("m", "absent"): 2}).iloc[0]
    omitted = sum(len(c.omitted) for c in checks)
    inventing = sum(bool(c.invented) for c in checks)
    assert row.query_parties == 4 * len(checks) and row.omitted == omitted
    assert row.answers == len(checks) and row.unread_answers == 2
    assert row.answers_inventing == inventing
    ci = scipy_stats.binomtest(omitted, 4 * len(checks)).proportion_ci(method="wilson")
    assert (row.omitted_low, row.omitted_high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    ci = scipy_stats.binomtest(inventing, len(checks)).proportion_ci(method="wilson")
    assert (row.invented_low, row.invented_high) == pytest.approx((ci.low, ci.high), abs=1e-12)
