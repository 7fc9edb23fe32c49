"""The report's navigation-task section (issue 29): drawn from the run's
``tables/navigation_*.csv`` (``analyses.navigation``), never computed here. A run without the
task has no such tables and no section (``navigation_view`` returns None)."""

from __future__ import annotations

from polistemics.analyses.navigation import read_navigation_tables
from polistemics.report.content import ReportContent
from polistemics.report.formatting import count, with_interval
from polistemics.report.task_section import (
    ENVIRONMENT,
    MODEL,
    build_table,
    leaderboard_by_environment,
    run_tables,
    sub_question_table,
    task_section_view,
)
from polistemics.report.view import Column, table_view

NAVIGATION_SECTION = ("navigation", "Navigation task")
NAVIGATION_TITLE = "Navigation task: which parties agree, which disagree? (issue 29)"
LEAD = (
    "The sections above are the party-position task's. Here the model was asked which of several "
    "parties agree and which disagree with a statement, over every party's labelled evidence, "
    "with one party's evidence degraded by the environment (docs/tasks.md). Scores are the judge "
    "panel's, aggregated as the paper's; the set metrics and party counts are deterministic "
    "checks of the coder's per-party reading against the stance matrix."
)


def navigation_view(content: ReportContent) -> dict | None:
    found = run_tables(content, read_navigation_tables)
    if found is None:
        return None
    _, tables = found
    return task_section_view(
        LEAD,
        [
            leaderboard_by_environment(
                tables,
                "navigation",
                caption="Navigation: EMI and Adherence Index per environment "
                "(tables/navigation_emi.csv, navigation_adherence.csv)",
                table_id="navigation-leaderboard",
            ),
            table_view(
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
            table_view(
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
                    Column(
                        "Named outside the question", "named_outside_query", count, numeric=True
                    ),
                ],
                caption="Parties omitted and invented (exact names; tables/navigation_parties.csv)",
                table_id="navigation-parties",
            ),
            table_view(
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
            sub_question_table(
                tables["navigation_sub_questions"],
                caption="Navigation sub-question pass rates (docs/tasks.md; "
                "tables/navigation_sub_questions.csv)",
                table_id="navigation-sub-questions",
            ),
            build_table(
                tables["navigation_build"],
                caption="Items built, and statements, splits and refusals counted "
                "(tables/navigation_build.csv)",
                table_id="navigation-build",
            ),
        ],
    )
