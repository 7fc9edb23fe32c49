"""One scripted stand-in for the client layer's ``Completer``, shared by the test modules.

Import it as ``from fakes import ...``: pytest puts ``tests/`` on ``sys.path`` because
``tests/conftest.py`` lives in a directory without ``__init__.py`` (rootdir-relative
"prepend" import mode), the same way ``tests/run`` imports ``study_helpers``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import CallResult, Message


@dataclass(frozen=True)
class Call:
    """One request the code under test made, exactly as it was made."""

    endpoint: ModelEndpoint
    messages: list[Message]
    stage: str
    sample_index: int
    json_schema: dict | None
    grammar: str | None

    @property
    def user(self) -> str:
        """The content of the last message (the user turn in every prompt the stages build)."""
        return self.messages[-1]["content"]


Reply = str | CallResult | None  # None means the call failed
Script = Callable[[Call], Reply]


def call_key(endpoint_name: str, messages: list[Message], sample_index: int) -> str:
    """A stable key: the same endpoint, prompt and sample always give the same key."""
    digest = hashlib.sha256(
        json.dumps([endpoint_name, messages, sample_index], sort_keys=True).encode()
    ).hexdigest()[:16]
    return f"{endpoint_name}#{sample_index}:{digest}"


def ok_result(call: Call, text: str, **usage: object) -> CallResult:
    """An ok reply; ``usage``: other ``CallResult`` fields it reports (tokens, cost, ...)."""
    return _result(call, status="ok", text=text, **usage)


def failed_result(call: Call, error: str = "scripted failure") -> CallResult:
    return _result(call, status="error", error=error)


def _result(call: Call, **fields: object) -> CallResult:
    return CallResult(
        key=call_key(call.endpoint.name, call.messages, call.sample_index),
        endpoint=call.endpoint.name,
        model=call.endpoint.model,
        **fields,  # type: ignore[arg-type]
    )


@dataclass
class ScriptedCompleter:
    """Answers each call with ``script(call)`` after ``delay`` seconds; records every call.

    A ready ``CallResult`` is returned as is, a text becomes an ok result carrying ``usage``,
    and ``None`` becomes a failed call. Exceptions raised by the script propagate.
    """

    script: Script
    delay: Callable[[Call], float] | float = 0.0
    usage: Mapping[str, object] = field(default_factory=dict)  # CallResult fields of ok replies
    calls: list[Call] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    async def complete(
        self,
        endpoint: ModelEndpoint,
        messages: list[Message],
        *,
        stage: str,
        sample_index: int = 0,
        json_schema: dict | None = None,
        grammar: str | None = None,
    ) -> CallResult:
        call = Call(endpoint, messages, stage, sample_index, json_schema, grammar)
        self.calls.append(call)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay(call) if callable(self.delay) else self.delay)
        finally:
            self.in_flight -= 1
        reply = self.script(call)
        if isinstance(reply, CallResult):
            return reply
        if reply is None:
            return failed_result(call)
        return ok_result(call, reply, **self.usage)
