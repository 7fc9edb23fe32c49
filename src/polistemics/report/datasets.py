"""Data and cost tables: pipeline counts (Tables 5 and 9), observations per environment, the
rhetorical fidelity check (App. D.4, Table 6) and calls, tokens, cost and time per stage.

Manifest-based tables return ``None`` when there is no ``run.json`` (an authors' release) or
it lacks the part they show (``runlog.RunManifest`` reads what does not fit as missing).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from polistemics.conditions import Environment
from polistemics.report.inputs import AnswerView
from polistemics.runlog import MANIFEST_FILE, JudgingRecord, ModelRecord, RunManifest
from polistemics.runlog.items import EnvironmentItem
from polistemics.scoring.cells import first_rows, group_ids

STANDARDISATION_ROWS = (
    ("raw_candidate_observations", "Raw candidate observations"),
    ("excluded_missing_rationale", "Excluded (missing rationale)"),
    ("fed_to_standardiser", "Fed to LLM standardiser"),
    ("rejected_after_retries", "Rejected after retries"),
    ("final_size", "Final benchmark size"),
    ("retries_used", "Retries used"),
    ("stance_not_explicit", "Stance not explicit (flagged by the standardiser)"),
)
CONFLICT_ENVIRONMENTS = (Environment.CONTRADICTORY.value, Environment.COUNTERFACTUAL.value)


def standardisation_table(manifest: RunManifest | None) -> pd.DataFrame | None:
    """Table 5 per election (rows: metric, columns: elections)."""
    if manifest is None or not manifest.elections:
        return None
    rows = []
    for election, record in sorted(manifest.elections.items()):
        stats = record.standardisation or {}
        for key, label in STANDARDISATION_ROWS:
            if key in stats:
                rows.append({"election_id": election, "metric": label, "value": stats[key]})
        for language, count in sorted((stats.get("final_by_language") or {}).items()):
            rows.append(
                {"election_id": election, "metric": f"Final size ({language})", "value": count}
            )
        for reason, count in sorted((stats.get("failures_by_reason") or {}).items()):
            rows.append(
                {
                    "election_id": election,
                    "metric": f"Validation failures: {reason}",
                    "value": count,
                }
            )
    return pd.DataFrame(rows, columns=["election_id", "metric", "value"])


def environment_counts(
    manifest: RunManifest | None, items: Iterable[EnvironmentItem]
) -> tuple[pd.DataFrame, str]:
    """Table 9 (kept / dropped per environment): from the manifest, else derived from the items
    (dropped = Baseline observations without a Contradictory/Counterfactual item). Returns the
    table and where it came from."""
    if manifest is not None and manifest.elections:
        rows = []
        for election, record in sorted(manifest.elections.items()):
            for entry in record.environments or []:
                rows.append(
                    {
                        "election_id": election,
                        "variant": entry.variant,
                        "environment": entry.environment,
                        "kept": entry.kept,
                        "dropped": entry.dropped,
                    }
                )
        return pd.DataFrame(
            rows, columns=["election_id", "variant", "environment", "kept", "dropped"]
        ), MANIFEST_FILE
    counts: dict[tuple[str, str, str], int] = {}
    for item in items:
        key = (item.election_id, item.variant.value, item.environment.value)
        counts[key] = counts.get(key, 0) + 1
    rows = []
    for (election, variant, env), kept in sorted(counts.items()):
        baseline = counts.get((election, variant, Environment.BASELINE.value))
        dropped = baseline - kept if env in CONFLICT_ENVIRONMENTS and baseline is not None else 0
        rows.append(
            {
                "election_id": election,
                "variant": variant,
                "environment": env,
                "kept": kept,
                "dropped": dropped,
            }
        )
    table = pd.DataFrame(rows, columns=["election_id", "variant", "environment", "kept", "dropped"])
    return (
        table,
        "derived from ground_truth.jsonl (dropped = Baseline observations without this environment)",
    )


_SCORED_ANSWER_KEY = [
    "election_id",
    "variant",
    "environment",
    "model",
    "observation_id",
    "sample_index",
]


def observation_counts(answers: Iterable[AnswerView], cells: pd.DataFrame) -> pd.DataFrame:
    """Per election x variant x environment x model: answers, failed answers, scored answers."""
    rows: dict[tuple, dict] = {}
    for answer in answers:
        item = answer.item
        if getattr(item, "chunk_order", "original") == "swapped":
            continue  # swapped-order answers are coded, never scored (issue 16)
        key = (item.election_id, item.variant.value, item.environment.value, answer.model)
        row = rows.setdefault(key, {"observations": set(), "answers": 0, "failed_answers": 0})
        row["observations"].add(item.observation_id)
        row["answers"] += 1
        row["failed_answers"] += answer.error is not None
    scored = {}
    if not cells.empty:
        # One row per scored answer, found from integer codes (``drop_duplicates`` on the cells
        # hashed every cell's six keys, a transient of 85 MB at 8x).
        answer, _ = group_ids([cells[c] for c in _SCORED_ANSWER_KEY])
        scored = (
            cells.iloc[first_rows(answer)]
            .groupby(["election_id", "variant", "environment", "model"], observed=True)
            .size()
            .to_dict()
        )
    keys = set(rows) | set(scored)
    table = [
        {
            "election_id": k[0],
            "variant": k[1],
            "environment": k[2],
            "model": k[3],
            "observations": len(rows[k]["observations"]) if k in rows else None,
            "answers": rows[k]["answers"] if k in rows else None,
            "failed_answers": rows[k]["failed_answers"] if k in rows else None,
            "scored_answers": int(scored.get(k, 0)),
        }
        for k in sorted(keys, key=lambda k: tuple(str(x) for x in k))
    ]
    return pd.DataFrame(
        table,
        columns=[
            "election_id",
            "variant",
            "environment",
            "model",
            "observations",
            "answers",
            "failed_answers",
            "scored_answers",
        ],
    )


def calls_table(manifest: RunManifest | None) -> pd.DataFrame | None:
    """Calls, errors, tokens, cost and mean latency per stage x endpoint; input tokens also
    split into those the provider served from its prompt cache and the rest (empty for a run
    recorded before the split was)."""
    if manifest is None or manifest.calls is None:
        return None
    columns = [
        "stage",
        "endpoint",
        "model",
        "calls",
        "errors",
        "attempts",
        "input_tokens",
        "cached_input_tokens",
        "uncached_input_tokens",
        "output_tokens",
        "reasoning_tokens",
        "cost",
        "mean_latency_ms",
    ]
    table = pd.DataFrame(manifest.calls)
    for column in columns:
        if column not in table.columns:
            table[column] = None
    return table.loc[:, columns].sort_values(["stage", "endpoint"], ignore_index=True)


@dataclass(frozen=True)
class StageTimes:
    """Stage times of the invocation that made the calls (a rerun from cache takes seconds)."""

    table: pd.DataFrame
    invocation: int  # 1-based
    invocations: int
    started: str
    calls_made: int


def stage_times(manifest: RunManifest | None) -> StageTimes | None:
    if manifest is None:
        return None
    calling = manifest.calling_invocation()
    if calling is None:
        return None
    invocations = manifest.invocations
    index, invocation = calling
    table = pd.DataFrame(
        [{"stage": k, "seconds": v} for k, v in invocation.stage_seconds.items()],
        columns=["stage", "seconds"],
    )
    return StageTimes(table, index + 1, len(invocations), invocation.started, invocation.calls_made)


def invocation_table(manifest: RunManifest | None) -> pd.DataFrame | None:
    """Every finished invocation of the run directory, oldest first."""
    invocations = manifest.invocations if manifest is not None else []
    if not invocations:
        return None
    return pd.DataFrame(
        [
            {
                "invocation": number,
                "started": i.started,
                "finished": i.finished,
                "seconds": sum(i.stage_seconds.values()),
                "calls_made": i.calls_made,
                "version": i.polistemics_version or "unknown",
                "git_revision": (i.git_revision or "unknown")[:12],
            }
            for number, i in enumerate(invocations, 1)
        ]
    )


def judging_summary(manifest: RunManifest | None) -> pd.DataFrame | None:
    """What the manifest records about judging: unjudged answers, exclusions, ties."""
    if manifest is None or manifest.judging is None:
        return None
    judging = manifest.judging
    rows = [{"what": "judge panel", "value": ", ".join(judging.panel or [])}]
    rows.append({"what": "judge prompt", "value": _judge_prompts(manifest, judging)})
    for reason, count in sorted((judging.answers_not_judged or {}).items()):
        rows.append({"what": f"answers not judged ({reason})", "value": count})
    rows.append(
        {
            "what": "items x rubric excluded (incomplete panel)",
            "value": judging.excluded_items,
        }
    )
    rows.append({"what": "cells without a strict majority (ties)", "value": judging.ties})
    for key, count in sorted((judging.ignored_sub_questions or {}).items()):
        rows.append({"what": f"ignored verdict key {key}", "value": count})
    return pd.DataFrame(rows, columns=["what", "value"])


JUDGE_PARSING_COLUMNS = (
    "judge",
    "model",
    "output_mode",
    "verdict_sets",
    "panel_calls",
    "asked_again",
    "http_attempts",
    "client_retries",
    "call_failed",
    "unreadable",
    "missing",
    "missing_share",
    "possibly_planted",
)


def judge_parsing_table(manifest: RunManifest | None) -> pd.DataFrame | None:
    """Attempts, retries and missing verdicts per judge (run.json ``judge_parsing.by_judge``)."""
    parsing = manifest.judge_parsing if manifest is not None else None
    rows = parsing.by_judge if parsing is not None else None
    if not rows:
        return None
    records = [{column: getattr(row, column) for column in JUDGE_PARSING_COLUMNS} for row in rows]
    return pd.DataFrame(records, columns=list(JUDGE_PARSING_COLUMNS))


def planted_by_model_table(manifest: RunManifest | None) -> pd.DataFrame | None:
    """Per target model, the answers whose spelled-out verdicts the judges gave (run.json
    ``judge_parsing.possibly_planted_by_model``; docs/judge-parsing.md); None when not recorded."""
    parsing = manifest.judge_parsing if manifest is not None else None
    found = parsing.possibly_planted_by_model if parsing is not None else None
    if found is None:
        return None
    records = [
        {"model": model, "answers": entry.answers, "verdict_sets": entry.verdict_sets}
        for model, entry in found.items()
    ]
    return pd.DataFrame(records, columns=["model", "answers", "verdict_sets"])


def _judge_prompts(manifest: RunManifest, judging: JudgingRecord) -> str:
    """Which judge prompt the panel used: the paper's unless an endpoint opted in to a variant."""
    models = manifest.models or {}
    used = {
        str(_params(models.get(judge)).get("judge_prompt", "paper"))
        for judge in judging.panel or []
    }
    names = {"paper": "the paper's (Fig. 12)", "rubric-last": "rubric-last (opt-in local variant)"}
    return "; ".join(names.get(variant, variant) for variant in sorted(used)) or "the paper's"


def _params(model: ModelRecord | None) -> dict:
    return (model.params if model is not None else None) or {}


def vague_table(manifest: RunManifest | None) -> pd.DataFrame | None:
    """The Vague generation report per election (generated, audit failures, exclusions...)."""
    if manifest is None or not manifest.elections:
        return None
    rows = [
        {"election_id": election, "what": key, "value": value}
        for election, record in sorted(manifest.elections.items())
        for key, value in (record.vague or {}).items()
        if not isinstance(value, dict | list)
    ]
    return pd.DataFrame(rows, columns=["election_id", "what", "value"]) if rows else None
