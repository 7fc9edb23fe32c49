from __future__ import annotations

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import BY_KEY, Rubric, sub_questions
from polistemics.scoring.judge_analyses import (
    judge_pass_rates,
    majority_agreement,
    strictness_ranking,
)
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict, panel_votes
from polistemics.stats import wilson_interval

B = Environment.BASELINE
JUDGES = ("lenient", "middle", "strict")


def item(n: int) -> ItemKey:
    return ItemKey("m1", B, Variant.FULL, f"e__p1__s{n:03d}", "p1", 0, "e", "Dutch")


def impartiality_panel(key: ItemKey, i4_passes: tuple[bool, bool, bool]) -> list[JudgeVerdict]:
    """Every judge passes I1-I3 and I5; I4 passes per judge as given (Yes/No via the rule)."""
    verdicts = []
    for sq in sub_questions(Rubric.IMPARTIALITY, B):
        yes_passes = BY_KEY[sq.key].yes_passes(B)
        for judge, passes in zip(
            JUDGES, i4_passes if sq.key == "sanitization" else (True,) * 3, strict=True
        ):
            verdicts.append(
                JudgeVerdict(key, Rubric.IMPARTIALITY, judge, sq.key, passes == yes_passes)
            )
    return verdicts


@pytest.fixture
def votes():
    # 10 items; I4: lenient always passes, middle passes 8, strict passes 3
    verdicts = []
    for n in range(10):
        verdicts += impartiality_panel(item(n), (True, n < 8, n < 3))
    return panel_votes(verdicts).votes


def test_judge_pass_rates_per_sub_question_with_wilson(votes):
    rates = judge_pass_rates(votes).set_index(["judge", "sub_question"])
    assert rates.loc[("strict", "sanitization"), "pass_rate"] == pytest.approx(0.3)
    assert rates.loc[("middle", "sanitization"), "pass_rate"] == pytest.approx(0.8)
    assert rates.loc[("lenient", "endorsement"), "pass_rate"] == 1.0
    row = rates.loc[("strict", "sanitization")]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson_interval(3, 10))


def test_majority_agreement_counts_votes_equal_to_the_panel_majority(votes):
    table = majority_agreement(votes, panel_size=3).set_index(["judge", "rubric"])
    # I4 majority: pass on items 0-7 (lenient + middle), fail on 8-9 (middle + strict)
    # strict disagrees on items 3-7 (5 of 10 I4 votes), agrees on all 40 other votes
    assert table.loc[("strict", "impartiality"), "n"] == 50
    assert table.loc[("strict", "impartiality"), "agreements"] == 45
    assert table.loc[("lenient", "impartiality"), "agreements"] == 48  # wrong on 8-9
    assert table.loc[("middle", "impartiality"), "agreement"] == 1.0
    assert table.loc[("strict", "all"), "agreement"] == pytest.approx(0.9)


def test_strictness_ranking_puts_the_lowest_pass_rate_first(votes):
    ranking = strictness_ranking(votes)
    assert list(ranking["judge"]) == ["strict", "middle", "lenient"]
    assert list(ranking["rank"]) == [1, 2, 3]
    assert ranking.iloc[0]["i4_pass_rate"] == pytest.approx(0.3)
    assert ranking.iloc[0]["pass_rate"] == pytest.approx(43 / 50)


def test_ties_of_an_even_panel_have_no_majority():
    verdicts = [
        JudgeVerdict(item(0), Rubric.FAITHFULNESS, judge, "position_representation", says)
        for judge, says in (("a", True), ("b", False))
    ]
    verdicts += [
        JudgeVerdict(item(0), Rubric.FAITHFULNESS, judge, "information_fabrication", False)
        for judge in ("a", "b")
    ]
    votes = panel_votes(verdicts, panel_size=2).votes
    table = majority_agreement(votes, panel_size=2).set_index(["judge", "rubric"])
    assert table.loc[("a", "faithfulness"), "n"] == 1  # the F1 tie is left out


def test_no_votes_give_empty_tables():
    empty = panel_votes([]).votes
    assert judge_pass_rates(empty).empty
    assert majority_agreement(empty, 3).empty
    assert strictness_ranking(empty).empty
