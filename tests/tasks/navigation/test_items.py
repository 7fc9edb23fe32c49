"""Navigation items: one per statement and environment, the focus party degraded, the others'
Baseline passages, a seeded subset, and a token budget that splits or refuses, never cuts."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.environments.absent import build_absent_items
from polistemics.environments.baseline import build_baseline_items
from polistemics.environments.conflict import build_contradictory_items
from polistemics.records import Evidence
from polistemics.sources.load import load_election
from polistemics.sources.scope import apply_scope, load_scope
from polistemics.tasks.navigation.items import build_navigation_items, prompt_tokens
from polistemics.tasks.navigation.prompt import judge_context

STANCE_SENTENCE = {"Agree": "supports", "Disagree": "opposes", "Neutral": "is neutral on"}


@pytest.fixture(scope="module")
def evidence() -> list[Evidence]:
    scoped = apply_scope(load_election("demo"), load_scope("demo"))
    return [
        Evidence(
            position=p,
            text=f"[PARTY] {STANCE_SENTENCE[p.stance.value]} this measure. [PARTY] says why.",
        )
        for p in scoped.observations
    ]


def _items(evidence):
    return [*build_baseline_items(evidence), *build_absent_items(evidence)]


def test_one_item_per_statement_and_environment(evidence) -> None:
    built = build_navigation_items(
        evidence, _items(evidence), environments=[Environment.BASELINE, Environment.ABSENT]
    )
    statements = {ev.position.statement.id for ev in evidence}
    assert Counter(i.environment for i in built.items) == {
        Environment.BASELINE: len(statements),
        Environment.ABSENT: len(statements),
    }
    per_statement = Counter(ev.position.statement.id for ev in evidence)
    for item in built.items:
        assert len(item.parties) == per_statement[item.statement_id]
        assert sum(p.focus for p in item.parties) == 1
        focus_chunks = [c for c in item.chunks if c.party_id == item.focus_party_id]
        if item.environment is Environment.ABSENT:
            assert focus_chunks == [] and item.focus_truth == "undetermined"
            assert len(item.chunks) == len(item.parties) - 1
        else:
            assert len(focus_chunks) == 1 and item.focus_truth == "stance"
            assert len(item.chunks) == len(item.parties)


def test_the_focus_party_is_the_same_across_environments(evidence) -> None:
    built = build_navigation_items(
        evidence, _items(evidence), environments=[Environment.BASELINE, Environment.ABSENT]
    )
    focus = {}
    for item in built.items:
        focus.setdefault(item.statement_id, set()).add(item.focus_party_id)
    assert all(len(parties) == 1 for parties in focus.values())
    # and it depends on the seed, not on the order of the evidence
    again = build_navigation_items(
        list(reversed(evidence)), _items(evidence), environments=[Environment.BASELINE]
    )
    assert {i.statement_id: i.focus_party_id for i in again.items} == {
        s: next(iter(p)) for s, p in focus.items()
    }


def test_a_seeded_subset_of_k_parties(evidence) -> None:
    one = build_navigation_items(
        evidence,
        _items(evidence),
        environments=[Environment.BASELINE, Environment.ABSENT],
        parties=2,
        seed=7,
    )
    two = build_navigation_items(
        evidence,
        _items(evidence),
        environments=[Environment.BASELINE, Environment.ABSENT],
        parties=2,
        seed=7,
    )
    assert one.items == two.items
    assert all(len(item.parties) == 2 for item in one.items)
    subsets = {}
    for item in one.items:  # the same subset in every environment
        subsets.setdefault(item.statement_id, set()).add(tuple(p.party_id for p in item.parties))
    assert all(len(s) == 1 for s in subsets.values())


def test_a_statement_with_one_party_makes_no_item_and_is_counted(evidence) -> None:
    statement = evidence[0].position.statement.id
    lone = [ev for ev in evidence if ev.position.statement.id == statement][:1]
    built = build_navigation_items(lone, _items(lone), environments=[Environment.BASELINE])
    assert built.items == [] and built.counts == {"statements_with_too_few_parties": 1}


def test_over_budget_contexts_are_split_or_refused_never_cut(evidence) -> None:
    full = build_navigation_items(evidence, _items(evidence), environments=[Environment.BASELINE])
    biggest = max(full.items, key=prompt_tokens)
    statement = [ev for ev in evidence if ev.position.statement.id == biggest.statement_id]
    budget = prompt_tokens(biggest) - 1
    refused = build_navigation_items(
        statement,
        _items(statement),
        environments=[Environment.BASELINE],
        token_budget=budget,
        over_budget="refuse",
    )
    assert refused.items == [] and refused.counts == {"refused_over_budget": 1}
    split = build_navigation_items(
        statement,
        _items(statement),
        environments=[Environment.BASELINE],
        token_budget=budget,
        over_budget="split",
    )
    parts = split.items
    assert len(parts) >= 2 and split.counts == {"split_items": 1, "split_parts": len(parts)}
    assert all(prompt_tokens(part) <= budget for part in parts)
    assert all(part.parts == len(parts) for part in parts)
    assert [part.part for part in parts] == list(range(1, len(parts) + 1))
    # every party placed in some part, the focus party in each, every passage whole
    named = {p.party_id for part in parts for p in part.parties}
    assert named == {p.party_id for p in biggest.parties}
    assert all(part.focus_party_id == biggest.focus_party_id for part in parts)
    whole = {c.text for c in biggest.chunks}
    assert all(c.text in whole for part in parts for c in part.chunks)
    assert len({part.key for part in parts}) == len(parts)
    tiny = build_navigation_items(
        statement, _items(statement), environments=[Environment.BASELINE], token_budget=10
    )
    assert tiny.items == [] and tiny.counts == {"refused_over_budget": 1}


def test_party_items_of_other_variants_are_not_used(evidence) -> None:
    anon = build_baseline_items(evidence, Variant.ANONYMIZED)
    built = build_navigation_items(evidence, anon, environments=[Environment.BASELINE])
    assert built.items == []
    assert built.counts == {
        "no_focus_item_baseline": len({e.position.statement.id for e in evidence})
    }


def test_contradictorys_borrowed_passage_is_labelled_for_the_focus_party(evidence) -> None:
    # The opposing passage is borrowed from another party's evidence (its chunk names that
    # party), but it is written about the focus party: the judge must see both passages as the
    # focus party's, or it cannot see the conflict it is asked about.
    contradictory = build_contradictory_items(evidence).items
    built = build_navigation_items(
        evidence,
        [*build_baseline_items(evidence), *contradictory],
        environments=[Environment.CONTRADICTORY],
    )
    assert built.items
    for item in built.items:
        labels = Counter(re.findall(r"^\[\d+\] (\[[^\]]+\])", judge_context(item), re.M))
        assert labels[f"[TARGET: {item.focus.party_name}]"] == 2
        for party in item.parties:
            if not party.focus:
                assert labels[f"[TARGET: {party.party_name}]"] == 1
        # the borrowed passage's chunk still records whose evidence it was
        assert sum(c.party_id == item.focus_party_id for c in item.chunks) == 1
