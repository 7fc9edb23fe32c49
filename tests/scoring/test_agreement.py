from __future__ import annotations

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import Rubric
from polistemics.scoring.agreement import agreement_table
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict
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
