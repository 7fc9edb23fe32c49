"""View data of the sections for the paper's remaining analyses (``report.findings``).

Kept apart from ``sections.py`` (which lists these views after its own): party findings with
uncertainty, failure co-occurrence with the pooled Impartiality breakdown, per-judge strictness,
and the App. D.4 expansion check. Markup is in ``templates/sections/<section id>.html``.
"""

from __future__ import annotations

import pandas as pd

from polistemics.conditions import ENVIRONMENT_ORDER
from polistemics.report.content import ReportContent
from polistemics.report.formatting import (
    MISSING,
    number,
    number_interval,
    percent,
    row_interval,
    signed_points,
    sized,
    with_interval,
)
from polistemics.report.labels import (
    VARIANT_COLUMN,
    environment_label,
    order_rows,
    rubric_label,
    sub_question_label,
)
from polistemics.report.view import Column, TableView, figure_view, table_view
from polistemics.scoring.analyses import LOO_MIN_DEVIATION
from polistemics.scoring.judge_analyses import ALL_RUBRICS
from polistemics.scoring.party_analyses import largest_deviations

LISTED_DEVIATIONS = 15  # party-vs-rest rows on the page (all in tables/party_vs_rest.csv)
FINDING_SECTIONS: tuple[tuple[str, str], ...] = (
    ("party-findings", "Party findings"),
    ("failure-cooccurrence", "Failure co-occurrence"),
    ("judge-strictness", "Judge strictness"),
    ("expansion-i4", "Expansion and I4"),
)


def _party(row: pd.Series) -> str:
    name = row.get("party_name")
    return str(row["party_id"]) if name is None or pd.isna(name) or not str(name) else str(name)


def _heading(content: ReportContent, election_id: str) -> str | None:
    if len(content.findings) < 2:
        return None
    names = {tables.election_id: tables.label for tables, _ in content.elections}
    return content.labels.named_election(election_id) or names.get(election_id, election_id)


def _model(content: ReportContent) -> Column:
    return Column("Model", lambda r: content.labels(r["model"]))


ENVIRONMENT = Column("Environment", lambda r: environment_label(r["environment"]))


def _party_adherence_tables(content: ReportContent, table: pd.DataFrame) -> list[TableView]:
    """One wide table per model: parties x environments, Adherence Index with its CI."""
    views = []
    environments = [e.value for e in ENVIRONMENT_ORDER if e.value in set(table["environment"])]
    for model, part in table.groupby("model", sort=True):
        text = part.assign(
            text=part.apply(with_interval("adherence"), axis=1), party=part.apply(_party, axis=1)
        )
        wide = text.pivot(index="party", columns="environment", values="text")
        wide = wide.reindex(columns=environments).reset_index()
        views.append(
            table_view(
                wide,
                [Column("Party", "party")]
                + [Column(environment_label(env), env, numeric=True) for env in environments],
                caption=f"{content.labels(str(model))}: Adherence Index per party with bootstrap 95% CI",
            )
        )
    return views


def party_findings_view(content: ReportContent) -> dict:
    elections = []
    for findings, figures in content.findings:
        spread = table_view(
            findings.mean_party_spread.sort_values("mean_party_spread"),
            [
                _model(content),
                Column(
                    "Mean party spread (pp)",
                    "mean_party_spread",
                    lambda v: percent(v, unit=""),
                    numeric=True,
                ),
                Column("Environments", "n_environments", numeric=True),
            ],
            caption="Mean over environments of (highest - lowest party Adherence Index), smallest first",
            table_id=f"mean-party-spread-{findings.election_id}",
        )
        deviations = table_view(
            largest_deviations(findings.party_vs_rest, LISTED_DEVIATIONS),
            [
                Column("Party", _party),
                _model(content),
                ENVIRONMENT,
                Column("Adherence Index", "adherence", percent, numeric=True),
                Column("Other parties (mean)", "rest_mean", percent, numeric=True),
                Column("Party vs rest (pp)", "deviation", signed_points, numeric=True),
                Column("Observations", "n_observations", numeric=True),
            ],
            caption="Largest party-vs-rest deviations (all in tables/party_vs_rest.csv)",
            table_id=f"party-vs-rest-{findings.election_id}",
        )
        elections.append(
            {
                "heading": _heading(content, findings.election_id),
                "spread": spread,
                "deviations": deviations,
                "adherence": _party_adherence_tables(content, findings.party_adherence),
                "sanitisation": None
                if figures.sanitisation is None
                else figure_view(figures.sanitisation),
                "loo_figures": [figure_view(f) for f in figures.loo],
            }
        )
    gate = content.options.loo_min_items
    return {
        "elections": elections,
        "loo_threshold_pp": f"{100 * LOO_MIN_DEVIATION:.0f}",
        "loo_gate": gate,
        "resamples": content.options.bootstrap_resamples,
    }


