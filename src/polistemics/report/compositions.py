"""The robustness section's table of combined environments (issue 30): each composition's
difficulty next to its parts' and the interaction, drawn from ``tables/composition_interaction.csv``
(``analyses.compositions``) and nothing else. No composition, no table."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from polistemics.report.formatting import interval, percent, signed_points
from polistemics.report.labels import ModelLabels, environment_label, order_rows
from polistemics.report.view import Column, TableView, table_view

CAPTION = (
    "Combined environments beside their parts: Adherence Index, and the share of answers "
    "passing every scored sub-question (n, Wilson 95% CI) on the composition's observations; "
    "expected = product of the parts' pass rates (95% CI, log-scale delta method); "
    "interaction = observed − expected (negative: harder together than apart), with its 95% CI "
    "from a paired bootstrap over the n observations"
)


def _rate(suffix: str) -> Callable[[pd.Series], str]:
    return lambda r: (
        f"{percent(r[f'pass_rate{suffix}'])} {interval(r[f'ci_low{suffix}'], r[f'ci_high{suffix}'])}"
        f" (n = {int(r[f'n{suffix}'])})"
    )


def _points_interval(low: float, high: float) -> str:
    return f"[{signed_points(low)}, {signed_points(high)}]"


def composition_table(
    interaction: pd.DataFrame, election_id: str, labels: ModelLabels
) -> TableView | None:
    """One election's rows of the interaction table, or None when it has none."""
    rows = interaction[interaction["election_id"] == election_id]
    if rows.empty:
        return None
    return table_view(
        order_rows(rows.drop(columns=["election_id"])),
        [
            Column("Model", lambda r: labels(r["model"])),
            Column("Composition", lambda r: environment_label(r["environment"])),
            Column("Adherence", "adherence", percent, numeric=True),
            Column(
                "Parts' adherence",
                lambda r: (
                    f"{environment_label(r['part_a'])} {percent(r['adherence_a'])}, "
                    f"{environment_label(r['part_b'])} {percent(r['adherence_b'])}"
                ),
            ),
            Column("Pass rate (observed)", _rate(""), numeric=True),
            Column("Part A pass rate", _rate("_a"), numeric=True),
            Column("Part B pass rate", _rate("_b"), numeric=True),
            Column(
                "Expected (A × B)",
                lambda r: (
                    f"{percent(r['expected'])} "
                    f"{interval(r['expected_ci_low'], r['expected_ci_high'])}"
                ),
                numeric=True,
            ),
            Column(
                "Interaction (pp)",
                lambda r: (
                    f"{signed_points(r['interaction'])} "
                    f"{_points_interval(r['interaction_ci_low'], r['interaction_ci_high'])} "
                    f"(n = {int(r['n_observations'])})"
                ),
                numeric=True,
            ),
        ],
        caption=CAPTION,
        table_id=f"compositions-{election_id}",
    )
