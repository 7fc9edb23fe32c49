"""The panel's agreement at the analyses' four grains, made once from a tally's vote counts:
each equals ``agreement_by`` of the counts as the tally holds them; a tally without its counts
keeps the agreement and everything else."""

from __future__ import annotations

import pandas as pd

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import Rubric, sub_questions
from polistemics.scoring.panel_agreement import agreement_by, panel_agreement
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict, tally_panel

GRAINS = {
    "by_rubric": ("rubric",),
    "by_sub_question": ("rubric", "sub_question"),
    "by_language": ("rubric", "language"),
    "by_sub_question_language": ("rubric", "sub_question", "language"),
}


def mixed_verdicts() -> list[JudgeVerdict]:
    """Three judges on two rubrics in two languages, split on some sub-questions; one
    incomplete panel (left out of the counts' rated rows)."""
    verdicts = []
    for number in range(1, 7):
        for language in ("Dutch", "English"):
            key = ItemKey(
                "m1", Environment.BASELINE, Variant.FULL, f"e__p1__s{number:03d}", "p1",
                election_id="e", language=language,
            )  # fmt: skip
            for rubric in (Rubric.FAITHFULNESS, Rubric.IMPARTIALITY):
                for n, sq in enumerate(sub_questions(rubric, Environment.BASELINE)):
                    for seat, judge in enumerate(("j1", "j2", "j3")):
                        says = (number + n + (language == "English")) % 3 != 0 or seat == 2
                        verdicts.append(JudgeVerdict(key, rubric, judge, sq.key, says))
    lone = ItemKey(
        "m1", Environment.BASELINE, Variant.FULL, "e__p1__s099", "p1",
        election_id="e", language="Dutch",
    )  # fmt: skip
    verdicts.append(JudgeVerdict(lone, Rubric.FAITHFULNESS, "j1", "position_representation", True))
    return verdicts


def test_each_grain_is_agreement_by_of_the_counts() -> None:
    counts = tally_panel(mixed_verdicts()).counts
    agreement = panel_agreement(counts)
    for grain, by in GRAINS.items():
        table = getattr(agreement, grain)
        pd.testing.assert_frame_equal(table, agreement_by(counts, by))
        assert list(table.columns[: len(by)]) == list(by)
    assert set(agreement.by_language["language"]) == {"Dutch", "English"}
    assert 0 < agreement.by_rubric["unanimity"].min() < 1


def test_a_tally_without_counts_keeps_its_agreement_and_the_rest() -> None:
    tally = tally_panel(mixed_verdicts())
    lean = tally.without_counts()
    assert lean.counts.empty and list(lean.counts.columns) == list(tally.counts.columns)
    for grain in GRAINS:
        pd.testing.assert_frame_equal(
            getattr(lean.agreement, grain), getattr(panel_agreement(tally.counts), grain)
        )
    pd.testing.assert_frame_equal(lean.excluded, tally.excluded)
    assert not lean.excluded.empty  # the lone verdict's item x rubric
    assert (lean.panel_size, lean.n_verdicts, lean.ignored) == (
        tally.panel_size,
        tally.n_verdicts,
        tally.ignored,
    )
    assert lean.without_counts().agreement is lean.agreement  # made once
