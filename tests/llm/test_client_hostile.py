"""The client layer against a provider that sends hostile replies: a key in any field or
encoding, usage figures that are not numbers, costs that would switch the cost cap off."""

from __future__ import annotations

import asyncio
import base64
import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from aiohttp import web

from local_provider import serving
from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.llm.types import BudgetExceeded

KEY = "sk-proj-Hostile9Qx2Lm7Vb4Nz8Kt1Wr6Yp3Hs5Jd0Gf_-Uc2Ai"
FRAGMENT = 8
FAST = RetryPolicy(max_attempts=2, content_attempts=1, base_delay=0.01, max_delay=0.02)

Reply = Callable[[dict], web.Response]


def completion(content: str | None = "an answer", **fields: object) -> dict:
    body: dict = {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }
    body["choices"][0]["finish_reason"] = fields.pop("finish_reason", "stop")
    body["usage"].update(fields.pop("usage", {}))
    body.update(fields)
    return body


@contextmanager
def provider(reply: Reply) -> Iterator[str]:
    """A provider on a local port answering each request with ``reply(request body)``."""

    async def chat(request: web.Request) -> web.Response:
        return reply(await request.json())

    with serving(chat) as base_url:
        yield base_url


def endpoint(base_url: str, **overrides: object) -> ModelEndpoint:
    fields = {
        "name": "hostile",
        "model": "m",
        "base_url": base_url,
        "api_key_env": "POLISTEMICS_HOSTILE_KEY",
        "timeout": 5.0,
        "max_concurrency": 1,
    }
    return ModelEndpoint(**{**fields, **overrides})


@pytest.fixture(autouse=True)
def planted_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLISTEMICS_HOSTILE_KEY", KEY)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)


def fragments_in(data: bytes) -> list[str]:
    """Every 8-character piece of the key in ``data``, raw or percent-, JSON- or base64-decoded."""
    import binascii
    import re
    from urllib.parse import unquote_to_bytes

    views = [data, unquote_to_bytes(data)]
    text = data.decode("latin-1")
    views.append(re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m[1], 16)), text).encode("utf-8"))
    for run in re.findall(rb"[A-Za-z0-9+/_-]{8,}", data):
        for skip in range(4):
            part = run[skip:]
            part = part[: len(part) - len(part) % 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                with suppress(binascii.Error, ValueError):
                    views.append(decode(part))
    pieces = {KEY[i : i + FRAGMENT].encode() for i in range(len(KEY) - FRAGMENT + 1)}
    return sorted({p.decode() for p in pieces for view in views if p in view})


def call(base_url: str, tmp_path: Path, **overrides: object):
    async def go():
        with RunStore(tmp_path / "store.sqlite") as store:
            client = LLMClient(store=store, retry=FAST)
            try:
                return await client.complete(
                    endpoint(base_url, **overrides), [{"role": "user", "content": "q"}], stage="s"
                )
            finally:
                await client.aclose()

    return asyncio.run(go())


HOSTILE_REPLIES: dict[str, Reply] = {
    "finish-reason": lambda _: web.json_response(completion(finish_reason=f"Bearer {KEY}")),
    "prompt-tokens": lambda _: web.json_response(completion(usage={"prompt_tokens": KEY})),
    "url-encoded": lambda _: web.json_response(
        completion("you sent " + "".join(f"%{b:02x}" for b in f"Bearer {KEY}".encode()))
    ),
    "base64": lambda _: web.json_response(
        completion("debug " + base64.b64encode(f"Bearer {KEY}".encode()).decode())
    ),
    "json-escaped-tool-arguments": lambda _: web.json_response(
        completion(
            None,
            choices=[
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "type": "function",
                                "function": {
                                    "name": "output",
                                    "arguments": '{"a": "'
                                    + "".join(f"\\u{ord(c):04x}" for c in KEY)
                                    + '"}',
                                },
                            }
                        ],
                    },
                }
            ],
        )
    ),
    "redirect-location": lambda _: web.Response(
        status=302,
        headers={
            "Location": "https://evil.example/v1?k=" + "".join(f"%{b:02X}" for b in KEY.encode())
        },
    ),
}


