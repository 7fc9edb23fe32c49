"""OpenAI's batch file format: the input lines we write and the output lines we read back.

Input: one JSON object per line, ``{"custom_id", "method": "POST", "url", "body"}``; the
``custom_id`` is the call's store key. Output and error files: one object per line,
``{"id", "custom_id", "response": {"status_code", "request_id", "body"} | null,
"error": {"code", "message"} | null}``, in any order.

Output is network data. A line is used only when its ``custom_id`` is one the batch was sent
with, it appears once across both files, and its shape is right; every other line is refused and
counted (``unknown``, ``duplicate``, ``malformed``), never matched to another call. A request
whose line was refused, or that has no line, is *missing*: the collector sends it again.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field

CHAT_PATH = "/v1/chat/completions"
REFUSAL_KINDS = ("unknown", "duplicate", "malformed")
# Codes in the error file that mean "never ran" (the request is missing, not failed).
NOT_RUN_CODES = frozenset({"batch_expired", "batch_cancelled", "batch_failed"})


def request_line(custom_id: str, body: dict, messages_json: str) -> bytes:
    """One input line; the messages come already serialised (as the online transport sends them)."""
    head = json.dumps(body, ensure_ascii=False)
    request = f'{head[:-1]}{", " if body else ""}"messages": {messages_json}}}'
    return (
        f'{{"custom_id": {json.dumps(custom_id)}, "method": "POST", '
        f'"url": "{CHAT_PATH}", "body": {request}}}\n'
    ).encode()


@dataclass(frozen=True)
class LineResult:
    """What the batch said about one request: a response (``status_code``, ``body``), or an
    error (``error_code``, ``error``)."""

    status_code: int | None = None
    body: dict | None = None
    error_code: str | None = None
    error: str | None = None

    @property
    def ran(self) -> bool:
        """False when the request never ran (expired, cancelled): it is sent again."""
        return self.error_code not in NOT_RUN_CODES


@dataclass
class ReadOutput:
    """The usable results of a batch's files by ``custom_id``, and the lines refused."""

    results: dict[str, LineResult] = field(default_factory=dict)
    refused: Counter[str] = field(default_factory=Counter)


LineParser = Callable[[bytes], tuple[str | None, LineResult | None]]


def read_lines(
    lines: Callable[[], Iterable[bytes]],
    sent: Container[str],
    refused: Counter[str],
    parse: LineParser | None = None,
) -> Iterator[tuple[str, LineResult]]:
    """(custom_id, result) of each usable line, read against the ``custom_id``s the batch was
    ``sent`` with; refused lines are counted in ``refused`` by kind as they are met.

    ``lines()`` gives the raw lines afresh each time it is called: they are read twice, first
    for the ``custom_id``s alone (a duplicate is known only once every line has been seen), then
    for the results, so that no more than one line is held at a time. ``parse`` reads one line
    (OpenAI's form by default)."""
    parse = parse or parse_line
    seen: Counter[str] = Counter()
    for raw in lines():  # the first pass only finds each line's custom_id
        custom_id = line_id(raw)
        if custom_id is not None and custom_id in sent:
            seen[custom_id] += 1
    for raw in lines():
        if not raw.strip():
            continue
        custom_id, result = parse(raw)
        if custom_id is None:
            refused["malformed"] += 1
        elif custom_id not in sent:
            refused["unknown"] += 1
        elif seen[custom_id] > 1:  # which line is the request's cannot be told: none is used
            refused["duplicate"] += 1
        elif result is None:
            refused["malformed"] += 1
        else:
            yield custom_id, result


def read_output(
    files: Iterable[bytes], sent: Container[str], parse: LineParser | None = None
) -> ReadOutput:
    """Read a batch's output and error files (in memory) against the ``custom_id``s it was
    ``sent`` with."""
    files = list(files)
    read = ReadOutput()
    for custom_id, result in read_lines(
        lambda: (raw for data in files for raw in data.splitlines()), sent, read.refused, parse
    ):
        read.results[custom_id] = result
    return read


def line_id(raw: bytes) -> str | None:
    """The ``custom_id`` of one output line; None when the line is no JSON object with one."""
    try:
        line = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    custom_id = line.get("custom_id") if isinstance(line, dict) else None
    return custom_id if isinstance(custom_id, str) else None


def parse_line(raw: bytes) -> tuple[str | None, LineResult | None]:
    """(custom_id, result) of one line of OpenAI's output or error file; custom_id None when
    unreadable (as ``line_id``), result None when the custom_id is readable but the rest of the
    line is not a result."""
    try:
        line = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, None
    if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
        return None, None
    custom_id = line["custom_id"]
    response, error = line.get("response"), line.get("error")
    if isinstance(error, dict) and error:
        code, message = error.get("code"), error.get("message")
        return custom_id, LineResult(
            status_code=_status(response),
            error_code=code if isinstance(code, str) else None,
            error=message if isinstance(message, str) else json.dumps(error)[:300],
        )
    if not isinstance(response, dict):
        return custom_id, None
    status, body = _status(response), response.get("body")
    if status is None or not isinstance(body, dict):
        return custom_id, None
    return custom_id, LineResult(status_code=status, body=body)


def _status(response: object) -> int | None:
    status = response.get("status_code") if isinstance(response, dict) else None
    return status if type(status) is int and 100 <= status <= 599 else None


def error_message(body: dict) -> str:
    """The provider's message in an error response body, else the body itself, short."""
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(error, str):
        return error
    return json.dumps(body, ensure_ascii=False)[:300]
