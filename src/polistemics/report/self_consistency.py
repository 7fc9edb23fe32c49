"""The report's "Self-consistency" section (issue 30, item 3): the tables of
``analyses.self_consistency`` as read back from ``tables/``. Markup:
``templates/sections/self-consistency.html``. Definitions: docs/self-consistency.md."""

from __future__ import annotations

from polistemics.report.formatting import number, percent, row_interval
from polistemics.report.labels import VARIANT_COLUMN, environment_label
from polistemics.report.view import Column, table_view

SELF_CONSISTENCY_SECTION = ("self-consistency", "Self-consistency")
SELF_CONSISTENCY_TITLE = "Self-consistency across samples (temperature > 0)"
ONE_SAMPLE = (
    "every item was answered once: set samples = 2 or more (with targets at temperature > 0) "
    "in the run config"
)
NOT_IN_RELEASE = "an authors' release holds one answer per item"


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
            Column("Agreement", "percent_agreement", percent, numeric=True),
            Column("Fleiss' kappa", "fleiss_kappa", number, numeric=True),
            Column("AC1", "gwet_ac1", number, numeric=True),
            Column("Flipped", "flipped", numeric=True),
            Column("Flip rate", "flip_rate", percent, numeric=True),
            interval,
        ],
        caption="Majority verdicts across samples (samples as raters); flipped: observations "
        "whose majority verdict differs between samples on at least one sub-question",
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
                Column("Pairwise", "pairwise_agreement", percent, numeric=True),
            ],
            caption="Coded stances across samples: observations whose samples are all coded "
            "alike, and the mean share of agreeing sample pairs",
            table_id="self-consistency-stances",
        )
    return views
