"""The pushback stage (issue 30, item 2; docs/pushback.md): after the answers, judges and stance
codes, a seeded share of each chosen environment's full-variant items gets a scripted second user
turn (``answers.pushback``); each target answers again with the whole conversation in view, the
judge panel judges the second answer on the environment's rubrics with the conversation shown
(``judging.pushback``), and the coder panel codes both answers (``coding.coder``; the second with
the conversation). Every call goes through the client layer: cached, resumable, counted.

Writes ``pushback.jsonl``, ``pushback_judges.jsonl`` and ``pushback_codes.jsonl`` (removed when
the run has no pushback, so a run without it keeps exactly its files) and run.json's
``pushback``. Nothing here reaches the scores: the analyses are in ``analyses.pushback``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from polistemics.answers.pushback import (
    STAGE as TURN_STAGE,
)
from polistemics.answers.pushback import (
    PushbackChoice,
    ask_second_turns,
    chosen_count,
    select_pushback,
)
from polistemics.coding.coder import code_subjects
from polistemics.coding.subjects import CodingSubject
from polistemics.conditions import Environment, Variant
from polistemics.judging.pushback import STAGE as JUDGE_STAGE
from polistemics.judging.pushback import judge_second_answers
from polistemics.llm.progress import declare_total
from polistemics.prompts import load
from polistemics.rubrics import active_rubrics
from polistemics.run.config import RunConfig
from polistemics.run.stages.answers import answer_input_tokens, judge_input_tokens
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import PlanRow, PlanState, same_calls, tokens
from polistemics.run.stages.stance_code import answer_subject, coders, sort_codes
from polistemics.runlog import EnvironmentItem, Pressure, PushbackTurn, RunDir

if TYPE_CHECKING:
    from polistemics.analyses.pushback import PushbackRecords

CODE_STAGE = "pushback_code"
OUTPUT_TOKENS = {TURN_STAGE: 150, JUDGE_STAGE: 20, CODE_STAGE: 20}
CONVERSATION_TOKENS = 200  # the first answer and the follow-up a second call adds


@dataclass
class PushbackOutputs:
    records: PushbackRecords
    chosen: int = 0
    by_pressure: dict[str, int] = field(default_factory=dict)
    first_failed: int = 0  # conversations not continued: the first answer failed or was empty
    judges_skipped: dict[str, int] = field(default_factory=dict)


def choices(config: RunConfig, items: list[EnvironmentItem]) -> list[PushbackChoice]:
    spec = config.pushback
    if spec is None:
        return []
    return select_pushback(
        items,
        config.pushback_environments,
        spec.share,
        [Pressure(p) for p in spec.pressures],
        config.seed if spec.seed is None else spec.seed,
    )


def second_answer_subject(item: EnvironmentItem, turn: PushbackTurn) -> CodingSubject:
    return CodingSubject(
        kind="answer",
        subject_key=turn.subject_key,
        model=turn.model,
        sample_index=turn.sample_index,
        party_name=item.party_label,
        statement_text=item.statement_text,
        answer_text=turn.text or "",
        language=item.output_language,
        context=tuple(chunk.text for chunk in item.chunks),
        conversation=(turn.first_text, turn.follow_up),
    )


class PushbackTurns(BaseStage):
    name = "pushback"

    def enabled(self, config: RunConfig) -> bool:
        return config.pushback is not None

    async def run(self, state: StudyState) -> None:
        client, config = state.client, state.config
        assert client is not None
        chosen = choices(config, state.items)
        by_key = {choice.item.key: choice for choice in chosen}
        firsts = sorted(
            (a for a in state.answers if a.item_key in by_key),
            key=lambda a: (a.item_key, config.targets.index(a.model), a.sample_index),
        )
        conversations = [(by_key[a.item_key], a) for a in firsts]
        targets = {name: state.endpoints[name] for name in config.targets}
        listeners = client.listeners
        declare_total(listeners, TURN_STAGE, sum(a.ok for a in firsts))
        turns = await ask_second_turns(client, targets, conversations)
        items = {key: choice.item for key, choice in by_key.items()}
        judges = [state.endpoints[name] for name in config.judges]
        declare_total(
            listeners,
            JUDGE_STAGE,
            sum(len(active_rubrics(items[t.item_key].environment)) for t in turns if t.ok)
            * len(judges),
        )
        verdicts = await judge_second_answers(
            client, judges, [(items[t.item_key], t) for t in turns]
        )
        subjects = [answer_subject(items[a.item_key], a) for a in firsts if a.ok]
        subjects += [second_answer_subject(items[t.item_key], t) for t in turns if t.ok]
        seats = coders(config, state.endpoints)
        declare_total(listeners, CODE_STAGE, len(subjects) * len(seats))
        codes = (
            sort_codes(await code_subjects(client, seats, subjects, stage=CODE_STAGE))
            if subjects
            else []
        )
        from polistemics.analyses.pushback import PushbackRecords  # pandas: not for a dry run

        state.outputs[self.name] = PushbackOutputs(
            records=PushbackRecords(turns, list(verdicts), codes),
            chosen=len(chosen),
            by_pressure=dict(sorted(Counter(c.pressure.value for c in chosen).items())),
            first_failed=sum(not a.ok for a in firsts),
            judges_skipped=dict(verdicts.skipped),
        )
        state.log(
            f"pushback: {len(chosen)} items, {sum(t.ok for t in turns)} second answers ok, "
            f"{sum(not t.ok for t in turns)} failed; {len(verdicts)} judge records, "
            f"{len(codes)} coder readings"
        )

    def plan(self, plan: PlanState) -> list[PlanRow]:
        """Second turns per target, judge calls per distinct judge, coder calls per distinct
        coder: the items the seeded selection will choose (its count depends only on the
        number of items per environment), every answer assumed to succeed. First answers in
        a coded environment are coded by the stance_code stage already (the same calls): only
        the others are counted here."""
        config, endpoints = plan.config, plan.endpoints
        spec = config.pushback
        if spec is None:
            plan.details["pushback"] = None
            return []
        per_env = chosen_per_environment(config, plan.items_per_env)
        conversations = sum(per_env.values()) * config.samples
        turn_in = answer_input_tokens(plan.items_per_env) + CONVERSATION_TOKENS
        rows = [
            plan.row(
                TURN_STAGE,
                endpoints[name],
                conversations,
                plan.cached(TURN_STAGE, [name]),
                turn_in,
                OUTPUT_TOKENS[TURN_STAGE],
            )
            for name in config.targets
        ]
        answers = len(config.targets) * config.samples
        judge_calls = sum(n * len(active_rubrics(env)) for env, n in per_env.items()) * answers
        judge_in = judge_input_tokens(plan.items_per_env) + CONVERSATION_TOKENS
        for names in same_calls(config.judges, endpoints):
            rows.append(
                plan.row(
                    JUDGE_STAGE,
                    endpoints[names[0]],
                    judge_calls,
                    plan.cached(JUDGE_STAGE, names),
                    judge_in,
                    OUTPUT_TOKENS[JUDGE_STAGE],
                )
            )
        coded = set(config.coded_environments)
        uncoded_firsts = sum(n for env, n in per_env.items() if env not in coded)
        code_calls = (sum(per_env.values()) + uncoded_firsts) * answers
        code_in = tokens(load("stance_coder_system")) + 400 + CONVERSATION_TOKENS
        for names in same_calls(config.stance_coder, endpoints):
            rows.append(
                plan.row(
                    CODE_STAGE,
                    endpoints[names[0]],
                    code_calls,
                    plan.cached(CODE_STAGE, names),
                    code_in,
                    OUTPUT_TOKENS[CODE_STAGE],
                )
            )
        plan.details["pushback"] = {
            "items": {env.value: n for env, n in per_env.items()},
            "second_turn_calls": conversations * len(config.targets),
            "judge_calls": sum(r.calls for r in rows if r.stage == JUDGE_STAGE),
            "coder_calls": sum(r.calls for r in rows if r.stage == CODE_STAGE),
        }
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        found = details.get("pushback")
        if not found:
            return []
        return [
            f"pushback: {found['second_turn_calls']:,} second-turn calls on "
            f"{sum(found['items'].values()):,} items, {found['judge_calls']:,} judge calls, "
            f"{found['coder_calls']:,} coder calls (identical seats share calls; first answers "
            "of coded environments are coded once; retries not counted)"
        ]

    def write(self, state: StudyState, run: RunDir) -> None:
        outputs = state.outputs.get(self.name)
        if isinstance(outputs, PushbackOutputs):
            records = outputs.records
            run.write_pushback(records.turns, records.verdicts, records.codes)
        else:
            run.write_pushback([], [], [])  # no pushback: no stale files of an earlier config

    def manifest(self, state: StudyState) -> dict:
        spec = state.config.pushback
        outputs = state.outputs.get(self.name)
        if spec is None or not isinstance(outputs, PushbackOutputs):
            return {}
        turns = outputs.records.turns
        return {
            "pushback": {
                "environments": [env.value for env in state.config.pushback_environments],
                "share": spec.share,
                "pressures": list(spec.pressures),
                "seed": state.config.seed if spec.seed is None else spec.seed,
                "items": outputs.chosen,
                "items_by_pressure": outputs.by_pressure,
                "first_answers_failed": outputs.first_failed,
                "second_answers": sum(t.ok for t in turns),
                "second_answers_failed": sum(not t.ok for t in turns),
                "second_answers_not_judged": outputs.judges_skipped,
                "judge_records": len(outputs.records.verdicts),
                "coder_readings": len(outputs.records.codes),
                "coder_missing": sum(c.stance is None for c in outputs.records.codes),
            }
        }


def chosen_per_environment(
    config: RunConfig, items_per_env: Mapping[tuple[Variant, Environment], int]
) -> dict[Environment, int]:
    """Items the selection chooses per environment (full variant), as ``select_pushback``
    counts them."""
    spec = config.pushback
    if spec is None:
        return {}
    return {
        env: chosen_count(items_per_env.get((Variant.FULL, env), 0), spec.share)
        for env in config.pushback_environments
        if items_per_env.get((Variant.FULL, env), 0)
    }
