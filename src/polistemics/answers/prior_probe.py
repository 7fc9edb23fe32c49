"""The closed-book prior probe (issue 16): each target is asked the party-position question with
no context, as a citizen would ask a chatbot, and the stance coder later reads the answer.

One call per target x observation (party x statement) x sample, through the client layer like
every answer (cached, resumable). The prompt is ours (``prompts/prior_probe_*.txt``); its design
is in docs/prior-probe.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from polistemics import prompts
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import CallResult, Completer, Message
from polistemics.records import Election, Position
from polistemics.runlog import ProbeAnswer

STAGE = "prior_probe"


def election_name(election: Election) -> str:
    """How the question names the election: its title, or a plain description when the source
    gave none (a title equal to the id is no title)."""
    title = " ".join(election.title.split())
    if title and title != election.id:
        return title
    return f"{election.country.upper()} election"


def probe_messages(position: Position, election: str) -> list[Message]:
    system = prompts.render("prior_probe_system", language=position.language)
    user = prompts.render(
        "prior_probe_user",
        election=election,
        party_name=position.party.name,
        statement_text=position.statement.text,
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def probe_positions(positions: Iterable[Position]) -> list[Position]:
    """One position per party x statement, in the given order (the observations of a run)."""
    seen: dict[tuple[str, str, str], Position] = {}
    for position in positions:
        key = (position.election_id, position.party.id, position.statement.id)
        seen.setdefault(key, position)
    return list(seen.values())


async def probe_priors(
    completer: Completer,
    targets: Sequence[ModelEndpoint],
    positions: Iterable[Position],
    elections: dict[str, str],
    *,
    samples: int = 1,
) -> list[ProbeAnswer]:
    """Every target x position x sample closed-book answer, in that order. ``elections`` maps an
    election id to the name the question uses (``election_name``)."""
    chosen = probe_positions(positions)
    prompts_for = {
        id(position): probe_messages(position, elections[position.election_id])
        for position in chosen
    }
    jobs = [
        _probe_one(completer, target, position, prompts_for[id(position)], index)
        for target in targets
        for position in chosen
        for index in range(samples)
    ]
    return await gather_or_cancel(jobs)


async def _probe_one(
    completer: Completer,
    target: ModelEndpoint,
    position: Position,
    messages: list[Message],
    sample_index: int,
) -> ProbeAnswer:
    result = await completer.complete(target, messages, stage=STAGE, sample_index=sample_index)
    return probe_answer(position, target.name, sample_index, result)


def probe_answer(
    position: Position, model: str, sample_index: int, result: CallResult
) -> ProbeAnswer:
    text = result.text if result.ok else None
    empty = result.ok and not (text or "").strip()
    return ProbeAnswer(
        election_id=position.election_id,
        party_id=position.party.id,
        statement_id=position.statement.id,
        model=model,
        sample_index=sample_index,
        language=position.language,
        status="ok" if result.ok and not empty else "error",
        text=text,
        error=None if result.ok and not empty else (result.error or "empty answer"),
        call_key=result.key,
    )
