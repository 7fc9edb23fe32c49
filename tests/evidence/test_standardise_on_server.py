"""Standardisation through the real client layer against the test server's scripted answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from polistemics.evidence.standardise import standardise
from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.sources.load import load_election
from polistemics.sources.scope import apply_scope, load_scope
from polistemics.testing import FakeOpenAIServer, Rule

GOOD = (
    "[PARTY] supports this measure. The party explains its reasons in detail. [PARTY] says the "
    "change is overdue. It wants parliament to act soon. The party calls this a priority."
)
BY_CHECK = {
    "sentence_count": "[PARTY] supports this measure. That is all.",
    "placeholder": GOOD.replace("[PARTY]", "The party"),
    "first_person": GOOD.replace("It wants", "We want"),
}


def scripted(attempts: list[str | None]):
    """The n-th attempt (told apart by seed = base seed + sample index) gets attempts[n]."""

    def respond(request: dict) -> str:
        text = attempts[min(request["seed"], len(attempts) - 1)]
        if text is None:
            return "I cannot produce JSON today."
        return json.dumps({"third_person_rationale": text, "stance_is_explicit": True})

    return respond


def test_each_failed_check_is_retried_and_exhausted_samples_are_excluded(tmp_path: Path) -> None:
    observations = apply_scope(load_election("demo"), load_scope("demo")).observations[:4]
    scripts = [
        [BY_CHECK["sentence_count"], GOOD],
        [BY_CHECK["placeholder"], BY_CHECK["first_person"], GOOD],
        [None, None, None],  # never parseable: excluded after 2 retries
        [GOOD],
    ]
    rules = [
        Rule(position.rationale[:40].replace("(", r"\(").replace(")", r"\)"), response=scripted(s))
        for position, s in zip(observations, scripts, strict=True)
    ]
    with FakeOpenAIServer(rules) as server, RunStore(tmp_path / "store.sqlite") as store:
        endpoint = ModelEndpoint(
            name="std",
            model="fake",
            base_url=server.base_url,
            temperature=0.3,
            seed=0,
            structured_output="json_schema",
        )

        async def go():
            client = LLMClient(store=store, retry=RetryPolicy(base_delay=0.01))
            return await standardise(observations, client, endpoint, max_attempts=3)

        result = asyncio.run(go())
        requests = server.stats().requests

    assert [ev.observation_id for ev in result.evidence] == [
        observations[i].observation_id for i in (0, 1, 3)
    ]
    assert [ex.observation_id for ex in result.excluded] == [observations[2].observation_id]
    stats = result.stats
    assert (stats.fed_to_standardiser, stats.rejected_after_retries, stats.final_size) == (4, 1, 3)
    assert stats.retries_used == 1 + 2 + 2
    assert stats.failures_by_reason == {
        "sentence_count": 1,
        "placeholder": 1,
        "first_person": 1,
        "unparseable": 3,
    }
    assert requests == 2 + 3 + 3 + 1  # every attempt was a real call; none repeated
