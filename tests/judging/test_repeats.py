from __future__ import annotations

import asyncio
from pathlib import Path

from fakes import ScriptedCompleter
from polistemics.conditions import Environment, Variant
from polistemics.judging.panel import call_index, judge_answers
from polistemics.judging.repeats import (
    allocate,
    distinct_judges,
    judge_repeats,
    repeat_calls,
    select_items,
)
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.session import open_client
from polistemics.testing import FakeOpenAIServer

from .helpers import endpoint, make_answer, make_item, questions_in


def all_yes(call) -> str:
    return "\n".join(f"{i}. Yes" for i in range(1, len(questions_in(call)) + 1))


def items_of(n: int, env: Environment, variant: Variant = Variant.FULL) -> list:
    return [make_item(env, variant=variant, observation=f"de__de_spd__s{i:03d}") for i in range(n)]


def test_allocate_meets_a_count_exactly_and_rounds_a_fraction():
    sizes = {"full/baseline": 50, "full/noisy": 30, "anon/baseline": 20}
    assert allocate(sizes, 10) == {"full/baseline": 5, "full/noisy": 3, "anon/baseline": 2}
    assert sum(allocate(sizes, 7).values()) == 7
    assert allocate(sizes, 1000) == sizes  # never more than every item
    # 25 items: 12.5 / 7.5 / 5; the tie on the remainder goes to the first name.
    assert allocate(sizes, 0.25) == {"full/baseline": 13, "full/noisy": 7, "anon/baseline": 5}
    assert sum(allocate(sizes, 0.001).values()) == 1  # a fraction draws at least one item
    assert allocate({"full/baseline": 0}, 5) == {"full/baseline": 0}


def test_select_items_is_seeded_stratified_and_stable():
    items = items_of(40, Environment.BASELINE) + items_of(20, Environment.VAGUE)
    chosen = select_items(items, 0.25, seed=3)
    assert len(chosen) == 15
    assert sum(i.environment is Environment.VAGUE for i in chosen) == 5
    assert select_items(list(reversed(items)), 0.25, seed=3) == chosen  # order-free
    assert select_items(items, 0.25, seed=4) != chosen
    # A stratum's draw does not depend on the other strata.
    vague_only = select_items(items_of(20, Environment.VAGUE), 5, seed=3)
    assert [i for i in chosen if i.environment is Environment.VAGUE] == vague_only


def test_distinct_judges_are_one_per_served_endpoint():
    same = [endpoint("judge-a"), endpoint("judge-a"), endpoint("judge-b")]
    assert [(p, e.name) for p, e in distinct_judges(same, ["judge-a", "judge-b"])] == [
        (0, "judge-a"),
        (2, "judge-b"),
    ]
    twins = [
        ModelEndpoint(name=n, model="test/same", base_url="http://127.0.0.1:9/v1")
        for n in ("x", "y")
    ]
    assert [e.name for _, e in distinct_judges(twins, ["x", "y"])] == ["x"]
    assert [e.name for _, e in distinct_judges(twins, ["y"])] == ["y"]


def test_repeat_calls_have_their_own_index_stage_and_count():
    items = [make_item(Environment.BASELINE), make_item(Environment.ABSENT)]
    pairs = [(item, make_answer(item)) for item in items]
    pairs.append((items[0], make_answer(items[0], model="failed", status="error", text=None)))
    completer = ScriptedCompleter(all_yes)
    judges = [(0, endpoint("judge-a"))]
    records = asyncio.run(judge_repeats(completer, judges, pairs, repeats=2))
    # Baseline: 3 rubrics, Absent: 1; twice each; the failed answer is not judged.
    assert len(records) == len(completer.calls) == (3 + 1) * 2 == repeat_calls(1, pairs, 2)
    assert {c.stage for c in completer.calls} == {"judge_repeat"}
    assert sorted({c.sample_index for c in completer.calls}) == [call_index(1, 0), call_index(2, 0)]
    assert {r.repeat for r in records} == {1, 2}
    assert all(r.panel_position == 0 and r.judge == "judge-a" for r in records)
    assert call_index(0, 1) == 1 and call_index(1, 0) == 2  # the panel's retry is not a repeat


def test_repeats_are_distinct_calls_and_resume_from_the_store(tmp_path: Path):
    items = items_of(3, Environment.BASELINE)
    pairs = [
        (item, make_answer(item, text=f"SPD stimmt zu ({n}) [1].")) for n, item in enumerate(items)
    ]

    async def go(server_url: str, *, panel: bool) -> tuple[list, list, int]:
        judge = ModelEndpoint(name="judge-a", model="test/judge", base_url=server_url)
        async with open_client(tmp_path, quiet=True) as client:
            judged = await judge_answers(client, [judge], pairs) if panel else []
            repeats = await judge_repeats(client, [(0, judge)], pairs, repeats=1)
            return list(judged), repeats, client.network_calls

    with FakeOpenAIServer() as server:
        panel, repeats, calls = asyncio.run(go(server.base_url, panel=True))
        # 3 answers x 3 rubrics by the panel, and as many repeats: none served from the cache.
        assert calls == 18 and server.stats().completed == 18
        assert {r.call_key for r in panel}.isdisjoint({r.call_key for r in repeats})
        assert [r.says_yes for r in repeats] == [r.says_yes for r in panel]  # same prompt
        # A rerun (a resumed run) makes no call: every repeat is in the store.
        _, again, calls = asyncio.run(go(server.base_url, panel=False))
        assert calls == 0 and server.stats().completed == 18
        assert [r.call_key for r in again] == [r.call_key for r in repeats]
