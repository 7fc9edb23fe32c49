"""The panel's calls to batch judges, handed to the client as data (issue 31).

A batch judge's calls wait for hours at a provider, all of a stage's at once: awaited one task
each, they would hold a coroutine, its frames and its prompt per call, and a batch run's memory
would grow with the study. ``BatchJudging`` instead hands each call to the client
(``LLMClient.defer``) with a small context (the answer's item, model, sample index and text, the
rubric, the judge's seat and the attempt) that waits on disk with the call; it keeps a count. When
the call's result is stored, ``done`` goes on from it exactly as ``panel.judge_one`` does: the
verdicts are read (the context also holds the prompt's sub-question keys and the answer as the
prompt shows it, so that the prompt is built again only to ask again), an unreadable (or
possibly planted) output is asked again once, and the judge's record goes to ``on_record``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from polistemics.judging.panel import (
    MAX_ATTEMPTS,
    STAGE,
    _prompt_parts,
    call_index,
    verdict_record,
    verdicts_read,
)
from polistemics.judging.planted import planted_verdicts
from polistemics.judging.prompt import VERDICT_SCHEMA_MODES, JudgePrompt
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import CallResult, Message
from polistemics.rubrics import Rubric, active_rubrics
from polistemics.runlog import Answer, JudgeVerdictRecord
from polistemics.runlog.items import EnvironmentItem


class Deferring(Protocol):
    """A completer that takes batch calls as data (``LLMClient.defer``)."""

    async def defer(
        self,
        endpoint: ModelEndpoint,
        messages: list[Message],
        *,
        stage: str,
        waiter: Any,
        context: Any = None,
        sample_index: int = 0,
        json_schema: dict | None = None,
    ) -> None: ...


def takes_batch_calls(completer: object) -> bool:
    return callable(getattr(completer, "defer", None))


class BatchJudging:
    """The batch judges of a panel (``judges``, in seat order) on answers to ``items`` (by
    key); see the module doc. ``finished`` waits until every call handed over has its record,
    and raises what stopped one (the batch API lost, the cost cap)."""

    def __init__(
        self,
        client: Deferring,
        judges: list[ModelEndpoint],
        items: Mapping[str, EnvironmentItem],
        on_record: Callable[[JudgeVerdictRecord], object],
    ):
        self._client = client
        self._seats = [(position, judge) for position, judge in enumerate(judges) if judge.is_batch]
        self._judges = dict(enumerate(judges))
        self._items = items
        self._on_record = on_record
        self._waiting = 0
        self._idle = asyncio.Event()
        self._error: BaseException | None = None

    async def judge(self, item: EnvironmentItem, answer: Answer) -> None:
        """Hand over the calls of every batch judge on ``answer``, one per rubric."""
        text = answer.text or ""
        parts: dict[tuple, tuple] = {}  # judges on the same prompt variant send the same
        for position, judge in self._seats:
            for rubric in active_rubrics(item.environment):
                shared = (rubric, judge.judge_prompt)
                if shared not in parts:
                    parts[shared] = _prompt_parts(item, text, rubric, judge.judge_prompt)
                prompt, quoted, _ = parts[shared]
                context = {
                    "item": item.key,
                    "model": answer.model,
                    "sample": answer.sample_index,
                    "quoted": quoted,  # the answer, and as the prompt shows it if not the same
                    "rubric": rubric.value,
                    "keys": prompt.sub_question_keys,
                    "position": position,
                    "attempt": 0,
                }
                await self._ask(judge, prompt, context)

    async def finished(self) -> None:
        while True:
            if self._error is not None:
                raise self._error
            if self._waiting == 0:
                return
            self._idle.clear()
            await self._idle.wait()

    # -- the client's waiter -------------------------------------------------------------------

    async def done(self, result: CallResult, context: dict) -> None:
        await self._go_on(result, context)
        self._one_done()

    def failed(self, exc: BaseException, context: dict) -> None:
        if self._error is None:
            self._error = exc
        self._one_done()

    # -- inside --------------------------------------------------------------------------------

    async def _ask(self, judge: ModelEndpoint, prompt: JudgePrompt, context: dict) -> None:
        if self._error is not None:
            raise self._error
        self._waiting += 1
        try:
            await self._client.defer(
                judge,
                prompt.messages,
                stage=STAGE,
                waiter=self,
                context=context,
                sample_index=call_index(0, context["attempt"]),
                json_schema=prompt.schema_for(judge.structured_output),
            )
        except BaseException:
            self._one_done()
            raise

    async def _go_on(self, result: CallResult, context: dict) -> None:
        """What ``panel.judge_one`` does after one call: read the verdicts, ask once more, or
        pass the judge's record on."""
        item = self._items[context["item"]]
        rubric = Rubric(context["rubric"])
        position = context["position"]
        judge = self._judges[position]
        keys = tuple(context["keys"])
        attempts = context["attempt"] + 1
        verdicts, refused = None, False
        if result.ok:
            quoted = tuple(context["quoted"])
            schema_shaped = judge.structured_output in VERDICT_SCHEMA_MODES
            planted = planted_verdicts(quoted)
            verdicts, refused = verdicts_read(result, len(keys), quoted, planted, schema_shaped)
            if verdicts is None and attempts < MAX_ATTEMPTS:  # asked again, as judge_one does
                prompt, _, _ = _prompt_parts(item, quoted[0], rubric, judge.judge_prompt)
                await self._ask(judge, prompt, {**context, "attempt": attempts})
                return
        record = verdict_record(
            item,
            (context["model"], context["sample"]),
            rubric,
            judge,
            position,
            keys,
            result,
            attempts,
            verdicts,
            refused=refused,
        )
        self._on_record(record)

    def _one_done(self) -> None:
        self._waiting -= 1
        if self._waiting <= 0 or self._error is not None:
            self._idle.set()
