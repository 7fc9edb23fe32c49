"""The batch file format: input lines, and output lines refused unless
their custom_id is one that was sent, seen once, on a well-formed line."""

from __future__ import annotations

import json

import pytest

from polistemics.llm.batch.wire import read_output, request_line
from polistemics.llm.keys import messages_json

KEY_A, KEY_B, KEY_C = "a" * 64, "b" * 64, "c" * 64


def ok_line(custom_id: object, text: str = "hi") -> bytes:
    body = {"choices": [{"message": {"content": text}, "finish_reason": "stop"}]}
    return json.dumps(
        {"id": "r", "custom_id": custom_id, "response": {"status_code": 200, "body": body}}
    ).encode()


def test_a_request_line_is_openais_shape_with_the_messages_spliced_in() -> None:
    messages = [{"role": "user", "content": 'say "hi"\n'}]
    line = request_line(KEY_A, {"model": "m", "temperature": 0.0}, messages_json(messages))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {
        "custom_id": KEY_A,
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "m", "temperature": 0.0, "messages": messages},
    }


def test_usable_lines_become_results() -> None:
    error = json.dumps(
        {
            "custom_id": KEY_B,
            "response": None,
            "error": {"code": "batch_expired", "message": "late"},
        }
    ).encode()
    read = read_output([ok_line(KEY_A) + b"\n", error + b"\n\n"], {KEY_A, KEY_B, KEY_C})
    assert read.results[KEY_A].status_code == 200 and read.results[KEY_A].ran
    assert not read.results[KEY_B].ran and read.results[KEY_B].error == "late"
    assert KEY_C not in read.results  # no line: missing
    assert sum(read.refused.values()) == 0


@pytest.mark.parametrize(
    ("lines", "refused"),
    [
        ([ok_line("d" * 64)], {"unknown": 1}),
        ([ok_line(KEY_A, "one"), ok_line(KEY_A, "two")], {"duplicate": 2}),
        ([b'{"custom_id": "' + KEY_A.encode() + b'", "respo'], {"malformed": 1}),
        ([b"not json at all"], {"malformed": 1}),
        ([b"[1, 2]"], {"malformed": 1}),
        ([ok_line(7)], {"malformed": 1}),
        (
            [json.dumps({"custom_id": KEY_A, "response": {"status_code": 200}}).encode()],
            {"malformed": 1},
        ),
        (
            [
                json.dumps(
                    {"custom_id": KEY_A, "response": {"status_code": "200", "body": {}}}
                ).encode()
            ],
            {"malformed": 1},
        ),
        ([b"[" * 100_000], {"malformed": 1}),
    ],
)
def test_bad_lines_are_refused_and_counted(lines: list[bytes], refused: dict) -> None:
    read = read_output([b"\n".join(lines)], {KEY_A})
    assert read.results == {}  # never handed to any call
    assert dict(read.refused) == refused


def test_a_duplicate_across_the_output_and_error_files_is_refused() -> None:
    error = json.dumps(
        {"custom_id": KEY_A, "response": {"status_code": 500, "body": {}}, "error": None}
    ).encode()
    read = read_output([ok_line(KEY_A), error], {KEY_A})
    assert read.results == {} and read.refused["duplicate"] == 2
