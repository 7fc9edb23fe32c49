"""The report's issue-mapping section (issue 29, item 4): drawn from the run's
``tables/issue_mapping_*.csv`` (``analyses.issue_mapping``) and run.json's notes, never
computed here. A run without the task has no such tables and no section."""

from __future__ import annotations

import pandas as pd

from polistemics.analyses.issue_mapping import read_issue_mapping_tables
from polistemics.conditions import Environment
from polistemics.report.content import ReportContent
from polistemics.report.formatting import count, percent, with_interval
from polistemics.report.view import Column, table_view
from polistemics.runlog import RunDir, RunFileError

ISSUE_MAPPING_SECTION = ("issue-mapping", "Issue-mapping task")
ISSUE_MAPPING_TITLE = "Issue-mapping task: what are the main conflicts on a theme? (issue 29)"


def _environment(value: object) -> str:
    try:
        return Environment(str(value)).label
    except ValueError:
        return str(value)


def _notes(run: RunDir) -> list[str]:
    try:
        manifest = run.read_manifest()
    except RunFileError:
        return []
    tasks = (manifest.model_extra or {}).get("tasks") if manifest is not None else None
    part = tasks.get("issue_mapping") if isinstance(tasks, dict) else None
    notes = part.get("notes") if isinstance(part, dict) else None
    return [str(note) for note in notes] if isinstance(notes, list) else []


def issue_mapping_view(content: ReportContent) -> dict | None:
    run_dir = content.inputs.run_dir
    run = RunDir(run_dir) if run_dir is not None else None
    tables = read_issue_mapping_tables(run.tables) if run is not None else None
    if tables is None or run is None:
        return None
    model = Column("Model", "model")
    env = Column("Environment", lambda row: _environment(row["environment"]))
    emi = tables["issue_mapping_emi"]
    adherence = tables["issue_mapping_adherence"]
    leaderboard = (
        emi.merge(adherence[["model", "environment", "adherence"]], on="model", how="left")
        if not emi.empty
        else pd.DataFrame(columns=["model", "emi", "environment", "adherence"])
    )
    checks = tables["issue_mapping_checks"]
    return {
        "notes": _notes(run),
        "leaderboard": table_view(
            leaderboard,
            [
                model,
                Column("EMI", "emi", percent, numeric=True),
                env,
                Column("Adherence Index", "adherence", percent, numeric=True),
            ],
            caption="Issue mapping: EMI and Adherence Index (Baseline only; "
            "tables/issue_mapping_emi.csv, issue_mapping_adherence.csv)",
            table_id="issue-mapping-leaderboard",
        ),
        "checks": table_view(
            checks,
            [
                model,
                env,
                Column("Answers", "answers", count, numeric=True),
                Column("Pairs", "pairs", count, numeric=True),
                Column(
                    "Coverage [95% CI]",
                    with_interval("coverage", "coverage_low", "coverage_high"),
                    numeric=True,
                ),
                Column(
                    "Faithfulness [95% CI]",
                    with_interval("faithfulness", "faithfulness_low", "faithfulness_high"),
                    numeric=True,
                ),
                Column("Conflicts", "conflicts", count, numeric=True),
                Column(
                    "Conflicts covered [95% CI]",
                    with_interval(
                        "conflicts_covered_rate",
                        "conflicts_covered_rate_low",
                        "conflicts_covered_rate_high",
                    ),
                    numeric=True,
                ),
                Column(
                    "Answers inventing [95% CI]",
                    with_interval("invented_rate", "invented_rate_low", "invented_rate_high"),
                    numeric=True,
                ),
                Column("Invented names", "invented_names"),
                Column("Unread conflicts", "unread_conflicts", count, numeric=True),
            ],
            caption="The parties' positions across the theme's conflicts, read by the coder "
            "(Wilson intervals; tables/issue_mapping_checks.csv)",
            table_id="issue-mapping-checks",
        ),
        "sub_questions": table_view(
            tables["issue_mapping_sub_questions"],
            [
                model,
                env,
                Column("Rubric", "rubric"),
                Column("Code", "code"),
                Column("Sub-question", "title"),
                Column("n", "n", count, numeric=True),
                Column("Pass rate", "pass_rate", percent, numeric=True),
            ],
            caption="Issue-mapping sub-question pass rates (docs/tasks.md; "
            "tables/issue_mapping_sub_questions.csv)",
            table_id="issue-mapping-sub-questions",
        ),
        "build": table_view(
            tables["issue_mapping_build"],
            [Column("What", "what"), Column("Count", "count", count, numeric=True)],
            caption="Themes and items built; elections skipped for want of themes, themes "
            "without a conflict, contexts refused (tables/issue_mapping_build.csv)",
            table_id="issue-mapping-build",
        ),
    }
