"""``run.json`` read as ``RunManifest``: the writer's file whole, and an edited or old file
without an error, each part that does not fit read as unknown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polistemics.runlog import RunDir, RunFileError, RunManifest, Unreadable

WRITTEN = {
    "polistemics_version": "0.1.0",
    "git_revision": None,
    "started": "2026-01-02T10:00:00+00:00",
    "finished": "2026-01-02T10:05:00+00:00",
    "config": {
        "name": "study",
        "elections": [{"source": "demo", "scope": "demo"}],
        "targets": ["t"],
        "judges": ["a", "b", "c"],
        "ablations": [],
        "seed": 0,
    },
    "prompt_template_sha256": {"judge.j2": "0123"},
    "models": {"a": {"model": "m", "provider": "openai", "params": {"temperature": 0.0}}},
    "seed": 0,
    "stage_seconds": {"answers+judges": 1.5},
    "calls_made_this_run": 12,
    "invocations": [
        {"started": "s1", "finished": "f1", "calls_made": 12, "stage_seconds": {"a": 1.0}},
        {"started": "s2", "finished": "f2", "calls_made": 0},
    ],
    "calls": [{"stage": "judge", "endpoint": "a", "calls": 12}],
    "totals": {"calls": 12, "cost_usd": 0.0},
    "elections": {
        "e1": {
            "counts": {"parties": 3},
            "standardisation": {"final_size": 10, "final_by_language": {"de": 10}},
            "environments": [{"variant": "full", "environment": "baseline", "kept": 10}],
            "vague": {"generated": 4},
        }
    },
    "judging": {"panel": ["a", "b", "c"], "excluded_items": 2, "ties": 1},
    "judge_parsing": {"by_judge": [{"judge": "a", "verdict_sets": 4}], "by_output_mode": []},
    "judge_repeats": None,
    "stance_coding": None,
    "added_later": {"kept": True},
}


def test_the_writers_manifest_reads_whole_and_keeps_unknown_keys() -> None:
    manifest = RunManifest.model_validate(WRITTEN)
    assert manifest.config.name == "study" and manifest.panel_judges == ["a", "b", "c"]
    assert manifest.config.elections[0].source == "demo" and manifest.config.ablations == []
    assert manifest.models["a"].params == {"temperature": 0.0}
    assert manifest.elections["e1"].standardisation["final_size"] == 10
    assert manifest.elections["e1"].environments[0].kept == 10
    assert manifest.judging.excluded_items == 2 and manifest.judge_parsing.by_judge[0].judge == "a"
    assert manifest.judge_repeats is None and manifest.totals["calls"] == 12
    assert [i.calls_made for i in manifest.invocations] == [12, 0]
    assert manifest.calling_invocation()[0] == 0  # the one that made the calls
    assert manifest.model_extra == {"added_later": {"kept": True}}


@pytest.mark.parametrize(
    ("edit", "check"),
    [
        ({"config": "x"}, lambda m: m.config is None and m.panel_judges == []),
        ({"config": {"judges": "abc"}}, lambda m: m.config.judges is None),
        ({"config": {"judges": [1, 2]}}, lambda m: m.panel_judges == []),
        (
            {"config": {"elections": [3, {"source": "demo"}]}},
            lambda m: len(m.config.elections) == 1,
        ),
        ({"models": [1]}, lambda m: m.models is None),
        ({"models": {"a": 3, "b": {"model": "m"}}}, lambda m: list(m.models) == ["b"]),
        ({"elections": {"e": "x", "f": {}}}, lambda m: list(m.elections) == ["f"]),
        (
            {"elections": {"e": {"environments": ["x", {"kept": 1}]}}},
            lambda m: len(m.elections["e"].environments) == 1,
        ),
        ({"calls": {"not": "a list"}}, lambda m: m.calls is None),
        ({"judging": [1]}, lambda m: m.judging is None),
        ({"judge_parsing": "x"}, lambda m: m.judge_parsing is None),
        (
            {"judge_parsing": {"by_judge": ["x", {"judge": 1}]}},
            lambda m: len(m.judge_parsing.by_judge) == 1,
        ),
        ({"judge_repeats": {"overall": "x"}}, lambda m: isinstance(m.judge_repeats, Unreadable)),
        ({"invocations": ["junk", {"started": 1}, None]}, lambda m: m.invocations == []),
    ],
)
def test_an_edited_part_reads_as_unknown_and_the_rest_stays(edit: dict, check) -> None:
    manifest = RunManifest.model_validate(WRITTEN | edit)
    assert check(manifest)
    assert manifest.totals == WRITTEN["totals"]  # the untouched parts are read as written


def test_an_old_manifest_without_the_history_counts_as_one_invocation() -> None:
    old = {"started": "s", "finished": "f", "calls_made_this_run": 7, "stage_seconds": {"a": 2.0}}
    [only] = RunManifest.model_validate(old).invocations
    assert (only.calls_made, only.stage_seconds) == (7, {"a": 2.0})
    assert RunManifest.model_validate({}).invocations == []


@pytest.mark.parametrize("value", [[1, 2], "text", None, 3])
def test_anything_but_an_object_reads_as_an_empty_manifest(value: object) -> None:
    manifest = RunManifest.model_validate(value)
    assert manifest.config is None and manifest.invocations == []


def test_run_dir_reads_the_file_and_refuses_only_what_is_not_json(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    assert run.read_manifest() is None
    run.manifest.write_text(json.dumps(WRITTEN), encoding="utf-8")
    assert run.read_manifest() == RunManifest.model_validate(WRITTEN)
    run.manifest.write_text("{not json", encoding="utf-8")
    with pytest.raises(RunFileError, match="run.json: invalid JSON"):
        run.read_manifest()
    run.manifest.write_bytes(b"\xff\xfe")
    with pytest.raises(RunFileError, match="run.json: invalid JSON"):
        run.read_manifest()
