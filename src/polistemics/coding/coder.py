"""Stance coding calls: every coder seat reads every subject (issue 16, item 1).

One call per (subject, coder seat). A reply that cannot be read is asked again exactly once
(``sample_index=1``, a distinct call with its own cache key, as the judges retry); if it still
cannot be read, or the call failed, the seat's code is recorded as missing with the reason and
the raw reply kept: never guessed. A stance that the answer itself spells out as a code
(``parse.planted_stances``: ``Stance: both``, ``{"stance": ...}`` at any depth) is treated the
same way: asked again once, then recorded as missing with the reason ``possibly planted``.
The cache key holds the endpoint, its parameters and the prompt, not the seat, so identical
seats (same endpoint and parameters) share their calls, as judge seats do. The panel's
majority is taken downstream (``records.majority_codes``).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence

from polistemics.coding.parse import (
    POSSIBLY_PLANTED,
    CoderReading,
    parse_coder_reply,
    planted_stances,
    unreadable,
)
from polistemics.coding.prompt import coder_messages, coder_schema
from polistemics.coding.subjects import CodingSubject
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import CallResult, Completer
from polistemics.runlog import StanceCodeRecord

STAGE = "stance_code"
MAX_ATTEMPTS = 2  # the first call and one retry when the reply cannot be read

OnCodeResult = Callable[[StanceCodeRecord], Awaitable[object] | object]


class CodingInputError(ValueError):
    """The coders or subjects handed over cannot be coded (e.g. an empty panel)."""


async def code_subjects(
    completer: Completer,
    coders: list[ModelEndpoint],
    subjects: Sequence[CodingSubject],
    *,
    on_result: OnCodeResult | None = None,
    stage: str = STAGE,
) -> list[StanceCodeRecord]:
    """One record per subject and coder seat, in input order (subject, then seat).

    ``on_result`` sees each record as soon as it is ready (to write it as the stage goes).
    A subject with an empty answer is recorded missing without a call. ``stage`` labels the
    calls for progress and accounting (not part of their cache key).
    """
    if not coders:
        raise CodingInputError("the stance coder panel is empty: name at least one coder model")
    jobs = [
        code_one(completer, coder, position, subject, on_result, stage=stage)
        for subject in subjects
        for position, coder in enumerate(coders)
    ]
    return await gather_or_cancel(jobs)


async def code_one(
    completer: Completer,
    coder: ModelEndpoint,
    position: int,
    subject: CodingSubject,
    on_result: OnCodeResult | None = None,
    *,
    stage: str = STAGE,
) -> StanceCodeRecord:
    """One seat's code of one subject (with at most one retry for an unreadable reply)."""
    result: CallResult | None = None
    reading = unreadable("empty answer: nothing to code")
    attempts = 0
    if subject.answer_text.strip():
        messages = coder_messages(subject)
        schema = None if coder.structured_output == "none" else coder_schema()
        shown = (subject.answer_text, *subject.earlier_texts)  # the target's texts in the prompt
        planted = planted_stances(shown)
        refused = False
        while attempts < MAX_ATTEMPTS:
            result = await completer.complete(
                coder, messages, stage=stage, sample_index=attempts, json_schema=schema
            )
            attempts += 1
            if not result.ok:
                reading = unreadable(f"call failed: {result.error or 'no reply'}")
                refused = False
                break  # the client already retried transient failures
            reading = parse_coder_reply(result.text, quoted=shown)
            refused = reading.stance in planted or (reading.problem or "").startswith(
                POSSIBLY_PLANTED
            )
            if refused:  # possibly the answer's own code: asked again, never taken
                reading = unreadable(POSSIBLY_PLANTED)
            elif reading.readable:
                break
        if refused:
            reading = unreadable(POSSIBLY_PLANTED)
        elif not reading.readable and result is not None and result.ok:
            reading = _after_retries(reading, attempts)
    record = _record(subject, coder, position, reading, result, attempts)
    if on_result is not None:
        outcome = on_result(record)
        if inspect.isawaitable(outcome):
            await outcome
    return record


def _after_retries(reading: CoderReading, attempts: int) -> CoderReading:
    return unreadable(f"unreadable after {attempts} calls: {reading.problem}")


def _record(
    subject: CodingSubject,
    coder: ModelEndpoint,
    position: int,
    reading: CoderReading,
    result: CallResult | None,
    attempts: int,
) -> StanceCodeRecord:
    return StanceCodeRecord(
        kind=subject.kind,
        subject_key=subject.subject_key,
        model=subject.model,
        sample_index=subject.sample_index,
        coder=coder.name,
        panel_position=position,
        stance=reading.stance,
        outside_knowledge=reading.outside_knowledge if reading.readable else None,
        missing=None if reading.readable else reading.problem,
        call_key=result.key if result is not None else None,
        attempts=attempts,
        raw_output=result.text if result is not None else None,
    )
