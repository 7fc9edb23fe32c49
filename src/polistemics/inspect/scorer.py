"""The Polistemics judge panel as an inspect_ai scorer.

Each answer is judged as a study judges it: every judge of the panel answers every active
sub-question of every rubric (``judging.panel.judge_answers``: the paper's prompts, the tolerant
parsers, one retry, the planted-verdict guard), through the client layer (``polistemics.llm``:
retries, rate limits, key redaction), one client for all the samples of an eval
(``inspect.clients``); the panel's strict majority decides each sub-question
(``scoring.verdict_table.score_run``). The score holds, per rubric, the share of the answer's
sub-questions that pass (NaN where a rubric is not active in the environment, as Faithfulness
and Impartiality in Absent, or where the panel gave no majority), and their mean, ``adherence``.
Averaged over the samples of one environment these are the study's Rubric Scores and Adherence
Index for that environment.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from polistemics.export_dataset.tables import item_from_row
from polistemics.inspect.clients import PANEL_CLIENTS
from polistemics.judging.panel import judge_answers
from polistemics.llm.registry import ModelEndpoint, default_registry
from polistemics.rubrics import Rubric
from polistemics.runlog import Answer, EnvironmentItem, JudgeVerdictRecord
from polistemics.scoring.indices import adherence_indices, rubric_scores
from polistemics.scoring.verdict_table import score_run

# The paper's panel (Table 3), from the built-in ``paper`` registry.
PAPER_JUDGES = ("gemini-3-flash-judge", "deepseek-v4-flash-judge", "mimo-v2.5-judge")
ADHERENCE = "adherence"
SCORE_KEYS = (*(rubric.value for rubric in Rubric), ADHERENCE)


def panel_endpoints(
    judges: Sequence[str] = PAPER_JUDGES, models_file: Path | str | None = None
) -> list[ModelEndpoint]:
    """The judges' endpoints from the built-in registries, overlaid by ``models_file``."""
    registry = default_registry(models_file)
    return [registry.get(name) for name in judges]


@scorer(metrics={key: [mean(), stderr()] for key in SCORE_KEYS})
def judge_panel(judges: Sequence[str] = PAPER_JUDGES, models_file: str | None = None) -> Scorer:
    """Score answers with the Polistemics judge panel (registry names; ``models_file``: a model
    registry TOML with your own endpoints, as for ``polistemics run``)."""
    endpoints = panel_endpoints(judges, models_file)

    async def score(state: TaskState, target: Target) -> Score:
        item = item_from_row(state.metadata)
        text = state.output.completion if state.output else ""
        answer = Answer(
            item_key=item.key,
            model=str(state.model),
            status="ok",
            text=text,
            empty=not text.strip(),
        )
        # The eval's one client, shared by its samples and closed when its task ends.
        async with PANEL_CLIENTS.client_for(state.uuid) as client:
            records = await judge_answers(client, endpoints, [(item, answer)])
        values = panel_scores(records, item, len(endpoints))
        return Score(
            value=values,
            answer=text,
            explanation=_explanation(values),
            metadata={"judge_verdicts": [r.model_dump(mode="json") for r in records]},
        )

    return score


def panel_scores(
    records: Sequence[JudgeVerdictRecord], item: EnvironmentItem, panel_size: int
) -> dict[str, float]:
    """Per rubric the share of passing majority verdicts, and their mean (NaN: none)."""
    cells = score_run(records, [item], panel_size=panel_size, countries={}).cells
    values = dict.fromkeys(SCORE_KEYS, math.nan)
    for row in rubric_scores(cells, by=()).itertuples():
        values[row.rubric] = float(row.score)
    for row in adherence_indices(cells, by=()).itertuples():
        values[ADHERENCE] = float(row.adherence)
    return values


def _explanation(values: dict[str, float]) -> str:
    shown = [f"{key} {value:.2f}" for key, value in values.items() if not math.isnan(value)]
    return "; ".join(shown) or "no sub-question had a panel majority"
