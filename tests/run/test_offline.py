"""Offline engines end to end: a study's calls exported as vLLM batch input, answered in vLLM's
batch output format (the hand-written line of ``tests/fixtures/vllm``), imported, and a later
``polistemics run`` finds them done; bad lines are refused and counted, never stored.

The "engine" is the project's test server: each exported request body is posted to it as it
stands, and its reply is put into the fixture's output line, so the scores can be compared with
the same study run online against the same server.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest
from study_helpers import write_study
from typer.testing import CliRunner

from polistemics.cli import build_app
from polistemics.llm.offline_batch import PendingCall
from polistemics.llm.store import RunStore
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.offline import (
    REFUSED_DUPLICATE,
    REFUSED_FAILED,
    REFUSED_MALFORMED,
    REFUSED_MODEL,
    REFUSED_STORED,
    REFUSED_UNKNOWN,
    import_results,
    pending_calls,
)
from polistemics.run.pipeline import Study
from polistemics.runlog import RunDir
from polistemics.testing import FakeOpenAIServer

FIXTURES = Path(__file__).parents[1] / "fixtures" / "vllm"
NOWHERE = "http://127.0.0.1:9/v1"  # the offline target's entry: never called


def quiet(line: str) -> None:
    return None


def write_offline_study(tmp_path: Path, server: FakeOpenAIServer) -> Path:
    """The helpers' study, its target an entry no request ever reaches (a GPU cluster's vLLM)."""
    config = write_study(tmp_path, server.base_url)
    models = tmp_path / "models.toml"
    text = models.read_text()
    head, rest = text.split("[models.judge-a]", 1)
    models.write_text(head.replace(server.base_url, NOWHERE) + "[models.judge-a]" + rest)
    return config


def output_line(call: PendingCall, reply: dict) -> str:
    """The fixture's vLLM output line, filled with the reply the server gave to the request."""
    usage = reply["usage"]
    fields = {
        "@CUSTOM_ID@": call.key,
        "@MODEL@": reply["model"],
        "@CONTENT@": json.dumps(reply["choices"][0]["message"]["content"]),
        "@PROMPT_TOKENS@": str(usage["prompt_tokens"]),
        "@COMPLETION_TOKENS@": str(usage["completion_tokens"]),
        "@TOTAL_TOKENS@": str(usage["total_tokens"]),
        "@CACHED_TOKENS@": str(usage["prompt_tokens_details"]["cached_tokens"]),
    }
    line = (FIXTURES / "output_line.json").read_text().strip()
    for placeholder, value in fields.items():
        line = line.replace(placeholder, value)
    return line


