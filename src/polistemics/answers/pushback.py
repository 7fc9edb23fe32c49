"""Pushback turns (issue 30, item 2; docs/pushback.md): which items get a scripted second user
turn, what it says, and the target's second answer with the whole conversation in view.

- ``select_pushback``: per environment, a seeded share of the full-variant items, each with one
  pressure type (the types take turns over the seeded order, so each gets an equal share) and
  the false stance a capitulating answer would adopt (``false_stance``). Deterministic: the
  same items, seed and settings choose the same conversations, whatever order items come in.
- ``follow_up``: the scripted second user turn (``prompts/pushback_<pressure>.txt``).
- ``ask_second_turns``: one call per conversation through the client layer (cached, resumable,
  counted). The second call's messages are the task prompt, the first answer as the assistant's
  turn and the follow-up, so its cache key holds the first answer: a resumed run whose first
  answer changed makes a new second call instead of reusing the old one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from polistemics.answers.generate import answer_from_result
from polistemics.conditions import Environment, Variant
from polistemics.environments.task_prompt import task_messages
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer, Message
from polistemics.prompts import render
from polistemics.records import Stance
from polistemics.runlog import Answer, EnvironmentItem
from polistemics.runlog.pushback import Pressure, PushbackTurn

STAGE = "pushback"

# How the follow-up names the claimed stance ("{party} agrees with the statement ...").
CLAIMED_POSITION = {Stance.AGREE: "agrees with", Stance.DISAGREE: "disagrees with"}


@dataclass(frozen=True)
class PushbackChoice:
    """An item chosen for pushback, its pressure type and the false stance."""

    item: EnvironmentItem
    pressure: Pressure
    false_stance: Stance


def _rank(seed: int, *parts: str) -> str:
    return hashlib.sha256("\x00".join((str(seed), *parts)).encode("utf-8")).hexdigest()


def reference_stance(item: EnvironmentItem) -> Stance:
    """The stance the judges are told to expect (Table 11): the evidence's for Counterfactual,
    the party's real stance otherwise (in inconclusive environments: the documented stance the
    evidence does not establish)."""
    return item.judged_expected_stance


def false_stance(item: EnvironmentItem, seed: int) -> Stance:
    """The opposite of the reference stance; for a Neutral reference, Agree or Disagree by the
    seed and the item (about half each), since both are equally far from Neutral."""
    reference = reference_stance(item)
    if reference is Stance.AGREE:
        return Stance.DISAGREE
    if reference is Stance.DISAGREE:
        return Stance.AGREE
    return Stance.AGREE if int(_rank(seed, item.key, "neutral")[:8], 16) % 2 else Stance.DISAGREE


def chosen_count(n: int, share: float) -> int:
    """Items of an environment that get pushback: ``share`` of ``n``, rounded half up, at least
    one of a non-empty environment (``--dry-run`` counts with the same rule)."""
    if n <= 0:
        return 0
    return min(n, max(1, int(share * n + 0.5)))


def select_pushback(
    items: Iterable[EnvironmentItem],
    environments: Sequence[Environment],
    share: float,
    pressures: Sequence[Pressure],
    seed: int,
) -> list[PushbackChoice]:
    """The conversations of a run, sorted by item key (see the module docstring)."""
    if not pressures:
        raise ValueError("pushback needs at least one pressure type")
    groups: dict[Environment, list[EnvironmentItem]] = {}
    for item in items:
        if item.variant is Variant.FULL and not item.swapped and item.environment in environments:
            groups.setdefault(item.environment, []).append(item)
    chosen: list[PushbackChoice] = []
    for members in groups.values():
        ranked = sorted(members, key=lambda item: (_rank(seed, item.key), item.key))
        for number, item in enumerate(ranked[: chosen_count(len(ranked), share)]):
            pressure = pressures[number % len(pressures)]
            chosen.append(PushbackChoice(item, pressure, false_stance(item, seed)))
    return sorted(chosen, key=lambda choice: choice.item.key)


def follow_up(item: EnvironmentItem, pressure: Pressure, claimed: Stance) -> str:
    """The scripted second user turn. (a) and (b) claim ``claimed``; (c) and (d) claim none."""
    template = f"pushback_{pressure.value}"
    if pressure is Pressure.ARE_YOU_SURE:
        return render(template)
    values = {"party_name": item.party_label, "statement_text": item.statement_text}
    if pressure.claims_stance:
        values["claimed_position"] = CLAIMED_POSITION[claimed]
    return render(template, **values)


def second_turn_messages(item: EnvironmentItem, first_text: str, follow: str) -> list[Message]:
    """The whole conversation: the task prompt, the first answer, the follow-up."""
    return [
        *task_messages(item),
        {"role": "assistant", "content": first_text},
        {"role": "user", "content": follow},
    ]


async def ask_second_turns(
    completer: Completer,
    targets: Mapping[str, ModelEndpoint],
    conversations: Sequence[tuple[PushbackChoice, Answer]],
) -> list[PushbackTurn]:
    """One second answer per (choice, ok first answer), in input order."""
    jobs = [
        _ask_one(completer, targets[answer.model], choice, answer)
        for choice, answer in conversations
        if answer.ok
    ]
    return await gather_or_cancel(jobs)


async def _ask_one(
    completer: Completer, target: ModelEndpoint, choice: PushbackChoice, first: Answer
) -> PushbackTurn:
    first_text = first.text or ""
    follow = follow_up(choice.item, choice.pressure, choice.false_stance)
    messages = second_turn_messages(choice.item, first_text, follow)
    result = await completer.complete(
        target, messages, stage=STAGE, sample_index=first.sample_index
    )
    # The second answer's outcome, read from the call as every answer's is.
    second = answer_from_result(choice.item.key, target.name, first.sample_index, result)
    return PushbackTurn(
        **second.model_dump(),
        pressure=choice.pressure,
        false_stance=choice.false_stance,
        first_call_key=first.call_key,
        first_text=first_text,
        follow_up=follow,
    )
