"""Stance coding in a run (issue 16): after answers, judges and the prior probe, the stance coder
panel reads (a) every ok answer to an item of a coded environment (``coding_environments``; the
swapped-order Contradictory items always) and (b) every ok closed-book probe answer.

The calls are ``coding.coder.code_subjects``'s (through the client layer: cached, resumable);
this module picks the subjects, writes ``stance_codes.jsonl`` and summarises for ``run.json``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from polistemics.coding.coder import STAGE, code_subjects
from polistemics.coding.records import majority_codes
from polistemics.coding.subjects import CodingSubject
from polistemics.environments.items import EnvironmentItem
from polistemics.llm.progress import declare_total
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import Completer
from polistemics.records import Position
from polistemics.run.config import RunConfig
from polistemics.runlog import Answer, ProbeAnswer, StanceCodeRecord

__all__ = ["STAGE", "coding_subjects", "run_coding", "summarise_codes"]


def coded_item(item: EnvironmentItem, config: RunConfig) -> bool:
    """Whether answers to ``item`` are coded: a coded environment, or a swapped-order item."""
    if not config.stance_coder:
        return False
    return item.swapped or item.environment in config.coded_environments


def answer_subject(item: EnvironmentItem, answer: Answer) -> CodingSubject:
    return CodingSubject(
        kind="answer",
        subject_key=item.key,
        model=answer.model,
        sample_index=answer.sample_index,
        party_name=item.party_label,  # the name the answerer saw
        statement_text=item.statement_text,
        answer_text=answer.text or "",
        language=item.output_language,
        context=tuple(chunk.text for chunk in item.chunks),
    )


def probe_subject(probe: ProbeAnswer, position: Position) -> CodingSubject:
    return CodingSubject(
        kind="probe",
        subject_key=probe.key,
        model=probe.model,
        sample_index=probe.sample_index,
        party_name=position.party.name,
        statement_text=position.statement.text,
        answer_text=probe.text or "",
        language=probe.language,
        context=None,  # closed book
    )


def coding_subjects(
    config: RunConfig,
    items: Iterable[EnvironmentItem],
    answers: Iterable[Answer],
    probes: Iterable[ProbeAnswer] = (),
    positions: Iterable[Position] = (),
) -> list[CodingSubject]:
    """What the coder reads: ok answers to coded items, then ok probe answers. Failed answers
    are not coded (there is nothing to read); the analyses count them from the answers."""
    if not config.stance_coder:
        return []
    by_key = {item.key: item for item in items if coded_item(item, config)}
    subjects = [
        answer_subject(by_key[answer.item_key], answer)
        for answer in answers
        if answer.ok and answer.item_key in by_key
    ]
    where = {(p.election_id, p.party.id, p.statement.id): p for p in positions}
    for probe in probes:
        position = where.get((probe.election_id, probe.party_id, probe.statement_id))
        if probe.ok and position is not None:
            subjects.append(probe_subject(probe, position))
    return subjects


def coders(config: RunConfig, endpoints: Mapping[str, ModelEndpoint]) -> list[ModelEndpoint]:
    """The coder panel's seats, in order (a name may take several seats)."""
    return [endpoints[name] for name in config.stance_coder]


async def run_coding(
    completer: Completer,
    config: RunConfig,
    endpoints: Mapping[str, ModelEndpoint],
    items: Sequence[EnvironmentItem],
    answers: Sequence[Answer],
    probes: Sequence[ProbeAnswer] = (),
    positions: Sequence[Position] = (),
) -> list[StanceCodeRecord]:
    """Every coder seat's reading of every subject, sorted as ``stance_codes.jsonl`` is."""
    subjects = coding_subjects(config, items, answers, probes, positions)
    if not subjects:
        return []
    seats = coders(config, endpoints)
    listeners = getattr(completer, "listeners", [])
    declare_total(listeners, STAGE, len(subjects) * len(seats))  # first tries
    records = await code_subjects(completer, seats, subjects)
    return sort_codes(records)


def sort_codes(records: Iterable[StanceCodeRecord]) -> list[StanceCodeRecord]:
    return sorted(
        records,
        key=lambda r: (r.kind, r.subject_key, r.model, r.sample_index, r.panel_position),
    )


def summarise_codes(
    config: RunConfig, records: Sequence[StanceCodeRecord], probes: Sequence[ProbeAnswer]
) -> dict | None:
    """``run.json``'s ``stance_coding``: None when the run has no stance coder."""
    if not config.stance_coder:
        return None
    summary: dict = {
        "coders": list(config.stance_coder),
        "environments": [env.value for env in config.coded_environments],
        "contradictory_swapped": config.contradictory_swapped,
        "prior_probe": config.prior_probe,
        "probe_answers": len(probes),
        "probe_answers_failed": sum(not probe.ok for probe in probes),
    }
    majorities = majority_codes(records)
    for kind in ("answer", "probe"):
        mine = [r for r in records if r.kind == kind]
        panel = [code for code in majorities if code.kind == kind]
        summary[kind] = {
            "subjects": len(panel),
            "codes": len(mine),
            "missing": sum(r.stance is None for r in mine),
            "retried": sum(r.attempts > 1 for r in mine),
            "no_majority": sum(code.stance is None for code in panel),
            "majority_stances": dict(
                sorted(Counter(c.stance.value for c in panel if c.stance is not None).items())
            ),
        }
    return summary
