"""Standardise raw rationales into third-person evidence passages (Sec. 4.2, App. D.1-D.2).

Each observation is sent to the standardisation endpoint with the App. D.1 prompt; the JSON
answer's ``third_person_rationale`` must pass the three App. D.2 checks. A failed call, an
unparseable answer or a failed check is a failed attempt; an observation gets ``max_attempts``
attempts in all (one call and up to 2 retries), each a new sample (``sample_index`` 0, 1, 2), so a
rerun reuses the cached calls. Observations that fail every attempt are excluded and counted.
The generation settings (temperature 0.3 in the paper) come from the endpoint.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from polistemics.evidence.languages import UnsupportedLanguage, language_code
from polistemics.evidence.validation import validate
from polistemics.llm.grammar import sentences_gbnf
from polistemics.llm.progress import TryHook
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import CallResult, Completer, Message
from polistemics.prompts import render
from polistemics.records import Evidence, Position

STAGE = "standardise"
MAX_ATTEMPTS = 3  # the first call and at most 2 retries (App. D.2)

OUTPUT_SCHEMA: dict = {
    "type": "object",
    "properties": {
        # The first sentence must open with the placeholder (Fig. 7, "Explicit Stance First").
        # 4-6 sentences cannot be shorter than ~150 characters; the bounds also keep a small
        # model's constrained output from stopping after the first words or running on.
        "third_person_rationale": {
            "type": "string",
            "pattern": "^\\[PARTY\\] ",
            "minLength": 150,
            "maxLength": 1000,
            # For grammar-constrained local models: 4-6 plain sentences opening with [PARTY].
            "x-gbnf": sentences_gbnf("[PARTY] ", 4, 6),
        },
        "stance_is_explicit": {"type": "boolean"},
    },
    "required": ["third_person_rationale", "stance_is_explicit"],
    "additionalProperties": False,
}


class StandardisationInputError(ValueError):
    """An observation handed to the standardiser cannot be standardised; names the record."""


class UnparseableOutput(ValueError):
    """The standardiser's answer holds no usable JSON object."""


class FailureReason(StrEnum):
    CALL_ERROR = "call_error"
    UNPARSEABLE = "unparseable"
    SENTENCE_COUNT = "sentence_count"  # the values of validation.Check
    PLACEHOLDER = "placeholder"
    FIRST_PERSON = "first_person"
    TEMPLATE_SLOT = "template_slot"  # beyond App. D.2 (validation.template_slots)


class StandardiserOutput(BaseModel):
    model_config = ConfigDict(frozen=True)

    third_person_rationale: str
    stance_is_explicit: bool | None = None


class Attempt(BaseModel):
    """One call for one observation and what was wrong with it (nothing, if it passed)."""

    model_config = ConfigDict(frozen=True)

    sample_index: int
    reasons: list[FailureReason]
    detail: str = ""
    cached: bool = False
    stance_is_explicit: bool | None = None

    @property
    def passed(self) -> bool:
        return not self.reasons


class ExcludedObservation(BaseModel):
    model_config = ConfigDict(frozen=True)

    observation_id: str
    election_id: str
    language: str
    attempts: list[Attempt]

    @property
    def final_reasons(self) -> list[FailureReason]:
        return self.attempts[-1].reasons if self.attempts else []


class StandardisationStats(BaseModel):
    """The pipeline counts of Table 5, plus how the retry budget was used."""

    raw_candidate_observations: int  # in-scope positions, with or without a rationale
    excluded_missing_rationale: int
    fed_to_standardiser: int
    rejected_after_retries: int
    final_size: int
    final_by_language: dict[str, int]  # language code -> accepted passages
    final_by_election: dict[str, int]
    retries_used: int  # calls beyond each observation's first
    observations_retried: int
    failures_by_reason: dict[str, int]  # failed attempts per reason; one attempt may have several
    stance_not_explicit: int  # accepted passages whose JSON said stance_is_explicit = false

    def table(self) -> list[tuple[str, str]]:
        """Rows in the order and wording of Table 5."""
        split = " / ".join(str(n) for n in self.final_by_election.values())
        return [
            ("Raw candidate observations", str(self.raw_candidate_observations)),
            ("Excluded (missing rationale)", str(self.excluded_missing_rationale)),
            ("Fed to LLM standardizer", str(self.fed_to_standardiser)),
            ("Rejected after retries", str(self.rejected_after_retries)),
            ("Final benchmark size", str(self.final_size)),
            (f"{' / '.join(self.final_by_election)} split", split),
        ]


