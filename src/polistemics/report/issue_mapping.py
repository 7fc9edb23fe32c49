"""The report's issue-mapping section (issue 29, item 4): drawn from the run's
``tables/issue_mapping_*.csv`` (``analyses.issue_mapping``) and run.json's notes, never
computed here. A run without the task has no such tables and no section."""

from __future__ import annotations

import pandas as pd

from polistemics.analyses.issue_mapping import read_issue_mapping_tables
from polistemics.report.content import ReportContent
from polistemics.report.formatting import count, percent, with_interval
from polistemics.report.task_section import (
    ENVIRONMENT,
    MODEL,
    build_table,
    run_tables,
    sub_question_table,
    task_section_view,
)
from polistemics.report.view import Column, table_view
from polistemics.runlog import RunDir, RunFileError

ISSUE_MAPPING_SECTION = ("issue-mapping", "Issue-mapping task")
ISSUE_MAPPING_TITLE = "Issue-mapping task: what are the main conflicts on a theme? (issue 29)"
LEAD = (
    "Here the model was asked for the main conflicts between the parties on a theme, over every "
    "party's evidence on the theme's statements (Baseline only; docs/tasks.md). Scores are the "
    "judge panel's, aggregated as the paper's; coverage and faithfulness are deterministic "
    "checks of the coder's per-party reading of each conflict against the stance matrix."
)


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
    found = run_tables(content, read_issue_mapping_tables)
    if found is None:
        return None
    run, tables = found
    emi = tables["issue_mapping_emi"]
    adherence = tables["issue_mapping_adherence"]
    # Baseline only: one Adherence Index per model, beside its EMI (not a column per environment)
    leaderboard = (
        emi.merge(adherence[["model", "environment", "adherence"]], on="model", how="left")
        if not emi.empty
        else pd.DataFrame(columns=["model", "emi", "environment", "adherence"])
    )
    return task_section_view(
        LEAD,
        [
            table_view(
                leaderboard,
                [
                    MODEL,
                    Column("EMI", "emi", percent, numeric=True),
                    ENVIRONMENT,
                    Column("Adherence Index", "adherence", percent, numeric=True),
                ],
                caption="Issue mapping: EMI and Adherence Index (Baseline only; "
                "tables/issue_mapping_emi.csv, issue_mapping_adherence.csv)",
                table_id="issue-mapping-leaderboard",
            ),
            table_view(
                tables["issue_mapping_checks"],
                [
                    MODEL,
                    ENVIRONMENT,
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
            sub_question_table(
                tables["issue_mapping_sub_questions"],
                caption="Issue-mapping sub-question pass rates (docs/tasks.md; "
                "tables/issue_mapping_sub_questions.csv)",
                table_id="issue-mapping-sub-questions",
            ),
            build_table(
                tables["issue_mapping_build"],
                caption="Themes and items built; elections skipped for want of themes, themes "
                "without a conflict, contexts refused (tables/issue_mapping_build.csv)",
                table_id="issue-mapping-build",
            ),
        ],
        notes=_notes(run),
    )
