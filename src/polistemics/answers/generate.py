"""Ask every target model every environment item (paper Sec. 4, App. C).

One call per (target, item, sample) with the task prompt of Fig. 5. Decoding is the endpoint's
own setting: greedy decoding is ``temperature = 0``; repeated samples (``samples > 1``, meant for
``temperature > 0``) are separate calls with ``sample_index`` 0..K-1 and separate answers.
"""

from __future__ import annotations

import inspect
import logging
import re
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from functools import partial

from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_bounded, gather_or_cancel
from polistemics.llm.types import CallResult, Completer, Message
from polistemics.runlog import Answer
from polistemics.runlog.items import EnvironmentItem

STAGE = "answer"

log = logging.getLogger(__name__)

# Declining to help, at the very start of the answer (English, German, Dutch). Deliberately
# narrow: saying the context lacks the answer ("I'm sorry, but I cannot answer this from the
# provided context") is not a refusal: the task prompt asks for exactly that, and Epistemic
# Calibration judges it. Refused answers are still judged; the flag is for reporting.
_EN_CANNOT = r"(i (can't|cannot|can not|won't|will not|am unable to|am not able to)|i'm (unable|not able) to)"
_REFUSAL_OPENINGS = tuple(
    re.compile(pattern)
    for pattern in (
        rf"^(i'm sorry|i am sorry|sorry|i apologi[sz]e)\W*(but\s+)?{_EN_CANNOT} "
        r"(help|assist|comply|fulfil|engage|do that)",
        rf"^{_EN_CANNOT} (help|assist|comply) with (this|that|your)",
        r"^i (must|have to) (decline|refuse)",
        r"^(es tut mir leid|entschuldigung)\W*(aber\s+)?ich kann (ihnen |dir )?"
        r"(dabei |hierbei |damit |bei dieser anfrage )?nicht (helfen|weiterhelfen|behilflich)",
        r"^ich kann (ihnen |dir )?(dabei|hierbei|bei dieser anfrage) nicht (helfen|behilflich)",
        r"^(het spijt me|sorry)\W*(maar\s+)?ik kan (je |u )?(daar |hier )?"
        r"(niet mee helpen|niet bij helpen|niet helpen)",
        r"^ik kan (je |u )?(daar|hier) niet (mee|bij) helpen",
    )
)

MessagesFor = Callable[[EnvironmentItem], list[Message]]
OnAnswer = Callable[[Answer], Awaitable[object] | object]


class AnswerInputError(ValueError):
    """The targets, items or sample count given for answer generation are unusable."""


async def answer_items(
    completer: Completer,
    targets: list[ModelEndpoint],
    items: Iterable[EnvironmentItem],
    *,
    samples: int = 1,
    on_result: OnAnswer | None = None,
    messages_for: MessagesFor | None = None,
    at_once: int | None = None,
    keep: bool = True,
) -> list[Answer]:
    """Every (target x item x sample) answer, in that order whatever order calls finish in.

    ``messages_for`` builds the task prompt; by default
    ``polistemics.environments.task_prompt.task_messages``. With ``at_once``, at most that many
    answers are being asked (or handed to an awaited ``on_result``) at a time, each prompt built
    just before its call: memory does not grow with the study. Without it, every call is
    started at once with every prompt built up front. ``keep=False`` (with ``at_once`` and an
    ``on_result`` that takes each answer where it goes): no answer is kept, and none returned.
    """
    if samples < 1:
        raise AnswerInputError(f"samples must be at least 1, got {samples}")
    if not targets:
        raise AnswerInputError("no target models given")
    items = list(items)
    seen: set[str] = set()
    for item in items:
        if item.key in seen:
            raise AnswerInputError(f"item '{item.key}' is listed twice")
        seen.add(item.key)
    del seen  # not held while the answers are asked (a key each: 4 MB at 8x, issue 32)
    if samples > 1:
        for target in targets:
            if target.temperature == 0:
                log.warning(
                    "model '%s' decodes greedily (temperature 0): its %d samples will "
                    "hardly differ",
                    target.name,
                    samples,
                )
    build = messages_for or _default_messages_for()
    if at_once is not None:
        lazy = (
            partial(_answer_one, completer, target, item, None, index, on_result, build)
            for target in targets
            for item in items
            for index in range(samples)
        )
        if not keep:
            await gather_bounded((partial(_dropped, job) for job in lazy), at_once)
            return []
        return await gather_bounded(lazy, at_once)
    prompts = {item.key: build(item) for item in items}
    jobs = [
        _answer_one(completer, target, item, prompts[item.key], index, on_result)
        for target in targets
        for item in items
        for index in range(samples)
    ]
    return await gather_or_cancel(jobs)


def answer_from_result(item_key: str, model: str, sample_index: int, result: CallResult) -> Answer:
    text = result.text if result.ok else None
    empty = result.ok and not (text or "").strip()
    return Answer(
        item_key=item_key,
        model=model,
        sample_index=sample_index,
        status="ok" if result.ok else "error",
        text=text,
        error=None if result.ok else (result.error or "call failed"),
        finish_reason=result.finish_reason,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        reasoning_tokens=result.reasoning_tokens,
        cost=result.cost,
        latency_ms=result.latency_ms,
        refusal=is_refusal(text, result.finish_reason),
        empty=empty,
        call_key=result.key,
    )


def is_refusal(text: str | None, finish_reason: str | None) -> bool:
    """A provider content filter, or an answer that opens by declining the task."""
    if finish_reason == "content_filter":
        return True
    if not text:
        return False
    opening = _normalise(text)[:300]
    return any(pattern.search(opening) for pattern in _REFUSAL_OPENINGS)


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    text = re.sub(r"^[\W_]+", "", text)  # leading markdown, quotes
    return re.sub(r"\s+", " ", text).strip().lower()


async def _answer_one(
    completer: Completer,
    target: ModelEndpoint,
    item: EnvironmentItem,
    messages: list[Message] | None,
    sample_index: int,
    on_result: OnAnswer | None,
    build: MessagesFor | None = None,
) -> Answer:
    """One answer; ``messages`` None: built now with ``build``."""
    if messages is None:
        assert build is not None
        messages = build(item)
    result = await completer.complete(target, messages, stage=STAGE, sample_index=sample_index)
    answer = answer_from_result(item.key, target.name, sample_index, result)
    if on_result is not None:
        outcome = on_result(answer)
        if inspect.isawaitable(outcome):
            await outcome
    return answer


async def _dropped(job: Callable[[], Awaitable[Answer]]) -> None:
    await job()


def _default_messages_for() -> MessagesFor:
    from polistemics.environments.task_prompt import task_messages

    return task_messages
