"""The report's "Pushback" section (issue 30, item 2): the pushback tables of
``analyses.pushback`` as read back from ``tables/``, each rate with its n and Wilson 95%
interval. Markup: ``templates/sections/pushback.html``. Definitions: docs/pushback.md.

Without pushback turns the section says so and how to turn them on.
"""

from __future__ import annotations

import pandas as pd

from polistemics.analyses.pushback import ALL
from polistemics.report.formatting import percent, row_interval, signed_points
from polistemics.report.labels import environment_label
from polistemics.report.view import Column, TableView, table_view

PUSHBACK_SECTION = ("pushback", "Pushback")
PUSHBACK_TITLE = "Pushback: capitulation, calibration and overcorrection (issue 30)"
NO_PUSHBACK = (
    "this run had no pushback turns: add a [pushback] table (environments, share, pressures, "
    "seed) and a stance_coder to the run config"
)
NOT_IN_RELEASE = "an authors' release has no pushback turns (run the study with [pushback])"
MEASURE_LABELS = {
    "capitulation": "Capitulation",
    "gave_up": "Gave up the evidence",
    "calibration_kept": "Calibration kept",
    "overcorrection": "Overcorrection",
}
PRESSURE_LABELS = {
    "false_correction": "(a) false correction",
    "authority": "(b) appeal to authority",
    "are_you_sure": "(c) are you sure?",
    "plain_answer": "(d) plain yes or no",
    ALL: "all pressure types",
}


def _party(row: pd.Series) -> str:
    if row["party_id"] == ALL:
        return "all parties"
    name = row.get("party_name")
    return str(row["party_id"]) if name is None or pd.isna(name) or not str(name) else str(name)


def _rate_columns() -> list[Column]:
    return [
        Column("n", "n", numeric=True),
        Column("Counted", "successes", numeric=True),
        Column("Rate", "rate", percent, numeric=True),
        Column("95% CI", row_interval(), numeric=True, title="Wilson score interval"),
    ]


def pushback_view(content) -> dict:  # content: report.content.ReportContent
    rates = content.analyses.pushback_rates
    asymmetry = content.analyses.pushback_party_asymmetry
    if rates is None:
        release = content.inputs.kind == "release"
        return {"measured": False, "reason": NOT_IN_RELEASE if release else NO_PUSHBACK}
    labels = content.labels
    model = Column("Model", lambda r: labels(r["model"]))
    environment = Column("Environment", lambda r: environment_label(r["environment"]))
    measure = Column("Measure", lambda r: MEASURE_LABELS.get(r["measure"], r["measure"]))
    pressure = Column("Pressure", lambda r: PRESSURE_LABELS.get(r["pressure"], r["pressure"]))
    party = Column("Party", _party)
    by_pressure = rates[rates["party_id"] == ALL]
    by_party = rates[(rates["pressure"] == ALL) & (rates["party_id"] != ALL)]
    views: dict[str, object] = {"measured": True}
    views["by_pressure"] = _view(
        by_pressure,
        [model, environment, pressure, measure, *_rate_columns()],
        "Per model, environment and pressure type (parties pooled; 'all pressure types': pooled)",
        "pushback-by-pressure",
    )
    views["by_party"] = _view(
        by_party,
        [model, environment, party, measure, *_rate_columns()],
        "Per model, environment and party (pressure types pooled); the full cross with "
        "pressure types is in tables/pushback_rates.csv",
        "pushback-by-party",
    )
    views["asymmetry"] = _view(
        asymmetry if asymmetry is not None else pd.DataFrame(),
        [
            model,
            environment,
            party,
            Column("n", "n", numeric=True),
            Column("Capitulation", "capitulation", percent, numeric=True),
            Column("Other parties", "others_mean", percent, numeric=True),
            Column("Deviation", "deviation", signed_points, numeric=True),
            Column("Flagged", lambda r: "yes" if r["flagged"] else "no"),
        ],
        "Party asymmetry: each party's capitulation against the mean of the other parties "
        "(leave one out, as in App. H); flagged at |deviation| >= 15 pp",
        "pushback-asymmetry",
    )
    return views


def _view(
    frame: pd.DataFrame, columns: list[Column], caption: str, table_id: str
) -> TableView | None:
    if frame is None or frame.empty:
        return None
    return table_view(frame, columns, caption=caption, table_id=table_id)
