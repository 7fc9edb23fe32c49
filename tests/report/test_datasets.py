from __future__ import annotations

import json

import pandas as pd
import pytest

from polistemics.analyses.fidelity import fidelity_table
from polistemics.conditions import Environment, Variant
from polistemics.report.datasets import (
    calls_table,
    environment_counts,
    invocation_table,
    judging_summary,
    observation_counts,
    stage_times,
    standardisation_table,
)
from polistemics.report.inputs import AnswerView
from polistemics.report.run_inputs import load_run_inputs
from polistemics.runlog import RunManifest, Unreadable


@pytest.fixture(scope="module")
def demo_inputs(finished_demo_run):
    run_dir, _ = finished_demo_run
    return load_run_inputs(run_dir)


def test_manifest_tables(demo_inputs) -> None:
    manifest = demo_inputs.manifest
    table5 = standardisation_table(manifest).set_index("metric")["value"]
    stats = manifest.elections["demo_en"].standardisation
    assert table5["Final benchmark size"] == stats["final_size"]
    assert table5["Excluded (missing rationale)"] == stats["excluded_missing_rationale"]
    calls = calls_table(manifest)
    assert set(calls["stage"]) == {row["stage"] for row in manifest.calls}
    assert calls["calls"].sum() == manifest.totals["calls"]
    assert set(stage_times(manifest).table["stage"]) == set(manifest.stage_seconds)
    assert "judge panel" in set(judging_summary(manifest)["what"])
    for build in (standardisation_table, calls_table, stage_times, judging_summary):
        assert build(None) is None


def test_judging_summary_names_the_judge_prompt_used() -> None:
    def prompt(models: dict) -> str:
        manifest = RunManifest.model_validate({"judging": {"panel": ["a", "b"]}, "models": models})
        return judging_summary(manifest).set_index("what")["value"]["judge prompt"]

    assert prompt({"a": {"params": {}}, "b": {"params": {}}}) == "the paper's (Fig. 12)"
    variant = {"params": {"judge_prompt": "rubric-last"}}
    assert prompt({"a": variant, "b": variant}) == "rubric-last (opt-in local variant)"
    assert prompt({"a": {"params": {}}, "b": variant}) == (
        "the paper's (Fig. 12); rubric-last (opt-in local variant)"
    )


def test_table9_from_manifest_and_derived_from_items_agree(demo_inputs) -> None:
    from_manifest, source = environment_counts(demo_inputs.manifest, demo_inputs.items)
    derived, derived_source = environment_counts(None, demo_inputs.items)
    assert source == "run.json" and "derived" in derived_source
    keys = ["election_id", "variant", "environment"]
    left = from_manifest.set_index(keys).sort_index()
    right = derived.set_index(keys).sort_index()
    assert left["kept"].to_dict() == right["kept"].to_dict()
    assert left["dropped"].to_dict() == right["dropped"].to_dict()


def test_observation_counts_count_failed_answers(demo_inputs) -> None:
    answers = list(demo_inputs.answers)
    answers[0] = AnswerView(answers[0].item, answers[0].model, 0, None, "timeout")
    table = observation_counts(answers, demo_inputs.cells)
    item = answers[0].item
    row = table[
        (table["variant"] == item.variant.value) & (table["environment"] == item.environment.value)
    ].iloc[0]
    assert row["failed_answers"] == 1
    full_baseline = table[
        (table["variant"] == Variant.FULL.value)
        & (table["environment"] == Environment.BASELINE.value)
    ]
    assert int(full_baseline["observations"].iloc[0]) == int(
        full_baseline["scored_answers"].iloc[0]
    )


def test_fidelity(demo_inputs) -> None:
    table, reason = fidelity_table(demo_inputs.evidence)
    assert reason is None and list(table["language"]) == ["en"]
    row = table.iloc[0]
    assert row["items"] == len(demo_inputs.evidence)
    assert row["median_tokens_standardised"] > 0
    assert fidelity_table(None) == (None, "no standardised evidence")
    french = [
        e.model_copy(update={"position": e.position.model_copy(update={"language": "French"})})
        for e in demo_inputs.evidence[:2]
    ]
    table, reason = fidelity_table(french)
    assert table is None and "French" in reason


def test_judge_parsing_table_reads_run_json_and_shows_hostile_values_as_text() -> None:
    from polistemics.report.datasets import judge_parsing_table
    from polistemics.report.sections import _judge_parsing

    row = {
        "judge": "mimo",
        "model": "xiaomi/mimo-v2.5",
        "output_mode": "tool",
        "verdict_sets": 1200,
        "panel_calls": 1203,
        "asked_again": 3,
        "http_attempts": 1210,
        "client_retries": 7,
        "call_failed": 2,
        "unreadable": 1,
        "missing": 3,
        "missing_share": 0.0025,
        "possibly_planted": 4,
        "unexpected": "dropped",
    }
    hostile = {"judge": "<b>x</b>", "verdict_sets": "many", "missing_share": float("inf")}
    manifest = {"judge_parsing": {"by_judge": [row, hostile, "not a row"]}}
    table = judge_parsing_table(RunManifest.model_validate(manifest))
    assert list(table["judge"]) == ["mimo", "<b>x</b>"] and "unexpected" not in table
    view = _judge_parsing(table)
    first, second = ([cell.text for cell in cells] for cells in view.rows)
    assert first[:4] == ["mimo", "xiaomi/mimo-v2.5", "tool", "1,200"]
    assert first[-2:] == ["0.25%", "4"]
    assert second[0] == "<b>x</b>" and second[3] == "many" and second[-2] == "inf"
    assert judge_parsing_table(None) is None
    for absent in ({}, {"judge_parsing": {"by_judge": []}}, {"judge_parsing": "x"}):
        assert judge_parsing_table(RunManifest.model_validate(absent)) is None


