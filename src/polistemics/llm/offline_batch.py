"""Calls handed to an offline engine (vLLM's ``vllm run-batch``) and its results read back.

``DeferringClient`` is the client layer with the network taken out: a call the run store holds
is answered from it as in any run; any other call is recorded as a ``PendingCall`` (its store
key, stage, endpoint, prompt and the exact request body an online call would post) and answered
with a failure that is never stored, so the stages after it go on without it.

The files are the OpenAI batch JSONL that vLLM's offline runner reads and writes:

- input, one request a line: ``{"custom_id", "method": "POST", "url": "/v1/chat/completions",
  "body"}``; ``custom_id`` is the call's store key, ``body`` the request's JSON exactly as
  ``ChatTransport`` posts it (``request_json``);
- output, one result a line: ``{"id", "custom_id", "response": {"status_code", "request_id",
  "body"}, "error"}``, ``body`` being a chat completion.

Output files are input from elsewhere: ``read_output`` reads them a bounded line at a time and
says what is wrong with a line instead of raising; which lines are stored is for the caller
(``run.offline``) to decide.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from polistemics.llm.client import LLMClient, cache_marked
from polistemics.llm.keys import CallIdentity, messages_json
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.transport import MAX_REPLY_BYTES, request_json
from polistemics.llm.types import CallResult

CHAT_URL = "/v1/chat/completions"
DEFERRED = "deferred to an offline batch (not called)"
MAX_LINE_BYTES = MAX_REPLY_BYTES  # one output line holds one reply
_KEY = re.compile(r"^[0-9a-f]{64}$")  # a store key: SHA-256 in hex


@dataclass(frozen=True)
class PendingCall:
    """A call a run would make now: its key, stage and endpoint, and what it would send."""

    key: str
    stage: str
    endpoint: ModelEndpoint
    sample_index: int
    messages_json: str
    params_json: str
    body: dict  # the request without its messages (``LLMClient._body``)

    def request_line(self) -> str:
        """The call as one line of an OpenAI / vLLM batch input file."""
        messages = (
            cache_marked(self.messages_json) if self.endpoint.cache_control else self.messages_json
        )
        return (
            f'{{"custom_id": {json.dumps(self.key)}, "method": "POST", '
            f'"url": "{CHAT_URL}", "body": {request_json(self.body, messages)}}}'
        )


# Which deferred calls to keep in full: (key, stage, endpoint) -> keep it. Others are counted.
Keep = Callable[[str, str, ModelEndpoint], bool]


@dataclass
class DeferringClient(LLMClient):
    """An ``LLMClient`` that makes no request: see the module docstring. ``keep`` bounds what
    is held: at paper scale a stage defers ~100,000 calls of a few KB of prompt each, and an
    export or import needs only one stage's, or one file's; the rest are counted in
    ``skipped`` by (stage, endpoint name)."""

    deferred: dict[str, PendingCall] = field(default_factory=dict)
    keep: Keep | None = None
    skipped: Counter[tuple[str, str]] = field(default_factory=Counter)
    _skipped_keys: set[str] = field(default_factory=set, repr=False)

    async def _call(
        self,
        endpoint: ModelEndpoint,
        identity: CallIdentity,
        json_schema: dict | None,
        grammar: str | None,
        sample_index: int,
        stage: str,
        messages: list[dict],
    ) -> CallResult:
        if self.keep is not None and not self.keep(identity.key, stage, endpoint):
            if identity.key not in self._skipped_keys:  # a call asked twice is one call
                self._skipped_keys.add(identity.key)
                self.skipped[(stage, endpoint.name)] += 1
            return self._deferred_result(endpoint, identity)
        self.deferred.setdefault(
            identity.key,
            PendingCall(
                identity.key,
                stage,
                endpoint,
                sample_index,
                # made again: a batch endpoint's identity comes without it (``LLMClient.complete``)
                identity.messages_json or messages_json(messages),
                identity.params_json,
                self._body(endpoint, json_schema, grammar, sample_index),
            ),
        )
        return self._deferred_result(endpoint, identity)

    @staticmethod
    def _deferred_result(endpoint: ModelEndpoint, identity: CallIdentity) -> CallResult:
        return CallResult(
            key=identity.key,
            endpoint=endpoint.name,
            model=endpoint.model,
            status="error",
            error=DEFERRED,
        )


# ---- output files -------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputLine:
    """One line of a batch output file, read: its custom_id, and the reply or why there is none.

    ``problem`` set: the line is malformed (not JSON, no usable custom_id, too long); nothing
    else is read from it. ``failure`` set: the engine reports no reply for the request (an error
    object, a status other than 200, no completion body)."""

    number: int
    custom_id: str | None = None
    reply: dict | None = None
    failure: str | None = None
    problem: str | None = None


def read_output(path: Path) -> Iterator[OutputLine]:
    """Every non-blank line of a batch output file, in order, numbered from 1."""
    with path.open("rb") as handle:
        for number, raw in _lines(handle):
            if raw is None:
                yield OutputLine(number, problem=f"longer than {MAX_LINE_BYTES:,} bytes")
            elif raw.strip():
                yield _read_line(number, raw)


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """(number, line) for each line, None for a line longer than ``MAX_LINE_BYTES`` (skipped
    to its end without holding it)."""
    number = 0
    while True:
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while (rest := handle.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                pass
            yield number, None
            continue
        yield number, raw


def _read_line(number: int, raw: bytes) -> OutputLine:
    try:
        line = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return OutputLine(number, problem="not JSON")
    if not isinstance(line, dict):
        return OutputLine(number, problem="not a JSON object")
    custom_id = line.get("custom_id")
    if not isinstance(custom_id, str) or not _KEY.match(custom_id):
        return OutputLine(number, problem="custom_id is not a call key (64 hex digits)")
    error = line.get("error")
    response = line.get("response")
    if error not in (None, {}, ""):
        return OutputLine(number, custom_id, failure=f"error: {_error_text(error)}")
    if not isinstance(response, dict):
        return OutputLine(number, custom_id, failure="no response")
    status = response.get("status_code")
    body = response.get("body")
    if status != 200:
        why = _error_text(body.get("error")) if isinstance(body, dict) else "no body"
        return OutputLine(number, custom_id, failure=f"status {_short(status)}: {why}")
    if not isinstance(body, dict):
        return OutputLine(number, custom_id, failure="the response has no completion body")
    return OutputLine(number, custom_id, reply=body)


def _error_text(error: object) -> str:
    if isinstance(error, dict):
        error = error.get("message") or error.get("code") or "unspecified"
    return _short(error)


def _short(value: object, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
