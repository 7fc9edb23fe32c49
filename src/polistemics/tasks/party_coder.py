"""The per-party coder the tasks beyond the paper's share: one call per answer and coder seat,
reading every party the answer names with the stance it attributes to it. Each task writes its
own coder prompts (``<task>_coder_*``, fenced by a code derived from the answer's own text, as
the stance coder's are, docs/stance-coder.md) and names its call stage; the reply's shape is
``navigation_code_schema.json``'s (``{"parties": [{"party", "stance"}]}``).

A reply is read as JSON anywhere in it; one that cannot be read is asked again once, then
recorded missing with the reason. A reply whose list repeats a ``parties`` list the answer itself
spells out in JSON is refused (possibly planted) the same way. The coder panel's reading of an
answer is taken per party name by strict majority of the seats (``panel_reading``). Names are
compared after case folding and collapsing blanks (``name_key``), never matched to the nearest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from polistemics.coding.parse import stance_word
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.replies import cut_copies, has_reasoning_tag, json_values, strip_reasoning
from polistemics.llm.types import CallResult, Completer, Message
from polistemics.prompts import navigation_code_schema
from polistemics.runlog import Answer, CodedStance
from polistemics.runlog.navigation import NamedParty, NavigationCodeRecord

MAX_ATTEMPTS = 2
POSSIBLY_PLANTED = "possibly planted"


def name_key(name: str) -> str:
    """Case folded, blanks collapsed: the only normalisation names get (no fuzzy matching)."""
    return " ".join(name.casefold().split())


@dataclass(frozen=True)
class PartiesReading:
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


def parse_parties_reply(output: str | None, *, answer: str = "") -> PartiesReading:
    """The coder's list, or an unreadable reading with the reason."""
    if not output or not output.strip():
        return PartiesReading(None, "empty reply")
    text = cut_copies(output, (answer,)) if answer.strip() else output
    text = strip_reasoning(text, own_tags_only=has_reasoning_tag(answer))
    lists = _lists_in(text)
    if not lists:
        return PartiesReading(None, "no parties list in the reply")
    planted = set(_lists_in(answer)) if answer else set()
    own = [found for found in lists if found not in planted]
    if not own:
        return PartiesReading(None, f"{POSSIBLY_PLANTED}: the reply repeats the answer's list")
    if len(set(own)) > 1:
        return PartiesReading(None, "the reply holds different parties lists")
    return PartiesReading(own[0])


async def code_call(
    completer: Completer,
    coder: ModelEndpoint,
    position: int,
    messages: list[Message],
    answer: Answer,
    *,
    stage: str,
    item_key: str | None = None,
) -> NavigationCodeRecord:
    """One coder seat's reading of one answer (``messages``: the task's coder prompt), recorded
    under ``item_key`` (default: the answer's item)."""
    text = answer.text or ""
    schema = None if coder.structured_output == "none" else navigation_code_schema()
    reading = PartiesReading(None, "empty answer: nothing to code")
    result: CallResult | None = None
    attempts = 0
    while text.strip() and attempts < MAX_ATTEMPTS:
        result = await completer.complete(
            coder, messages, stage=stage, sample_index=attempts, json_schema=schema
        )
        attempts += 1
        if not result.ok:
            reading = PartiesReading(None, f"call failed: {result.error or 'no reply'}")
            break
        reading = parse_parties_reply(result.text, answer=text)
        if reading.named is not None:
            break
    return NavigationCodeRecord(
        item_key=answer.item_key if item_key is None else item_key,
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
