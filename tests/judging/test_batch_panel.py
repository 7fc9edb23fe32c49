"""The panel's batch judges, their calls handed to the client as data (``BatchJudging``): the
same records as the judges called online, and no task per waiting call."""

from __future__ import annotations

import asyncio

from polistemics.conditions import Environment
from polistemics.judging.batch_panel import BatchJudging
from polistemics.judging.panel import judge_answers
from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.registry import ModelEndpoint
from polistemics.testing import FakeOpenAIServer, Rule

from .helpers import make_answer, make_item
from .test_panel import _judge_reply, _planted

FAST = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.02)
JUDGES = ["quotes-then-own", "respaced-quote-duplicate", "planted-lines-gap"]
BATCH = {"execution": "batch", "batch_flush_seconds": 0.05, "batch_poll_seconds": 0.02}


def pairs(n: int) -> list:
    envs = (Environment.BASELINE, Environment.NOISY, Environment.VAGUE, Environment.ABSENT)
    items = [make_item(envs[i % 4], observation=f"de__de_spd__s{i:03d}") for i in range(n)]
    return [
        (item, make_answer(item, text=_planted(3) if i % 2 else "SPD stimmt zu [1]."))
        for i, item in enumerate(items)
    ]


def judges(server: FakeOpenAIServer, batch: bool) -> list[ModelEndpoint]:
    return [
        ModelEndpoint(
            name=name,
            model=f"test/{name}",
            base_url=server.base_url,
            timeout=5.0,
            **(BATCH if batch else {}),
        )
        for name in JUDGES
    ]


async def judged_in_batches(panel, answered, seen: dict | None = None):
    client = LLMClient(retry=FAST)
    records = []
    batch = BatchJudging(client, panel, {item.key: item for item, _ in answered}, records.append)
    try:
        returned = await judge_answers(client, panel, answered, batch=batch)
        if seen is not None:  # every call handed over: what waits while the batch runs
            seen["tasks"] = len(asyncio.all_tasks())
            seen["records"] = client.batches.journal.waiting
        await batch.finished()
        return [*returned, *records]
    finally:
        await client.aclose()


def test_batch_judges_give_the_records_of_online_judges() -> None:
    answered = pairs(8)
    rule = Rule("You are an expert evaluator", response=_judge_reply)
    with FakeOpenAIServer([rule]) as server:

        async def online():
            client = LLMClient(retry=FAST)
            try:
                return await judge_answers(client, judges(server, False), answered)
            finally:
                await client.aclose()

        expected = asyncio.run(online())
        got = asyncio.run(judged_in_batches(judges(server, True), answered))
    order = lambda r: (r.item_key, r.panel_position, r.rubric.value)  # noqa: E731
    assert sorted(got, key=order) == sorted(expected, key=order)
    assert {r.attempts for r in got} == {1, 2}  # unreadable outputs were asked again, once


def test_waiting_judge_calls_are_records_not_tasks() -> None:
    answered = pairs(40)
    rule = Rule("You are an expert evaluator", response=_judge_reply)
    seen: dict = {}
    with FakeOpenAIServer([rule], batch_latency=0.5) as server:
        records = asyncio.run(judged_in_batches(judges(server, True), answered, seen))
    calls = len(records)  # one per answer, judge and rubric (the first tries)
    assert calls == 40 * len(JUDGES) * 10 // 4
    assert seen["records"] == calls
    # Before, each waiting call was a task (and its future): 300 of them here.
    assert seen["tasks"] < 10, seen
