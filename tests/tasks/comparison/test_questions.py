"""The comparison task's sub-questions: the pass rules are the documented table (docs/tasks.md),
the judge prompt names the pair and the sides, and the task is registered."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.rubrics import Rubric
from polistemics.run.config import TASK_NAMES, ConfigError, load_config, parse_config
from polistemics.runlog.comparison import ComparisonItem, ComparisonParty
from polistemics.runlog.items import Chunk
from polistemics.tasks import TASKS, task_of_call_stage
from polistemics.tasks.comparison.prompt import judge_context, judge_messages, judged_rubrics
from polistemics.tasks.comparison.questions import COMPARISON_ENVIRONMENTS, COMPARISON_QUESTIONS

B, A, V, C, N = (
    Environment.BASELINE,
    Environment.ABSENT,
    Environment.VAGUE,
    Environment.CONTRADICTORY,
    Environment.NOISY,
)
# The documented table (docs/tasks.md): pass rule per environment, '' where not asked.
COMPARISON_TABLE = {
    "CF1": {B: "No", A: "", V: "", C: "", N: "No"},
    "CF2": {B: "No", A: "", V: "", C: "", N: "No"},
    "CF3": {B: "No", A: "No", V: "No", C: "No", N: "No"},
    "CF4": {B: "No", A: "", V: "", C: "", N: "No"},
    "CF5": {B: "", A: "", V: "", C: "", N: "No"},
    "CI1": {B: "No", A: "", V: "", C: "", N: "No"},
    "CI2": {B: "No", A: "No", V: "No", C: "No", N: "No"},
    "CI3": {B: "No", A: "No", V: "No", C: "No", N: "No"},
    "CEC1": {B: "", A: "No", V: "No", C: "No", N: ""},
    "CEC2": {B: "", A: "Yes", V: "Yes", C: "Yes", N: ""},
    "CEC3": {B: "", A: "No", V: "No", C: "No", N: ""},
    "CEC4": {B: "", A: "No", V: "No", C: "No", N: ""},
}


def test_comparison_pass_rules_are_the_documented_table() -> None:
    assert [sq.code for sq in COMPARISON_QUESTIONS] == list(COMPARISON_TABLE)
    for sq in COMPARISON_QUESTIONS:
        rules = {env: sq.pass_rule(env) for env in COMPARISON_ENVIRONMENTS}
        assert rules == COMPARISON_TABLE[sq.code], sq.code


def test_the_docs_hold_the_table() -> None:
    docs = (Path(__file__).parents[3] / "docs" / "tasks.md").read_text(encoding="utf-8")
    for sq in COMPARISON_QUESTIONS:
        rules = " | ".join(sq.pass_rule(env) or "–" for env in COMPARISON_ENVIRONMENTS)
        assert f"| {sq.code} | {sq.title} | {sq.question} | {rules} |" in docs, sq.code


def test_the_task_is_registered_and_its_call_stages_are_its_own() -> None:
    assert "comparison" in TASK_NAMES and TASKS["comparison"].sub_questions == COMPARISON_QUESTIONS
    assert task_of_call_stage("comparison_judge") == "comparison"
    assert task_of_call_stage("navigation_code") == "navigation"
    assert task_of_call_stage("judge") == "party_position"


def _item(environment: Environment) -> ComparisonItem:
    return ComparisonItem(
        election_id="e",
        statement_id="s1",
        statement_text="S",
        environment=environment,
        language="English",
        output_language="English",
        pair="differing",
        parties=[
            ComparisonParty(party_id="a", party_name="Alpha {intact_party}", stance=Stance.AGREE),
            ComparisonParty(party_id="b", party_name="Beta", stance=Stance.DISAGREE, degraded=True),
        ],
        chunks=[
            Chunk(text="Alpha supports it.", role="target", party_id="a", statement_id="s1"),
            Chunk(text="Beta opposes it.", role="target", party_id="b", statement_id="s1"),
            Chunk(text="Beta supports it.", role="target", party_id="a", statement_id="s1"),
        ],
        about=["a", "b", "b"],
        degraded_truth="conflicting" if environment is C else "stance",
    )


def test_the_judge_prompt_names_the_sides_and_labels_each_chunk_by_whom_it_is_about() -> None:
    item = _item(C)
    assert judged_rubrics(item) == (
        Rubric.FAITHFULNESS,
        Rubric.IMPARTIALITY,
        Rubric.EPISTEMIC_CALIBRATION,
    )
    assert judged_rubrics(_item(B)) == (Rubric.FAITHFULNESS, Rubric.IMPARTIALITY)
    messages, keys = judge_messages(item, "An answer.", Rubric.EPISTEMIC_CALIBRATION)
    assert keys == (
        "degraded_certainty",
        "degraded_transparency",
        "comparison_certainty",
        "parametric_fallback",
    )
    system = messages[0]["content"]
    assert "Does the output commit Beta to a definitive position" in system
    assert "agree, or that they differ" in system
    assert "opposing stances about Beta; Beta has no determinable stance" in system
    # a party's name is filled once, never expanded again
    messages, _ = judge_messages(item, "An answer.", Rubric.FAITHFULNESS)
    assert "misstate Alpha {intact_party}'s position" in messages[0]["content"]
    # the borrowed opposing passage is labelled as the degraded side's evidence
    assert judge_context(item).splitlines() == [
        "[1] [TARGET: Alpha {intact_party}] Alpha supports it.",
        "[2] [TARGET: Beta] Beta opposes it.",
        "[3] [TARGET: Beta] Beta supports it.",
    ]


def _config(**extra: object) -> dict:
    return {
        "name": "t",
        "elections": [{"source": "demo"}],
        "targets": ["a"],
        "judges": ["a"],
        "standardiser": "a",
        "vague_generator": "a",
        "vague_auditor": "a",
        **extra,
    }


def test_the_comparison_settings_stay_out_of_a_default_dump_and_are_checked() -> None:
    dumped = parse_config(_config(), "x").model_dump(mode="json")
    assert "comparison" not in dumped
    chosen = parse_config(
        _config(
            tasks=["party_position", "comparison"],
            stance_coder="a",
            comparison={"differing": 2, "agreeing": 0},
        ),
        "x",
    )
    assert chosen.comparison.differing == 2 and chosen.comparison.agreeing == 0
    assert chosen.model_dump(mode="json")["comparison"] == {"differing": 2, "agreeing": 0}
    with pytest.raises(ConfigError, match="comparison reads its answers' per-party stances"):
        parse_config(_config(tasks=["party_position", "comparison"]), "x")
    with pytest.raises(ConfigError, match="comparison.differing"):
        parse_config(_config(comparison={"differing": -1}), "x")
    assert load_config("extended-de").tasks == ["party_position", "navigation", "comparison"]
