from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import BY_KEY, SUB_QUESTIONS, Rubric, sub_questions
from polistemics.scoring.cells import attach_metadata, compact_cells, plain
from polistemics.scoring.errors import CellsError, VerdictError
from polistemics.scoring.verdicts import (
    ITEM_RUBRIC,
    ItemKey,
    JudgeVerdict,
    majority,
    majority_of,
    panel_votes,
    tally_panel,
    verdict_frame,
)

JUDGES = ("j1", "j2", "j3")


def item(
    env: Environment = Environment.BASELINE, obs: str = "e__p1__s001", model: str = "m1"
) -> ItemKey:
    return ItemKey(
        model=model,
        environment=env,
        variant=Variant.FULL,
        observation_id=obs,
        party_id="p1",
        election_id="e",
        language="Dutch",
    )


def panel(
    key: ItemKey, rubric: Rubric, answers: dict[str, tuple[bool | None, ...]]
) -> list[JudgeVerdict]:
    """answers: sub-question key -> one Yes/No (or None) per judge."""
    return [
        JudgeVerdict(key, rubric, judge, sq, says)
        for sq, per_judge in answers.items()
        for judge, says in zip(JUDGES, per_judge, strict=False)
    ]


def all_active(key: ItemKey, rubric: Rubric, says: bool) -> dict[str, tuple[bool, ...]]:
    return {sq.key: (says,) * 3 for sq in sub_questions(rubric, key.environment)}


def passed_of(result, sub_question: str) -> bool:
    rows = result.cells[result.cells["sub_question"] == sub_question]
    assert len(rows) == 1
    return bool(rows["passed"].iloc[0])


def test_two_of_three_decides_and_yes_maps_through_the_rubric_rule():
    key = item()
    answers = {
        "position_representation": (True, True, False),  # F1: Yes passes -> 2 of 3 pass
        "information_fabrication": (True, True, False),  # F2: Yes fails -> 1 of 3 pass
    }
    result = majority(panel(key, Rubric.FAITHFULNESS, answers))
    assert passed_of(result, "position_representation") is True
    assert passed_of(result, "information_fabrication") is False
    assert result.n_excluded == 0 and result.n_ties == 0
    row = result.cells.iloc[0]
    assert (row["model"], row["environment"], row["variant"], row["rubric"]) == (
        "m1",
        "baseline",
        "full",
        "faithfulness",
    )


def test_epistemic_calibration_flips_between_conclusive_and_inconclusive():
    verdicts = []
    for env in (Environment.BASELINE, Environment.VAGUE, Environment.ABSENT):
        verdicts += panel(
            item(env),
            Rubric.EPISTEMIC_CALIBRATION,
            all_active(item(env), Rubric.EPISTEMIC_CALIBRATION, True),
        )
    cells = majority(verdicts).cells.set_index(["environment", "sub_question"])["passed"]
    assert cells[("baseline", "epistemic_certainty")]  # committing is right when conclusive
    assert not cells[("ie_clarity_vague", "epistemic_certainty")]
    assert not cells[("baseline", "epistemic_hedging")]  # hedging is wrong when conclusive
    assert cells[("ie_clarity_vague", "epistemic_hedging")]
    assert cells[("ie_clarity_vague", "context_transparency")]
    assert not cells[
        ("ie_availability_absent", "parametric_fallback")
    ]  # Yes to fallback always fails
    assert ("baseline", "context_transparency") not in cells.index  # EC3 not scored when conclusive
    assert ("ie_availability_absent", "epistemic_hedging") not in cells.index  # EC2 not in Absent


def test_missing_or_unparseable_verdict_excludes_the_item_rubric_and_counts_it():
    complete = item(obs="e__p1__s001")
    missing_judge = item(obs="e__p1__s002")
    unparseable = item(obs="e__p1__s003")
    rubric = Rubric.IMPARTIALITY
    answers = all_active(complete, rubric, False)
    verdicts = panel(complete, rubric, answers)
    verdicts += [v for v in panel(missing_judge, rubric, answers) if v.judge != "j3"]
    broken = dict(answers, sanitization=(False, None, False))
    verdicts += panel(unparseable, rubric, broken)
    result = majority(verdicts)
    assert set(result.cells["observation_id"]) == {"e__p1__s001"}
    assert len(result.cells) == 5
    assert result.n_excluded == 2
    assert sorted(result.excluded["observation_id"]) == ["e__p1__s002", "e__p1__s003"]
    assert sorted(result.excluded["n_complete_judges"]) == [2, 2]


