"""The stance coding stage (issue 16): after answers, judges and the prior probe, the coder panel
reads (a) every ok answer to an item of a coded environment (``coding_environments``; the
swapped-order Contradictory items always) and (b) every ok closed-book probe answer.

The calls are ``coding.coder.code_subjects``'s (through the client layer: cached, resumable);
this stage picks the subjects, plans their calls, writes ``stance_codes.jsonl`` and each
election's copy in ``exports/<election>/``, and summarises for run.json's ``stance_coding``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from polistemics.coding.coder import STAGE, code_subjects
from polistemics.coding.records import majority_codes
from polistemics.coding.subjects import CodingSubject
from polistemics.llm.progress import declare_total
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import Completer
from polistemics.prompts import load
from polistemics.records import Position
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import PlanRow, PlanState, same_calls, tokens
from polistemics.runlog import Answer, EnvironmentItem, ProbeAnswer, RunDir, StanceCodeRecord

OUTPUT_TOKENS = 20


class StanceCode(BaseStage):
    """Entered whatever the config: without a coder it codes nothing (and says so in run.json)."""

    name = "stance_code"

    async def run(self, state: StudyState) -> None:
        assert state.client is not None
        codes = await run_coding(
            state.client,
            state.config,
            state.endpoints,
            [*state.items, *state.swapped_items],
            state.answers,
            state.probe_answers,
            state.observations,
        )
        state.stance_codes = codes
        if state.config.stance_coder:
            missing = sum(record.stance is None for record in codes)
            state.log(f"stance codes: {len(codes)} coder readings, {missing} missing")

    def plan(self, plan: PlanState) -> list[PlanRow]:
        """First tries per distinct coder endpoint (identical seats share calls, as judges do):
        answers of coded environments and swapped items, and probe answers. Every answer is
        assumed to succeed."""
        config = plan.config
        coded = sum(
            n for (_, env), n in plan.items_per_env.items() if env in config.coded_environments
        )
        answer_codes = (
            (coded + plan.swapped_items) * config.samples * len(config.targets)
            if config.stance_coder
            else 0
        )
        probe_codes = plan.probe_answers
        plan.details["stance_code_subjects"] = {"answers": answer_codes, "probes": probe_codes}
        if not config.stance_coder:
            plan.details["stance_code_calls_total"] = 0
            return []
        code_in = tokens(load("stance_coder_system")) + tokens(load("stance_coder_user")) + 400
        rows = [
            plan.row(
                STAGE,
                plan.endpoints[names[0]],
                answer_codes + probe_codes,
                plan.cached(STAGE, names),
                code_in,
                OUTPUT_TOKENS,
            )
            for names in same_calls(config.stance_coder, plan.endpoints)
        ]
        plan.details["stance_code_calls_total"] = sum(r.calls for r in rows)
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        if not details.get("stance_code_calls_total"):
            return []
        subjects = details["stance_code_subjects"]
        return [
            f"stance_code: {details['stance_code_calls_total']:,} coder calls "
            f"({subjects['answers']:,} answers and {subjects['probes']:,} probe answers per "
            "distinct coder endpoint; one retry per unreadable reply not counted)"
        ]

    def write(self, state: StudyState, run: RunDir) -> None:
        items = [*state.items, *state.swapped_items]
        run.write_stance_codes(state.stance_codes, items, state.election_ids)

    def manifest(self, state: StudyState) -> dict:
        return {
            "stance_coding": summarise_codes(state.config, state.stance_codes, state.probe_answers)
        }


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