def _phi_interval(row: pd.Series) -> str:
    low, high = number(row["phi_ci_low"]), number(row["phi_ci_high"])
    return MISSING if MISSING in (low, high) else f"[{low}, {high}]"


def failure_cooccurrence_view(content: ReportContent) -> dict:
    elections = []
    cooccurrence = content.analyses.failure_cooccurrence
    for findings, figures in content.findings:
        phi = None
        table = cooccurrence[cooccurrence["election_id"] == findings.election_id]
        if not table.empty:
            phi = table_view(
                order_rows(table.drop(columns=["election_id"])),
                [
                    ENVIRONMENT,
                    Column("Answers", "n_answers", numeric=True),
                    Column("Both fail", "both_fail", numeric=True),
                    Column("F only", "faithfulness_only", numeric=True),
                    Column("EC1 only", "calibration_only", numeric=True),
                    Column("Neither", "neither", numeric=True),
                    Column("F fails", "faithfulness_failure_rate", percent, numeric=True),
                    Column(
                        "95% CI",
                        row_interval("faithfulness_failure_ci_low", "faithfulness_failure_ci_high"),
                        title="Wilson interval of the F failure rate",
                    ),
                    Column("EC1 fails", "calibration_failure_rate", percent, numeric=True),
                    Column(
                        "95% CI",
                        row_interval("calibration_failure_ci_low", "calibration_failure_ci_high"),
                        title="Wilson interval of the EC1 failure rate",
                    ),
                    Column("φ", "phi", number, numeric=True),
                    Column(
                        "φ 95% CI",
                        _phi_interval,
                        title="Fisher-z interval of φ (as scipy's pearsonr gives it)",
                    ),
                    Column(
                        "φ (any EC sub-question)",
                        "phi_any_ec",
                        number,
                        numeric=True,
                        title="Epistemic Calibration failing when any of its scored "
                        "sub-questions fails; not the paper's definition",
                    ),
                ],
                caption="Faithfulness failures (any scored F sub-question) and Epistemic "
                "Calibration failures (EC1 Epistemic Certainty) per answer, pooled over models",
                table_id=f"failure-cooccurrence-{findings.election_id}",
            )
        elections.append(
            {
                "heading": _heading(content, findings.election_id),
                "phi": phi,
                "impartiality": None
                if figures.impartiality is None
                else figure_view(figures.impartiality),
            }
        )
    return {"elections": elections}


