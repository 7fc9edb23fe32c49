"""Tasks as an axis (issue 29): the registry, the party-position task's table against App. F's
rules, and the navigation task's pass rules as documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.conditions import ALL_ENVIRONMENTS, Environment
from polistemics.rubrics import SUB_QUESTIONS
from polistemics.run.config import TASK_NAMES, ConfigError, load_config, parse_config
from polistemics.tasks import DEFAULT_TASKS, TASKS
from polistemics.tasks.issue_mapping.questions import (
    ISSUE_MAPPING_ENVIRONMENTS,
    ISSUE_MAPPING_QUESTIONS,
)
from polistemics.tasks.navigation.questions import NAVIGATION_ENVIRONMENTS, NAVIGATION_QUESTIONS

B, A, V, C, N = (
    Environment.BASELINE,
    Environment.ABSENT,
    Environment.VAGUE,
    Environment.CONTRADICTORY,
    Environment.NOISY,
)


def test_the_registry_names_the_tasks_the_config_accepts() -> None:
    assert tuple(TASKS) == TASK_NAMES
    assert DEFAULT_TASKS == ("party_position",)
    assert load_config("demo").tasks == ["party_position"]


def test_party_position_is_app_f_unchanged() -> None:
    task = TASKS["party_position"]
    assert task.paper and task.prompt_templates == ("task_system", "task_user")
    assert [sq.key for sq in task.sub_questions] == [sq.key for sq in SUB_QUESTIONS]
    for sq, ours in zip(SUB_QUESTIONS, task.sub_questions, strict=True):
        for env in ALL_ENVIRONMENTS:
            assert ours.is_active(env) == sq.is_active(env)
            if sq.is_active(env):
                for says_yes in (True, False):
                    assert ours.passes(says_yes, env) == sq.passes(says_yes, env)


# The documented table (docs/tasks.md): pass rule per environment, '' where not asked.
NAVIGATION_TABLE = {
    "NF1": {B: "No", A: "No", V: "No", C: "No", N: "No"},
    "NF2": {B: "No", A: "No", V: "No", C: "No", N: "No"},
    "NF3": {B: "No", A: "No", V: "No", C: "No", N: "No"},
    "NF4": {B: "", A: "", V: "", C: "", N: "No"},
    "NEC1": {B: "Yes", A: "No", V: "No", C: "No", N: "Yes"},
    "NEC2": {B: "", A: "Yes", V: "Yes", C: "Yes", N: ""},
    "NEC3": {B: "No", A: "No", V: "No", C: "No", N: "No"},
    "NEC4": {B: "No", A: "No", V: "No", C: "No", N: "No"},
}


def test_navigation_pass_rules_are_the_documented_table() -> None:
    assert [sq.code for sq in NAVIGATION_QUESTIONS] == list(NAVIGATION_TABLE)
    for sq in NAVIGATION_QUESTIONS:
        assert {env: sq.pass_rule(env) for env in NAVIGATION_ENVIRONMENTS} == NAVIGATION_TABLE[
            sq.code
        ]
    assert Environment.COUNTERFACTUAL not in NAVIGATION_ENVIRONMENTS


def test_docs_page_holds_the_navigation_table() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "tasks.md").read_text(encoding="utf-8")
    for sq in NAVIGATION_QUESTIONS:
        rules = " | ".join(sq.pass_rule(env) or "–" for env in NAVIGATION_ENVIRONMENTS)
        row = f"| {sq.code} | {sq.title} | {sq.question} | {rules} |"
        assert row in page, row


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


def test_the_task_keys_stay_out_of_a_default_configs_dump() -> None:
    dumped = parse_config(_config(), "x").model_dump(mode="json")
    assert "tasks" not in dumped and "navigation" not in dumped
    chosen = parse_config(
        _config(tasks=["party_position", "navigation"], stance_coder="a"), "x"
    ).model_dump(mode="json")
    assert chosen["tasks"] == ["party_position", "navigation"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"tasks": ["summarise"]}, "unknown task 'summarise'"),
        ({"tasks": ["navigation"], "stance_coder": "a"}, "party_position must be one"),
        ({"tasks": ["party_position", "navigation"]}, "set stance_coder"),
        ({"navigation": {"parties": 1}}, "navigation.parties"),
        ({"navigation": {"over_budget": "cut"}}, "navigation.over_budget"),
    ],
)
def test_bad_task_settings_are_refused_with_the_key(extra: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(_config(**extra), "x")


def test_docs_page_holds_the_issue_mapping_table() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "tasks.md").read_text(encoding="utf-8")
    assert list(ISSUE_MAPPING_ENVIRONMENTS) == [B]
    for sq in ISSUE_MAPPING_QUESTIONS:
        assert sq.pass_rule(B) == "No" and not sq.yes_passes(B)
        row = f"| {sq.code} | {sq.title} | {sq.question} | {sq.pass_rule(B)} |"
        assert row in page, row
