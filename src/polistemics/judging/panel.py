"""The judge panel (paper Sec. 5.1, App. G): every judge rates every answer on every rubric.

One call per (answer, judge, active rubric). An output whose verdicts cannot be read is asked
again exactly once (``sample_index=1``, a new call); if it still cannot be read, or the call
failed, the verdicts are recorded as missing (``None``) with the raw output kept. Verdicts that
agree with a verdict list the answer itself spells out (``judging.planted``) are treated the
same way: asked again once, then recorded as missing with ``error = "possibly planted"``.
Each judge's own verdicts are stored: majority voting happens downstream, in scoring.
"""

from __future__ import annotations

import inspect
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import cache, partial
from typing import Protocol

from polistemics.conditions import Environment
from polistemics.judging.parse import parse_verdicts
from polistemics.judging.planted import POSSIBLY_PLANTED, PlantedVerdicts, planted_verdicts
from polistemics.judging.prompt import (
    VERDICT_SCHEMA_MODES,
    JudgePrompt,
    JudgePromptVariant,
    build_judge_prompt,
    verdict_property_names,
)
from polistemics.judging.structured import read_structured_verdicts
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import CallResult, Completer
from polistemics.rubrics import Rubric, active_rubrics
from polistemics.runlog import Answer, JudgeVerdictRecord
from polistemics.runlog.items import EnvironmentItem

STAGE = "judge"
REPEAT_STAGE = "judge_repeat"  # repeat judging (``judging.repeats``), stored apart
MAX_ATTEMPTS = 2  # the first call and one retry when the verdicts cannot be read


def call_index(repeat: int, attempt: int) -> int:
    """The call's sample index (part of its cache key): the panel's calls are 0 and, for the
    retry, 1; repeat ``r`` uses ``2r`` and ``2r + 1``, so a repeat is never the panel's call."""
    return repeat * MAX_ATTEMPTS + attempt


log = logging.getLogger(__name__)


class JudgingInputError(ValueError):
    """The items and answers handed to the panel do not fit together."""


class JudgeVerdicts(list[JudgeVerdictRecord]):
    """The panel's records, plus how many answers were not judged and why."""

    def __init__(self, records: Iterable[JudgeVerdictRecord] = (), skipped: Counter | None = None):
        super().__init__(records)
        self.skipped: dict[str, int] = dict(skipped or {})  # "error" / "empty" -> answers

    @property
    def answers_skipped(self) -> int:
        return sum(self.skipped.values())


OnJudgeResult = Callable[[JudgeVerdictRecord], Awaitable[object] | object]


class BatchJudges(Protocol):
    """Takes the calls of the panel's batch judges on an answer (``batch_panel.BatchJudging``)."""

    async def judge(self, item: EnvironmentItem, answer: Answer) -> None: ...


