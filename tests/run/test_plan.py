"""The call plan's cost column: the prices handed in, each row naming its source."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest
from study_helpers import write_study

from polistemics.conditions import Environment
from polistemics.llm.pricing import Price
from polistemics.llm.store import RunStore
from polistemics.rubrics import active_rubrics
from polistemics.run.config import JudgeRepeatsConfig, load_config
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_study
from polistemics.runlog import STORE_FILE
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import polistemic_responder


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


def strict_auditor(request_json: dict) -> str:
    """The test server's answers, except that the Vague audit finds about half the rewrites
    still determinable, so Vague drops observations as a tiny model's audit does."""
    text = polistemic_responder(request_json)
    if text == json.dumps({"determinable": False}):
        digest = hashlib.sha256(json.dumps(request_json["messages"]).encode()).digest()
        return json.dumps({"determinable": digest[0] % 2 == 0})
    return text


def test_dry_run_on_a_finished_run_plans_no_new_call(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=strict_auditor) as server:
        config = load_config(write_study(tmp_path, server.base_url, ablations="[]"))
        study = Study(config, config.run_dir(), log=lambda message: None)
        result = asyncio.run(study.execute(quiet=True))
    elections = load_elections(config)
    run = result.elections[0]
    vague_items = sum(item.environment is Environment.VAGUE for item in run.items)
    assert 0 < vague_items < len(run.evidence)  # Vague dropped observations

    with RunStore(config.run_dir() / STORE_FILE) as store:
        rows, details = plan_study(config, elections, study.endpoints, store)
    assert {row.stage: row.new for row in rows} == {
        "standardise": 0,
        "vague": 0,
        "vague_audit": 0,
        "answer": 0,
        "judge": 0,
    }
    assert details["elections"][run.scoped.election.id]["items_from"] == "store"
    assert details["items_per_environment"]["full/ie_clarity_vague"] == vague_items
    assert details["answers_total"] == len(result.answers)
    # the three judges are one endpoint (same server, model and parameters): one row
    assert [row.model for row in rows if row.stage == "judge"] == ["judge-a"]

    # without the store, the plan estimates from the stances: every observation gets a Vague item
    rows, details = plan_study(config, elections, study.endpoints, None)
    assert details["items_per_environment"]["full/ie_clarity_vague"] == len(run.evidence)
    assert all(row.cached == 0 for row in rows)


def repeat_plan(tmp_path: Path, **repeats) -> tuple[list, dict]:
    config = load_config("demo")
    config = config.model_copy(
        update={
            "judges": ["local", "local", "local"],  # three seats of one endpoint
            "judge_repeats": JudgeRepeatsConfig(**repeats),
        }
    )
    study = Study(config, tmp_path / "run", log=lambda message: None)
    return plan_study(config, load_elections(config), study.endpoints, None)


def test_dry_run_counts_repeat_judge_calls(tmp_path: Path) -> None:
    rows, details = repeat_plan(tmp_path, items=1.0, repeats=2)
    by_stage = {row.stage: row for row in rows}
    # Every item, twice, by the one distinct judge (three seats of one endpoint).
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


def test_judge_calls_count_the_answers_of_every_target(tmp_path: Path) -> None:
    one = load_config("demo").model_copy(update={"judges": ["local"]})
    two = one.model_copy(update={"targets": ["local", "local-creative"]})
    totals = []
    for config in (one, two):
        study = Study(config, tmp_path / "run", log=lambda message: None)
        rows, details = plan_study(config, load_elections(config), study.endpoints, None)
        per_answer = sum(
            n * len(active_rubrics(Environment(name.split("/")[1])))
            for name, n in details["items_per_environment"].items()
        )
        assert details["judge_calls_total"] == per_answer * len(config.targets)
        totals.append(details["judge_calls_total"])
    assert totals[1] == 2 * totals[0]


