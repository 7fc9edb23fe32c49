import random
import sys

import pytest

from polistemics.evidence.correlation import average_ranks, spearman, spearman_without_scipy


def test_average_ranks_share_ties():
    assert average_ranks([10, 20, 20, 30]) == [1.0, 2.5, 2.5, 4.0]
    assert average_ranks([3, 1, 2]) == [3.0, 1.0, 2.0]


def test_perfect_and_reversed_order():
    assert spearman_without_scipy([1, 2, 3, 4], [10, 20, 30, 45]) == pytest.approx(1.0)
    assert spearman_without_scipy([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_undefined_cases():
    assert spearman_without_scipy([1, 1, 1], [1, 2, 3]) is None
    assert spearman_without_scipy([1], [2]) is None
    assert spearman([1, 1, 1], [1, 2, 3]).rho is None
    with pytest.raises(ValueError):
        spearman_without_scipy([1, 2], [1])


def test_matches_scipy_with_ties():
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(7)
    x = [rng.choice([0.5, 1.0, 1.5, 2.0, 2.5]) for _ in range(60)]
    y = [rng.choice([0.0, 1 / 3, 2 / 3, 1.0]) for _ in range(60)]
    expected = stats.spearmanr(x, y).statistic
    assert spearman_without_scipy(x, y) == pytest.approx(expected)
    result = spearman(x, y)
    assert result.rho == pytest.approx(expected) and result.p_value is not None and result.n == 60


def test_without_scipy_the_p_value_is_absent(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    result = spearman([1, 2, 3, 4], [1, 3, 2, 4])
    assert result.rho == pytest.approx(0.8) and result.p_value is None