class StandardisationResult(BaseModel):
    evidence: list[Evidence]  # accepted passages, in input order
    excluded: list[ExcludedObservation]
    attempts: dict[str, list[Attempt]]  # every attempt per observation id, for auditing
    stats: StandardisationStats


def standardise_messages(position: Position) -> list[Message]:
    """The App. D.1 prompt for one observation."""
    user = render(
        "standardise_user",
        stance_label=position.stance.value,
        rationale=(position.rationale or "").strip(),
    )
    return [
        {"role": "system", "content": render("standardise_system")},
        {"role": "user", "content": user},
    ]


async def standardise(
    observations: Sequence[Position],
    completer: Completer,
    endpoint: ModelEndpoint,
    *,
    excluded_missing_rationale: int = 0,
    max_attempts: int = MAX_ATTEMPTS,
    on_try: TryHook | None = None,
) -> StandardisationResult:
    """Standardise every observation concurrently (the completer limits concurrency).

    ``observations`` are the in-scope positions that have a rationale; pass the number of
    in-scope positions dropped for lacking one as ``excluded_missing_rationale`` so the
    statistics cover the whole pipeline (``partition_by_rationale`` does the split).
    ``on_try`` hears of each checked attempt (the progress display counts retries with it).
    """
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    _check_inputs(observations)
    outcomes = await asyncio.gather(
        *(_standardise_one(p, completer, endpoint, max_attempts, on_try) for p in observations)
    )
    evidence: list[Evidence] = []
    excluded: list[ExcludedObservation] = []
    attempts: dict[str, list[Attempt]] = {}
    for position, (passage, tried) in zip(observations, outcomes, strict=True):
        attempts[position.observation_id] = tried
        if passage is not None:
            evidence.append(passage)
        else:
            excluded.append(
                ExcludedObservation(
                    observation_id=position.observation_id,
                    election_id=position.election_id,
                    language=language_code(position.language),
                    attempts=tried,
                )
            )
    stats = _statistics(observations, evidence, attempts, excluded_missing_rationale)
    return StandardisationResult(
        evidence=evidence, excluded=excluded, attempts=attempts, stats=stats
    )


def partition_by_rationale(positions: Sequence[Position]) -> tuple[list[Position], list[Position]]:
    """Split in-scope positions into (with a rationale, without one)."""
    with_rationale = [p for p in positions if p.has_rationale]
    without = [p for p in positions if not p.has_rationale]
    return with_rationale, without


def parse_standardiser_output(text: str | None) -> StandardiserOutput:
    """The JSON object in a standardiser answer, tolerating code fences and text around it."""
    if not text or not text.strip():
        raise UnparseableOutput("empty answer")
    candidates = [text.strip(), *re.findall(r"```(?:json)?\s*(.*?)```", text, re.S | re.I)]
    for candidate in candidates:
        for obj in _json_objects(candidate):
            if "third_person_rationale" in obj:
                return _output_from(obj)
    raise UnparseableOutput("no JSON object with a 'third_person_rationale' field")


