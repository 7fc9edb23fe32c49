"""The test server's batch API: files, batches, their lines answered by the server's chat logic
and counted per custom_id, and each scripted batch fault."""

from __future__ import annotations

import asyncio
import json

import pytest

from polistemics.llm.batch.api import BatchAPI
from polistemics.llm.transport import HttpStatusError
from polistemics.testing import FakeOpenAIServer, Rule
from polistemics.testing.batch_api import BatchFault
from polistemics.testing.faults import ServerConfigError


def lines(n: int, pad: int = 0) -> bytes:
    return b"".join(
        json.dumps(
            {
                "custom_id": f"req-{i}",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": {
                    "model": "fake-model",
                    "messages": [{"role": "user", "content": f"question {i} " + "x " * pad}],
                },
            }
        ).encode()
        + b"\n"
        for i in range(n)
    )


def run_batch(server: FakeOpenAIServer, data: bytes, *, cancel: bool = False) -> tuple[dict, list]:
    async def go():
        api = BatchAPI(server.base_url, "key")
        try:
            file_id = await api.upload(data, "in.jsonl")
            assert await api.content(file_id) == data
            batch = await api.create(file_id, "/v1/chat/completions", "24h", {})
            if cancel:
                await api.cancel(batch["id"])
            while batch["status"] not in ("completed", "failed", "expired", "cancelled"):
                await asyncio.sleep(0.01)
                batch = await api.retrieve(batch["id"])
            out = []
            for name in ("output_file_id", "error_file_id"):
                if batch[name]:
                    content = await api.content(batch[name])
                    out += [json.loads(line) for line in content.splitlines()]
            return batch, out
        finally:
            await api.close()

    return asyncio.run(go())


def test_a_batch_runs_every_line_through_the_chat_logic() -> None:
    with FakeOpenAIServer(
        [Rule("question", response="an answer")], usage_cost_per_token=1e-6
    ) as server:
        data = lines(3, pad=200_000)  # an upload over aiohttp's 1 MB body limit
        assert len(data) > 2**20
        batch, out = run_batch(server, data)
        chat = server.stats()
        stats = server.batches.stats()
    assert batch["status"] == "completed" and batch["request_counts"]["completed"] == 3
    assert sorted(line["custom_id"] for line in out) == ["req-0", "req-1", "req-2"]
    for line in out:
        body = line["response"]["body"]
        assert line["response"]["status_code"] == 200 and line["error"] is None
        assert body["choices"][0]["message"]["content"] == "an answer"
        usage = body["usage"]
        tokens = usage["prompt_tokens"] + usage["completion_tokens"]
        assert usage["cost"] == pytest.approx(tokens * 1e-6 * 0.5)  # the batch price
    assert chat.requests == 3 and chat.completed == 3
    assert stats.requests_per_custom_id == {"req-0": 1, "req-1": 1, "req-2": 1}
    assert stats.batches == {"completed": 1} and stats.lines_run == 3


def test_an_expired_batch_reports_the_lines_it_did_not_run() -> None:
    with FakeOpenAIServer(batch_faults=[BatchFault("expire", fraction=0.4)]) as server:
        batch, out = run_batch(server, lines(5))
    assert batch["status"] == "expired"
    ran = [line for line in out if line["error"] is None]
    expired = [line for line in out if line["error"]]
    assert len(ran) == 2 and len(expired) == 3
    assert {line["error"]["code"] for line in expired} == {"batch_expired"}


def test_partial_failures_go_to_the_error_file() -> None:
    with FakeOpenAIServer(batch_faults=[BatchFault("partial_failure", fraction=0.5)]) as server:
        batch, out = run_batch(server, lines(20))
    failed = [line for line in out if line["response"]["status_code"] == 500]
    assert batch["status"] == "completed" and 0 < len(failed) < 20
    assert batch["request_counts"]["failed"] == len(failed)


def test_a_failed_batch_runs_nothing_and_says_why() -> None:
    with FakeOpenAIServer(batch_faults=[BatchFault("fail")]) as server:
        batch, out = run_batch(server, lines(2))
        assert server.stats().requests == 0
    assert batch["status"] == "failed" and out == []
    assert batch["errors"]["data"][0]["message"] == "scripted validation failure"


def test_a_slow_batch_can_be_cancelled() -> None:
    with FakeOpenAIServer(batch_faults=[BatchFault("slow", delay=0.3)]) as server:
        batch, out = run_batch(server, lines(2), cancel=True)
        assert server.stats().requests == 0
    assert batch["status"] == "cancelled" and out == []


@pytest.mark.parametrize(
    ("kind", "extra_ids"),
    [("malformed_line", None), ("unknown_custom_id", "f" * 64), ("duplicate_custom_id", "req-0")],
)
def test_bad_output_lines(kind: str, extra_ids: str | None) -> None:
    with FakeOpenAIServer(batch_faults=[BatchFault(kind)]) as server:
        data = lines(3)
        file_id = None

        async def go():
            nonlocal file_id
            api = BatchAPI(server.base_url, "key")
            try:
                file_id = await api.upload(data, "in.jsonl")
                batch = await api.create(file_id, "/v1/chat/completions", "24h", {})
                while batch["status"] != "completed":
                    await asyncio.sleep(0.01)
                    batch = await api.retrieve(batch["id"])
                return (await api.content(batch["output_file_id"])).splitlines()
            finally:
                await api.close()

        out = asyncio.run(go())
    if kind == "malformed_line":
        assert len(out) == 3
        with pytest.raises(ValueError):
            json.loads(out[0])
    else:
        ids = [json.loads(line)["custom_id"] for line in out]
        assert len(out) == 4 and ids[-1] == extra_ids


def test_unknown_files_and_batches_are_refused() -> None:
    async def go(server):
        api = BatchAPI(server.base_url, "key")
        try:
            for call in (
                api.create("file-none", "/v1/chat/completions", "24h", {}),
                api.retrieve("batch_none"),
                api.content("file-none"),
            ):
                with pytest.raises(HttpStatusError) as caught:
                    await call
                assert caught.value.status in (400, 404)
        finally:
            await api.close()

    with FakeOpenAIServer() as server:
        asyncio.run(go(server))


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "vanish"},
        {"kind": "expire", "fraction": 1.5},
        {"kind": "slow", "delay": -1},
    ],
)
def test_bad_fault_scripts_are_refused(fault: dict) -> None:
    with pytest.raises(ServerConfigError):
        BatchFault(**fault)