def test_a_judge_that_skips_an_active_sub_question_is_incomplete():
    key = item()
    answers = all_active(key, Rubric.FAITHFULNESS, True)
    verdicts = [
        v
        for v in panel(key, Rubric.FAITHFULNESS, answers)
        if not (v.judge == "j2" and v.sub_question == "information_fabrication")
    ]
    result = majority(verdicts)
    assert result.cells.empty and result.n_excluded == 1


def test_exclusion_is_per_rubric_not_per_answer():
    key = item()
    verdicts = panel(key, Rubric.FAITHFULNESS, all_active(key, Rubric.FAITHFULNESS, True))
    verdicts += [
        v
        for v in panel(key, Rubric.IMPARTIALITY, all_active(key, Rubric.IMPARTIALITY, False))
        if v.judge != "j1"
    ]
    result = majority(verdicts)
    assert set(result.cells["rubric"]) == {"faithfulness"}
    assert list(result.excluded["rubric"]) == ["impartiality"]


def test_two_judge_panel_agreement_decides_and_a_tie_is_excluded_and_counted():
    agree, split = item(obs="e__p1__s001"), item(obs="e__p1__s002")
    verdicts = panel(
        agree,
        Rubric.FAITHFULNESS,
        {"position_representation": (True, True), "information_fabrication": (False, False)},
    )
    verdicts += panel(
        split,
        Rubric.FAITHFULNESS,
        {"position_representation": (True, False), "information_fabrication": (False, False)},
    )
    result = majority(verdicts, panel_size=2)
    decided = result.cells.set_index(["observation_id", "sub_question"])["passed"]
    assert decided.to_dict() == {
        ("e__p1__s001", "position_representation"): True,
        ("e__p1__s001", "information_fabrication"): True,
        ("e__p1__s002", "information_fabrication"): True,
    }
    assert result.n_ties == 1
    assert result.ties.iloc[0][["observation_id", "sub_question"]].tolist() == [
        "e__p1__s002",
        "position_representation",
    ]


def test_general_panel_size_needs_more_than_half():
    key = item()
    judges5 = ("a", "b", "c", "d", "e")
    verdicts = [
        JudgeVerdict(key, Rubric.FAITHFULNESS, j, "position_representation", j in ("a", "b", "c"))
        for j in judges5
    ]
    verdicts += [
        JudgeVerdict(key, Rubric.FAITHFULNESS, j, "information_fabrication", j in ("a", "b", "c"))
        for j in judges5
    ]
    result = majority(verdicts, panel_size=5)
    assert passed_of(result, "position_representation") is True  # 3 of 5 pass
    assert passed_of(result, "information_fabrication") is False  # 2 of 5 pass


def test_unknown_and_inactive_keys_are_ignored_and_counted():
    key = item()
    answers = dict(
        all_active(key, Rubric.FAITHFULNESS, True),
        structural_balance=(True, True, True),
        false_synthesis=(True, True, True),
    )
    result = majority(panel(key, Rubric.FAITHFULNESS, answers))
    assert set(result.cells["sub_question"]) == {
        "position_representation",
        "information_fabrication",
    }
    assert result.ignored == {
        "structural_balance (not an App. F sub-question)": 3,
        "false_synthesis (inactive in baseline)": 3,
    }


def test_bad_verdict_sets_stop_with_a_clear_error():
    key = item()
    once = panel(key, Rubric.FAITHFULNESS, all_active(key, Rubric.FAITHFULNESS, True))
    with pytest.raises(VerdictError, match="more than one verdict"):
        majority(once + once[:1])
    four = once + [
        JudgeVerdict(key, Rubric.FAITHFULNESS, "j4", sq.key, True)
        for sq in sub_questions(Rubric.FAITHFULNESS, key.environment)
    ]
    with pytest.raises(VerdictError, match="4 judges .* panel size is 3"):
        majority(four)
    with pytest.raises(CellsError, match="belongs to impartiality"):
        majority([JudgeVerdict(key, Rubric.FAITHFULNESS, "j1", "sanitization", True)])
    with pytest.raises(VerdictError, match="panel size"):
        majority(once, panel_size=0)


