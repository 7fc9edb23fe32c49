from fractions import Fraction

import pytest

from polistemics.environments.basis import EnvironmentInputError
from polistemics.environments.distance import PartyDistances

from .helpers import position


def distances(rows: dict[str, str]) -> PartyDistances:
    letters = {"A": "Agree", "D": "Disagree", "N": "Neutral"}
    return PartyDistances.from_positions(
        position(pid, n, letters[s])
        for pid, row in rows.items()
        for n, s in enumerate(row, start=1)
        if s != "-"
    )


def test_mean_absolute_difference_on_the_half_step_scale():
    d = distances({"a": "ADN", "b": "DDA"})
    # |1-0| + |0-0| + |0.5-1| = 1.5 over 3 statements
    assert d.distance("de_a", "de_b") == Fraction(1, 2)
    assert d.distance("de_b", "de_a") == Fraction(1, 2)
    assert d.distance("de_a", "de_a") == 0


def test_only_statements_both_parties_answered_count():
    d = distances({"a": "AAD", "b": "D-D"})
    assert d.shared_statements("de_a", "de_b") == ["t2025__s001", "t2025__s003"]
    assert d.distance("de_a", "de_b") == Fraction(1, 2)


def test_no_shared_statement_gives_none():
    d = distances({"a": "A-", "b": "-D"})
    assert d.distance("de_a", "de_b") is None


def test_equal_distances_compare_equal_exactly():
    d = distances({"a": "AAN", "b": "AAA", "c": "NAA"})
    assert d.distance("de_a", "de_b") == d.distance("de_c", "de_b") == Fraction(1, 6)


def test_same_position_twice_is_fine_but_contradicting_stances_are_an_error():
    twice = [position("a", 1, "Agree"), position("a", 1, "Agree"), position("b", 1, "Disagree")]
    assert PartyDistances.from_positions(twice).distance("de_a", "de_b") == 1
    with pytest.raises(EnvironmentInputError, match="t2025__de_a__s001.*stance"):
        PartyDistances.from_positions([position("a", 1, "Agree"), position("a", 1, "Neutral")])
