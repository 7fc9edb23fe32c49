"""View data of a ``Comparison`` that the comparison page (``compare_page.py``) and the report's
cross-election section (``sections.py``) both show: the delta columns and the rank agreements.

It sits below both so that neither imports the other.
"""

from __future__ import annotations

import pandas as pd

from polistemics.compare.comparison import Comparison
from polistemics.report.formatting import number, percent, signed_points
from polistemics.report.labels import ModelLabels, environment_label
from polistemics.report.view import Column, table_view


def delta_columns(paired: bool) -> list[Column]:
    """A, B, B - A and its interval; with ``paired``, also the McNemar test columns."""
    columns = [
        Column("A", "value_a", percent, numeric=True),
        Column("B", "value_b", percent, numeric=True),
        Column("Δ (pp)", "delta", signed_points, numeric=True),
        Column(
            "95% CI (pp)",
            lambda r: f"[{signed_points(r['ci_low'])}, {signed_points(r['ci_high'])}]",
            numeric=True,
        ),
    ]
    if paired:
        columns += [
            Column("Only A passed", "only_a_passed", numeric=True, title="discordant pairs"),
            Column("Only B passed", "only_b_passed", numeric=True, title="discordant pairs"),
            Column("p (McNemar)", "p_value", lambda v: number(v, 4), numeric=True),
            Column("p (Holm)", "p_holm", lambda v: number(v, 4), numeric=True),
            Column("Significant", lambda r: "yes" if r["significant"] else "no"),
        ]
    return columns


def rank_views(c: Comparison, labels: ModelLabels) -> list[dict]:
    """The three rank agreements of a comparison: coefficients and a table of the ranks."""
    rank_tables = []
    for what, title, item in (
        ("leaderboard", "Leaderboard (EMI, rank 1 = highest)", "Model"),
        ("environment_difficulty", "Environment difficulty (rank 1 = easiest)", "Environment"),
        (
            "dispersion",
            "Model rubric-level dispersion (mean over rubrics of the SD of the Rubric Score "
            "across active IEs, rank 1 = most robust)",
            "Model",
        ),
    ):
        found = c.ranks[what]
        name = (
            (lambda r: environment_label(r["item"]))
            if what == "environment_difficulty"
            else (lambda r: labels(r["item"]))
        )
        value = percent
        rank_tables.append(
            {
                "title": title,
                "spearman": number(found["spearman"]),
                "spearman_p": number(found["spearman_p"], 4),
                "kendall": number(found["kendall"]),
                "kendall_p": number(found["kendall_p"], 4),
                "n": found["n"],
                "reason": found["reason"],
                "table": table_view(
                    pd.DataFrame(
                        found["ranks"], columns=["item", "rank_a", "rank_b", "value_a", "value_b"]
                    ),
                    [
                        Column(item, name),
                        Column("Rank A", "rank_a", lambda v: f"{v:g}", numeric=True),
                        Column("Rank B", "rank_b", lambda v: f"{v:g}", numeric=True),
                        Column("A", "value_a", value, numeric=True),
                        Column("B", "value_b", value, numeric=True),
                    ],
                    caption=title,
                ),
            }
        )
    return rank_tables
