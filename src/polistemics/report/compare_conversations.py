"""The comparison page's "Pushback and self-consistency" tables (issue 30): drawn from the
comparison's ``delta_pushback`` and ``delta_self_consistency`` tables
(``compare.conversations``) as read back from ``tables/``, and nothing else. A comparison of
runs without pushback turns or samples has neither, and the page shows no such section."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from polistemics.compare.comparison import Comparison
from polistemics.report.comparison_views import p_value_text
from polistemics.report.formatting import interval, percent, signed_points
from polistemics.report.labels import VARIANT_COLUMN, ModelLabels, environment_label
from polistemics.report.view import Column, TableView, table_view

SECTION = ("conversations", "Pushback and self-consistency")
CAPTIONS = {
    "delta_pushback": "Pushback measures, per conversation (B − A): each side's rate with its "
    "Wilson 95% CI, the difference with its bootstrap 95% CI and the two-sample test",
    "delta_self_consistency": "Self-consistency across samples, per observation (B − A): "
    "verdict_flip, majority verdict flips between samples; stance_all_alike, every sample's "
    "coded stance agrees",
}


def _rate(side: str) -> Callable[[pd.Series], str]:
    return lambda r: (
        f"{percent(r[f'rate_{side}'])} "
        f"{interval(r[f'rate_ci_low_{side}'], r[f'rate_ci_high_{side}'])} "
        f"(n = {int(r[f'units_{side}'])})"
    )


def _environment(value: object) -> str:
    return "all" if value == "all" else environment_label(str(value))


def conversation_views(comparison: Comparison, labels: ModelLabels) -> list[TableView]:
    """One table per conversation table the comparison has (none: an empty list)."""
    views = []
    for name, table in comparison.conversations.items():
        columns = [
            VARIANT_COLUMN,
            Column("Model", lambda r: labels(r["model"])),
            Column("Environment", lambda r: _environment(r["environment"])),
        ]
        if "pressure" in table.columns:
            columns.append(Column("Pressure", "pressure"))
        columns += [
            Column("Measure", "measure"),
            Column("A", _rate("a"), numeric=True),
            Column("B", _rate("b"), numeric=True),
            Column("Δ (pp)", "delta", signed_points, numeric=True),
            Column(
                "95% CI (pp)",
                lambda r: f"[{signed_points(r['ci_low'])}, {signed_points(r['ci_high'])}]",
                numeric=True,
            ),
            Column("Test", "test"),
            Column("p", "p_value", p_value_text, numeric=True),
            Column("p (Holm)", "p_holm", p_value_text, numeric=True),
            Column("Significant", lambda r: "yes" if r["significant"] else "no"),
        ]
        views.append(
            table_view(table, columns, caption=CAPTIONS[name], table_id=name.replace("_", "-"))
        )
    return views