def judge_strictness_view(content: ReportContent) -> dict:
    judges = content.judges
    if judges is None:
        reason = (
            "an authors' release holds only aggregated verdicts, not each judge's raw verdict"
            if content.inputs.kind == "release"
            else "the run has no raw judge verdicts with a complete panel"
        )
        return {"judges": None, "unavailable": reason}
    ranking = table_view(
        judges.ranking,
        [
            Column("Rank", "rank", numeric=True, title="1 = strictest (lowest pass rate)"),
            Column("Judge (panel seat)", "judge"),
            Column("Votes", "n", numeric=True),
            Column("Pass rate", "pass_rate", percent, numeric=True),
            Column("I4 votes", "i4_n", numeric=True),
            Column("I4 pass rate", "i4_pass_rate", percent, numeric=True),
        ],
        caption="Strictness ranking: pooled pass rate over all votes, strictest first",
        table_id="judge-strictness-ranking",
    )
    agreement = table_view(
        order_rows(judges.agreement[judges.agreement["rubric"] != ALL_RUBRICS]).pipe(
            lambda t: pd.concat([t, judges.agreement[judges.agreement["rubric"] == ALL_RUBRICS]])
        ),
        [
            Column("Judge", "judge"),
            Column(
                "Rubric",
                lambda r: (
                    "All rubrics" if r["rubric"] == ALL_RUBRICS else rubric_label(r["rubric"])
                ),
            ),
            Column("Votes", "n", numeric=True),
            Column("Agreement with majority", "agreement", percent, numeric=True),
            Column("95% CI", row_interval(), numeric=True),
        ],
        caption="Each judge's agreement with the panel's strict majority (Wilson 95% CI)",
        table_id="judge-majority-agreement",
    )
    rates = judges.pass_rates
    rates = rates.assign(text=rates.apply(with_interval("pass_rate"), axis=1))
    wide = rates.pivot_table(
        index=["variant", "environment", "rubric", "sub_question"],
        columns="judge",
        values="text",
        aggfunc="first",
    ).reset_index()
    judge_ids = sorted(rates["judge"].unique())
    by_sub_question = table_view(
        order_rows(wide),
        [
            VARIANT_COLUMN,
            ENVIRONMENT,
            Column("Sub-question", lambda r: sub_question_label(r["sub_question"])),
            *(Column(str(j), str(j), numeric=True) for j in judge_ids),
        ],
        caption="Pass rate per judge, sub-question and environment (Wilson 95% CI)",
        table_id="judge-pass-rates",
    )
    return {
        "judges": {"ranking": ranking, "agreement": agreement, "pass_rates": by_sub_question},
        "panel_size": judges.panel_size,
        "unavailable": None,
    }


def _rho_text(row: pd.Series) -> str | None:
    """``0.11 [-0.02, 0.24] (n = 240)``; None (a dash) when rho is undefined."""
    if pd.isna(row["spearman_rho"]):
        return None
    interval = number_interval(row["rho_ci_low"], row["rho_ci_high"], 2)
    return sized(f"{number(row['spearman_rho'], 2)} {interval}", row["n_items"])


def expansion_view(content: ReportContent) -> dict:
    elections = []
    for findings, _ in content.findings:
        table = None
        if findings.expansion is not None:
            frame = findings.expansion.assign(
                expansion=findings.expansion.apply(
                    lambda r: f"{r['expansion_min']:.2f}–{r['expansion_max']:.2f}×", axis=1
                ),
                party_range=findings.expansion.apply(
                    lambda r: f"{percent(r['party_min'])} – {percent(r['party_max'])}", axis=1
                ),
            )
            table = table_view(
                frame,
                [
                    Column("Language", "language"),
                    Column(
                        "Spearman ρ",
                        _rho_text,
                        numeric=True,
                        title="95% CI: Fisher z with the Bonett-Wright standard error",
                    ),
                    Column("p", "p_value", number, numeric=True),
                    Column("Items", "n_items", numeric=True),
                    Column(
                        "Median expansion",
                        "median_expansion",
                        lambda v: f"{float(v):.2f}×",
                        numeric=True,
                    ),
                    Column("Tercile", "tercile", numeric=True, title="1 = least expanded"),
                    Column("Items in tercile", "tercile_items", numeric=True),
                    Column("Expansion", "expansion", numeric=True),
                    Column("I4 pass rate", "i4_pass_rate", percent, numeric=True),
                    Column(
                        "Party range",
                        "party_range",
                        numeric=True,
                        title="lowest - highest party mean I4 pass rate in the tercile",
                    ),
                ],
                caption="Expansion (standardised characters, [PARTY] as written / raw rationale "
                "characters) vs the item's I4 pass rate (Baseline, full variant, pooled over models)",
                table_id=f"expansion-i4-{findings.election_id}",
            )
        elections.append(
            {
                "heading": _heading(content, findings.election_id),
                "table": table,
                "reason": findings.expansion_reason,
            }
        )
    return {"elections": elections}