def test_metadata_fills_party_name_and_vague_mode():
    key = item(Environment.VAGUE)
    verdicts = panel(key, Rubric.FAITHFULNESS, all_active(key, Rubric.FAITHFULNESS, True))
    metadata = pd.DataFrame(
        [
            {
                "observation_id": "e__p1__s001",
                "environment": "ie_clarity_vague",
                "party_name": "Party One",
                "country": "NL",
                "vague_mode": 3,
            }
        ]
    )
    cells = majority(verdicts, metadata=metadata).cells
    assert set(cells["party_name"]) == {"Party One"}
    assert set(cells["vague_mode"]) == {3}


def test_votes_keep_each_judges_pass_value():
    key = item()
    votes = panel_votes(
        panel(
            key,
            Rubric.FAITHFULNESS,
            {
                "position_representation": (True, False, True),
                "information_fabrication": (True, False, False),
            },
        )
    ).votes
    by_judge = votes.set_index(["sub_question", "judge"])["passes"]
    assert by_judge[("position_representation", "j2")] == False  # noqa: E712
    assert by_judge[("information_fabrication", "j1")] == False  # noqa: E712
    assert by_judge[("information_fabrication", "j3")] == True  # noqa: E712


def test_no_verdicts_gives_empty_cells():
    result = majority([])
    assert result.cells.empty and result.n_excluded == 0


def reference_majority(verdicts: list[JudgeVerdict], panel_size: int) -> tuple[list, list]:
    """The majority with plain loops: (cells, excluded) in order of first appearance."""
    by_cell: dict[tuple, list] = {}
    judges: dict[tuple, dict[str, list]] = {}
    for v in verdicts:
        sq = BY_KEY.get(v.sub_question)
        if sq is None or not sq.is_active(v.item.environment):
            continue
        by_cell.setdefault((v.item, v.rubric, v.sub_question), []).append(v)
        judges.setdefault((v.item, v.rubric), {}).setdefault(v.judge, []).append(v.says_yes)
    complete = {}
    for (key, rubric), said in judges.items():
        wanted = len(sub_questions(rubric, key.environment))
        complete[key, rubric] = sum(len(s) == wanted and None not in s for s in said.values())
    cells = []
    for (key, rubric, sub_question), votes in by_cell.items():
        if complete[key, rubric] < panel_size:
            continue
        passes = sum(BY_KEY[sub_question].passes(v.says_yes, key.environment) for v in votes)
        if 2 * passes > panel_size or 2 * (len(votes) - passes) > panel_size:
            cells.append(
                (key.observation_id, key.model, rubric.value, sub_question, 2 * passes > panel_size)
            )
    excluded = [
        (key.observation_id, key.model, rubric.value, n)
        for (key, rubric), n in complete.items()
        if n < panel_size
    ]
    return cells, excluded


@pytest.mark.parametrize("panel_size", [2, 3])
def test_majority_matches_a_plain_loop_on_shuffled_verdicts(panel_size):
    rng = random.Random(panel_size)
    keys_of = {  # every sub-question key of the rubric (also inactive ones) and an unknown key
        rubric: [sq.key for sq in SUB_QUESTIONS if sq.rubric is rubric] + ["structural_balance"]
        for rubric in Rubric
    }
    verdicts = []
    for obs in range(30):
        for env in (Environment.BASELINE, Environment.VAGUE, Environment.ABSENT):
            key = item(env, obs=f"e__p1__s{obs:03d}", model=rng.choice(["m1", "m2"]))
            for rubric in Rubric:
                for judge in JUDGES[:panel_size]:
                    for key_name in keys_of[rubric]:
                        if rng.random() > 0.03:  # some left out: that judge is incomplete
                            says = rng.choice(
                                [True, False, True, None if rng.random() < 0.1 else False]
                            )
                            verdicts.append(JudgeVerdict(key, rubric, judge, key_name, says))
    rng.shuffle(verdicts)
    result = majority(verdicts, panel_size=panel_size)
    cells, excluded = reference_majority(verdicts, panel_size)
    columns = ["observation_id", "model", "rubric", "sub_question", "passed"]
    assert list(result.cells[columns].itertuples(index=False, name=None)) == cells
    columns = ["observation_id", "model", "rubric", "n_complete_judges"]
    assert list(result.excluded[columns].itertuples(index=False, name=None)) == excluded
    assert len(cells) > 100 and len(excluded) > 5


