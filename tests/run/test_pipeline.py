"""The whole study end to end on the demo election, against the project's test server."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from scoring_helpers import ITEMS, panel_records, scored_from_a_file, spooled_judges
from study_helpers import write_study

from polistemics.conditions import Environment
from polistemics.judging.parsing_figures import judge_parsing
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study, score_study
from polistemics.runlog import RunDir, spool
from polistemics.scoring.cells import compact_cells
from polistemics.scoring.errors import VerdictError
from polistemics.scoring.verdict_table import score_run
from polistemics.testing import FakeOpenAIServer


def run_study(config_path: Path) -> tuple[Study, object, dict]:
    config = load_config(config_path)
    study = Study(config, config.run_dir(), log=lambda m: None)
    result = asyncio.run(study.execute(quiet=True))
    paths = finish_run(study, result)
    return study, result, paths


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("study")
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url)
        models = tmp_path / "models.toml"  # the target has a display name, the judges none
        models.write_text(
            models.read_text().replace(
                "[models.target]\n", '[models.target]\ndisplay_name = "Target One"\n'
            )
        )
        first = run_study(config)
        requests_first = server.stats().requests
        server.reset_stats()
        second = run_study(config)
        requests_second = server.stats().requests
    return tmp_path, first, second, requests_first, requests_second


def test_every_stage_produces_its_output(finished) -> None:
    tmp_path, (study, result, paths), _, requests, _ = finished
    run = result.elections[0]
    n_obs = len(run.scoped.observations)
    assert n_obs == 30 and len(run.evidence) == n_obs  # the fake standardiser passes every check
    envs = {(i.variant.value, i.environment) for i in run.items}
    assert ("full", Environment.NOISY) in envs and ("anon", Environment.VAGUE) in envs
    assert ("en", Environment.BASELINE) in envs and ("en", Environment.ABSENT) not in envs
    assert len(result.answers) == len(run.items)
    assert all(a.ok for a in result.answers)
    judged_rubrics = {(r.item_key, r.panel_position) for r in result.verdicts}
    assert len(judged_rubrics) == 3 * len(run.items)
    assert requests == result.calls_made  # no faults: one request per call made
    # Three judges that are the same model and parameters share one call per prompt.
    seats: dict[tuple, set[str]] = {}
    for r in result.verdicts:
        seats.setdefault((r.item_key, r.rubric), set()).add(r.call_key)
    assert all(len(keys) == 1 for keys in seats.values())
    for key in ("scores", "cells", "manifest"):
        assert paths[key].is_file()


def test_scores_follow_from_the_cells(finished) -> None:
    tmp_path, (study, result, paths), *_ = finished
    cells = RunDir(tmp_path / "run").read_cells()
    assert set(cells["variant"]) == {"full", "anon", "en"}
    absent = cells[cells["environment"] == "ie_availability_absent"]
    assert set(absent["rubric"]) == {"epistemic_calibration"}
    summary = json.loads(paths["scores"].read_text())
    full = next(s for s in summary if s["variant"] == "full")
    assert 0 < full["emi"] <= 1
    assert set(full["adherence"]) == {e.value for e in Environment}


def test_manifest_records_code_prompts_models_and_costs(finished) -> None:
    tmp_path, (study, result, paths), *_ = finished
    manifest = json.loads(paths["manifest"].read_text())
    assert manifest["config"]["name"] == "pipeline-test"
    assert set(manifest["prompt_template_sha256"]) >= {"task_system", "judge_system"}
    assert manifest["models"]["target"]["model"] == "fake-model"
    assert manifest["totals"]["calls"] == result.calls_made
    stages = {row["stage"] for row in manifest["calls"]}
    assert stages == {"standardise", "vague", "vague_audit", "answer", "judge"}


def test_run_json_and_the_runs_report_name_models_and_elections(finished) -> None:
    """The registry's display name and the source's title are recorded in run.json and name
    the model and the election in the run's own figures (a model without one keeps its id's
    readable form, and run.json no display_name key)."""
    tmp_path, (study, result, paths), *_ = finished
    manifest = json.loads(paths["manifest"].read_text())
    assert manifest["models"]["target"]["display_name"] == "Target One"
    assert "display_name" not in manifest["models"]["judge-a"]
    title = result.elections[0].scoped.election.title
    assert title and manifest["elections"]["demo_en"]["title"] == title
    svg = (tmp_path / "run" / "report" / "figures" / "demo_en_fig02_leaderboard.svg").read_text()
    assert ">Target One<" in svg and f"Overall model performance — {title}" in svg


def test_release_exports_are_written_per_variant(finished) -> None:
    tmp_path, *_ = finished
    export = tmp_path / "run" / "exports" / "demo_en"
    for folder in (export, export / "anon_v1", export / "en_v1"):
        assert (folder / "ground_truth.jsonl").is_file()
        assert (folder / "outputs.jsonl").is_file()
        assert (folder / "scores" / "faithfulness" / "aggregated_scores.jsonl").is_file()


def test_rerun_of_a_finished_run_makes_zero_calls_and_same_results(finished) -> None:
    tmp_path, (_, first, _), (_, second, _), requests_first, requests_second = finished
    assert requests_first > 0
    assert requests_second == 0 and second.calls_made == 0
    assert [a.text for a in second.answers] == [a.text for a in first.answers]
    assert [r.says_yes for r in second.verdicts] == [r.says_yes for r in first.verdicts]
    with RunStore(tmp_path / "run" / "store.sqlite") as store:
        assert store.integrity_check() == "ok"


def test_a_rerun_appends_an_invocation_and_keeps_the_first_ones_record(finished) -> None:
    tmp_path, (_, first, _), (_, second, paths), *_ = finished
    manifest = json.loads(paths["manifest"].read_text())
    runs = manifest["invocations"]
    assert [r["calls_made"] for r in runs] == [first.calls_made, 0] and first.calls_made > 0
    assert runs[0]["started"] <= runs[0]["finished"] <= runs[1]["started"] <= runs[1]["finished"]
    assert set(runs[0]["stage_seconds"]) >= {"standardise", "environments", "answers+judges"}
    assert all(r["polistemics_version"] for r in runs)
    # the top level describes the latest invocation, the one that wrote the file
    assert manifest["started"] == runs[1]["started"]
    assert manifest["stage_seconds"] == runs[1]["stage_seconds"]
    assert manifest["calls_made_this_run"] == 0
    assert manifest["totals"]["calls"] == first.calls_made  # the store still holds every call


def test_score_command_reads_a_run_directory(finished) -> None:
    from typer.testing import CliRunner

    from polistemics.cli import app

    tmp_path, (study, result, paths), *_ = finished
    out = CliRunner().invoke(app, ["score", str(tmp_path / "run"), "--json"])
    assert out.exit_code == 0, out.output
    printed = json.loads(out.stdout)
    expected = [s for s in json.loads(paths["scores"].read_text()) if s["variant"] == "full"]
    assert [round(s["emi"], 12) for s in printed] == [round(s["emi"], 12) for s in expected]
    anon = CliRunner().invoke(app, ["score", str(tmp_path / "run"), "--variant", "anon", "--json"])
    assert anon.exit_code == 0 and set(json.loads(anon.stdout)[0]["adherence"]) == {
        "baseline",
        "ie_clarity_vague",
    }


def test_judging_after_answers_in_prompt_order_gives_the_same_results(finished, tmp_path) -> None:
    _, (_, overlapped, _), *_ = finished
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, overlap_judging="false")
        _, serial, _ = run_study(config)
    assert [a.text for a in serial.answers] == [a.text for a in overlapped.answers]
    assert [(r.item_key, r.panel_position, r.rubric, r.says_yes) for r in serial.verdicts] == [
        (r.item_key, r.panel_position, r.rubric, r.says_yes) for r in overlapped.verdicts
    ]


def _copy_store(run_dir: Path, into: Path) -> None:
    into.mkdir()
    with (
        sqlite3.connect(run_dir / "store.sqlite") as source,
        sqlite3.connect(into / "store.sqlite") as target,
    ):
        source.backup(target)


def test_a_failed_export_stops_the_finish_with_its_own_error(
    finished, tmp_path, monkeypatch
) -> None:
    _, (study, result, _), *_ = finished

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RunDir, "write_release_answers", disk_full)
    run_dir = tmp_path / "run"
    _copy_store(result.run_dir, run_dir)
    with pytest.raises(OSError, match="No space left on device"):
        finish_run(study, replace(result, run_dir=run_dir))
    assert not (run_dir / "run.json").exists()


def test_a_spooled_file_is_scored_in_chunks_as_all_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "RECORDS_PER_READ", 2)  # chunks cut through answers
    records = panel_records(ITEMS, 3)
    scored = scored_from_a_file(records, ITEMS, tmp_path, 3)
    whole = score_run(records, ITEMS, panel_size=3, countries={})
    pd.testing.assert_frame_equal(scored.cells, whole.cells)
    # the streamed tally's counts come compact (``scoring.cells.compact_cells``)
    pd.testing.assert_frame_equal(scored.tally.counts, compact_cells(whole.tally.counts))
    assert scored.tally.judge_totals is not None  # for the judge analyses, from the same pass
    # Out of answer blocks: tallied all at once, the same cells.
    shuffled = [records[i] for i in (*range(1, len(records), 2), *range(0, len(records), 2))]
    again = scored_from_a_file(shuffled, ITEMS, tmp_path, 3)
    assert again.tally.judge_totals is None
    pd.testing.assert_frame_equal(
        again.cells, score_run(shuffled, ITEMS, panel_size=3, countries={}).cells
    )


def test_the_scorings_pass_over_the_file_counts_run_jsons_parsing_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "RECORDS_PER_READ", 2)
    records = panel_records(ITEMS, 3)
    records[0] = records[0].model_copy(update={"attempts": 2, "parsed": False})
    result = SimpleNamespace(items=ITEMS, elections=[], verdicts=spooled_judges(records, tmp_path))
    score_study(result, SimpleNamespace(judges=[None] * 3))
    assert result.parsing_counts.complete
    judges = {name: ModelEndpoint(name=name, model=name) for name in {r.judge for r in records}}
    figures = judge_parsing([], judges, counted=result.parsing_counts)
    assert figures == judge_parsing(records, judges)
    assert sum(row["missing"] for row in figures["by_judge"]) == 1


def test_a_spooled_file_failing_a_check_raises_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "RECORDS_PER_READ", 2)
    records = panel_records(ITEMS, 3)
    with pytest.raises(VerdictError, match="more than one verdict") as whole:
        score_run([*records, records[-1]], ITEMS, panel_size=3, countries={})
    with pytest.raises(VerdictError, match="more than one verdict") as chunked:
        scored_from_a_file([*records, records[-1]], ITEMS, tmp_path, 3)
    assert str(chunked.value) == str(whole.value)
    with pytest.raises(VerdictError, match="the panel size is 2"):
        scored_from_a_file(records, ITEMS, tmp_path, 2)
