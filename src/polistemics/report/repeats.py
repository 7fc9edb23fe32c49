"""The judges section's repeat-judging part: flip rates from ``run.json``'s ``judge_repeats``.

run.json is input like any other: its ``judge_repeats`` is validated as a whole
(``runlog.JudgeRepeats``), and one that does not fit is reported as unreadable, never shown
half-read.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.report.formatting import percent, row_interval
from polistemics.report.labels import order_rows, rubric_label, sub_question_label
from polistemics.report.view import Column, TableView, table_view
from polistemics.runlog import FlipRow, JudgeRepeats, RunManifest, Unreadable

PAPER = (
    "The paper reports 7.6% (95% CI 6.8–8.5%) over 5,754 items re-judged by one judge (Sec. 10)."
)
NOT_CONFIGURED = (
    "No repeat judging was configured for this run, so judge nondeterminism was not measured "
    "(set judge_repeats in the run config: a judge or all, and a count or fraction of items)."
)


@dataclass(frozen=True)
class RepeatsView:
    summary: str  # a sentence: configured or not, and the overall figure
    by_rubric: TableView | None
    by_sub_question: TableView | None


def repeats_view(manifest: RunManifest | None, kind: str) -> RepeatsView:
    if kind == "release":
        return RepeatsView("An authors' release holds no repeat judge calls.", None, None)
    summary = manifest.judge_repeats if manifest is not None else None
    if summary is None:
        return RepeatsView(NOT_CONFIGURED, None, None)
    if isinstance(summary, Unreadable):
        return RepeatsView("run.json's judge_repeats could not be read.", None, None)
    return RepeatsView(
        _sentence(summary),
        _table(summary.by_rubric, [], "Flip rate per judge and rubric"),
        _table(
            summary.by_sub_question,
            [Column("Sub-question", lambda r: sub_question_label(r["sub_question"]))],
            "Flip rate per judge, rubric and sub-question",
        ),
    )


def _sentence(s: JudgeRepeats) -> str:
    o = s.overall
    times = "once" if s.repeats == 1 else f"{s.repeats} times"
    judges = ", ".join(s.repeat_judges) or "no judge"
    if not o.n:
        return (
            f"Repeat judging ({judges}, {s.items_sampled} items) gave no verdict readable in "
            f"both calls, so no flip rate. {PAPER}"
        )
    return (
        f"{judges} re-judged {s.items_sampled} items ({s.answers_rejudged} answers) {times} with "
        f"identical prompts, as distinct calls: {percent(o.rate)} of {o.n:,} sub-question "
        f"verdicts differ from the panel's call ({o.flips:,} flips; 95% CI "
        f"{percent(o.ci_low)}–{percent(o.ci_high)}, {o.ci_method}). {PAPER} Repeat verdicts "
        "are never scored."
    )


def _table(rows: list[FlipRow], extra: list[Column], caption: str) -> TableView | None:
    if not rows:
        return None
    frame = order_rows(pd.DataFrame([row.model_dump(mode="json") for row in rows]))
    frame = frame.sort_values("judge", kind="stable")
    columns = [
        Column("Judge", "judge"),
        Column("Rubric", lambda r: rubric_label(r["rubric"])),
        *extra,
        Column("Flip rate", lambda r: percent(r["rate"]), numeric=True),
        Column("95% CI", row_interval()),
        Column("Verdicts", "n", numeric=True),
        Column("Items", "n_items", numeric=True),
    ]
    return table_view(frame, columns, caption=caption)
