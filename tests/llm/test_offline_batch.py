"""Reading vLLM / OpenAI batch output lines: each line's custom_id and reply, or what is wrong."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from polistemics.llm import offline_batch
from polistemics.llm.keys import messages_json
from polistemics.llm.offline_batch import PendingCall, read_output
from polistemics.llm.registry import ModelEndpoint

KEY = "a" * 64
FIXTURES = Path(__file__).parents[1] / "fixtures" / "vllm"


def write(tmp_path: Path, *lines: str | bytes) -> Path:
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines))
    return path


def test_the_hand_written_vllm_lines_are_read(tmp_path: Path) -> None:
    ok = (FIXTURES / "output_line.json").read_text().strip()
    for placeholder, value in {
        "@CUSTOM_ID@": KEY,
        "@MODEL@": "m",
        "@CONTENT@": '"Ja."',
        "@PROMPT_TOKENS@": "12",
        "@COMPLETION_TOKENS@": "2",
        "@TOTAL_TOKENS@": "14",
        "@CACHED_TOKENS@": "8",
    }.items():
        ok = ok.replace(placeholder, value)
    error = (FIXTURES / "error_line.json").read_text().strip().replace("@CUSTOM_ID@", KEY)
    first, second = read_output(write(tmp_path, ok, "", error))
    assert (first.number, first.custom_id, first.failure, first.problem) == (1, KEY, None, None)
    assert first.reply["choices"][0]["message"]["content"] == "Ja."
    assert first.reply["usage"]["prompt_tokens_details"] == {"cached_tokens": 8}
    assert second.number == 3 and second.reply is None
    assert second.failure.startswith("error: This model's maximum context length")


@pytest.mark.parametrize(
    ("line", "failure"),
    [
        ({"response": {"status_code": 500, "body": {"error": {"message": "boom"}}}}, "status 500: boom"),
        ({"response": {"status_code": 200, "body": None}}, "the response has no completion body"),
        ({"response": None}, "no response"),
        ({"response": {"status_code": 200, "body": {}}, "error": {"code": "x"}}, "error: x"),
    ],
)  # fmt: skip
def test_lines_without_a_reply_say_why(tmp_path: Path, line: dict, failure: str) -> None:
    (read,) = read_output(write(tmp_path, json.dumps({"custom_id": KEY, **line})))
    assert (read.custom_id, read.reply, read.failure) == (KEY, None, failure)


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"\xff\xfe",
        b"[1]",
        b'{"custom_id": 7}',
        b'{"custom_id": "request-1"}',
        ('{"custom_id": "' + "A" * 64 + '"}').encode(),  # upper-case: not a store key
        b"[" * 100_000,
    ],
)
def test_malformed_lines_are_problems_not_errors(tmp_path: Path, raw: bytes) -> None:
    (read,) = read_output(write(tmp_path, raw))
    assert read.problem is not None and read.custom_id is None


def test_an_over_long_line_is_skipped_to_its_end(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(offline_batch, "MAX_LINE_BYTES", 100)
    ok = json.dumps({"custom_id": KEY, "response": None})
    long, after = read_output(write(tmp_path, "x" * 350, ok))
    assert long.problem == "longer than 100 bytes" and long.number == 1
    assert (after.number, after.custom_id) == (2, KEY)


def test_a_request_line_carries_the_body_the_transport_posts() -> None:
    endpoint = ModelEndpoint(name="e", model="m", base_url="http://127.0.0.1:9/v1")
    messages = '[{"content":"Sys «ü»","role":"system"},{"content":"Q","role":"user"}]'
    call = PendingCall(KEY, "answer", endpoint, 0, messages, "{}", {"model": "m", "seed": 3})
    line = call.request_line()
    assert "«ü»" in line  # as posted: not ASCII-escaped
    assert json.loads(line) == {
        "custom_id": KEY,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "m", "seed": 3, "messages": json.loads(messages)},
    }
    marked = PendingCall(
        KEY, "answer", endpoint.model_copy(update={"cache_control": True}), 0, messages, "{}", {}
    )
    system = json.loads(marked.request_line())["body"]["messages"][0]
    assert system["content"][0]["cache_control"] == {"type": "ephemeral"}


def test_a_batch_endpoint_s_deferred_call_keeps_its_prompt() -> None:
    """A batch endpoint's call comes to ``_call`` without its prompt's JSON (``LLMClient``
    keeps none while a batch runs): the deferred call makes it again from the messages."""
    endpoint = ModelEndpoint(
        name="b", model="m", base_url="http://127.0.0.1:9/v1", execution="batch"
    )
    messages = [{"role": "system", "content": "rules"}, {"role": "user", "content": "q"}]
    client = offline_batch.DeferringClient(store=None)
    result = asyncio.run(client.complete(endpoint, messages, stage="answer"))
    (call,) = client.deferred.values()
    assert result.key == call.key and call.messages_json == messages_json(messages)
    assert json.loads(call.request_line())["body"]["messages"] == messages
