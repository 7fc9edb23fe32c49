"""The report's "Self-consistency" section (issue 30, item 3): the tables of
``analyses.self_consistency`` as read back from ``tables/``. Markup:
``templates/sections/self-consistency.html``. Definitions: docs/self-consistency.md."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from polistemics.report.formatting import interval, number, percent, row_interval
from polistemics.report.labels import VARIANT_COLUMN, environment_label
from polistemics.report.view import Column, table_view

SELF_CONSISTENCY_SECTION = ("self-consistency", "Self-consistency")
SELF_CONSISTENCY_TITLE = "Self-consistency across samples (temperature > 0)"
ONE_SAMPLE = (
    "every item was answered once: set samples = 2 or more (with targets at temperature > 0) "
    "in the run config"
)
NOT_IN_RELEASE = "an authors' release holds one answer per item"


BOOTSTRAP = "95% percentile interval, bootstrap over observations"


def _with_ci(name: str, fmt: Callable[[object], str]) -> Callable[[pd.Series], str]:
    """A coefficient with its bootstrap interval: ``0.412 [0.301, 0.522]``."""

    def text(row: pd.Series) -> str:
        low, high = row[f"{name}_ci_low"], row[f"{name}_ci_high"]
        bounds = interval(low, high) if fmt is percent else f"[{fmt(low)}, {fmt(high)}]"
        return f"{fmt(row[name])} {bounds}"

    return text


def self_consistency_view(content) -> dict:  # content: report.content.ReportContent
    verdicts = content.analyses.self_consistency_verdicts
    stances = content.analyses.self_consistency_stances
    if verdicts is None:
        release = content.inputs.kind == "release"
        return {"measured": False, "reason": NOT_IN_RELEASE if release else ONE_SAMPLE}
    labels = content.labels
    model = Column("Model", lambda r: labels(r["model"]))
    environment = Column("Environment", lambda r: environment_label(r["environment"]))
    interval = Column("95% CI", row_interval(), numeric=True, title="Wilson score interval")
    views: dict[str, object] = {"measured": True, "stances": None}
    views["verdicts"] = table_view(
        verdicts,
        [
            model,
            environment,
            VARIANT_COLUMN,
            Column("Observations", "n_observations", numeric=True),
            Column("Samples", "samples", numeric=True),
            Column(
                "Agreement (95% CI)",
                _with_ci("percent_agreement", percent),
                numeric=True,
                title=BOOTSTRAP,
            ),
            Column(
                "Fleiss' kappa (95% CI)",
                _with_ci("fleiss_kappa", number),
                numeric=True,
                title=BOOTSTRAP,
            ),
            Column("AC1 (95% CI)", _with_ci("gwet_ac1", number), numeric=True, title=BOOTSTRAP),
            Column("Flipped", "flipped", numeric=True),
            Column("Flip rate", "flip_rate", percent, numeric=True),
            interval,
        ],
        caption="Majority verdicts across samples (samples as raters), agreement with 95% "
        "intervals from a bootstrap over observations; flipped: observations whose majority "
        "verdict differs between samples on at least one sub-question (Wilson 95% CI)",
        table_id="self-consistency-verdicts",
    )
    if stances is not None and not stances.empty:
        views["stances"] = table_view(
            stances,
            [
                model,
                environment,
                VARIANT_COLUMN,
                Column("Observations", "n_observations", numeric=True),
                Column("All alike", "all_agree", numeric=True),
                Column("Rate", "agreement_rate", percent, numeric=True),
                interval,
                Column(
                    "Pairwise (95% CI)",
                    _with_ci("pairwise_agreement", percent),
                    numeric=True,
                    title=BOOTSTRAP,
                ),
            ],
            caption="Coded stances across samples: observations whose samples are all coded "
            "alike, and the mean share of agreeing sample pairs",
            table_id="self-consistency-stances",
        )
    return views
