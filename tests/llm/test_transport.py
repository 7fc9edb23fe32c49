"""The HTTP transport: JSON in and out, and each kind of failure as its own error type."""

from __future__ import annotations

import asyncio

import pytest

from polistemics.llm.keys import canonical_json
from polistemics.llm.transport import (
    ChatTransport,
    ConnectionFailed,
    HttpStatusError,
    MalformedBody,
    RequestTimeout,
    UnsupportedProxy,
    _error_message,
    env_proxy,
)
from polistemics.testing import FakeOpenAIServer, Fault, Rule

BODY = {"model": "fake-model", "temperature": 0.0}


def post(server: FakeOpenAIServer, text: str, *, timeout: float = 5.0) -> dict:
    async def go() -> dict:
        transport = ChatTransport(server.base_url, "sk-transport", timeout=timeout)
        try:
            messages = [{"role": "user", "content": text}]
            return await transport.post(BODY, canonical_json(messages))
        finally:
            await transport.close()

    return asyncio.run(go())


def test_answer_comes_back_as_json_with_the_key_and_agent_sent() -> None:
    with FakeOpenAIServer([Rule("q", response="an answer")], expected_api_key="sk-transport") as s:
        reply = post(s, "q «ü»")
        assert reply["choices"][0]["message"]["content"] == "an answer"
        stats = s.stats()
        # The body the server received: the fields given plus the spliced-in messages.
        assert stats.last_requests[-1] == {
            **BODY,
            "messages": [{"role": "user", "content": "q «ü»"}],
        }
        assert stats.authorized == 1 and stats.unauthorized == 0
        assert {"authorization", "user-agent", "content-type"} <= stats.request_headers_seen


def test_status_errors_carry_the_providers_message_and_headers() -> None:
    limited = Fault("status", status=429, retry_after=7)
    with (
        FakeOpenAIServer([Rule("limited", always=limited)]) as s,
        pytest.raises(HttpStatusError) as error,
    ):
        post(s, "limited")
    assert error.value.status == 429
    assert error.value.message == "injected fault: HTTP 429"
    assert error.value.headers["Retry-After"] == "7"


@pytest.mark.parametrize(
    ("fault", "error_type"),
    [
        (Fault("truncated_body"), ConnectionFailed),
        (Fault("drop_connection"), ConnectionFailed),
        (Fault("malformed_json"), MalformedBody),
        (Fault("timeout", delay=3.0), RequestTimeout),
    ],
)
def test_each_failure_has_its_own_type(fault: Fault, error_type: type) -> None:
    with FakeOpenAIServer([Rule("x", always=fault)]) as s, pytest.raises(error_type):
        post(s, "x", timeout=0.5)


def test_proxy_comes_from_the_environment_and_no_proxy_is_respected(monkeypatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    remote = "https://api.example.org/v1/chat/completions"
    assert env_proxy(remote) is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert env_proxy(remote) == "http://proxy.internal:3128"
    assert env_proxy("https://127.0.0.1:8080/v1/chat/completions") is None
    monkeypatch.setenv("HTTPS_PROXY", "socks5://127.0.0.1:1080")
    with pytest.raises(UnsupportedProxy, match="HTTPS_PROXY is 'socks5://127.0.0.1:1080'"):
        env_proxy(remote)


def test_error_message_prefers_the_providers_text() -> None:
    assert _error_message(b'{"error": {"message": "quota exceeded", "code": 402}}') == (
        "quota exceeded"
    )
    assert _error_message(b'{"error": "plain string"}') == "plain string"
    assert _error_message(b"<html>Bad Gateway</html>") == "<html>Bad Gateway</html>"
    assert _error_message(b"") == "(empty body)"
