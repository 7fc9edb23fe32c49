"""The navigation coder: one call per answer and coder seat, reading every party the answer
names with the stance it attributes to it (``navigation_coder_*``, our own prompts, built on the
stance coder's: the answer is fenced by a code derived from its own text, docs/stance-coder.md).

A reply is read as JSON (``{"parties": [{"party", "stance"}]}`` anywhere in it); one that cannot
be read is asked again once, then recorded missing with the reason. A reply whose list repeats a
``parties`` list the answer itself spells out in JSON is refused (possibly planted) the same way.
The coder panel's reading of an answer is taken per party name by strict majority of the seats
(``panel_reading``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from polistemics.coding.parse import stance_word
from polistemics.coding.prompt import fence_code
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.replies import cut_copies, has_reasoning_tag, json_values, strip_reasoning
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import CallResult, Completer, Message
from polistemics.prompts import load, navigation_code_schema, render
from polistemics.runlog import Answer, CodedStance
from polistemics.runlog.navigation import NamedParty, NavigationCodeRecord, NavigationItem
from polistemics.tasks.navigation.context import party_list

STAGE = "navigation_code"
MAX_ATTEMPTS = 2
POSSIBLY_PLANTED = "possibly planted"


def coder_messages(item: NavigationItem, answer_text: str) -> list[Message]:
    user = render(
        "navigation_coder_user",
        statement_text=item.statement_text,
        party_names=party_list(item),
        language=item.output_language,
        fence=fence_code(answer_text, "answer"),
        answer=answer_text,
    )
    return [
        {"role": "system", "content": load("navigation_coder_system")},
        {"role": "user", "content": user},
    ]


@dataclass(frozen=True)
class NavigationReading:
    named: tuple[NamedParty, ...] | None
    problem: str | None = None


def _lists_in(text: str) -> list[tuple[NamedParty, ...]]:
    found = []
    for value in json_values(text):
        if isinstance(value, dict) and isinstance(value.get("parties"), list):
            named = []
            for entry in value["parties"]:
                if not isinstance(entry, dict):
                    continue
                name = entry.get("party") or entry.get("name")
                if isinstance(name, str) and name.strip():
                    named.append(
                        NamedParty(name=name.strip(), stance=stance_word(entry.get("stance")))
                    )
            found.append(tuple(named))
    return found


def parse_navigation_reply(output: str | None, *, answer: str = "") -> NavigationReading:
    """The coder's list, or an unreadable reading with the reason."""
    if not output or not output.strip():
        return NavigationReading(None, "empty reply")
    text = cut_copies(output, (answer,)) if answer.strip() else output
    text = strip_reasoning(text, own_tags_only=has_reasoning_tag(answer))
    lists = _lists_in(text)
    if not lists:
        return NavigationReading(None, "no parties list in the reply")
    planted = set(_lists_in(answer)) if answer else set()
    own = [found for found in lists if found not in planted]
    if not own:
        return NavigationReading(None, f"{POSSIBLY_PLANTED}: the reply repeats the answer's list")
    if len(set(own)) > 1:
        return NavigationReading(None, "the reply holds different parties lists")
    return NavigationReading(own[0])


async def code_answer(
    completer: Completer,
    coder: ModelEndpoint,
    position: int,
    item: NavigationItem,
    answer: Answer,
    *,
    stage: str = STAGE,
    item_key: str | None = None,
) -> NavigationCodeRecord:
    """One coder seat's reading of one answer on ``item``'s statement; ``stage`` and
    ``item_key`` (default: the navigation task's) let another task read its answers with it."""
    text = answer.text or ""
    messages = coder_messages(item, text)
    schema = None if coder.structured_output == "none" else navigation_code_schema()
    reading = NavigationReading(None, "empty answer: nothing to code")
    result: CallResult | None = None
    attempts = 0
    while text.strip() and attempts < MAX_ATTEMPTS:
        result = await completer.complete(
            coder, messages, stage=stage, sample_index=attempts, json_schema=schema
        )
        attempts += 1
        if not result.ok:
            reading = NavigationReading(None, f"call failed: {result.error or 'no reply'}")
            break
        reading = parse_navigation_reply(result.text, answer=text)
        if reading.named is not None:
            break
    return NavigationCodeRecord(
        item_key=item.key if item_key is None else item_key,
        model=answer.model,
        sample_index=answer.sample_index,
        coder=coder.name,
        panel_position=position,
        named=list(reading.named) if reading.named is not None else None,
        missing=reading.problem if reading.named is None else None,
        call_key=result.key if result is not None else None,
        attempts=attempts,
        raw_output=result.text if result is not None else None,
    )


async def code_answers(
    completer: Completer,
    coders: Sequence[ModelEndpoint],
    pairs: Sequence[tuple[NavigationItem, Answer]],
) -> list[NavigationCodeRecord]:
    jobs = [
        code_answer(completer, coder, position, item, answer)
        for item, answer in pairs
        for position, coder in enumerate(coders)
    ]
    return list(await gather_or_cancel(jobs))


@dataclass(frozen=True)
class PanelReading:
    """The coder panel's reading of one answer: each name a strict majority of the seats
    names, with the stance a strict majority gives it (None: no majority)."""

    named: dict[str, CodedStance | None]
    readable_seats: int


def panel_reading(records: Sequence[NavigationCodeRecord], panel_size: int) -> PanelReading | None:
    """None when fewer than a strict majority of the panel's seats returned a reading."""
    readable = [r for r in records if r.named is not None]
    if 2 * len(readable) <= panel_size:
        return None
    names: Counter[str] = Counter()
    stances: dict[str, Counter] = {}
    for record in readable:
        assert record.named is not None
        seen = {}
        for party in record.named:
            seen.setdefault(party.name, party.stance)  # a name listed twice counts once
        for name, stance in seen.items():
            names[name] += 1
            stances.setdefault(name, Counter())[stance] += 1
    named = {}
    for name, n in names.items():
        if 2 * n > panel_size:
            stance, votes = stances[name].most_common(1)[0]
            named[name] = stance if 2 * votes > panel_size else None
    return PanelReading(named, len(readable))
