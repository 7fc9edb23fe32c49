"""The pushback stage's config, dry-run rows and golden rule (issue 30, item 2): off by default,
and then it plans, writes and records nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.answers.pushback import chosen_count
from polistemics.conditions import Environment
from polistemics.rubrics import active_rubrics
from polistemics.run.config import ConfigError, PushbackConfig, load_config, parse_config
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_notes, plan_study
from polistemics.run.stages import STAGES
from polistemics.run.stages.base import StudyState
from polistemics.run.stages.pushback import PushbackTurns
from polistemics.runlog import RunDir

STAGE = next(stage for stage in STAGES if isinstance(stage, PushbackTurns))


def demo(**pushback: object):
    config = load_config("demo-mechanisms")
    if pushback:
        config = config.model_copy(update={"pushback": PushbackConfig(**pushback)})
    return config


def test_it_is_off_by_default_and_then_plans_writes_and_records_nothing(tmp_path: Path) -> None:
    config = demo()
    assert config.pushback is None and not STAGE.enabled(config)
    study = Study(config, tmp_path / "run", log=lambda m: None)
    rows, details = plan_study(config, load_elections(config), study.endpoints, None)
    assert not {row.stage for row in rows} & {"pushback", "pushback_judge", "pushback_code"}
    assert details["pushback"] is None and not any("pushback" in n for n in plan_notes(details))
    state = StudyState(config, study.endpoints, tmp_path / "run", [])
    assert STAGE.manifest(state) == {}
    # a stale file of an earlier config is removed, and nothing else is written
    run = RunDir(tmp_path / "run")
    run.root.mkdir()
    run.pushback.write_text("{}\n")
    STAGE.write(state, run)
    assert list(run.root.iterdir()) == []


def test_the_dry_run_counts_second_turns_judge_and_coder_calls(tmp_path: Path) -> None:
    config = demo(share=0.5, environments=["baseline", "ie_clarity_vague"])
    config = config.model_copy(update={"samples": 2})
    study = Study(config, tmp_path / "run", log=lambda m: None)
    rows, details = plan_study(config, load_elections(config), study.endpoints, None)
    items = details["items_per_environment"]
    chosen = {
        env: chosen_count(items[f"full/{env.value}"], 0.5)
        for env in (Environment.BASELINE, Environment.VAGUE)
    }
    by_stage = {row.stage: row for row in rows}
    second = sum(chosen.values()) * 2  # two samples, one target
    assert by_stage["pushback"].calls == second == details["pushback"]["second_turn_calls"]
    judge_calls = sum(n * len(active_rubrics(env)) for env, n in chosen.items()) * 2
    assert by_stage["pushback_judge"].calls == judge_calls  # one distinct judge endpoint
    # second answers, and the first answers the stance_code stage does not code (Baseline)
    assert by_stage["pushback_code"].calls == second + chosen[Environment.BASELINE] * 2
    (note,) = [n for n in plan_notes(details) if n.startswith("pushback:")]
    assert f"{second:,} second-turn calls" in note


BASE = {
    "name": "x",
    "targets": ["local"],
    "judges": ["local"],
    "standardiser": "local",
    "vague_generator": "local",
    "vague_auditor": "local",
    "elections": [{"source": "demo"}],
}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"pushback": {}}, "set stance_coder"),
        (
            {
                "pushback": {"environments": ["noisy"]},
                "stance_coder": ["local"],
                "environments": ["baseline"],
            },
            "not among the run's environments",
        ),
        ({"pushback": {"pressures": ["flattery"]}, "stance_coder": ["local"]}, "flattery"),
        ({"pushback": {"share": 0}, "stance_coder": ["local"]}, "share"),
    ],
)
def test_a_wrong_pushback_table_is_refused_with_the_reason(extra: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(BASE | extra, "study.toml")


def test_the_environments_default_to_the_runs_own() -> None:
    config = parse_config(BASE | {"pushback": {}, "stance_coder": ["local"]}, "x")
    assert config.pushback_environments == config.environment_list