@pytest.mark.parametrize("way", HOSTILE_REPLIES)
def test_a_key_echoed_in_any_field_or_encoding_is_stored_nowhere(
    way: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    overrides = {"structured_output": "tool"} if way.startswith("json") else {}
    with provider(HOSTILE_REPLIES[way]) as base_url:
        if overrides:
            result = asyncio.run(_tool_call(base_url, tmp_path))
        else:
            result = call(base_url, tmp_path)
    assert fragments_in(repr(result).encode()) == []
    assert fragments_in((tmp_path / "store.sqlite").read_bytes()) == []
    out, err = capfd.readouterr()
    assert fragments_in((out + err).encode()) == []


async def _tool_call(base_url: str, tmp_path: Path):
    with RunStore(tmp_path / "store.sqlite") as store:
        client = LLMClient(store=store, retry=FAST)
        try:
            return await client.complete(
                endpoint(base_url, structured_output="tool"),
                [{"role": "user", "content": "q"}],
                stage="s",
                json_schema={"type": "object", "properties": {"a": {"type": "string"}}},
            )
        finally:
            await client.aclose()


def test_usage_that_is_not_a_count_counts_as_zero_and_an_object_is_no_finish_reason(
    tmp_path: Path,
) -> None:
    body = completion(
        finish_reason={"type": "stop"},
        usage={"prompt_tokens": "many", "completion_tokens": -5, "completion_tokens_details": 3},
    )
    with provider(lambda _: web.json_response(body)) as base_url:
        result = call(base_url, tmp_path)
    assert result.ok and result.finish_reason is None
    assert (result.input_tokens, result.output_tokens, result.reasoning_tokens) == (0, 0, 0)


@pytest.mark.parametrize("cost", ["NaN", -46000.0, "Infinity", True])
def test_a_cost_that_is_not_a_finite_amount_of_at_least_zero_is_not_taken(
    cost: object, tmp_path: Path
) -> None:
    raw = json.dumps(completion(usage={"cost": 0}))
    raw = raw.replace('"cost": 0', f'"cost": {cost if isinstance(cost, str) else json.dumps(cost)}')
    reply = lambda _: web.Response(text=raw, content_type="application/json")  # noqa: E731
    # priced by the registry instead: 8 calls of 5 tokens at $1000/Mtok cost $0.04
    priced = {"price_input_per_mtok": 1000.0, "price_output_per_mtok": 1000.0}

    async def go() -> tuple[int, float]:
        with RunStore(tmp_path / "store.sqlite") as store:
            client = LLMClient(store=store, retry=FAST, max_cost=0.035)
            done = 0
            try:
                with pytest.raises(BudgetExceeded):
                    for i in range(50):
                        await client.complete(
                            endpoint(base_url, **priced),
                            [{"role": "user", "content": f"q{i}"}],
                            stage="s",
                        )
                        done += 1
            finally:
                await client.aclose()
            return done, store.total_cost()

    with provider(reply) as base_url:
        done, total = asyncio.run(go())
    assert done == 7
    assert math.isfinite(total) and total == pytest.approx(0.035)


def test_a_reply_past_the_byte_limit_is_a_recorded_error_not_retried(tmp_path: Path) -> None:
    import gzip

    from polistemics.llm.transport import MAX_REPLY_BYTES

    seen: list[int] = []

    def bomb(_: dict) -> web.Response:
        seen.append(1)
        body = gzip.compress(b" " * (MAX_REPLY_BYTES + 1), compresslevel=9)
        return web.Response(
            body=body, headers={"Content-Encoding": "gzip", "Content-Type": "application/json"}
        )

    with provider(bomb) as base_url:
        result = call(base_url, tmp_path)
    assert result.status == "error" and "reply larger than" in (result.error or "")
    assert len(seen) == 1


DEEP = "[" * 100_000


def _deep_tool_arguments(_: dict) -> web.Response:
    call = {"type": "function", "function": {"name": "output", "arguments": DEEP}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice = {"index": 0, "finish_reason": "tool_calls", "message": message}
    return web.json_response(completion(None, choices=[choice]))


DEEP_REPLIES: dict[str, Reply] = {
    "reply-body": lambda _: web.Response(text=DEEP, content_type="application/json"),
    "error-body": lambda _: web.Response(status=500, text=DEEP, content_type="application/json"),
    "tool-arguments": _deep_tool_arguments,
}


@pytest.mark.parametrize("where", DEEP_REPLIES)
def test_a_reply_nested_too_deeply_is_a_recorded_error_not_a_crash(
    where: str, tmp_path: Path
) -> None:
    """Issue 27, defect 4: json.loads raised RecursionError out of the client on a body, an
    error body or tool arguments 100,000 brackets deep."""
    with provider(DEEP_REPLIES[where]) as base_url:
        if where == "tool-arguments":
            result = asyncio.run(_tool_call(base_url, tmp_path))
        else:
            result = call(base_url, tmp_path)
    assert not result.ok
    assert result.error
