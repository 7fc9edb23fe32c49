"""The call plan's cost column: the prices handed in, each row naming its source."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.conditions import Environment
from polistemics.llm.pricing import Price
from polistemics.rubrics import active_rubrics
from polistemics.run.config import JudgeRepeatsConfig, load_config
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_study


def test_rows_cost_with_the_given_price_else_the_registry(tmp_path: Path) -> None:
    config = load_config("demo")
    study = Study(config, tmp_path / "run", log=lambda message: None)
    elections = load_elections(config)
    endpoints = {
        name: endpoint.model_copy(
            update={"price_input_per_mtok": 1.0, "price_output_per_mtok": 3.0}
        )
        for name, endpoint in study.endpoints.items()
    }
    listed = Price("openrouter list of 2026-11-30", 2e-6, 5e-6)
    rows, _ = plan_study(config, elections, endpoints, None, {"local": listed})
    by_model = {row.model: row for row in rows}
    local = by_model["local"]
    assert local.price_source == "openrouter list of 2026-11-30"
    assert local.cost == pytest.approx((local.input_tokens * 2 + local.output_tokens * 5) / 1e6)
    creative = by_model["local-creative"]
    assert creative.price_source == "registry"
    assert creative.cost == pytest.approx(
        (creative.input_tokens * 1 + creative.output_tokens * 3) / 1e6
    )
    unpriced, _ = plan_study(config, elections, study.endpoints, None)
    assert {(row.price_source, row.cost) for row in unpriced} == {("none", None)}


def repeat_plan(tmp_path: Path, **repeats) -> tuple[list, dict]:
    config = load_config("demo")
    config = config.model_copy(update={"judge_repeats": JudgeRepeatsConfig(**repeats)})
    study = Study(config, tmp_path / "run", log=lambda message: None)
    return plan_study(config, load_elections(config), study.endpoints, None)


def test_dry_run_counts_repeat_judge_calls(tmp_path: Path) -> None:
    rows, details = repeat_plan(tmp_path, items=1.0, repeats=2)
    by_stage = {row.stage: row for row in rows}
    # Every item, twice, by the demo's one distinct judge (three seats of one endpoint).
    assert [row.model for row in rows if row.stage == "judge_repeat"] == ["local"]
    assert by_stage["judge_repeat"].calls == 2 * by_stage["judge"].calls
    assert details["judge_repeat_calls_total"] == 2 * details["judge_calls_total"]
    # Three items over six strata of 8, 8, 8, 7, 8, 7 items: one each to the first three strata
    # of 8 by name (equal remainders), judged on their environment's active rubrics.
    _, details = repeat_plan(tmp_path, items=3)
    items = details["items_per_environment"]
    drawn = sorted(name for name in items if items[name] == 8)[:3]
    rubrics = [len(active_rubrics(Environment(name.split("/")[1]))) for name in drawn]
    assert details["judge_repeat_calls_total"] == sum(rubrics) == 7  # Absent: one rubric


def test_dry_run_without_repeats_counts_none(tmp_path: Path) -> None:
    config = load_config("demo")
    study = Study(config, tmp_path / "run", log=lambda message: None)
    rows, details = plan_study(config, load_elections(config), study.endpoints, None)
    assert details["judge_repeat_calls_total"] == 0
    assert all(row.stage != "judge_repeat" for row in rows)
