"""What the stages of the tasks beyond the paper's share (issue 29): the dry-run rows of a task's
three call stages (answers, the coder panel's readings, the judge panel's verdicts) and the
task's entry in run.json. Each task's stage counts its own items and sizes its own prompts; this
module only turns those counts into plan rows and records into the manifest entry, the same way
for every task."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from polistemics import tasks  # its TASKS when used: the definitions load pandas
from polistemics.conditions import Environment
from polistemics.prompts import task_template_hashes
from polistemics.run.stages.planning import PlanRow, PlanState, same_calls
from polistemics.runlog import Answer, JudgeVerdictRecord
from polistemics.runlog.task_files import NavigationCodeRecord


@dataclass(frozen=True)
class TaskCalls:
    """A task's three call stages, with their estimated calls and tokens per call."""

    stages: tuple[str, str, str]  # answer, code, judge
    output_tokens: dict[str, int]  # per stage
    answers: int  # per target (items x samples)
    answer_in: int
    code_calls: int  # over all targets, per set of coder seats
    code_in: int
    judge_calls: int  # over all targets, per set of judge seats
    judge_in: int


def task_call_rows(plan: PlanState, calls: TaskCalls) -> list[PlanRow]:
    """One answer row per target, one coder row and one judge row per set of seats that share
    their calls."""
    config = plan.config
    answer_stage, code_stage, judge_stage = calls.stages
    rows = [
        plan.row(
            answer_stage,
            plan.endpoints[name],
            calls.answers,
            plan.cached(answer_stage, [name]),
            calls.answer_in,
            calls.output_tokens[answer_stage],
        )
        for name in config.targets
    ]
    for stage, seats, n_calls, tokens_in in (
        (code_stage, config.stance_coder, calls.code_calls, calls.code_in),
        (judge_stage, config.judges, calls.judge_calls, calls.judge_in),
    ):
        for names in same_calls(seats, plan.endpoints):
            rows.append(
                plan.row(
                    stage,
                    plan.endpoints[names[0]],
                    n_calls,
                    plan.cached(stage, names),
                    tokens_in,
                    calls.output_tokens[stage],
                )
            )
    return rows


def rubrics_per_item(task: str, environments: Sequence[Environment]) -> float:
    """The mean number of rubrics judged per item over ``environments``."""
    judged = sum(
        len({sq.rubric for sq in tasks.TASKS[task].active_questions(env)}) for env in environments
    )
    return judged / max(1, len(environments))


def task_manifest(
    task: str,
    *,
    environments: Iterable[Environment],
    items: int,
    build_counts: dict[str, int],
    answers: Sequence[Answer],
    codes: Sequence[NavigationCodeRecord],
    verdicts: Sequence[JudgeVerdictRecord],
    notes: Sequence[str] | None = None,
) -> dict:
    """The task's entry under run.json's ``tasks`` (``notes`` only when the task keeps any)."""
    entry: dict = {
        "environments": [env.value for env in environments],
        "items": items,
        "build": dict(sorted(build_counts.items())),
    }
    if notes is not None:
        entry["notes"] = list(notes)
    entry |= {
        "answers": len(answers),
        "answers_failed": sum(not a.ok for a in answers),
        "coder_readings": len(codes),
        "coder_missing": sum(c.named is None for c in codes),
        "judge_records": len(verdicts),
        "judge_unparsed": sum(not v.parsed for v in verdicts),
        "rubrics": list(dict.fromkeys(sq.rubric.value for sq in tasks.TASKS[task].sub_questions)),
        "prompt_template_sha256": task_template_hashes(tasks.TASKS[task].prompt_templates[1:]),
    }
    return {"tasks": {task: entry}}