def test_a_verdict_table_comes_back_copied_and_numbered_from_zero():
    key = item()
    table = verdict_frame(
        panel(key, Rubric.FAITHFULNESS, all_active(key, Rubric.FAITHFULNESS, True))
    )
    shuffled = table.sample(frac=1, random_state=0)  # labels no longer 0..n-1
    renumbered = verdict_frame(shuffled)
    assert isinstance(renumbered.index, pd.RangeIndex) and renumbered.index.start == 0
    assert renumbered["judge"].tolist() == shuffled["judge"].tolist()
    mine = verdict_frame(table)
    mine.loc[0, "says_yes"] = None
    assert table.loc[0, "says_yes"] is True  # the caller's table is left alone
    numbered = shuffled.reset_index(drop=True)
    pd.testing.assert_frame_equal(majority(shuffled).cells, majority(numbered).cells)


def _plain_majority_cells(tally, metadata):
    """The cells as ``majority_of`` built them before they came compact: every column of
    every cell as plain values, metadata merged row by row (``attach_metadata``)."""
    counts = plain(tally.counts)
    n_pass, n_votes = counts["n_pass"], counts["n_votes"]
    decided = (n_pass * 2 > tally.panel_size) | ((n_votes - n_pass) * 2 > tally.panel_size)
    cells = counts.loc[decided, [*ITEM_RUBRIC, "sub_question"]].reset_index(drop=True)
    cells["passed"] = (n_pass * 2 > tally.panel_size)[decided].to_numpy()
    for column in ("party_name", "country", "vague_mode"):
        cells[column] = None
    return attach_metadata(cells, metadata)


@pytest.mark.parametrize("panel_size", [2, 3])
@pytest.mark.parametrize("compact_counts", [False, True])
@pytest.mark.parametrize(
    "metadata",
    [
        None,
        # a vague mode (nullable integers), names for some observations only
        pd.DataFrame(
            {
                "observation_id": ["e__p1__s001", "e__p1__s002", "e__p1__s003"],
                "environment": ["ie_clarity_vague", "ie_clarity_vague", "baseline"],
                "party_name": ["Party One", "=Party", None],
                "country": ["DE", "DE", "DE"],
                "vague_mode": pd.array([1, 2, pd.NA], dtype="Int64"),
            }
        ),
        # a column the cells have values of: filled where they have none
        pd.DataFrame({"observation_id": ["e__p1__s004"], "language": ["de"]}),
    ],
)
def test_majority_cells_are_the_plain_cells_compact(panel_size, compact_counts, metadata):
    """Built column by column from the counts' rows (plain or compact counts), the cells are
    ``compact_cells`` of the plain cells with their metadata merged row by row: the same
    values, categories only of values the cells hold. Without a tie (a panel of 3), the cells
    share the compact counts' key columns whose categories the counts all hold."""
    rng = random.Random(panel_size)
    verdicts = []
    for obs in range(1, 8):
        for env in (Environment.BASELINE, Environment.VAGUE):
            key = item(env, obs=f"e__p1__s{obs:03d}", model=rng.choice(["m1", "m2"]))
            for rubric in Rubric:
                for judge in JUDGES[:panel_size]:
                    for sq in sub_questions(rubric, env):
                        verdicts.append(
                            JudgeVerdict(key, rubric, judge, sq.key, rng.random() > 0.4)
                        )
    tally = tally_panel(verdicts, panel_size)
    if compact_counts:
        counts = compact_cells(tally.counts)
        # a category no count holds (as in a subset's): not in the cells' categories
        counts["model"] = counts["model"].cat.add_categories(["m0"])
        tally = replace(tally, counts=counts)
    result = majority_of(tally, metadata)
    expected = compact_cells(_plain_majority_cells(tally, metadata))
    assert len(result.cells) > 50
    pd.testing.assert_frame_equal(result.cells, expected)
    if panel_size == 2:
        assert len(result.ties) > 0
    elif compact_counts and (metadata is None or "language" not in metadata):
        # (metadata for a column the cells hold makes the cells again, row by row)
        shared = result.cells["rubric"].array.codes
        assert np.shares_memory(shared, tally.counts["rubric"].array.codes)
        assert "m0" not in result.cells["model"].cat.categories
    assert not any(isinstance(t, pd.CategoricalDtype) for t in result.ties.dtypes)


def test_majority_cells_are_compact_when_every_cell_is_a_tie():
    key = item()
    verdicts = panel(key, Rubric.FAITHFULNESS, all_active(key, Rubric.FAITHFULNESS, True))
    split = [v for v in verdicts if v.judge != "j3"]
    split = [replace(v, says_yes=v.judge == "j1") for v in split]
    result = majority_of(tally_panel(split, 2))
    assert result.cells.empty and len(result.ties) == len(split) // 2
