"""Navigation items (issue 29, item 2) from one election's standardised evidence and the
party-position items the environment builders made for it.

One item per statement and environment. Its parties are every party with evidence on the
statement, or a seeded subset of ``parties`` of them (the same subset in every environment).
Its *focus party* is drawn per statement from a seeded order of those parties: the first with a
party-position item in the environment (Vague and Contradictory drop some observations), so it is
the same party in every environment where it can be. The focus party's chunks are its
party-position item's chunks in that environment (none for Absent, the Vague rewrite, the two
opposing passages, the evidence among distractors); every other party's chunk is its Baseline
chunk. Ground truth is each party's stance in the stance matrix; the focus party's expected
reading is "cannot be determined" in Absent and Vague and "conflicting" in Contradictory.

A context over the token budget is split into parts (the focus party in every part, the others
shared out in order) or refused; never cut. Both are counted (``NavigationBuild.counts``).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from polistemics.conditions import Environment, Variant
from polistemics.environments.baseline import baseline_item
from polistemics.records import Evidence
from polistemics.runlog.items import Chunk, EnvironmentItem
from polistemics.runlog.navigation import FocusTruth, NavigationItem, NavigationParty
from polistemics.tasks.navigation.context import estimate_tokens
from polistemics.tasks.navigation.prompt import navigation_messages
from polistemics.tasks.navigation.questions import NAVIGATION_ENVIRONMENTS

OverBudget = Literal["split", "refuse"]

FOCUS_TRUTH: dict[Environment, FocusTruth] = {
    Environment.BASELINE: "stance",
    Environment.NOISY: "stance",
    Environment.ABSENT: "undetermined",
    Environment.VAGUE: "undetermined",
    Environment.CONTRADICTORY: "conflicting",
}


@dataclass
class NavigationBuild:
    items: list[NavigationItem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n


def _rank(seed: int, statement_id: str, party_id: str) -> str:
    return hashlib.sha256(f"{seed}|{statement_id}|focus|{party_id}".encode()).hexdigest()


def party_subset(evidence: Sequence[Evidence], k: int | None, seed: int) -> list[Evidence]:
    """All of a statement's evidence, or a seeded ``k`` of them in their original order."""
    if k is None or len(evidence) <= k:
        return list(evidence)
    statement_id = evidence[0].position.statement.id
    chosen = set(random.Random(f"{seed}|{statement_id}|subset").sample(range(len(evidence)), k))
    return [ev for i, ev in enumerate(evidence) if i in chosen]


def build_navigation_items(
    evidence: Sequence[Evidence],
    party_items: Iterable[EnvironmentItem],
    *,
    environments: Iterable[Environment],
    seed: int = 0,
    parties: int | None = None,
    election_party_names: Sequence[str] = (),
    token_budget: int | None = None,
    over_budget: OverBudget = "split",
) -> NavigationBuild:
    """Every navigation item of one election (statement order, environments in Table 1 order)."""
    wanted = [env for env in NAVIGATION_ENVIRONMENTS if env in set(environments)]
    by_observation: dict[tuple[str, Environment], EnvironmentItem] = {
        (item.observation_id, item.environment): item
        for item in party_items
        if item.variant is Variant.FULL and not item.swapped
    }
    by_statement: dict[str, list[Evidence]] = {}
    for ev in evidence:
        by_statement.setdefault(ev.position.statement.id, []).append(ev)
    build = NavigationBuild()
    for statement_id in sorted(
        by_statement, key=lambda s: by_statement[s][0].position.statement.number
    ):
        chosen = party_subset(by_statement[statement_id], parties, seed)
        if len(chosen) < 2:
            build.count("statements_with_too_few_parties")
            continue
        ranked = sorted(chosen, key=lambda ev: _rank(seed, statement_id, ev.position.party.id))
        for env in wanted:
            focus = next((ev for ev in ranked if (ev.observation_id, env) in by_observation), None)
            if focus is None:
                build.count(f"no_focus_item_{env.value}")
                continue
            focus_item = by_observation[(focus.observation_id, env)]
            fitted = _fitted(chosen, focus, focus_item, env, token_budget, over_budget, build)
            build.items.extend(
                item.model_copy(update={"election_party_names": list(election_party_names)})
                for item in fitted
            )
    return build


def _item(
    chosen: Sequence[Evidence], focus: Evidence, focus_item: EnvironmentItem, env: Environment
) -> NavigationItem:
    chunks: list[Chunk] = []
    about: list[str] = []
    navigation_parties = []
    for ev in chosen:
        is_focus = ev.observation_id == focus.observation_id
        mine = focus_item.chunks if is_focus else baseline_item(ev, Variant.FULL).chunks
        chunks.extend(mine)
        about.extend([ev.position.party.id] * len(mine))
        navigation_parties.append(
            NavigationParty(
                party_id=ev.position.party.id,
                party_name=ev.position.party.name,
                stance=ev.position.stance,
                focus=is_focus,
            )
        )
    position = focus.position
    return NavigationItem(
        election_id=position.election_id,
        statement_id=position.statement.id,
        statement_number=position.statement.number,
        statement_text=position.statement.text,
        environment=env,
        language=position.language,
        output_language=focus_item.output_language,
        parties=navigation_parties,
        chunks=chunks,
        about=about,
        focus_party_id=position.party.id,
        focus_truth=FOCUS_TRUTH[env],
    )


def prompt_tokens(item: NavigationItem) -> int:
    """The estimated size of the item's answer prompt (system message, context, question)."""
    return sum(estimate_tokens(m["content"]) for m in navigation_messages(item))


def _fitted(
    chosen: Sequence[Evidence],
    focus: Evidence,
    focus_item: EnvironmentItem,
    env: Environment,
    budget: int | None,
    over_budget: OverBudget,
    build: NavigationBuild,
) -> list[NavigationItem]:
    """The item, or its parts when its prompt is over ``budget``; none when refused. A part
    holds the focus party and as many of the others, in order, as fit."""
    item = _item(chosen, focus, focus_item, env)
    if budget is None or prompt_tokens(item) <= budget:
        return [item]
    if over_budget == "refuse":
        build.count("refused_over_budget")
        return []
    groups: list[list[Evidence]] = []
    for ev in chosen:
        if ev.observation_id == focus.observation_id:
            continue
        if (
            groups
            and prompt_tokens(
                _item(_with(chosen, focus, groups[-1] + [ev]), focus, focus_item, env)
            )
            <= budget
        ):
            groups[-1].append(ev)
        else:
            groups.append([ev])
    parts = [_item(_with(chosen, focus, group), focus, focus_item, env) for group in groups]
    if not parts or any(prompt_tokens(part) > budget for part in parts):
        build.count("refused_over_budget")  # even the focus party and one other do not fit
        return []
    build.count("split_items")
    build.count("split_parts", len(parts))
    return [
        part.model_copy(update={"part": n, "parts": len(parts)})
        for n, part in enumerate(parts, start=1)
    ]


def _with(chosen: Sequence[Evidence], focus: Evidence, others: list[Evidence]) -> list[Evidence]:
    """The focus party and ``others``, in the statement's order."""
    keep = {focus.observation_id, *(ev.observation_id for ev in others)}
    return [ev for ev in chosen if ev.observation_id in keep]
