"""Comparison items (issue 29, item 3) from one election's standardised evidence and the
party-position items the environment builders made for it.

Per statement, the pairs of parties with evidence on it are *differing* (one agrees with the
statement, the other disagrees: strictly opposing, as the paper's Contradictory environment
reads opposition) or *agreeing* (both take the same stance); a pair with one neutral party and
one that is not is neither, and not drawn. A seeded ``differing`` of the first kind and
``agreeing`` of the second are drawn per statement. A statement that no party opposes (or that
no party supports) cannot make a differing pair: it gets none, and that is counted
(``statements_without_differing_pair``, with ``statements_no_party_opposes`` for the first
reason), as is a statement without an agreeing pair.

Per pair, the order the question names the two parties and the side the environments degrade
are seeded independently, so the degraded side is the first-named party in about half of the
pairs. One item per pair and environment: the degraded side's chunks are its party-position
item's chunks in that environment (none for Absent, the Vague rewrite, the two opposing
passages, the evidence among distractors), the intact side's its Baseline chunk, in the order
the question names them. Where the degraded side has no party-position item in an environment
(Vague and Contradictory drop some observations) the other side is degraded instead, and where
neither has one the pair makes no item there (counted).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from polistemics.conditions import Environment, Variant
from polistemics.environments.baseline import baseline_item
from polistemics.records import Evidence, Stance
from polistemics.runlog.comparison import ComparisonItem, ComparisonParty, PairKind
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.navigation import FocusTruth
from polistemics.tasks.comparison.questions import COMPARISON_ENVIRONMENTS

DEGRADED_TRUTH: dict[Environment, FocusTruth] = {
    Environment.BASELINE: "stance",
    Environment.NOISY: "stance",
    Environment.ABSENT: "undetermined",
    Environment.VAGUE: "undetermined",
    Environment.CONTRADICTORY: "conflicting",
}
OPPOSED = frozenset({Stance.AGREE, Stance.DISAGREE})


@dataclass
class ComparisonBuild:
    items: list[ComparisonItem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n


def pair_kind(a: Evidence, b: Evidence) -> PairKind | None:
    """Differing (strictly opposing stances), agreeing (the same stance), or neither."""
    stances = {a.position.stance, b.position.stance}
    if stances == OPPOSED:
        return "differing"
    if len(stances) == 1:
        return "agreeing"
    return None


@dataclass(frozen=True)
class Pair:
    """A drawn pair: the parties in the order the question names them, and the side the
    environments degrade where they can (0: the first-named, 1: the second-named)."""

    kind: PairKind
    named: tuple[Evidence, Evidence]
    degraded: int


def draw_pairs(
    evidence: Sequence[Evidence],
    *,
    differing: int,
    agreeing: int,
    seed: int,
    build: ComparisonBuild,
) -> list[Pair]:
    """A statement's seeded pairs: ``differing`` differing and ``agreeing`` agreeing ones (fewer
    where the statement has fewer), differing first."""
    statement_id = evidence[0].position.statement.id
    # In party-id order, so the draw depends on the seed, not on the order of the evidence.
    evidence = sorted(evidence, key=lambda ev: ev.position.party.id)
    by_kind: dict[PairKind, list[tuple[Evidence, Evidence]]] = {"differing": [], "agreeing": []}
    for a, b in itertools.combinations(evidence, 2):
        kind = pair_kind(a, b)
        if kind is not None:
            by_kind[kind].append((a, b))
    stances = {ev.position.stance for ev in evidence}
    if not by_kind["differing"]:
        build.count("statements_without_differing_pair")
        if Stance.DISAGREE not in stances:
            build.count("statements_no_party_opposes")
    if not by_kind["agreeing"]:
        build.count("statements_without_agreeing_pair")
    pairs = []
    for kind, wanted in (("differing", differing), ("agreeing", agreeing)):
        found = by_kind[kind]
        rng = random.Random(f"{seed}|{statement_id}|comparison|{kind}")
        for a, b in rng.sample(found, min(wanted, len(found))):
            ids = f"{a.position.party.id}|{b.position.party.id}"
            order = random.Random(f"{seed}|{statement_id}|{ids}|order").random() < 0.5
            side = random.Random(f"{seed}|{statement_id}|{ids}|degraded").random() < 0.5
            pairs.append(Pair(kind, (b, a) if order else (a, b), int(side)))
    build.count("differing_pairs", sum(p.kind == "differing" for p in pairs))
    build.count("agreeing_pairs", sum(p.kind == "agreeing" for p in pairs))
    return pairs


def build_comparison_items(
    evidence: Sequence[Evidence],
    party_items: Iterable[EnvironmentItem],
    *,
    environments: Iterable[Environment],
    seed: int = 0,
    differing: int = 1,
    agreeing: int = 1,
    election_party_names: Sequence[str] = (),
) -> ComparisonBuild:
    """Every comparison item of one election (statement order, then pair, then environments
    in Table 1 order)."""
    wanted = [env for env in COMPARISON_ENVIRONMENTS if env in set(environments)]
    by_observation: dict[tuple[str, Environment], EnvironmentItem] = {
        (item.observation_id, item.environment): item
        for item in party_items
        if item.variant is Variant.FULL and not item.swapped
    }
    by_statement: dict[str, list[Evidence]] = {}
    for ev in evidence:
        by_statement.setdefault(ev.position.statement.id, []).append(ev)
    build = ComparisonBuild()
    for statement_id in sorted(
        by_statement, key=lambda s: by_statement[s][0].position.statement.number
    ):
        pairs = draw_pairs(
            by_statement[statement_id],
            differing=differing,
            agreeing=agreeing,
            seed=seed,
            build=build,
        )
        for pair in pairs:
            for env in wanted:
                sides = (pair.degraded, 1 - pair.degraded)
                side = next(
                    (s for s in sides if (pair.named[s].observation_id, env) in by_observation),
                    None,
                )
                if side is None:
                    build.count(f"no_degraded_item_{env.value}")
                    continue
                if side != pair.degraded:
                    build.count("degraded_side_switched")
                degraded_item = by_observation[(pair.named[side].observation_id, env)]
                item = _item(pair, side, degraded_item, env)
                build.items.append(
                    item.model_copy(update={"election_party_names": list(election_party_names)})
                )
    return build


def _item(
    pair: Pair, side: int, degraded_item: EnvironmentItem, env: Environment
) -> ComparisonItem:
    chunks, about, parties = [], [], []
    for i, ev in enumerate(pair.named):
        mine = degraded_item.chunks if i == side else baseline_item(ev, Variant.FULL).chunks
        chunks.extend(mine)
        about.extend([ev.position.party.id] * len(mine))
        parties.append(
            ComparisonParty(
                party_id=ev.position.party.id,
                party_name=ev.position.party.name,
                stance=ev.position.stance,
                degraded=i == side,
            )
        )
    position = pair.named[side].position
    return ComparisonItem(
        election_id=position.election_id,
        statement_id=position.statement.id,
        statement_number=position.statement.number,
        statement_text=position.statement.text,
        environment=env,
        language=position.language,
        output_language=degraded_item.output_language,
        pair=pair.kind,
        parties=parties,
        chunks=chunks,
        about=about,
        degraded_truth=DEGRADED_TRUTH[env],
    )