def serve(server: FakeOpenAIServer, call: PendingCall) -> dict:
    """What the engine does with one input line: run its body as it stands."""
    body = json.loads(call.request_line())["body"]
    request = urllib.request.Request(
        server.base_url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def run_offline_until_done(config_path: Path, server: FakeOpenAIServer, tmp_path: Path) -> int:
    """Export, serve and import every pending call, round after round, until none is left."""
    config = load_config(config_path)
    run_dir = config.run_dir()
    rounds = 0
    while pending := asyncio.run(pending_calls(config, run_dir, quiet)):
        rounds += 1
        assert rounds < 20, "the offline rounds do not converge"
        out = tmp_path / f"round-{rounds}.jsonl"
        out.write_text("".join(output_line(c, serve(server, c)) + "\n" for c in pending.values()))
        imported = import_results(config, run_dir, out, quiet)
        assert (imported.stored, dict(imported.refused)) == (len(pending), {})
    return rounds


def run_online(config_path: Path) -> tuple[Study, object]:
    config = load_config(config_path)
    study = Study(config, config.run_dir(), log=quiet)
    result = asyncio.run(study.execute(quiet=True))
    finish_run(study, result)
    return study, result


@pytest.fixture(scope="module")
def offline_and_online(tmp_path_factory: pytest.TempPathFactory):
    offline_dir = tmp_path_factory.mktemp("offline")
    online_dir = tmp_path_factory.mktemp("online")
    with FakeOpenAIServer() as server:
        config = write_offline_study(offline_dir, server)
        rounds = run_offline_until_done(config, server, offline_dir)
        served = server.stats().requests
        cached_reported = server.prompt_cache.tokens
        server.reset_stats()
        _, offline = run_online(config)  # every call is in the store: no request
        requests_after = server.stats().requests
    with FakeOpenAIServer() as server:
        _, online = run_online(write_study(online_dir, server.base_url))
    return offline_dir, offline, online, rounds, served, cached_reported, requests_after


def test_a_study_run_offline_needs_no_request_afterwards_and_scores_as_online(
    offline_and_online,
) -> None:
    _, offline, online, rounds, served, _, requests_after = offline_and_online
    assert rounds >= 3  # early stages, then answers, then the judges on them
    assert served > 0 and requests_after == 0 and offline.calls_made == 0
    assert [a.text for a in offline.answers] == [a.text for a in online.answers]
    assert len(offline.scored.cells) > 0
    assert offline.scored.cells.equals(online.scored.cells)


def test_imported_tokens_and_cached_tokens_are_the_engine_s_exactly(offline_and_online) -> None:
    run_dir, offline, _, _, served, cached_reported, _ = offline_and_online
    with RunStore(RunDir(run_dir / "run").store) as store:
        stats = store.call_stats()
        assert sum(r["calls"] for r in stats) == served
        assert sum(r["cached_input_tokens"] for r in stats) == cached_reported > 0
    manifest = json.loads(RunDir(run_dir / "run").manifest.read_text())
    assert manifest["totals"]["cached_input_tokens"] == cached_reported
    assert {r["stage"]: r["cached_input_tokens"] for r in manifest["calls"]} == {
        r["stage"]: r["cached_input_tokens"] for r in stats
    }


# ---- the commands and bad input -------------------------------------------------------------


@pytest.fixture
def study_with_answers_pending(tmp_path: Path):
    """A study whose early stages are stored, its answers not yet (they wait for the engine)."""
    with FakeOpenAIServer() as server:
        config_path = write_offline_study(tmp_path, server)
        config = load_config(config_path)
        run_dir = config.run_dir()
        while True:
            pending = asyncio.run(pending_calls(config, run_dir, quiet))
            early = [c for c in pending.values() if c.stage != "answer"]
            if not early:
                break
            out = tmp_path / "early.jsonl"
            out.write_text("".join(output_line(c, serve(server, c)) + "\n" for c in early))
            import_results(config, run_dir, out, quiet)
        yield config_path, run_dir, server, [c for c in pending.values() if c.stage == "answer"]


def cli(*args: str):
    return CliRunner().invoke(build_app(["batch"]), ["batch", *args], catch_exceptions=False)


def test_export_writes_the_online_request_bodies_keyed_by_store_key(
    study_with_answers_pending, tmp_path: Path
) -> None:
    config_path, run_dir, _, answers = study_with_answers_pending
    out = tmp_path / "answers.jsonl"
    result = cli(
        "export", str(run_dir), "--stage", "answers", "--endpoint", "target",
        "--config", str(config_path), "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"{len(answers):,} requests written" in result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["custom_id"] for line in lines] == [c.key for c in answers]
    for line, call in zip(lines, answers, strict=True):
        assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
        # The body the online call would post: its parameters and the prompt as stored.
        assert line["body"] == {**call.body, "messages": json.loads(call.messages_json)}
        assert line["body"]["model"] == "fake-model" and line["body"]["temperature"] == 0.0


def test_an_unknown_stage_or_endpoint_is_a_user_error(study_with_answers_pending) -> None:
    config_path, run_dir, *_ = study_with_answers_pending
    bad_stage = cli("export", str(run_dir), "--stage", "nope", "--endpoint", "target",
                    "--config", str(config_path))  # fmt: skip
    bad_endpoint = cli("export", str(run_dir), "--stage", "answer", "--endpoint", "nope",
                       "--config", str(config_path))  # fmt: skip
    assert bad_stage.exit_code == bad_endpoint.exit_code == 2
    assert "unknown stage 'nope'" in bad_stage.output
    assert "'nope' is not a model of this study" in bad_endpoint.output


def test_bad_lines_are_refused_counted_and_never_stored(
    study_with_answers_pending, tmp_path: Path
) -> None:
    config_path, run_dir, server, answers = study_with_answers_pending
    good, duplicated, failed, other_model, *rest = answers
    replies = {c.key: serve(server, c) for c in answers[:4]}
    with RunStore(RunDir(run_dir).store) as store:
        stored_key = next(iter(store.call_keys()))
        before = store.count_calls()
    unknown = "f" * 64
    error_line = (FIXTURES / "error_line.json").read_text().strip()
    wrong_model = json.loads(output_line(other_model, replies[other_model.key]))
    wrong_model["response"]["body"]["model"] = "another/model"
    lines = [
        output_line(good, replies[good.key]),
        output_line(duplicated, replies[duplicated.key]),
        output_line(duplicated, replies[duplicated.key]),
        error_line.replace("@CUSTOM_ID@", failed.key),
        json.dumps(wrong_model),
        output_line(good, replies[good.key]).replace(good.key, unknown),
        output_line(good, replies[good.key]).replace(good.key, stored_key),
        output_line(good, replies[good.key]).replace(good.key, "request-1"),
        '{"custom_id": ',
        "[1, 2]",
        "",
    ]
    out = tmp_path / "mixed.jsonl"
    out.write_text("\n".join(lines) + "\n")
    result = cli("import", str(run_dir), str(out), "--config", str(config_path))
    assert result.exit_code == 0, result.output
    assert "10 lines read: 1 results stored, 0 stored as failed calls" in result.output
    assert f"refused 2: {REFUSED_DUPLICATE} (lines 2, 3)" in result.output
    assert f"refused 3: {REFUSED_MALFORMED} (lines 8, 9, 10)" in result.output
    for reason, line in [
        (REFUSED_FAILED, 4),
        (REFUSED_MODEL, 5),
        (REFUSED_UNKNOWN, 6),
        (REFUSED_STORED, 7),
    ]:
        assert f"refused 1: {reason} (lines {line})" in result.output
    with RunStore(RunDir(run_dir).store) as store:
        assert store.count_calls() == before + 1
        assert (
            store.get_call(good.key).text == replies[good.key]["choices"][0]["message"]["content"]
        )
        assert all(store.get_call(c.key) is None for c in (duplicated, failed, other_model))
        assert store.get_call(unknown) is None


def test_a_result_whose_prompt_changed_since_export_is_refused(
    study_with_answers_pending, tmp_path: Path
) -> None:
    config_path, run_dir, server, answers = study_with_answers_pending
    exported = answers[:3]
    out = tmp_path / "old.jsonl"
    out.write_text("".join(output_line(c, serve(server, c)) + "\n" for c in exported))
    # The target's entry changes after the export (a longer max_tokens): the same items now
    # make other calls, under other keys.
    models = config_path.parent / "models.toml"
    models.write_text(
        models.read_text().replace("[models.target]\n", "[models.target]\nmax_tokens = 2000\n", 1)
    )
    with RunStore(RunDir(run_dir).store) as store:
        before = store.count_calls()
    imported = import_results(load_config(config_path), run_dir, out, quiet)
    assert imported.stored == 0 and imported.refused == {REFUSED_UNKNOWN: 3}
    with RunStore(RunDir(run_dir).store) as store:
        assert store.count_calls() == before
    now_pending = asyncio.run(pending_calls(load_config(config_path), run_dir, quiet))
    assert not {c.key for c in exported} & set(now_pending)


def test_a_finished_run_s_own_config_is_used_when_none_is_given(
    offline_and_online, tmp_path: Path
) -> None:
    run_dir = offline_and_online[0] / "run"
    out = tmp_path / "judge.jsonl"
    result = cli(
        "export", str(run_dir), "--stage", "judge", "--endpoint", "judge-a", "-o", str(out)
    )
    assert result.exit_code == 0, result.output
    assert "0 requests written" in result.output and out.read_text() == ""


def test_without_run_json_or_store_the_commands_say_what_is_missing(tmp_path: Path) -> None:
    empty = tmp_path / "nothing"
    exported = cli("export", str(empty), "--stage", "answers", "--endpoint", "target")
    assert exported.exit_code == 2 and "no run.json yet" in exported.output
    results = tmp_path / "out.jsonl"
    results.write_text("")
    imported = cli("import", str(empty), str(results), "--config", "demo")
    assert imported.exit_code == 2 and "no run store here" in imported.output
    assert not empty.exists()


def test_export_counts_the_calls_it_leaves_for_other_files(
    study_with_answers_pending, tmp_path: Path
) -> None:
    config_path, run_dir, _, answers = study_with_answers_pending
    result = cli(
        "export", str(run_dir), "--stage", "judge", "--endpoint", "judge-a",
        "--config", str(config_path), "-o", str(tmp_path / "judge.jsonl"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    # No answer is in yet, so no judge call can be made; the answers are what is pending.
    assert "0 requests written" in result.output
    assert f"also pending (not in this file): {len(answers):,} answer on target" in result.output
