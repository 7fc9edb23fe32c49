"""The judge repeats stage (``judge_repeats`` in the config; paper Sec. 10): after the panel,
each repeat judge judges a seeded sample of items' answers again (``judging.repeats``).

The dry-run's count of repeat calls, the stage's calls and its summary for run.json's
``judge_repeats``: the flip rate per judge, rubric and sub-question with a 95% interval
clustered by item (``scoring.flips``). Repeat verdicts are kept apart from the panel's
(``judge_repeats.jsonl``) and never reach the scores.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from polistemics.conditions import Environment, Variant
from polistemics.judging.panel import REPEAT_STAGE
from polistemics.judging.panel import STAGE as JUDGE_STAGE
from polistemics.judging.repeats import (
    allocate,
    distinct_judges,
    judge_repeats,
    repeat_calls,
    select_items,
)
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import Completer
from polistemics.rubrics import active_rubrics
from polistemics.run.config import RunConfig
from polistemics.run.stages.answers import OUTPUT_TOKENS as PANEL_OUTPUT_TOKENS
from polistemics.run.stages.answers import judge_input_tokens
from polistemics.run.stages.base import BaseStage, StudyState
from polistemics.run.stages.planning import PlanRow, PlanState
from polistemics.runlog import (
    Answer,
    EnvironmentItem,
    JudgeVerdictRecord,
    RepeatVerdictRecord,
    RunDir,
)

if TYPE_CHECKING:
    import pandas as pd

# The flip rates' statistics (pandas) are imported where they are computed: a dry run plans the
# repeats without them (issue 26).

OUTPUT_TOKENS = PANEL_OUTPUT_TOKENS[JUDGE_STAGE]  # a repeat is a judge call


class JudgeRepeats(BaseStage):
    """Entered whatever the config: without ``judge_repeats`` it repeats nothing."""

    name = "judge_repeats"

    async def run(self, state: StudyState) -> None:
        assert state.client is not None
        config = state.config
        repeats, drawn = await run_repeats(
            state.client, config, state.endpoints, state.items, state.answers
        )
        state.repeat_verdicts, state.repeats_drawn = repeats, drawn
        if config.judge_repeats is not None:
            state.log(
                f"judge repeats: {drawn['items_sampled']} items, "
                f"{drawn['answers_rejudged']} answers, {len(repeats)} repeat records"
            )

    def plan(self, plan: PlanState) -> list[PlanRow]:
        judge_in = judge_input_tokens(plan.items_per_env)
        calls = planned_repeat_calls(plan.config, plan.items_per_env, plan.endpoints)
        rows = [
            plan.row(
                REPEAT_STAGE,
                plan.endpoints[name],
                n,
                plan.cached(REPEAT_STAGE, [name]),
                judge_in,
                OUTPUT_TOKENS,
            )
            for name, n in calls.items()
        ]
        plan.details["judge_repeat_calls_total"] = sum(r.calls for r in rows)
        return rows

    def plan_notes(self, details: dict) -> list[str]:
        if not details.get("judge_repeat_calls_total"):
            return []
        return [
            f"judge_repeats: {details['judge_repeat_calls_total']:,} repeat judge calls "
            "(distinct calls, never served from the panel's cache; never scored)"
        ]

    def write(self, state: StudyState, run: RunDir) -> None:
        run.write_repeat_records(state.repeat_verdicts)  # none: no stale file stays

    def manifest(self, state: StudyState) -> dict:
        return {
            "judge_repeats": summarise_repeats(
                state.config,
                state.verdicts,
                state.repeat_verdicts,
                state.items,
                state.repeats_drawn,
            )
        }


def repeat_judges(config: RunConfig, endpoints: Mapping[str, ModelEndpoint]):
    """(first panel seat, endpoint) of each judge that repeats calls."""
    return distinct_judges([endpoints[name] for name in config.judges], config.repeat_judges)


def planned_repeat_calls(
    config: RunConfig,
    items_per_env: Mapping[tuple[Variant, Environment], int],
    endpoints: Mapping[str, ModelEndpoint],
) -> dict[str, int]:
    """First-attempt repeat calls per judge, as ``--dry-run`` counts them: the items drawn per
    variant x environment (as the run will draw them) x active rubrics x targets x samples x
    repeats. Like the panel's row, it assumes every answer succeeds."""
    spec = config.judge_repeats
    if spec is None:
        return {}
    names = {key: f"{key[0].value}/{key[1].value}" for key in items_per_env}
    drawn = allocate({names[key]: n for key, n in items_per_env.items()}, spec.items)
    per_answer = sum(drawn[names[key]] * len(active_rubrics(key[1])) for key in items_per_env)
    calls = per_answer * len(config.targets) * config.samples * spec.repeats
    return {endpoint.name: calls for _, endpoint in repeat_judges(config, endpoints)}


