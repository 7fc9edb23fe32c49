"""What the report's sections of the tasks beyond the paper's (issue 29) share: reading a task's
tables back from the run (``analyses.<task>``; never computed here), and drawing the tables every
task has the same way (the EMI and Adherence Index leaderboard, the sub-question pass rates, the
build counts). A section's view is ``task_section_view``: its lead, its notes and its tables in
order, which ``templates/task-section.html`` draws for every task."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from polistemics.conditions import Environment
from polistemics.report.content import ReportContent
from polistemics.report.formatting import count, percent, with_interval
from polistemics.report.view import Column, TableView, table_view
from polistemics.runlog import RunDir

Tables = dict[str, pd.DataFrame]


def environment_label(value: object) -> str:
    """An environment's label; a value that names none is shown as it is."""
    try:
        return Environment(str(value)).label
    except ValueError:
        return str(value)


MODEL = Column("Model", "model")
ENVIRONMENT = Column("Environment", lambda row: environment_label(row["environment"]))


def run_tables(
    content: ReportContent, read_tables: Callable[[Path], Tables | None]
) -> tuple[RunDir, Tables] | None:
    """The run and the task's tables, or None: no run, or a run without the task."""
    run_dir = content.inputs.run_dir
    if run_dir is None:
        return None
    run = RunDir(run_dir)
    tables = read_tables(run.tables)
    return None if tables is None else (run, tables)


def leaderboard_by_environment(tables: Tables, task: str, caption: str, table_id: str) -> TableView:
    """Per model: the EMI, then the Adherence Index of each environment in a column."""
    emi, adherence = tables[f"{task}_emi"], tables[f"{task}_adherence"]
    wide = (
        adherence.pivot(index="model", columns="environment", values="adherence").reset_index()
        if not adherence.empty
        else pd.DataFrame(columns=["model"])
    )
    leaderboard = wide.merge(emi[["model", "emi"]], on="model", how="left")
    environments = [c for c in wide.columns if c != "model"]
    return table_view(
        leaderboard,
        [
            MODEL,
            Column("EMI", "emi", percent, numeric=True),
            *(Column(environment_label(env), env, percent, numeric=True) for env in environments),
        ],
        caption=caption,
        table_id=table_id,
    )


def pass_rate_columns(interval: bool) -> list[Column]:
    """A sub-question's rubric, code, title, n and pass rate (with its 95% interval, or not)."""
    rate = (
        Column(
            "Pass rate [95% CI]",
            with_interval("pass_rate", "pass_rate_low", "pass_rate_high"),
            numeric=True,
        )
        if interval
        else Column("Pass rate", "pass_rate", percent, numeric=True)
    )
    return [
        Column("Rubric", "rubric"),
        Column("Code", "code"),
        Column("Sub-question", "title"),
        Column("n", "n", count, numeric=True),
        rate,
    ]


def sub_question_table(
    frame: pd.DataFrame, caption: str, table_id: str, *, interval: bool = False
) -> TableView:
    """The sub-questions' pass rates per model and environment."""
    return table_view(
        frame,
        [MODEL, ENVIRONMENT, *pass_rate_columns(interval)],
        caption=caption,
        table_id=table_id,
    )


def build_table(frame: pd.DataFrame, caption: str, table_id: str) -> TableView:
    """What the task's item builder built and counted."""
    return table_view(
        frame,
        [Column("What", "what"), Column("Count", "count", count, numeric=True)],
        caption=caption,
        table_id=table_id,
    )


def task_section_view(
    lead: str, tables: Sequence[TableView], notes: Sequence[str] = ()
) -> dict[str, object]:
    """What ``templates/task-section.html`` draws: the lead, the notes (text), the tables."""
    return {"lead": lead, "notes": list(notes), "tables": list(tables)}
