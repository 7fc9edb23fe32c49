import math
import random

import numpy as np
import pytest
from scipy import stats

from polistemics.evidence.correlation import spearman


def _pearson_of_average_ranks(x: list[float], y: list[float]) -> float:
    """Spearman's definition, computed independently of spearmanr."""
    return float(np.corrcoef(stats.rankdata(x), stats.rankdata(y))[0, 1])


def test_perfect_and_reversed_order():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 45]).rho == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]).rho == pytest.approx(-1.0)
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]).rho == pytest.approx(0.8)


@pytest.mark.parametrize("seed", range(20))
def test_matches_scipy_on_random_data_with_ties(seed: int):
    rng = random.Random(seed)
    n = rng.randint(3, 80)
    x = [rng.choice([0.5, 1.0, 1.5, 2.0, 2.5]) for _ in range(n)]
    y = [rng.choice([0.0, 1 / 3, 2 / 3, 1.0]) if seed % 2 else rng.random() for _ in range(n)]
    if len(set(x)) == 1 or len(set(y)) == 1:
        pytest.skip("constant draw: covered by the constant-input test")
    expected = stats.spearmanr(x, y)
    result = spearman(x, y)
    assert result.n == n
    assert result.rho == pytest.approx(expected.statistic)
    assert result.rho == pytest.approx(_pearson_of_average_ranks(x, y))
    assert result.p_value == pytest.approx(expected.pvalue)


@pytest.mark.parametrize(
    ("x", "y"),
    [([1, 1, 1], [1, 2, 3]), ([1, 2, 3], [0.5, 0.5, 0.5]), ([2.0] * 10, [2.0] * 10)],
)
def test_constant_input_gives_no_rho_and_no_p_value_and_no_warning(x, y, recwarn):
    result = spearman(x, y)
    assert result.rho is None and result.p_value is None and result.n == len(x)
    assert not recwarn.list


def test_fewer_than_two_items_and_nan_input_are_undefined():
    assert spearman([], []).rho is None and spearman([], []).n == 0
    assert spearman([1], [2]).rho is None
    nan_input = spearman([1, 2, math.nan, 4], [1, 2, 3, 4])
    assert nan_input.rho is None and nan_input.p_value is None


def test_two_items_have_a_rho_but_no_p_value():
    result = spearman([1, 2], [2, 1])
    assert result.rho == pytest.approx(-1.0) and result.p_value is None


def test_lengths_must_match():
    with pytest.raises(ValueError, match="3 x values but 2 y values"):
        spearman([1, 2, 3], [1, 2])
