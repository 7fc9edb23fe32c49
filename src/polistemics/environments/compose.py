"""Combined environments (issue 30): two of Table 1's manipulations applied to one context.

Each composition is built from the same pieces its parts use, in this order (the reasoning and
the judges' view: docs/environments-combined.md):

1. the target passages: the observation's own evidence; none with Absent; with Contradictory the
   own evidence and the ideologically closest strictly opposing party's passage written about
   the party (in Contradictory's order, so with ``counterbalance_order`` the same observations
   show the opposing passage first); with Counterfactual the farthest opposing party's passage
   instead of the own;
2. Vague: the own passage replaced by its accepted rewrite (the one the Vague environment uses);
3. Noisy: the target passages put in the middle of the observation's four distractors, chosen
   as Noisy chooses them (from the standardised texts' similarity) except that a party whose
   passage is already shown as a [TARGET] is not a distractor as well:

       Vague + Noisy           [o, o, VAGUE OWN, s, s]         evidence_index 2
       Contradictory + Noisy   [o, o, OWN, OPPOSING, s, s]     evidence_index 2 (3 when swapped)
       Absent + Noisy          [o, o, s, s]                    no evidence_index
       Noisy + Counterfactual  [o, o, FARTHEST, s, s]          evidence_index 2
       Vague + Contradictory   [VAGUE OWN, OPPOSING]           evidence_index 0 (1 when swapped)

   (o: another party on the same statement, s: the same party on another statement; when a pool
   is short the other makes up the difference, as in Noisy.)

An observation is dropped only under a part's own rule: no strictly opposing party
(Contradictory, Counterfactual), no accepted Vague rewrite (Vague), fewer than four distractor
candidates (Noisy). Each rule's drops are counted; an observation failing two rules counts under
both and once in the total.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import (
    EnvironmentInputError,
    check_evidence,
    make_item,
    party_label,
    target_chunk,
)
from polistemics.environments.conflict import ConflictSelection, borrowed_chunk
from polistemics.environments.noisy import TARGET_INDEX, DistractorChunks, DistractorPicker
from polistemics.environments.vague import VagueRewrite, vague_chunk
from polistemics.records import Evidence, Stance
from polistemics.runlog.items import Chunk, EnvironmentItem

# The part rules under which an observation is dropped, as counted in run.json.
NO_OPPOSING_PARTY = "dropped_no_opposing_party"
NO_VAGUE_REWRITE = "dropped_no_vague_rewrite"
TOO_FEW_DISTRACTORS = "dropped_too_few_distractors"


@dataclass
class CompositionBuild:
    items: list[EnvironmentItem]  # evidence order
    dropped: dict[str, list[str]] = field(default_factory=dict)  # rule -> observation ids

    @property
    def n_dropped(self) -> int:
        return len({obs for ids in self.dropped.values() for obs in ids})

    def counts(self) -> dict[str, int]:
        return {rule: len(ids) for rule, ids in self.dropped.items()}


@dataclass
class _Targets:
    chunks: list[Chunk]
    own_index: int | None  # which of ``chunks`` is the observation's own (or replacing) passage
    expected_stance: Stance | None = None
    conflict_party_id: str | None = None


def build_composition_items(
    evidence: Sequence[Evidence],
    composition: Environment,
    *,
    variant: Variant = Variant.FULL,
    selection: ConflictSelection | None = None,
    rewrites: Sequence[VagueRewrite] | None = None,
    picker: DistractorPicker | None = None,
    counterbalance_order: bool = False,
) -> CompositionBuild:
    """The items of one composition. Needs ``selection`` (with Contradictory or Counterfactual),
    ``rewrites`` (with Vague) and a ``picker`` of the standardised texts' distractors (with
    Noisy: ``noisy.DistractorPicker``)."""
    check_evidence(evidence)
    if not composition.is_composition:
        raise EnvironmentInputError(f"'{composition.value}' is not a composition")
    parts = composition.parts
    conflict = Environment.CONTRADICTORY in parts or Environment.COUNTERFACTUAL in parts
    needs = {
        "a conflict-party selection": conflict and selection is None,
        "the Vague rewrites": Environment.VAGUE in parts and rewrites is None,
        "a distractor picker": Environment.NOISY in parts and picker is None and bool(evidence),
    }
    missing = [what for what, lacking in needs.items() if lacking]
    if missing:
        raise EnvironmentInputError(f"{composition.value} needs {', '.join(missing)}")
    evidence = list(evidence)
    by_rewrite = {r.observation_id: r for r in rewrites or ()}
    swapped = set(sorted(selection.choices)[1::2]) if selection and counterbalance_order else set()
    dropped: dict[str, list[str]] = {}
    if conflict:
        dropped[NO_OPPOSING_PARTY] = []
    if Environment.VAGUE in parts:
        dropped[NO_VAGUE_REWRITE] = []
    if Environment.NOISY in parts:
        dropped[TOO_FEW_DISTRACTORS] = []

    items = []
    made = DistractorChunks(evidence)
    for i, ev in enumerate(evidence):
        obs_id = ev.observation_id
        label = party_label(ev.position.party, variant, observation_id=obs_id)
        failed = []
        targets = _targets(ev, parts, label, selection, obs_id in swapped)
        if targets is None:
            failed.append(NO_OPPOSING_PARTY)
        rewrite = by_rewrite.get(obs_id) if Environment.VAGUE in parts else None
        if Environment.VAGUE in parts and rewrite is None:
            failed.append(NO_VAGUE_REWRITE)
        picked = None
        if Environment.NOISY in parts:
            assert picker is not None
            shown = {targets.conflict_party_id} if targets and targets.conflict_party_id else set()
            picked = picker.pick(i, frozenset(shown))
            if picked is None:
                failed.append(TOO_FEW_DISTRACTORS)
        for rule in failed:
            dropped[rule].append(obs_id)
        if failed:
            continue
        assert targets is not None
        chunks = list(targets.chunks)
        if rewrite is not None:
            assert targets.own_index is not None
            chunks[targets.own_index] = vague_chunk(ev, rewrite, label)
        index = targets.own_index
        if picked is not None:
            distractors = made.of(*picked, label)
            chunks = distractors[:TARGET_INDEX] + chunks + distractors[TARGET_INDEX:]
            index = None if index is None else index + TARGET_INDEX
        items.append(
            make_item(
                ev,
                composition,
                variant,
                chunks,
                evidence_index=index,
                expected_stance=targets.expected_stance,
                conflict_party_id=targets.conflict_party_id,
                vague_mode=rewrite.mode if rewrite is not None else None,
            )
        )
    return CompositionBuild(items, dropped)


def _targets(
    ev: Evidence,
    parts: tuple[Environment, ...],
    label: str,
    selection: ConflictSelection | None,
    swapped: bool,
) -> _Targets | None:
    """Step 1: the [TARGET] passages; None when a conflict part finds no opposing party."""
    if Environment.ABSENT in parts:
        return _Targets([], None)
    if Environment.CONTRADICTORY in parts or Environment.COUNTERFACTUAL in parts:
        assert selection is not None
        choice = selection.choices.get(ev.observation_id)
        if choice is None:
            return None
        if Environment.COUNTERFACTUAL in parts:
            source = choice.farthest
            return _Targets(
                [borrowed_chunk(source, label)],
                0,
                expected_stance=source.position.stance,
                conflict_party_id=source.position.party.id,
            )
        chunks = [target_chunk(ev, label), borrowed_chunk(choice.closest, label)]
        own = 0
        if swapped:
            chunks.reverse()
            own = 1
        return _Targets(chunks, own, conflict_party_id=choice.closest.position.party.id)
    return _Targets([target_chunk(ev, label)], 0)


def planned_composition_items(
    evidence: Sequence[Evidence],
    composition: Environment,
    selection: ConflictSelection,
    rewritten: Sequence[str] | None = None,
) -> CompositionBuild:
    """What ``build_composition_items`` keeps and drops, without models (for ``--dry-run``):
    the drop rules read stances and pool sizes only, never the similarity values or the
    rewrites' text. ``rewritten``: the observations with an accepted Vague rewrite (None: all).
    """
    ids = [ev.observation_id for ev in evidence] if rewritten is None else rewritten
    return build_composition_items(
        evidence,
        composition,
        selection=selection,
        rewrites=[VagueRewrite(observation_id=i, mode=0, text="[PARTY]") for i in ids],
        picker=DistractorPicker(evidence, None),
    )
