"""The dry run's three costs side by side: online, batch and cached prefix (planning.PlanState).

The cached-prefix estimate counts, per group of calls sharing a prompt prefix, every call but
each prefix's first, for prefixes of at least MIN_CACHED_PREFIX_TOKENS; batch is the online cost
times the vendor's batch share. Each figure is checked against its formula, computed here.
"""

from __future__ import annotations

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.llm.pricing import Price, batch_price_share
from polistemics.llm.registry import ModelEndpoint
from polistemics.records import Stance
from polistemics.rubrics import active_rubrics
from polistemics.run.config import load_config
from polistemics.run.stages.answers import OUTPUT_TOKENS, judge_prefixes
from polistemics.run.stages.planning import (
    MIN_CACHED_PREFIX_TOKENS,
    PlanState,
    PrefixGroup,
)

PRICE = Price("registry", 2e-6, 8e-6, 0.2e-6)


def endpoint(**fields) -> ModelEndpoint:
    base = {"name": "e", "model": "vendor/m", "base_url": "http://127.0.0.1:9/v1"}
    return ModelEndpoint(**(base | fields))


def plan(*endpoints: ModelEndpoint, price: Price = PRICE) -> PlanState:
    return PlanState(load_config("demo"), [], {}, None, {e.name: price for e in endpoints})


def test_a_prefix_group_caches_every_call_but_each_prefix_s_first_when_long_enough() -> None:
    assert PrefixGroup(10, 3, MIN_CACHED_PREFIX_TOKENS).cacheable_tokens == 7 * 1024
    assert PrefixGroup(10, 3, MIN_CACHED_PREFIX_TOKENS - 1).cacheable_tokens == 0
    assert PrefixGroup(2, 3, 5000).cacheable_tokens == 0


def test_a_row_carries_online_batch_and_cached_prefix_costs() -> None:
    ep = endpoint(provider="openai", base_url=None, model="gpt-x")
    groups = [PrefixGroup(100, 4, 2000), PrefixGroup(100, 100, 3000)]
    row = plan(ep).row("judge", ep, 100, 20, 2500, 20, groups)
    new = 80
    tin, tout = new * 2500, new * 20
    cached_in = (96 * 2000) * new // 100
    assert (row.input_tokens, row.cached_input_tokens) == (tin, cached_in)
    online = tin * 2e-6 + tout * 8e-6
    assert row.cost == pytest.approx(online, rel=1e-12)
    assert row.batch_cost == pytest.approx(online * 0.5, rel=1e-12)
    assert row.cached_prefix_cost == pytest.approx(
        (tin - cached_in) * 2e-6 + cached_in * 0.2e-6 + tout * 8e-6, rel=1e-12
    )


def test_no_batch_discount_or_cached_rate_known_is_n_a() -> None:
    ep = endpoint()  # an OpenAI-compatible server of one's own: no batch API known
    no_cache_rate = Price("registry", 2e-6, 8e-6)
    row = plan(ep, price=no_cache_rate).row(
        "judge", ep, 10, 0, 2000, 10, [PrefixGroup(10, 1, 2000)]
    )
    assert row.batch_cost is None and row.cached_prefix_cost is None and row.cost is not None
    # Nothing cacheable: the cached-prefix cost is the online cost, with or without a rate.
    flat = plan(ep, price=no_cache_rate).row("judge", ep, 10, 0, 2000, 10, [])
    assert flat.cached_prefix_cost == flat.cost


@pytest.mark.parametrize(
    ("fields", "share"),
    [
        ({"provider": "openai", "base_url": None, "model": "gpt-x"}, 0.5),
        ({"provider": "openrouter", "base_url": None, "model": "anthropic/claude-x"}, 0.5),
        ({"provider": "openrouter", "base_url": None, "model": "openai/gpt-x"}, 0.5),
        ({"provider": "openrouter", "base_url": None, "model": "google/gemini-x"}, None),
        ({"base_url": "https://api.anthropic.com/v1", "model": "claude-x"}, 0.5),
        ({"base_url": "http://gpu-node:8000/v1", "model": "openai/gpt-oss-120b"}, None),
        ({"provider": "local", "base_url": None, "model": "smollm2"}, None),
        # a batch endpoint's own discount comes first, on any server
        (
            {"base_url": "http://gpu-node:8000/v1", "model": "m", "execution": "batch"},
            0.5,
        ),
        (
            {"base_url": "https://api.openai.com/v1", "model": "m", "execution": "batch"}
            | {"batch_discount": 0.25},
            0.75,
        ),
    ],
)
def test_batch_price_share_by_vendor(fields: dict, share: float | None) -> None:
    assert batch_price_share(endpoint(**fields)) == share


def test_the_paper_judge_prompt_shares_too_short_a_prefix_to_be_cached() -> None:
    items = {(Variant.FULL, env): 50 for env in Environment}
    groups = judge_prefixes(items, 3, "paper")
    assert len(groups) == sum(len(active_rubrics(env)) for env in Environment)
    assert all(g.prefixes == len(Stance) and g.calls == 150 for g in groups)
    assert all(0 < g.tokens < MIN_CACHED_PREFIX_TOKENS for g in groups)
    assert sum(g.cacheable_tokens for g in groups) == 0


def test_rubric_last_judges_share_the_answer_across_rubrics() -> None:
    items = {(Variant.FULL, Environment.NOISY): 40, (Variant.FULL, Environment.ABSENT): 40}
    groups = {g.calls: g for g in judge_prefixes(items, 2, "rubric-last")}
    noisy = groups[80 * len(active_rubrics(Environment.NOISY))]
    assert noisy.prefixes == 80
    # Five evidence chunks and the answer: past the minimum, so every rubric but the first reads
    # the answer's prompt from the cache.
    assert noisy.tokens >= MIN_CACHED_PREFIX_TOKENS > OUTPUT_TOKENS["answer"]
    assert noisy.cacheable_tokens == (noisy.calls - 80) * noisy.tokens