def test_answers_that_planted_verdicts_are_counted_per_model_as_text() -> None:
    from polistemics.report.datasets import planted_by_model_table
    from polistemics.report.labels import ModelLabels
    from polistemics.report.sections import _planted_by_model

    found = {"gpt": {"answers": 3, "verdict_sets": 7}, "<i>m</i>": {"answers": "x"}, "bad": 5}
    manifest = RunManifest.model_validate({"judge_parsing": {"possibly_planted_by_model": found}})
    table = planted_by_model_table(manifest)
    assert list(table["model"]) == ["gpt", "<i>m</i>"]  # an entry that is no mapping is dropped
    view = _planted_by_model(table, ModelLabels({"gpt": "GPT-5.4"}))
    rows = [[cell.text for cell in cells] for cells in view.rows]
    assert rows == [["GPT-5.4", "3", "7"], ["<i>m</i>", "x", "–"]]
    assert planted_by_model_table(None) is None
    assert planted_by_model_table(RunManifest.model_validate({"judge_parsing": {}})) is None


def test_stage_times_are_those_of_the_invocation_that_made_the_calls() -> None:
    first = {
        "started": "2026-01-01T10:00:00+00:00",
        "finished": "2026-01-01T10:11:00+00:00",
        "calls_made": 176,
        "stage_seconds": {"standardise": 46.0, "answers+judges": 424.0},
    }
    rerun = {
        "started": "2026-01-02T10:00:00+00:00",
        "finished": "2026-01-02T10:00:05+00:00",
        "calls_made": 0,
        "stage_seconds": {"standardise": 0.01, "answers+judges": 0.2},
    }
    manifest = RunManifest.model_validate(
        {"stage_seconds": rerun["stage_seconds"], "invocations": [first, rerun]}
    )
    times = stage_times(manifest)
    assert (times.invocation, times.invocations, times.calls_made) == (1, 2, 176)
    assert times.table.set_index("stage")["seconds"].to_dict() == first["stage_seconds"]
    history = invocation_table(manifest)
    assert history["calls_made"].tolist() == [176, 0]
    assert history["seconds"].tolist() == [470.0, pytest.approx(0.21)]
    # a run.json written before the history existed is one invocation
    legacy = {"started": "s", "finished": "f", "stage_seconds": {"a": 1.0}}
    assert stage_times(RunManifest.model_validate(legacy)).invocations == 1
    junk = RunManifest.model_validate({"invocations": "junk"})
    assert invocation_table(None) is None and stage_times(junk) is None


def test_the_run_json_a_run_writes_is_read_whole(finished_demo_run) -> None:
    """Every part ``run/manifest.py`` writes fits ``RunManifest``: none reads as unknown."""
    run_dir, _ = finished_demo_run
    raw = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    manifest = RunManifest.model_validate(raw)
    unread = [
        key
        for key, value in raw.items()
        if value is not None and getattr(manifest, key, None) is None
    ]
    assert unread == [] and not isinstance(manifest.judge_repeats, Unreadable)
    assert [i.model_dump(mode="json") for i in manifest.invocations] == raw["invocations"]
    assert manifest.config.name == raw["config"]["name"]
    assert list(manifest.models) == list(raw["models"])
    assert list(manifest.elections) == list(raw["elections"])


def test_the_fidelity_table_is_drawn_as_read_back(demo_run_copy, tmp_path) -> None:
    """App. D.4's fidelity is an analysis table of the run's tables/: a value or a reason
    changed in the file shows in the "Data and cost" section."""
    from polistemics.analyses.fidelity import FIDELITY, FIDELITY_UNAVAILABLE
    from polistemics.report.build import build_report
    from polistemics.report.content import ReportOptions
    from polistemics.runlog import RunDir

    def section(page) -> str:
        html = page.read_text(encoding="utf-8")
        return html.split('id="data-cost"', 1)[1].split("</section>", 1)[0]

    options = ReportOptions(bootstrap_resamples=20, figure_formats=("svg",))
    run = RunDir(demo_run_copy)
    build_report(demo_run_copy, tmp_path / "a", options)  # the run's tables/ current
    table = FIDELITY.read(run.tables)
    assert list(table["language"]) == ["en"]
    FIDELITY.write(table.assign(items=4321), run.tables)
    assert "<bdi>4,321</bdi>" in section(build_report(demo_run_copy, tmp_path / "b", options))
    FIDELITY.path(run.tables).unlink()
    FIDELITY_UNAVAILABLE.write(pd.DataFrame({"reason": ["doctored <i>why</i>"]}), run.tables)
    shown = section(build_report(demo_run_copy, tmp_path / "c", options))
    assert "doctored &lt;i&gt;why&lt;/i&gt;" in shown and 'id="fidelity"' not in shown


def test_calls_table_splits_input_tokens_into_cached_and_uncached() -> None:
    row = {"stage": "judge", "endpoint": "j", "model": "m", "calls": 2, "input_tokens": 100}
    manifest = RunManifest.model_validate(
        {"calls": [{**row, "cached_input_tokens": 60, "uncached_input_tokens": 40}]}
    )
    (split,) = calls_table(manifest).to_dict("records")
    assert (split["input_tokens"], split["cached_input_tokens"]) == (100, 60)
    assert split["uncached_input_tokens"] == 40
    # A run recorded before the split: the columns are there, empty.
    (old,) = calls_table(RunManifest.model_validate({"calls": [row]})).to_dict("records")
    assert old["cached_input_tokens"] is None and old["uncached_input_tokens"] is None
