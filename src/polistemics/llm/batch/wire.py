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
from collections.abc import Iterable, Iterator
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


def split(lines: list[bytes], max_requests: int, max_bytes: int) -> Iterator[list[int]]:
    """Indexes of ``lines`` in runs that each fit one batch (at most ``max_requests`` lines and
    ``max_bytes`` bytes). A single line over ``max_bytes`` still goes alone: the provider says
    whether it takes it."""
    run: list[int] = []
    size = 0
    for index, line in enumerate(lines):
        if run and (len(run) >= max_requests or size + len(line) > max_bytes):
            yield run
            run, size = [], 0
        run.append(index)
        size += len(line)
    if run:
        yield run


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


def read_output(files: Iterable[bytes], sent: set[str]) -> ReadOutput:
    """Read a batch's output and error files against the ``custom_id``s it was ``sent`` with."""
    read = ReadOutput()
    seen: Counter[str] = Counter()
    parsed: list[tuple[str, LineResult | None]] = []
    for data in files:
        for raw in data.splitlines():
            if not raw.strip():
                continue
            custom_id, result = _line(raw)
            if custom_id is None:
                read.refused["malformed"] += 1
                continue
            if custom_id not in sent:
                read.refused["unknown"] += 1
                continue
            seen[custom_id] += 1
            parsed.append((custom_id, result))
    for custom_id, result in parsed:
        if seen[custom_id] > 1:  # which line is the request's cannot be told: none is used
            read.refused["duplicate"] += 1
        elif result is None:
            read.refused["malformed"] += 1
        else:
            read.results[custom_id] = result
    return read


def _line(raw: bytes) -> tuple[str | None, LineResult | None]:
    """(custom_id, result) of one line; custom_id None when unreadable, result None when the
    custom_id is readable but the rest of the line is not a result."""
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