async def run_repeats(
    completer: Completer,
    config: RunConfig,
    endpoints: Mapping[str, ModelEndpoint],
    items: Sequence[EnvironmentItem],
    answers: Iterable[Answer],
) -> tuple[list[RepeatVerdictRecord], dict]:
    """The repeat calls on the seeded sample, and what was drawn (for the summary)."""
    spec = config.judge_repeats
    if spec is None:
        return [], {}
    chosen = select_items(items, spec.items, config.seed)
    keys = {item.key: item for item in chosen}
    pairs = [(keys[a.item_key], a) for a in answers if a.item_key in keys]
    judges = repeat_judges(config, endpoints)
    records = await judge_repeats(completer, judges, pairs, spec.repeats)
    drawn = {
        "items_sampled": len(chosen),
        "answers_rejudged": sum(answer.ok for _, answer in pairs),
        "repeat_judges": [endpoint.name for _, endpoint in judges],
        "planned_calls": repeat_calls(len(judges), pairs, spec.repeats),
    }
    return records, drawn


def summarise_repeats(
    config: RunConfig,
    panel: Sequence[JudgeVerdictRecord],
    repeats: Sequence[RepeatVerdictRecord],
    items: Sequence[EnvironmentItem],
    drawn: dict,
    *,
    resamples: int | None = None,
) -> dict | None:
    """``run.json``'s ``judge_repeats``: None when repeat judging is off. ``resamples``: the
    bootstrap's (None: ``scoring.flips.DEFAULT_RESAMPLES``)."""
    from polistemics.scoring.flips import DEFAULT_RESAMPLES, flip_table, pooled_flip_rate

    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    spec = config.judge_repeats
    if spec is None:
        return None
    by_key = {item.key: item for item in items}
    paired = _paired(panel, repeats, by_key)
    seed = config.seed
    overall = pooled_flip_rate(paired, resamples=resamples, seed=seed).as_dict()
    return _json_safe(
        {
            "judges": spec.judges,
            "items": spec.items,
            "repeats": spec.repeats,
            **drawn,
            "repeat_records": len(repeats),
            "distinct_repeat_calls": len({r.call_key for r in repeats if r.call_key}),
            "repeat_records_unparsed": sum(not r.parsed for r in repeats),
            "verdicts_compared": int(len(paired)),
            "ci": "95%, clustered by environment item",
            "resamples": resamples,
            "overall": overall,
            "by_judge": flip_table(paired, ["judge"], resamples=resamples, seed=seed),
            "by_rubric": flip_table(paired, ["judge", "rubric"], resamples=resamples, seed=seed),
            "by_sub_question": flip_table(
                paired, ["judge", "rubric", "sub_question"], resamples=resamples, seed=seed
            ),
        }
    )


def _paired(
    panel: Sequence[JudgeVerdictRecord],
    repeats: Sequence[RepeatVerdictRecord],
    items: Mapping[str, EnvironmentItem],
) -> pd.DataFrame:
    """Each repeat's verdicts against the panel's verdicts of the same judge seat, concatenated
    over repeats; the judge column holds the judge's name."""
    import pandas as pd

    from polistemics.scoring.flips import paired_flips
    from polistemics.scoring.verdict_table import verdict_table

    repeats = _one_per_call(repeats)
    seats = {(r.panel_position, r.judge) for r in repeats}
    rejudged = {r.item_key for r in repeats}
    first = [r for r in panel if (r.panel_position, r.judge) in seats and r.item_key in rejudged]
    if not first or not repeats:
        return paired_flips([], [])
    first_table = verdict_table(first, items)
    frames = []
    for repeat in sorted({r.repeat for r in repeats}):
        again = verdict_table([r for r in repeats if r.repeat == repeat], items)
        frames.append(paired_flips(first_table, again))
    paired = pd.concat(frames, ignore_index=True)
    paired["judge"] = paired["judge"].str.split(":", n=1).str[1]  # "seat:name" -> name
    return paired


def _one_per_call(repeats: Sequence[RepeatVerdictRecord]) -> list[RepeatVerdictRecord]:
    """Items whose prompts are identical (e.g. the English-output Baseline of an English
    election) share their calls; each call's verdicts count once, for the first such item."""
    seen: set[str] = set()
    kept = []
    for record in repeats:
        if record.call_key is None or record.call_key not in seen:
            kept.append(record)
            if record.call_key is not None:
                seen.add(record.call_key)
    return kept


def _json_safe(value: object) -> object:
    """NaN (no verdicts to compare) as null: run.json stays strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return _json_safe(value.item())
    return value