def test_dry_run_counts_the_mechanism_calls_of_the_demo_mechanisms_preset(tmp_path: Path) -> None:
    config = load_config("demo-mechanisms")
    study = Study(config, tmp_path / "run", log=lambda message: None)
    rows, details = plan_study(config, load_elections(config), study.endpoints, None)
    by_stage = {row.stage: row for row in rows}
    items = details["items_per_environment"]
    contradictory = items["full/ie_consistency_contradiction"]
    coded = sum(items[f"full/{env.value}"] for env in config.coded_environments)
    # 4 parties x 2 statements asked closed book; one target, one sample.
    assert by_stage["prior_probe"].model == "local" and by_stage["prior_probe"].calls == 8
    assert by_stage["stance_code"].model == "local-coder"
    assert by_stage["stance_code"].calls == coded + contradictory + 8
    assert details["stance_code_subjects"] == {"answers": coded + contradictory, "probes": 8}
    assert by_stage["answer"].calls == sum(items.values()) + contradictory
    assert details["elections"]["demo_en"]["items"]["full/contradictory_swapped"] == contradictory
    # Swapped items are not judged: the judge calls are the plain demo's.
    plain = load_config("demo")
    plain_rows, _ = plan_study(plain, load_elections(plain), study.endpoints, None)
    assert by_stage["judge"].calls == next(r for r in plain_rows if r.stage == "judge").calls
    assert {r.stage for r in plain_rows}.isdisjoint({"prior_probe", "stance_code"})


def test_a_coder_panel_counts_one_row_per_distinct_endpoint_and_half_swaps_the_ceiling(
    tmp_path: Path,
) -> None:
    config = load_config("demo-mechanisms").model_copy(
        update={
            "stance_coder": ["local-coder", "local", "local-coder"],
            "contradictory_swapped": "half",
            "prior_probe": False,
        }
    )
    study = Study(config, tmp_path / "run", log=lambda message: None)
    rows, details = plan_study(config, load_elections(config), study.endpoints, None)
    contradictory = details["items_per_environment"]["full/ie_consistency_contradiction"]
    swapped = details["elections"]["demo_en"]["items"]["full/contradictory_swapped"]
    assert swapped == (contradictory + 1) // 2
    coders = [row for row in rows if row.stage == "stance_code"]
    assert [row.model for row in coders] == ["local-coder", "local"]
    assert coders[0].calls == coders[1].calls == details["stance_code_subjects"]["answers"]
    assert details["stance_code_subjects"]["probes"] == 0
    assert all(row.stage != "prior_probe" for row in rows)


def test_the_plan_counts_noisy_items_after_their_drops(tmp_path: Path) -> None:
    """Noisy drops an observation with fewer than four distractor candidates, which the stances
    alone decide: cut the demo election to three statements of two parties (an observation has
    at most one other-party and two own-statement candidates) and the dry run plans no Noisy item
    and no answer or judge call for one, and says what its item line counts."""
    from polistemics.conditions import Variant
    from polistemics.run.plan import plan_notes

    config = load_config("demo")
    (scoped,) = load_elections(config)
    parties = sorted({p.party.id for p in scoped.observations})[:2]
    statements = sorted({p.statement.id for p in scoped.observations})[:3]
    kept = [
        p for p in scoped.observations if p.party.id in parties and p.statement.id in statements
    ]
    assert len(kept) >= 3
    cut = scoped.model_copy(update={"observations": kept})
    study = Study(config, tmp_path / "run", log=lambda message: None)
    rows, details = plan_study(config, [cut], study.endpoints, None)
    items = details["elections"][cut.election.id]["items"]
    assert items[f"{Variant.FULL.value}/{Environment.NOISY.value}"] == 0
    assert items[f"{Variant.FULL.value}/{Environment.BASELINE.value}"] == len(kept)
    assert details["items_per_environment"][f"full/{Environment.NOISY.value}"] == 0
    (line,) = [n for n in plan_notes(details) if n.startswith(cut.election.id)]
    assert "items after drops (from the stances" in line
    assert f"full/{Environment.NOISY.value}=0" in line