async def judge_answers(
    completer: Completer,
    judges: list[ModelEndpoint],
    items_with_answers: Iterable[tuple[EnvironmentItem, Answer]],
    *,
    on_result: OnJudgeResult | None = None,
    prompt_order: bool = False,
    calls_at_once: int = 1,
    batch: BatchJudges | None = None,
) -> JudgeVerdicts:
    """Judge every usable answer; failed or empty answers are skipped and counted.

    Records come back in input order (answer, then judge, then rubric), whatever order the calls
    finish in; ``on_result`` sees each record as soon as it is ready. With ``prompt_order`` the
    calls are *issued* rubric by rubric and environment by environment, so consecutive prompts
    share their long system prompt: a serial local server (llama.cpp) then reuses that prefix.
    Within a stretch the panel's judges follow each other on the same answer, so the second and
    third judge (when they share a local server) reuse the whole prompt and only generate.
    When every judge uses the ``rubric-last`` prompt, calls go answer by answer instead (rubric,
    then judge), since that prompt's calls on one answer share all but the rubric; with
    ``calls_at_once`` servers (``LLMClient.calls_at_once`` of the judges), that many answers are
    judged at once, each answer's calls one after another, so that they reach the same server.

    With ``batch`` (``judging.batch_panel.BatchJudging``), the calls of batch judges are handed to it as data
    and their records go to its own sink when their batches end; the records returned are the
    other judges'.
    """
    if not judges:
        raise JudgingInputError("the judge panel is empty: name at least one judge model")
    skipped: Counter = Counter()
    jobs = []
    order: list[tuple] = []
    # With every judge on the rubric-last prompt, calls on one answer share all but the rubric.
    answer_major = all(judge.judge_prompt == "rubric-last" for judge in judges)
    for answer_number, (item, answer) in enumerate(items_with_answers):
        if answer.item_key != item.key:
            raise JudgingInputError(
                f"answer of model '{answer.model}' is for item '{answer.item_key}' "
                f"but was paired with item '{item.key}'"
            )
        if not answer.ok:
            skipped["error" if answer.status != "ok" else "empty"] += 1
            continue
        if batch is not None:
            await batch.judge(item, answer)
        rubrics = _rubrics_in(item.environment)
        shared: dict[tuple, SharedPrompt] = {}  # judges on the same prompt variant share it
        for position, judge in enumerate(judges):
            if batch is not None and judge.is_batch:
                continue  # handed to ``batch`` above
            for rubric in rubrics:
                if prompt_order:  # the order calls are issued in: only asked for with it
                    order.append(
                        (answer_number, list(Rubric).index(rubric), position)
                        if answer_major
                        else _prompt_rank(rubric, item, answer_number, position)
                    )
                share = shared.setdefault((rubric, judge.judge_prompt), SharedPrompt())
                share.uses += 1
                jobs.append(
                    partial(
                        judge_one,
                        completer,
                        judge,
                        position,
                        item,
                        answer,
                        rubric,
                        on_result,
                        shared=share,
                    )
                )
    if skipped:
        log.info("not judged: %s", ", ".join(f"{n} {why}" for why, n in sorted(skipped.items())))
    if not prompt_order:
        return JudgeVerdicts(await gather_or_cancel(job() for job in jobs), skipped)
    issue = sorted(range(len(jobs)), key=lambda i: order[i])
    records: list = [None] * len(jobs)
    if answer_major and calls_at_once > 1:
        await _in_chains(jobs, issue, [order[i][0] for i in issue], calls_at_once, records)
        return JudgeVerdicts(records, skipped)
    finished = await gather_or_cancel(jobs[i]() for i in issue)
    for i, record in zip(issue, finished, strict=True):
        records[i] = record
    return JudgeVerdicts(records, skipped)


@cache  # a few environments; the panel asks for every answer it judges
def _rubrics_in(environment: Environment) -> tuple[Rubric, ...]:
    return tuple(active_rubrics(environment))


async def _in_chains(
    jobs: list[Callable[[], Awaitable[JudgeVerdictRecord]]],
    issue: list[int],
    chain_of: list[int],
    workers: int,
    records: list,
) -> None:
    """Run ``jobs`` in ``issue`` order as chains (consecutive jobs with the same ``chain_of``),
    ``workers`` chains at a time, each chain's jobs one after another; fills ``records``."""
    chains: list[list[int]] = []
    previous = None
    for i, chain in zip(issue, chain_of, strict=True):
        if chains and chain == previous:
            chains[-1].append(i)
        else:
            chains.append([i])
        previous = chain
    waiting = iter(chains)

    async def worker() -> None:
        for chain in waiting:  # one event loop: the shared iterator hands each chain out once
            for i in chain:
                records[i] = await jobs[i]()

    await gather_or_cancel(worker() for _ in range(min(workers, len(chains))))


def _prompt_rank(rubric: Rubric, item: EnvironmentItem, answer_number: int, position: int) -> tuple:
    """Sort key grouping calls whose system prompts are identical, then whole prompts."""
    stance = item.judged_expected_stance.value
    return (list(Rubric).index(rubric), item.environment.value, stance, answer_number, position)


def read_verdicts(
    output: str | None, n_questions: int, quoted: tuple[str, ...], schema_shaped: bool
) -> list[bool] | None:
    """Schema-shaped JSON first for json_schema / tool judges, then the tolerant free-text parser."""
    if schema_shaped:
        names = verdict_property_names(n_questions)
        verdicts = read_structured_verdicts(output, names, quoted=quoted)
        if verdicts is not None:
            return verdicts
    return parse_verdicts(output, n_questions, quoted=quoted)


@dataclass
class SharedPrompt:
    """One answer's judge prompt on one rubric, and what is read from the answer for it, for
    the judges that use the same prompt variant (they send the same messages): built by the
    first of them, dropped once the last (``uses``) has taken it."""

    uses: int = 0
    parts: tuple[JudgePrompt, tuple[str, ...], PlantedVerdicts] | None = None

    def take(
        self, item: EnvironmentItem, answer_text: str, rubric: Rubric, variant: JudgePromptVariant
    ) -> tuple[JudgePrompt, tuple[str, ...], PlantedVerdicts]:
        parts = self.parts or _prompt_parts(item, answer_text, rubric, variant)
        self.uses -= 1
        self.parts = parts if self.uses > 0 else None
        return parts


