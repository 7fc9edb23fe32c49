from __future__ import annotations

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import Rubric, sub_questions
from polistemics.scoring.agreement import agreement_table
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict, tally_panel
from polistemics.stats.agreement import agreement_stats


def key(obs: str, language: str = "Dutch", env: Environment = Environment.BASELINE) -> ItemKey:
    return ItemKey("m1", env, Variant.FULL, obs, "p1", election_id="e", language=language)


def test_agreement_table_uses_pass_values_of_complete_panels():
    verdicts = []
    # F1 Yes passes, F2 Yes fails: judges split 2-1 on F1 for s001, unanimous elsewhere
    for obs, f1, f2 in (
        ("e__p1__s001", (True, True, False), (False,) * 3),
        ("e__p1__s002", (True,) * 3, (True,) * 3),
    ):
        for judge, a, b in zip(("j1", "j2", "j3"), f1, f2, strict=True):
            verdicts.append(
                JudgeVerdict(key(obs), Rubric.FAITHFULNESS, judge, "position_representation", a)
            )
            verdicts.append(
                JudgeVerdict(key(obs), Rubric.FAITHFULNESS, judge, "information_fabrication", b)
            )
    # an incomplete panel is left out
    verdicts.append(
        JudgeVerdict(key("e__p1__s003"), Rubric.FAITHFULNESS, "j1", "position_representation", True)
    )
    table = agreement_table(verdicts).set_index("sub_question")
    assert table.loc["position_representation", "n"] == 2
    assert table.loc["position_representation", "prevalence"] == pytest.approx(5 / 6)
    assert table.loc["position_representation", "unanimity"] == 0.5
    assert table.loc["information_fabrication", "prevalence"] == pytest.approx(
        3 / 6
    )  # No passes F2
    assert table.loc["information_fabrication", "fleiss_kappa"] == pytest.approx(1.0)
    pooled = agreement_table(verdicts, by=("rubric",))
    assert pooled["n"].tolist() == [4]
    expected = agreement_stats([[1, 2], [0, 3], [0, 3], [3, 0]])
    assert pooled["gwet_ac1"].iloc[0] == pytest.approx(expected.gwet_ac1)


def test_a_one_judge_panel_has_no_rated_instances():
    """Agreement needs two judges: a panel of one (a valid config) rates nothing, where it raised
    "agreement needs at least two raters per item" and the run ended without its report."""
    verdicts = [
        JudgeVerdict(key(f"e__p1__s00{i}"), Rubric.FAITHFULNESS, "j1", sq.key, says_yes)
        for i, says_yes in ((1, True), (2, False))
        for sq in sub_questions(Rubric.FAITHFULNESS, Environment.BASELINE)
    ]
    assert tally_panel(verdicts, panel_size=1).counts.shape[0] > 0  # a complete panel of one
    table = agreement_table(verdicts, by=("rubric",), panel_size=1)
    assert table.empty
    assert list(table.columns) == [
        "rubric",
        "n",
        "prevalence",
        "unanimity",
        "fleiss_kappa",
        "gwet_ac1",
    ]