def _json_objects(text: str):
    """Every JSON object that starts at a '{' in ``text``, outermost first."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value


def _output_from(obj: dict) -> StandardiserOutput:
    passage = obj["third_person_rationale"]
    if isinstance(passage, list) and all(isinstance(s, str) for s in passage):
        passage = " ".join(s.strip() for s in passage)  # some models answer sentence by sentence
    if not isinstance(passage, str) or not passage.strip():
        raise UnparseableOutput("'third_person_rationale' is empty or not a string")
    explicit = obj.get("stance_is_explicit")
    if isinstance(explicit, str) and explicit.strip().lower() in ("true", "false"):
        explicit = explicit.strip().lower() == "true"
    if not isinstance(explicit, bool):
        explicit = None
    return StandardiserOutput(third_person_rationale=passage.strip(), stance_is_explicit=explicit)


def _check_inputs(observations: Sequence[Position]) -> None:
    seen: set[str] = set()
    for position in observations:
        oid = position.observation_id
        if not position.has_rationale:
            raise StandardisationInputError(
                f"observation {oid}: field 'rationale' is empty; leave it out and count it in "
                "excluded_missing_rationale"
            )
        if oid in seen:
            raise StandardisationInputError(f"observation {oid} is given twice")
        seen.add(oid)
        try:
            language_code(position.language)
        except UnsupportedLanguage as exc:
            raise StandardisationInputError(f"observation {oid}: field 'language': {exc}") from None


async def _standardise_one(
    position: Position,
    completer: Completer,
    endpoint: ModelEndpoint,
    max_attempts: int,
    on_try: TryHook | None,
) -> tuple[Evidence | None, list[Attempt]]:
    messages = standardise_messages(position)
    attempts: list[Attempt] = []
    for sample_index in range(max_attempts):
        result = await completer.complete(
            endpoint, messages, stage=STAGE, sample_index=sample_index, json_schema=OUTPUT_SCHEMA
        )
        attempt, passage = _assess(result, sample_index, position.language)
        attempts.append(attempt)
        if on_try is not None:
            again = passage is None and sample_index + 1 < max_attempts
            on_try(retry=sample_index > 0, again=again)
        if passage is not None:
            return Evidence(position=position, text=passage), attempts
    return None, attempts


def _assess(result: CallResult, sample_index: int, language: str) -> tuple[Attempt, str | None]:
    """The attempt record and, when every check passed, the accepted passage."""
    if not result.ok:
        failed = Attempt(
            sample_index=sample_index,
            reasons=[FailureReason.CALL_ERROR],
            detail=result.error or "call failed",
            cached=result.cached,
        )
        return failed, None
    try:
        output = parse_standardiser_output(result.text)
    except UnparseableOutput as exc:
        failed = Attempt(
            sample_index=sample_index,
            reasons=[FailureReason.UNPARSEABLE],
            detail=str(exc),
            cached=result.cached,
        )
        return failed, None
    checked = validate(output.third_person_rationale, language)
    attempt = Attempt(
        sample_index=sample_index,
        reasons=[FailureReason(check.value) for check in checked.failed_checks],
        detail="; ".join(f.detail for f in checked.failures),
        cached=result.cached,
        stance_is_explicit=output.stance_is_explicit,
    )
    return attempt, (output.third_person_rationale if checked.passed else None)


def _statistics(
    observations: Sequence[Position],
    evidence: list[Evidence],
    attempts: dict[str, list[Attempt]],
    excluded_missing_rationale: int,
) -> StandardisationStats:
    fed = len(observations)
    by_election: Counter[str] = Counter({p.election_id: 0 for p in observations})
    by_language: Counter[str] = Counter({language_code(p.language): 0 for p in observations})
    for passage in evidence:
        by_election[passage.position.election_id] += 1
        by_language[language_code(passage.position.language)] += 1
    reasons: Counter[str] = Counter()
    for tried in attempts.values():
        for attempt in tried:
            reasons.update(reason.value for reason in attempt.reasons)
    accepted_attempts = [tried[-1] for tried in attempts.values() if tried and tried[-1].passed]
    return StandardisationStats(
        raw_candidate_observations=fed + excluded_missing_rationale,
        excluded_missing_rationale=excluded_missing_rationale,
        fed_to_standardiser=fed,
        rejected_after_retries=fed - len(evidence),
        final_size=len(evidence),
        final_by_language=dict(by_language),
        final_by_election=dict(by_election),
        retries_used=sum(len(tried) - 1 for tried in attempts.values()),
        observations_retried=sum(1 for tried in attempts.values() if len(tried) > 1),
        failures_by_reason=dict(sorted(reasons.items())),
        stance_not_explicit=sum(1 for a in accepted_attempts if a.stance_is_explicit is False),
    )
