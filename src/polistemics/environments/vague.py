"""Vague (App. E.1): the evidence rewritten by an LLM so that the stance cannot be determined.

Per observation one Table 7 mode is drawn from a generator seeded with a hash of (seed,
observation id), so a subset or a reordering of the evidence draws the same modes. The Fig. 10
prompt asks for JSON (``vague_rationale``, ``vagueness_modes_used``); the Fig. 11 audit, at
temperature 0, asks whether the stance is ``determinable``. A try fails when the call fails, the
JSON cannot be read, the rewrite lost ``[PARTY]``, or the audit says ``determinable: true``;
failed tries are regenerated (``sample_index=attempt``, so a cached answer is not reused) up to
``max_attempts``, after which the observation is excluded from Vague and counted.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from polistemics import prompts
from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import (
    EnvironmentInputError,
    check_evidence,
    make_item,
    party_label,
    shared_text,
)
from polistemics.llm.grammar import sentences_gbnf
from polistemics.llm.progress import TryHook
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import Completer, Message
from polistemics.records import PARTY_PLACEHOLDER, Evidence
from polistemics.runlog.items import Chunk, EnvironmentItem

DEFAULT_MAX_ATTEMPTS = 3
GENERATION_STAGE = "vague"
AUDIT_STAGE = "vague_audit"

VAGUE_JSON_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "vague_rationale": {
            "type": "string",
            "minLength": 150,
            "maxLength": 1000,
            # For grammar-constrained local models: 4-6 plain sentences that keep the placeholder
            # (a tiny model drops it otherwise; "[PARTY] MUST be kept exactly as written").
            "x-gbnf": sentences_gbnf("[PARTY] ", 4, 6),
        },
        "vagueness_modes_used": {
            "type": "array",
            "items": {"type": "string", "maxLength": 60},
            "maxItems": 2,
        },
    },
    "required": ["vague_rationale", "vagueness_modes_used"],
    "additionalProperties": False,
}
AUDIT_JSON_SCHEMA: dict = {
    "type": "object",
    "properties": {"determinable": {"type": "boolean"}},
    "required": ["determinable"],
    "additionalProperties": False,
}


class VagueMode(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int
    name: str
    instruction: str


def all_modes() -> list[VagueMode]:
    return [VagueMode(**mode) for mode in prompts.vague_modes()]


def draw_mode(seed: int, observation_id: str) -> VagueMode:
    """The Table 7 mode of one observation: a generator seeded by hash(seed, observation id)."""
    digest = hashlib.sha256(f"{seed}\x1f{observation_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big")).choice(all_modes())


def generation_messages(ev: Evidence, mode: VagueMode) -> list[Message]:
    system = prompts.render(
        "vague_system", vagueness_mode_name=mode.name, vagueness_mode_instruction=mode.instruction
    )
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": prompts.render("vague_user", baseline=ev.text)},
    ]


def audit_messages(vague_text: str) -> list[Message]:
    return [
        {"role": "system", "content": prompts.render("vague_audit_system")},
        {"role": "user", "content": prompts.render("vague_audit_user", vague_rationale=vague_text)},
    ]


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def parse_json_object(text: str | None) -> dict | None:
    """The JSON object in a model answer (bare, fenced, or the outermost {...}); None if none."""
    if not text:
        return None
    candidate = text.strip()
    fenced = _FENCE.match(candidate)
    if fenced:
        candidate = fenced.group(1)
    for attempt in (candidate, candidate[candidate.find("{") : candidate.rfind("}") + 1]):
        try:
            value = json.loads(attempt)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


class VagueRewrite(BaseModel):
    """An accepted rewrite, still with ``[PARTY]`` (filled per variant when items are built)."""

    model_config = ConfigDict(frozen=True)

    observation_id: str
    mode: int
    text: str
    modes_used: list[str] = []
    attempts: int = 1


class TryFailure(StrEnum):
    CALL_ERROR = "call_error"  # generation or audit call failed
    INVALID_JSON = "invalid_json"  # no usable JSON from the generator or the auditor
    LOST_PLACEHOLDER = "lost_placeholder"  # the rewrite no longer contains [PARTY]
    DETERMINABLE = "determinable"  # the audit could still tell the stance


@dataclass
class VagueReport:
    generated: int = 0  # observations with an accepted rewrite
    audit_failures: int = 0  # tries the audit judged determinable
    invalid_outputs: int = 0  # tries with unreadable JSON from the generator or the auditor
    lost_placeholder: int = 0  # tries whose rewrite no longer contains [PARTY]
    call_errors: int = 0  # tries whose generation or audit call failed
    retries: int = 0  # tries beyond the first, over all observations
    excluded: list[str] = field(default_factory=list)  # observation ids with no accepted rewrite

    def as_dict(self) -> dict[str, int]:
        return {
            "generated": self.generated,
            "audit_failures": self.audit_failures,
            "invalid_outputs": self.invalid_outputs,
            "lost_placeholder": self.lost_placeholder,
            "call_errors": self.call_errors,
            "retries": self.retries,
            "excluded": len(self.excluded),
        }


@dataclass
class VagueOutcome:
    rewrites: list[VagueRewrite]  # in evidence order
    report: VagueReport


@dataclass
class _ObservationResult:
    rewrite: VagueRewrite | None
    failures: list[TryFailure]


def _modes_used(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


async def _one_try(
    ev: Evidence,
    mode: VagueMode,
    attempt: int,
    completer: Completer,
    endpoint: ModelEndpoint,
    audit_endpoint: ModelEndpoint,
) -> VagueRewrite | TryFailure:
    generated = await completer.complete(
        endpoint,
        generation_messages(ev, mode),
        stage=GENERATION_STAGE,
        sample_index=attempt,
        json_schema=VAGUE_JSON_SCHEMA,
    )
    if not generated.ok:
        return TryFailure.CALL_ERROR
    data = parse_json_object(generated.text)
    text = data.get("vague_rationale") if data else None
    if not isinstance(text, str) or not text.strip():
        return TryFailure.INVALID_JSON
    text = text.strip()
    if PARTY_PLACEHOLDER not in text:
        return TryFailure.LOST_PLACEHOLDER
    audited = await completer.complete(
        audit_endpoint, audit_messages(text), stage=AUDIT_STAGE, json_schema=AUDIT_JSON_SCHEMA
    )
    if not audited.ok:
        return TryFailure.CALL_ERROR
    verdict = parse_json_object(audited.text)
    determinable = verdict.get("determinable") if verdict else None
    if not isinstance(determinable, bool):
        return TryFailure.INVALID_JSON
    if determinable:
        return TryFailure.DETERMINABLE
    return VagueRewrite(
        observation_id=ev.observation_id,
        mode=mode.number,
        text=text,
        modes_used=_modes_used(data.get("vagueness_modes_used")),
        attempts=attempt + 1,
    )


async def _rewrite_one(
    ev: Evidence,
    mode: VagueMode,
    completer: Completer,
    endpoint: ModelEndpoint,
    audit_endpoint: ModelEndpoint,
    max_attempts: int,
    on_try: TryHook | None,
) -> _ObservationResult:
    failures: list[TryFailure] = []
    for attempt in range(max_attempts):
        outcome = await _one_try(ev, mode, attempt, completer, endpoint, audit_endpoint)
        passed = isinstance(outcome, VagueRewrite)
        if on_try is not None:
            on_try(retry=attempt > 0, again=not passed and attempt + 1 < max_attempts)
        if passed:
            return _ObservationResult(outcome, failures)
        failures.append(outcome)
    return _ObservationResult(None, failures)


async def generate_vague_rewrites(
    evidence: Sequence[Evidence],
    completer: Completer,
    endpoint: ModelEndpoint,
    audit_endpoint: ModelEndpoint,
    *,
    seed: int,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    on_try: TryHook | None = None,
) -> VagueOutcome:
    """Rewrite every observation's evidence (the audit endpoint is always called at temperature 0).

    ``on_try`` hears of each checked try of the generation stage (the progress display counts
    retries with it)."""
    check_evidence(evidence)
    if max_attempts < 1:
        raise EnvironmentInputError(f"max_attempts must be at least 1, got {max_attempts}")
    audit_endpoint = audit_endpoint.model_copy(update={"temperature": 0.0})
    results = await asyncio.gather(
        *(
            _rewrite_one(
                ev,
                draw_mode(seed, ev.observation_id),
                completer,
                endpoint,
                audit_endpoint,
                max_attempts,
                on_try,
            )
            for ev in evidence
        )
    )
    report = VagueReport()
    rewrites = []
    for ev, result in zip(evidence, results, strict=True):
        report.audit_failures += result.failures.count(TryFailure.DETERMINABLE)
        report.invalid_outputs += result.failures.count(TryFailure.INVALID_JSON)
        report.lost_placeholder += result.failures.count(TryFailure.LOST_PLACEHOLDER)
        report.call_errors += result.failures.count(TryFailure.CALL_ERROR)
        tries = len(result.failures) + (1 if result.rewrite else 0)
        report.retries += tries - 1
        if result.rewrite is None:
            report.excluded.append(ev.observation_id)
        else:
            report.generated += 1
            rewrites.append(result.rewrite)
    return VagueOutcome(rewrites=rewrites, report=report)


def build_vague_items(
    evidence: Sequence[Evidence],
    rewrites: Sequence[VagueRewrite],
    *,
    variant: Variant = Variant.FULL,
) -> list[EnvironmentItem]:
    """One Vague item per observation that has an accepted rewrite (evidence order)."""
    check_evidence(evidence)
    by_id = {r.observation_id: r for r in rewrites}
    known = {ev.observation_id for ev in evidence}
    stray = sorted(by_id.keys() - known)
    if stray:
        raise EnvironmentInputError(f"vague rewrite for unknown observation {stray[0]}")
    items = []
    for ev in evidence:
        rewrite = by_id.get(ev.observation_id)
        if rewrite is None:
            continue
        label = party_label(ev.position.party, variant, observation_id=ev.observation_id)
        chunk = vague_chunk(ev, rewrite, label)
        items.append(make_item(ev, Environment.VAGUE, variant, [chunk], vague_mode=rewrite.mode))
    return items


def vague_chunk(ev: Evidence, rewrite: VagueRewrite, label: str) -> Chunk:
    """The observation's target passage as its accepted rewrite, ``[PARTY]`` filled."""
    return Chunk(
        text=shared_text(rewrite.text.replace(PARTY_PLACEHOLDER, label)),
        role="target",
        party_id=ev.position.party.id,
        statement_id=ev.position.statement.id,
        stance=None,  # constructed to have no determinable stance
    )