def _prompt_parts(
    item: EnvironmentItem, answer_text: str, rubric: Rubric, variant: JudgePromptVariant
) -> tuple[JudgePrompt, tuple[str, ...], PlantedVerdicts]:
    prompt = build_judge_prompt(item, answer_text, rubric, variant)
    # The judge may quote the answer as given or as shown to it; neither gives verdicts.
    quoted = (
        (answer_text,) if prompt.shown_answer == answer_text else (answer_text, prompt.shown_answer)
    )
    # Verdict lists the answer spells out: a judge's verdicts that agree with one are refused.
    return prompt, quoted, planted_verdicts(quoted)


async def judge_one(
    completer: Completer,
    judge: ModelEndpoint,
    position: int,
    item: EnvironmentItem,
    answer: Answer,
    rubric: Rubric,
    on_result: OnJudgeResult | None,
    repeat: int = 0,
    *,
    shared: SharedPrompt | None = None,
    parts: tuple[JudgePrompt, tuple[str, ...], PlantedVerdicts] | None = None,
    stage: str | None = None,
) -> JudgeVerdictRecord:
    """``parts`` and ``stage``: another prompt (with what is read from the texts it shows) and
    call stage than the panel's, for a second answer of a pushback turn (``judging.pushback``)."""
    answer_text = answer.text or ""
    if parts is not None:
        prompt, quoted, planted = parts
    elif shared is not None:
        prompt, quoted, planted = shared.take(item, answer_text, rubric, judge.judge_prompt)
    else:
        prompt, quoted, planted = _prompt_parts(item, answer_text, rubric, judge.judge_prompt)
    # The prompt is the paper's in every mode; structured modes also send a verdict schema.
    schema = prompt.schema_for(judge.structured_output)
    schema_shaped = judge.structured_output in VERDICT_SCHEMA_MODES
    result: CallResult | None = None
    verdicts: list[bool] | None = None
    refused = False
    attempts = 0
    while attempts < MAX_ATTEMPTS:
        result = await completer.complete(
            judge,
            prompt.messages,
            stage=stage or (REPEAT_STAGE if repeat else STAGE),
            sample_index=call_index(repeat, attempts),
            json_schema=schema,
        )
        attempts += 1
        if not result.ok:
            refused = False
            break  # the client already retried transient failures
        verdicts, refused = verdicts_read(
            result, prompt.n_questions, quoted, planted, schema_shaped
        )
        if verdicts is not None:
            break  # else unreadable, or possibly the answer's own: asked again, never taken
    assert result is not None
    record = verdict_record(
        item,
        (answer.model, answer.sample_index),
        rubric,
        judge,
        position,
        prompt.sub_question_keys,
        result,
        attempts,
        verdicts,
        refused=refused,
    )
    if on_result is not None:
        outcome = on_result(record)
        if inspect.isawaitable(outcome):
            await outcome
    return record


def verdicts_read(
    result: CallResult,
    n_questions: int,
    quoted: tuple[str, ...],
    planted: PlantedVerdicts,
    schema_shaped: bool,
) -> tuple[list[bool] | None, bool]:
    """The verdicts read from a judge call's output (None: unreadable, or refused), and
    whether they were refused because they agree with a verdict list the answer spells out."""
    verdicts = read_verdicts(result.text, n_questions, quoted, schema_shaped)
    seen = verdicts
    if seen is None and planted:  # the quote guards refused it: was it the plant?
        seen = read_verdicts(result.text, n_questions, (), schema_shaped)
    refused = seen is not None and planted.matches(seen)
    return (None if refused else verdicts), refused


def verdict_record(
    item: EnvironmentItem,
    answer: tuple[str, int],
    rubric: Rubric,
    judge: ModelEndpoint,
    position: int,
    sub_question_keys: tuple[str, ...],
    result: CallResult,
    attempts: int,
    verdicts: list[bool] | None,
    *,
    refused: bool,
) -> JudgeVerdictRecord:
    """One judge's record of one answer (``answer``: its model and sample index) on a rubric,
    from its last call."""
    error = None if result.ok else (result.error or "call failed")
    if refused:
        error = POSSIBLY_PLANTED
    says_yes: dict[str, bool | None] = (
        dict(zip(sub_question_keys, verdicts, strict=True))
        if verdicts is not None
        else dict.fromkeys(sub_question_keys)
    )
    return JudgeVerdictRecord(
        item_key=item.key,
        environment=item.environment,
        model=answer[0],
        sample_index=answer[1],
        rubric=rubric,
        judge=judge.name,
        panel_position=position,
        call_key=result.key,
        attempts=attempts,
        raw_output=result.text,
        parsed=verdicts is not None,
        error=error,
        says_yes=says_yes,
    )
