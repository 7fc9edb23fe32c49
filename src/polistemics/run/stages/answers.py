"""The answers + judges stage: every target answers every item (``answers.generate``) and the
judge panel judges each answer on its environment's rubrics (``judging.panel``). The two
overlap: an answer is judged as soon as it exists, not after all answers are in. Swapped-order
items are answered, never judged. Writes ``answers.jsonl``, ``judges.jsonl`` and the release
folders' items and answers; run.json's ``judging`` and ``judge_parsing``."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable, Mapping

from polistemics.answers.generate import STAGE as ANSWER_STAGE
from polistemics.answers.generate import answer_items
from polistemics.conditions import COMPOSITIONS, Environment, Variant
from polistemics.judging.batch_panel import BatchJudging, takes_batch_calls
from polistemics.judging.panel import STAGE as JUDGE_STAGE
from polistemics.judging.panel import JudgeVerdicts, judge_answers
from polistemics.judging.parsing_figures import judge_parsing
from polistemics.judging.prompt import judge_system_message
from polistemics.llm.progress import declare_total
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.tasks import gather_or_cancel
from polistemics.prompts import load
from polistemics.records import Stance
from polistemics.rubrics import active_rubrics
from polistemics.run.collector import survivors_frozen
from polistemics.run.config import RunConfig
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import (
    EVIDENCE_TOKENS,
    PlanRow,
    PlanState,
    PrefixGroup,
    same_calls,
    stored_ok,
    tokens,
)
from polistemics.runlog import Answer, RunDir
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.spool import (
    SpooledAnswers,
    SpooledJudgeRecords,
    StudySpool,
    fresh_spool,
)

OUTPUT_TOKENS = {ANSWER_STAGE: 150, JUDGE_STAGE: 20}
# Evidence chunks a prompt shows per environment (one unless named).
CHUNKS = {Environment.ABSENT: 0, Environment.NOISY: 5, Environment.CONTRADICTORY: 2}
# Compositions (issue 30): four distractors with each Noisy one (environments.compose).
CHUNKS.update(
    {
        c: (4 if Environment.NOISY in c.parts else 0)
        + (0 if Environment.ABSENT in c.parts else 2 if Environment.CONTRADICTORY in c.parts else 1)
        for c in COMPOSITIONS
    }
)


def panel(config: RunConfig, endpoints: Mapping[str, ModelEndpoint]) -> list[ModelEndpoint]:
    return [endpoints[name] for name in config.judges]


def answer_input_tokens(items_per_env: Mapping[tuple[Variant, Environment], int]) -> int:
    """The estimated task prompt, averaged over the planned items."""
    return sum(
        n * (tokens(load("task_system")) + 40 + CHUNKS.get(env, 1) * EVIDENCE_TOKENS)
        for (_, env), n in items_per_env.items()
    ) // max(1, sum(items_per_env.values()))


def _env_answer_tokens(env: Environment) -> int:
    """The estimated task prompt of one item of an environment."""
    return tokens(load("task_system")) + 40 + CHUNKS.get(env, 1) * EVIDENCE_TOKENS


def answer_prefixes(
    items_per_env: Mapping[tuple[Variant, Environment], int], samples: int
) -> list[PrefixGroup]:
    """The answer calls of one target by shared prefix: an item's samples repeat its whole
    prompt (the task system message alone is far below any provider's cache minimum)."""
    return [
        PrefixGroup(n * samples, n, _env_answer_tokens(env))
        for (_, env), n in items_per_env.items()
    ]


def judge_prefixes(
    items_per_env: Mapping[tuple[Variant, Environment], int],
    answers_per_item: int,
    variant: str,
) -> list[PrefixGroup]:
    """The calls of one judge seat by shared prefix. The paper prompt's system message is the
    same for a rubric, environment and expected stance (its shortest stance counted, one first
    call per stance); the rubric-last prompt shares the system message and the whole answer
    among the calls on one answer (docs/judge-prompt-rubric-last.md)."""
    per_env: dict[Environment, int] = {}
    for (_, env), n in items_per_env.items():
        per_env[env] = per_env.get(env, 0) + n * answers_per_item
    groups = []
    for env, answers in per_env.items():
        rubrics = active_rubrics(env)
        if variant == "rubric-last":
            shared = (
                tokens(load("judge_rubric_last_system"))
                + _env_answer_tokens(env)
                + OUTPUT_TOKENS[ANSWER_STAGE]
            )
            groups.append(PrefixGroup(answers * len(rubrics), answers, shared))
            continue
        for rubric in rubrics:
            system = min(tokens(judge_system_message(rubric, env, s)) for s in Stance)
            groups.append(PrefixGroup(answers, len(Stance), system))
    return groups


def judge_input_tokens(items_per_env: Mapping[tuple[Variant, Environment], int]) -> int:
    """The estimated judge prompt: instructions, rubric and the answer's task prompt."""
    return tokens(load("judge_system")) + 250 + answer_input_tokens(items_per_env)


class AnswersAndJudges(BaseStage):
    name = "answers+judges"

    async def run(self, state: StudyState) -> None:
        with survivors_frozen():
            await self._answer_and_judge(state)

    async def _answer_and_judge(self, state: StudyState) -> None:
        """Every item answered and judged; swapped-order items are answered only."""
        client, config = state.client, state.config
        assert client is not None
        items, swapped = state.items, state.swapped_items
        targets = [state.endpoints[name] for name in config.targets]
        judges = panel(config, state.endpoints)
        per_item = len(targets) * config.samples
        # Of each stage's calls, those not in the store yet (the dry run's count), so that the
        # ETA counts only calls that will be made. Identical judge seats share their calls.
        stored = stored_ok(getattr(client, "store", None))
        answer_calls = (len(items) + len(swapped)) * config.samples
        declare_total(
            client.listeners,
            ANSWER_STAGE,
            answer_calls * len(targets),
            new=sum(max(0, answer_calls - stored.get((ANSWER_STAGE, t.name), 0)) for t in targets),
        )
        # First tries only: a failed answer is not judged, an unparseable verdict is asked again.
        rubric_calls = sum(len(active_rubrics(item.environment)) for item in items) * per_item
        seats = same_calls(config.judges, state.endpoints)
        declare_total(
            client.listeners,
            JUDGE_STAGE,
            rubric_calls * len(judges),
            new=sum(
                max(0, rubric_calls - sum(stored.get((JUDGE_STAGE, n), 0) for n in names))
                for names in seats
            ),
            retries=True,
        )
        # Written to the run's spool as they arrive, in the order of their files at the end
        # (``runlog.spool``): neither the answers nor the judge records of the study are held.
        spool = fresh_spool(RunDir(state.run_dir).spool)
        records = StudySpool(spool, [*items, *swapped], [t.name for t in targets])

        def add_judged(judged: JudgeVerdicts) -> None:
            records.add_judged(judged, judged.skipped)

        by_key = {sys.intern(item.key): item for item in items}  # the spool's key strings
        if config.overlap_judging:
            await self._answer_and_judge_overlapping(
                state, targets, judges, by_key, records.add_answer, add_judged
            )
        else:
            answers = await answer_items(
                client, targets, [*items, *swapped], samples=config.samples
            )
            for answer in answers:
                records.add_answer(answer)
            judged = await judge_answers(
                client,
                judges,
                [(by_key[a.item_key], a) for a in answers if a.item_key in by_key],
                prompt_order=True,
                calls_at_once=min(client.calls_at_once(judge) for judge in judges),
            )
            del answers
            add_judged(judged)
        state.answers, state.verdicts = records.finish()
        state.judges_skipped = records.skipped
        state.log(
            f"answers: {records.ok} ok, {records.failed} failed; "
            f"judge records: {len(state.verdicts)}"
        )

    async def _answer_and_judge_overlapping(
        self,
        state: StudyState,
        targets: list[ModelEndpoint],
        judges: list[ModelEndpoint],
        by_key: dict[str, EnvironmentItem],
        add_answer: Callable[[Answer], None],
        add_judged: Callable[[JudgeVerdicts], None],
    ) -> None:
        """Each answer judged as soon as it exists: answers go into a bounded queue that a fixed
        number of judging workers take from. When judging lags, answering waits for room in
        the queue, so neither prompts, answers waiting for judges nor their tasks pile up with
        the study's size (issue 32)."""
        client, config = state.client, state.config
        assert client is not None
        # Answers being judged at once: enough to keep every judge's slots busy, few enough
        # that prompts are built shortly before their calls. A batch judge's calls are handed
        # to the client as data (``BatchJudging``): they wait on disk, not in a worker.
        batch = None
        if any(judge.is_batch for judge in judges) and takes_batch_calls(client):
            batch = BatchJudging(client, judges, by_key, lambda r: add_judged(JudgeVerdicts([r])))
        workers = 2 * max(
            (judge.max_concurrency for judge in judges if batch is None or not judge.is_batch),
            default=1,
        )
        queue: asyncio.Queue[Answer | None] = asyncio.Queue(maxsize=workers)

        async def judge_from_queue() -> None:
            while (answer := await queue.get()) is not None:
                pair = [(by_key[answer.item_key], answer)]
                add_judged(await judge_answers(client, judges, pair, batch=batch))

        async def enqueue(answer: Answer) -> None:
            add_answer(answer)
            if answer.item_key in by_key:  # a swapped-order item: answered, never judged
                await queue.put(answer)

        async def answer_then_stop() -> None:
            await answer_items(
                client,
                targets,
                [*state.items, *state.swapped_items],
                samples=config.samples,
                on_result=enqueue,
                at_once=workers + sum(client.calls_at_once(target) for target in targets),
                keep=False,  # each answer goes to the spool (``add_answer``)
            )
            for _ in range(workers):
                await queue.put(None)  # each worker stops at one

        await gather_or_cancel([answer_then_stop(), *(judge_from_queue() for _ in range(workers))])
        if batch is not None:
            await batch.finished()

    def plan(self, plan: PlanState) -> list[PlanRow]:
        config, endpoints, items_per_env = plan.config, plan.endpoints, plan.items_per_env
        # Swapped-order items are answered (and coded) like the others, never judged.
        answers = (sum(items_per_env.values()) + plan.swapped_items) * config.samples
        answer_in = answer_input_tokens(items_per_env)
        rows = [
            plan.row(
                ANSWER_STAGE,
                endpoints[name],
                answers,
                plan.cached(ANSWER_STAGE, [name]),
                answer_in,
                OUTPUT_TOKENS[ANSWER_STAGE],
                answer_prefixes(items_per_env, config.samples),
            )
            for name in config.targets
        ]
        # Every target's answer to every item is judged on each of its environment's rubrics.
        judge_calls = (
            sum(n * len(active_rubrics(env)) for (_, env), n in items_per_env.items())
            * config.samples
            * len(config.targets)
        )
        judge_in = judge_input_tokens(items_per_env)
        for names in same_calls(config.judges, endpoints):
            cached = plan.cached(JUDGE_STAGE, names)
            endpoint = endpoints[names[0]]
            prefixes = judge_prefixes(
                items_per_env, config.samples * len(config.targets), endpoint.judge_prompt
            )
            rows.append(
                plan.row(
                    JUDGE_STAGE,
                    endpoint,
                    judge_calls,
                    cached,
                    judge_in,
                    OUTPUT_TOKENS[JUDGE_STAGE],
                    prefixes,
                )
            )
        plan.details["answers_total"] = len(config.targets) * answers
        plan.details["judge_calls_total"] = sum(r.calls for r in rows if r.stage == JUDGE_STAGE)
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        return [
            f"total: {details['answers_total']:,} answers, "
            f"{details['judge_calls_total']:,} judge calls "
            "(identical judge seats share calls); retries not counted"
        ]

    def write(self, state: StudyState, run: RunDir) -> None:
        """The spooled files moved to their places (records given in memory written), then the
        release folders' answers read from ``answers.jsonl``."""
        if isinstance(state.answers, SpooledAnswers):
            state.answers.place(run.answers)
        else:
            run.write_answers(state.answers)
        if isinstance(state.verdicts, SpooledJudgeRecords):
            state.verdicts.place(run.judges)
        else:
            run.write_judge_records(state.verdicts)
        shutil.rmtree(run.spool, ignore_errors=True)
        run.write_release_answers(state.items, state.answers)

    def manifest(self, state: StudyState) -> dict:
        scored = state.scored
        assert scored is not None
        config = state.config
        return {
            "judging": {
                "panel": list(config.judges),
                "answers_not_judged": state.judges_skipped,
                "excluded_items": scored.n_excluded,
                "ties": scored.n_ties,
                "ignored_sub_questions": dict(scored.ignored),
            },
            # Attempts, retries and missing verdicts per judge and output mode (the exclusion
            # rate).
            "judge_parsing": judge_parsing(
                state.verdicts,
                {name: state.endpoints[name] for name in config.judges},
                state.call_stats,
                counted=state.parsing_counts,
            ),
        }
