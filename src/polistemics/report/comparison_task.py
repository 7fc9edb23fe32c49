"""The report's comparison-task section (issue 29, item 3): drawn from the run's
``tables/comparison_*.csv`` (``analyses.comparison``), never computed here. A run without the
task has no such tables and no section (``comparison_view`` returns None). (Not to be confused
with ``comparison_views``, the pages of ``polistemics compare``.)"""

from __future__ import annotations

from polistemics.analyses.comparison import read_comparison_tables
from polistemics.report.content import ReportContent
from polistemics.report.formatting import count, with_interval
from polistemics.report.task_section import (
    ENVIRONMENT,
    MODEL,
    build_table,
    leaderboard_by_environment,
    pass_rate_columns,
    run_tables,
    sub_question_table,
    task_section_view,
)
from polistemics.report.view import Column, table_view

COMPARISON_SECTION = ("comparison-task", "Comparison task")
COMPARISON_TITLE = "Comparison task: how do two parties differ? (issue 29)"
PREFIX = COMPARISON_SECTION[0]
FALSE_CLAIMS = {"false_difference": "false difference", "false_agreement": "false agreement"}
LEAD = (
    "Here the model was asked how two parties differ on a statement, over both parties' labelled "
    "evidence, for seeded pairs that differ (one party agrees, the other disagrees) and pairs "
    "that agree, with one side of the pair degraded by the environment (docs/tasks.md). Scores "
    "are the judge panel's, aggregated as the paper's; the relations and sides are deterministic "
    "checks of the coder's per-party reading against the stance matrix."
)


def comparison_view(content: ReportContent) -> dict | None:
    found = run_tables(content, read_comparison_tables)
    if found is None:
        return None
    _, tables = found
    return task_section_view(
        LEAD,
        [
            leaderboard_by_environment(
                tables,
                "comparison",
                caption="Comparison: EMI and Adherence Index per environment "
                "(tables/comparison_emi.csv, comparison_adherence.csv)",
                table_id=f"{PREFIX}-leaderboard",
            ),
            table_view(
                tables["comparison_relations"],
                [
                    MODEL,
                    ENVIRONMENT,
                    Column("Pair", "pair"),
                    Column("Answers", "answers", count, numeric=True),
                    Column("Unread", "unread_answers", count, numeric=True),
                    Column("Claimed: differ", "claimed_differ", count, numeric=True),
                    Column("Claimed: same", "claimed_same", count, numeric=True),
                    Column("Claimed: neither", "claimed_undetermined", count, numeric=True),
                    Column("False claim", lambda row: FALSE_CLAIMS.get(row["false_claim"], "")),
                    Column(
                        "False claims [95% CI]",
                        with_interval(
                            "false_claim_rate", "false_claim_rate_low", "false_claim_rate_high"
                        ),
                        numeric=True,
                    ),
                    Column(
                        "Settled the comparison [95% CI]",
                        with_interval(
                            "committed_rate", "committed_rate_low", "committed_rate_high"
                        ),
                        numeric=True,
                    ),
                    Column("Answers inventing", "answers_inventing", count, numeric=True),
                    Column("Invented names", "invented_names"),
                ],
                caption="The relation the answers claim, from the coder's per-party reading: false "
                "differences (agreeing pairs), false agreements (differing pairs), and answers that "
                "settle the comparison at all (Wilson intervals; tables/comparison_relations.csv)",
                table_id=f"{PREFIX}-relations",
            ),
            table_view(
                tables["comparison_sides"],
                [
                    MODEL,
                    ENVIRONMENT,
                    Column("Side", "role"),
                    Column("Named", "named"),
                    Column("n", "n", count, numeric=True),
                    Column(
                        "Faithful [95% CI]",
                        with_interval("faithful_rate", "faithful_rate_low", "faithful_rate_high"),
                        numeric=True,
                    ),
                    Column("Misrepresented", "misrepresented", count, numeric=True),
                    Column("Omitted", "omitted", count, numeric=True),
                    Column("Unread", "unread", count, numeric=True),
                ],
                caption="Each side's position as the answer states it, by role (the degraded or the "
                "intact side) and by where the question names it (first or second; "
                "tables/comparison_sides.csv)",
                table_id=f"{PREFIX}-sides",
            ),
            table_view(
                tables["comparison_by_degraded_side"],
                [
                    MODEL,
                    ENVIRONMENT,
                    Column("Degraded side named", "degraded_named"),
                    *pass_rate_columns(interval=True),
                ],
                caption="Sub-question pass rates by whether the degraded side is the "
                "first-named or the second-named party (tables/comparison_by_degraded_side.csv)",
                table_id=f"{PREFIX}-degraded-side",
            ),
            sub_question_table(
                tables["comparison_sub_questions"],
                caption="Comparison sub-question pass rates (docs/tasks.md; "
                "tables/comparison_sub_questions.csv)",
                table_id=f"{PREFIX}-sub-questions",
                interval=True,
            ),
            build_table(
                tables["comparison_build"],
                caption="Pairs and items built, and what could not be built, counted (a "
                "statement no party opposes makes no differing pair; tables/comparison_build.csv)",
                table_id=f"{PREFIX}-build",
            ),
        ],
    )
