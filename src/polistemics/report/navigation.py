"""The report's navigation-task section (issue 29): drawn from the run's
``tables/navigation_*.csv`` (``analyses.navigation``), never computed here. A run without the
task has no such tables and no section (``navigation_view`` returns None)."""

from __future__ import annotations

import pandas as pd

from polistemics.analyses.navigation import read_navigation_tables
from polistemics.conditions import Environment
from polistemics.report.content import ReportContent
from polistemics.report.formatting import count, percent, with_interval
from polistemics.report.view import Column, table_view
from polistemics.runlog import RunDir

NAVIGATION_SECTION = ("navigation", "Navigation task")
NAVIGATION_TITLE = "Navigation task: which parties agree, which disagree? (issue 29)"


def _environment(value: object) -> str:
    try:
        return Environment(str(value)).label
    except ValueError:
        return str(value)


MODEL = Column("Model", "model")
ENVIRONMENT = Column("Environment", lambda row: _environment(row["environment"]))


def navigation_view(content: ReportContent) -> dict | None:
    run_dir = content.inputs.run_dir
    tables = read_navigation_tables(RunDir(run_dir).tables) if run_dir is not None else None
    if tables is None:
        return None
    emi, adherence = tables["navigation_emi"], tables["navigation_adherence"]
    wide = (
        adherence.pivot(index="model", columns="environment", values="adherence").reset_index()
        if not adherence.empty
        else pd.DataFrame(columns=["model"])
    )
    leaderboard = wide.merge(emi[["model", "emi"]], on="model", how="left")
    environments = [c for c in wide.columns if c != "model"]
    return {
        "leaderboard": table_view(
            leaderboard,
            [
                MODEL,
                Column("EMI", "emi", percent, numeric=True),
                *(Column(_environment(env), env, percent, numeric=True) for env in environments),
            ],
            caption="Navigation: EMI and Adherence Index per environment "
            "(tables/navigation_emi.csv, navigation_adherence.csv)",
            table_id="navigation-leaderboard",
        ),
        "sets": table_view(
            tables["navigation_set_metrics"],
            [
                MODEL,
                ENVIRONMENT,
                Column("Stance", "stance"),
                Column("Answers", "answers", count, numeric=True),
                Column(
                    "Precision [95% CI]",
                    with_interval("precision", "precision_low", "precision_high"),
                    numeric=True,
                ),
                Column("n (placed)", "precision_n", count, numeric=True),
                Column(
                    "Recall [95% CI]",
                    with_interval("recall", "recall_low", "recall_high"),
                    numeric=True,
                ),
                Column("n (true)", "recall_n", count, numeric=True),
                Column("F1 [95% CI]", with_interval("f1", "f1_low", "f1_high"), numeric=True),
            ],
            caption="Set precision, recall and F1 per stance against the stance matrix "
            "(Wilson intervals; F1: bootstrap over answers; tables/navigation_set_metrics.csv)",
            table_id="navigation-sets",
        ),
        "parties": table_view(
            tables["navigation_parties"],
            [
                MODEL,
                ENVIRONMENT,
                Column("Answers", "answers", count, numeric=True),
                Column("Unread", "unread_answers", count, numeric=True),
                Column("Parties asked", "query_parties", count, numeric=True),
                Column(
                    "Omitted [95% CI]",
                    with_interval("omitted_rate", "omitted_low", "omitted_high"),
                    numeric=True,
                ),
                Column(
                    "Answers inventing [95% CI]",
                    with_interval("invented_rate", "invented_low", "invented_high"),
                    numeric=True,
                ),
                Column("Invented names", "invented_names"),
                Column("Named outside the question", "named_outside_query", count, numeric=True),
            ],
            caption="Parties omitted and invented (exact names; tables/navigation_parties.csv)",
            table_id="navigation-parties",
        ),
        "focus": table_view(
            tables["navigation_focus"],
            [
                MODEL,
                ENVIRONMENT,
                Column("n", "n", count, numeric=True),
                Column(
                    "Handled [95% CI]",
                    with_interval("handled_rate", "handled_low", "handled_high"),
                    numeric=True,
                ),
                Column("Flagged undetermined", "flagged_undetermined", count, numeric=True),
                Column("Flagged conflict", "flagged_conflict", count, numeric=True),
                Column("Placed (true side)", "placed_true", count, numeric=True),
                Column("Placed (other side)", "placed_other", count, numeric=True),
                Column("Omitted", "omitted", count, numeric=True),
                Column("Unread", "unread", count, numeric=True),
            ],
            caption="The degraded party's handling (tables/navigation_focus.csv)",
            table_id="navigation-focus",
        ),
        "sub_questions": table_view(
            tables["navigation_sub_questions"],
            [
                MODEL,
                ENVIRONMENT,
                Column("Rubric", "rubric"),
                Column("Code", "code"),
                Column("Sub-question", "title"),
                Column("n", "n", count, numeric=True),
                Column("Pass rate", "pass_rate", percent, numeric=True),
            ],
            caption="Navigation sub-question pass rates (docs/tasks.md; "
            "tables/navigation_sub_questions.csv)",
            table_id="navigation-sub-questions",
        ),
        "build": table_view(
            tables["navigation_build"],
            [Column("What", "what"), Column("Count", "count", count, numeric=True)],
            caption="Items built, and statements, splits and refusals counted "
            "(tables/navigation_build.csv)",
            table_id="navigation-build",
        ),
    }
