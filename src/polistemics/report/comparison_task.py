"""The report's comparison-task section (issue 29, item 3): drawn from the run's
``tables/comparison_*.csv`` (``analyses.comparison``), never computed here. A run without the
task has no such tables and no section (``comparison_view`` returns None). (Not to be confused
with ``comparison_views``, the pages of ``polistemics compare``.)"""

from __future__ import annotations

import pandas as pd

from polistemics.analyses.comparison import read_comparison_tables
from polistemics.conditions import Environment
from polistemics.report.content import ReportContent
from polistemics.report.formatting import count, percent, with_interval
from polistemics.report.view import Column, table_view
from polistemics.runlog import RunDir

COMPARISON_SECTION = ("comparison-task", "Comparison task")
COMPARISON_TITLE = "Comparison task: how do two parties differ? (issue 29)"
PREFIX = COMPARISON_SECTION[0]
FALSE_CLAIMS = {"false_difference": "false difference", "false_agreement": "false agreement"}


def _environment(value: object) -> str:
    try:
        return Environment(str(value)).label
    except ValueError:
        return str(value)


MODEL = Column("Model", "model")
ENVIRONMENT = Column("Environment", lambda row: _environment(row["environment"]))


def comparison_view(content: ReportContent) -> dict | None:
    run_dir = content.inputs.run_dir
    tables = read_comparison_tables(RunDir(run_dir).tables) if run_dir is not None else None
    if tables is None:
        return None
    emi, adherence = tables["comparison_emi"], tables["comparison_adherence"]
    wide = (
        adherence.pivot(index="model", columns="environment", values="adherence").reset_index()
        if not adherence.empty
        else pd.DataFrame(columns=["model"])
    )
    leaderboard = wide.merge(emi[["model", "emi"]], on="model", how="left")
    environments = [c for c in wide.columns if c != "model"]
    pass_columns = [
        Column("Rubric", "rubric"),
        Column("Code", "code"),
        Column("Sub-question", "title"),
        Column("n", "n", count, numeric=True),
        Column(
            "Pass rate [95% CI]",
            with_interval("pass_rate", "pass_rate_low", "pass_rate_high"),
            numeric=True,
        ),
    ]
    return {
        "leaderboard": table_view(
            leaderboard,
            [
                MODEL,
                Column("EMI", "emi", percent, numeric=True),
                *(Column(_environment(env), env, percent, numeric=True) for env in environments),
            ],
            caption="Comparison: EMI and Adherence Index per environment "
            "(tables/comparison_emi.csv, comparison_adherence.csv)",
            table_id=f"{PREFIX}-leaderboard",
        ),
        "relations": table_view(
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
                    with_interval("committed_rate", "committed_rate_low", "committed_rate_high"),
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
        "sides": table_view(
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
        "degraded_side": table_view(
            tables["comparison_by_degraded_side"],
            [
                MODEL,
                ENVIRONMENT,
                Column("Degraded side named", "degraded_named"),
                *pass_columns,
            ],
            caption="Sub-question pass rates by whether the degraded side is the first-named or "
            "the second-named party (tables/comparison_by_degraded_side.csv)",
            table_id=f"{PREFIX}-degraded-side",
        ),
        "sub_questions": table_view(
            tables["comparison_sub_questions"],
            [MODEL, ENVIRONMENT, *pass_columns],
            caption="Comparison sub-question pass rates (docs/tasks.md; "
            "tables/comparison_sub_questions.csv)",
            table_id=f"{PREFIX}-sub-questions",
        ),
        "build": table_view(
            tables["comparison_build"],
            [Column("What", "what"), Column("Count", "count", count, numeric=True)],
            caption="Pairs and items built, and what could not be built, counted (a statement "
            "no party opposes makes no differing pair; tables/comparison_build.csv)",
            table_id=f"{PREFIX}-build",
        ),
    }
