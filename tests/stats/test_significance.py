"""Exact McNemar and Holm against statsmodels on random data."""

from __future__ import annotations

import gc
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from polistemics.stats.significance import holm, mcnemar_exact, mcnemar_many


def test_mcnemar_matches_statsmodels_exact_on_random_tables() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        table = rng.integers(0, 40, size=(2, 2))
        table[0, 1] = rng.integers(0, 60)
        expected = mcnemar(table, exact=True).pvalue
        assert mcnemar_exact(int(table[0, 1]), int(table[1, 0])) == pytest.approx(
            expected, abs=1e-12
        )


def test_mcnemar_from_random_paired_outcomes() -> None:
    rng = np.random.default_rng(11)
    a = rng.random(500) < 0.7
    b = rng.random(500) < 0.6
    table = np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]])
    assert mcnemar_exact(int(np.sum(a & ~b)), int(np.sum(~a & b))) == pytest.approx(
        mcnemar(table, exact=True).pvalue
    )


def test_no_discordant_pairs_is_not_significant() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert list(mcnemar_many([0, 5], [0, 5])) == [1.0, 1.0]


def test_extreme_discordance_is_significant() -> None:
    assert mcnemar_exact(30, 0) < 1e-8
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_holm_matches_statsmodels_and_the_step_down_rule() -> None:
    rng = np.random.default_rng(3)
    p = rng.random(40) ** 3
    adjusted, reject = holm(p, 0.05)
    ref_reject, ref_adjusted, _, _ = multipletests(p, alpha=0.05, method="holm")
    assert np.allclose(adjusted, ref_adjusted)
    assert (reject == ref_reject).all()
    # Holm by hand: sorted p_(i) times (m - i), running maximum, capped at 1.
    order = np.argsort(p)
    m = len(p)
    by_hand = np.minimum(1, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    assert np.allclose(adjusted[order], by_hand)


@settings(max_examples=300, deadline=None)
@given(
    p=st.lists(
        st.one_of(
            st.sampled_from([0.0, 0.001, 0.01, 0.0125, 0.025, 0.05, 0.5, 1.0, float("nan")]),
            st.floats(0, 1),
        ),
        min_size=1,
        max_size=30,
    ),
    alpha=st.sampled_from([0.01, 0.05, 0.1]),
)
def test_holm_is_statsmodels_value_for_value(p: list[float], alpha: float) -> None:
    """Ties, p-values on a threshold, 0, 1 and NaN give what statsmodels gives, bit for bit."""
    adjusted, reject = holm(p, alpha)
    # statsmodels' Holm ends with a full collection (why holm is our own), 0.1 s in this process
    with mock.patch.object(gc, "collect", return_value=0):
        ref_reject, ref_adjusted, _, _ = multipletests(np.array(p), alpha=alpha, method="holm")
    assert np.array_equal(adjusted, ref_adjusted, equal_nan=True)
    assert np.array_equal(reject, ref_reject)


def test_holm_of_nothing() -> None:
    adjusted, reject = holm([])
    assert adjusted.size == 0 and reject.size == 0
