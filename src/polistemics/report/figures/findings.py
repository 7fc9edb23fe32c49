"""Figures of the paper's remaining analyses (issue 15, item 3).

- Fig. 22: Impartiality sub-questions I1-I5 per model, pooled over environments (heatmap).
- Figs. 14, 15, 17, 18 (Germany) and 33, 35 (Netherlands): leave-one-out deviation per party x
  environment for one sub-question, one column block per model, flagged cells bordered.
- Figs. 39/40: I4 Sanitization pass rate per party across Full / Anon / English with 95% CIs,
  y from 0.60 (lower when an interval reaches below). Not a heatmap: ``PlotFigure`` wraps a
  matplotlib figure drawn here with the same SVG/PDF/PNG export as the heatmaps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from polistemics.conditions import Environment, Variant
from polistemics.report.colours import diverging_scale, score_scale
from polistemics.report.figures.export import FigureFiles
from polistemics.report.figures.heatmap import ColumnGroup, Heatmap
from polistemics.report.figures.paper import (
    Lookup,
    ReportFigure,
    _party_order,
    _where,
    loo_limit,
    points,
    range_note,
)
from polistemics.report.figures.text import display_label, display_text
from polistemics.report.findings import FindingTables
from polistemics.report.formatting import signed_points
from polistemics.report.labels import (
    ModelLabels,
    environment_label,
    sub_question,
    sub_question_order,
    variant_label,
)
from polistemics.report.tables import ElectionTables
from polistemics.rubrics import Rubric
from polistemics.scoring.analyses import LOO_MIN_DEVIATION

# Sub-question -> (German figure, Dutch figure or None): App. H.1 and App. I.
LOO_SUB_QUESTIONS = {
    "context_transparency": (14, None),
    "false_synthesis": (15, 33),
    "parametric_fallback": (17, None),
    "position_representation": (18, 35),
}
Y_FLOOR = 0.60
VARIANT_MARKERS = {
    Variant.FULL.value: "o",
    Variant.ANONYMIZED.value: "s",
    Variant.ENGLISH.value: "^",
}
VARIANT_COLOURS = {
    Variant.FULL.value: "#1b4f72",
    Variant.ANONYMIZED.value: "#b9770e",
    Variant.ENGLISH.value: "#7d3c98",
}


@dataclass(frozen=True, eq=False)
class PlotFigure(FigureFiles):
    """A drawn matplotlib figure with the page and file interface of ``ReportFigure``."""

    figure_id: str
    paper_ref: str
    stem: str
    figure: Figure
    note: str


AnyFigure = ReportFigure | PlotFigure


def _is_dutch(tables: ElectionTables) -> bool:
    return (tables.country or "").upper() in ("NL", "NETHERLANDS")


def percent_axis(ax) -> None:
    """The y-axis of a rate in 0-1 labelled in % (the data stay fractions)."""
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))


def sanitisation_figure(
    findings: FindingTables, tables: ElectionTables, labels: ModelLabels | None = None
) -> PlotFigure | None:
    """Figs. 39/40: I4 pass rate per party and variant with Wilson 95% CIs."""
    table = findings.sanitisation
    if table.empty:
        return None
    parties = _party_order(table)
    variants = [v.value for v in Variant if v.value in set(table["variant"])]
    lookup = {(r.variant, r.party_id): r for r in table.itertuples()}
    width = max(4.5, 0.75 * len(parties) + 1.6)
    fig = Figure(figsize=(width, 3.4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    offsets = np.linspace(-0.22, 0.22, len(variants)) if len(variants) > 1 else [0.0]
    lowest = Y_FLOOR
    for offset, variant in zip(offsets, variants, strict=True):
        xs, ys, low, high = [], [], [], []
        for i, (pid, _) in enumerate(parties):
            row = lookup.get((variant, pid))
            if row is None:
                continue
            xs.append(i + offset)
            ys.append(row.pass_rate)
            low.append(row.pass_rate - row.ci_low)
            high.append(row.ci_high - row.pass_rate)
            lowest = min(lowest, row.ci_low)
        ax.errorbar(
            xs,
            ys,
            yerr=[low, high],
            fmt=VARIANT_MARKERS.get(variant, "o"),
            color=VARIANT_COLOURS.get(variant, "#333333"),
            capsize=2.5,
            markersize=4,
            linewidth=1,
            label=display_label(variant_label(variant)),
        )
    floor = Y_FLOOR if lowest >= Y_FLOOR else np.floor(lowest * 20) / 20
    ax.set_ylim(floor, 1.01)
    ax.set_xticks(range(len(parties)))
    ax.set_xticklabels(
        [display_label(name, 24) for _, name in parties], rotation=35, ha="right", fontsize=8
    )
    ax.set_ylabel("I4 pass rate (%)", fontsize=8)
    percent_axis(ax)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    number = 40 if _is_dutch(tables) else 39
    ax.set_title(
        display_text(
            "Sanitization (I4) across conditions" + _where(tables, labels or ModelLabels())
        ),
        fontsize=10,
        loc="left",
    )
    for text in [*ax.get_xticklabels(), ax.title, *ax.get_legend().get_texts()]:
        text.set_parse_math(False)
    fig.tight_layout()
    n_models = int(table["n_models"].iloc[0])
    return PlotFigure(
        f"{tables.election_id}-fig{number}",
        f"Fig. {number}",
        f"{tables.election_id}_fig{number}_i4_by_variant",
        fig,
        f"I4 Sanitization pass rate per party under Baseline in each variant, pooled over the "
        f"{n_models} model(s) every variant covers; bars: Wilson 95% CI; y-axis from "
        f"{100 * floor:.0f}%.",
    )


def impartiality_figure(
    findings: FindingTables, tables: ElectionTables, labels: ModelLabels
) -> ReportFigure | None:
    """Fig. 22: I1-I5 pass rates per model pooled over every environment they are scored in."""
    table = findings.impartiality
    if table.empty:
        return None
    keys = sub_question_order(table["sub_question"].unique(), [Rubric.IMPARTIALITY])
    rate = Lookup(table, ["model", "sub_question"], "pass_rate")
    models = [m for m in tables.models if m in set(table["model"])]
    heatmap = Heatmap(
        figure_id=f"{tables.election_id}-fig22",
        title="Impartiality sub-questions, pooled over environments" + _where(tables, labels),
        rows=[labels.display(m) for m in models],
        columns=[sub_question(k).code for k in keys],
        column_titles=[f"{sub_question(k).code} {sub_question(k).title}" for k in keys],
        values=[[rate(m, k) for k in keys] for m in models],
        scale=score_scale(),
        footnote="Pass rate in % over all cells of every environment the sub-question is scored "
        "in; colour scale 60-100%.",
    )
    return ReportFigure(
        heatmap.figure_id,
        "Fig. 22",
        f"{tables.election_id}_fig22_impartiality",
        heatmap,
        "Impartiality sub-question pass rates per model, pooled over environments.",
    )


def loo_sub_question_figure(
    tables: ElectionTables, key: str, labels: ModelLabels, min_items: int | None = None
) -> ReportFigure | None:
    """One sub-question's LOO deviations per party x environment, a column block per model."""
    loo = tables.loo[tables.loo["sub_question"] == key]
    if loo.empty:
        return None
    environments = [e.value for e in Environment if e.value in set(loo["environment"])]
    models = [m for m in tables.models if m in set(loo["model"])]
    parties = _party_order(loo)
    deviation = Lookup(loo, ["model", "environment", "party_id"], "deviation")
    flagged = {(r.model, r.environment, r.party_id) for r in loo[loo["flagged"]].itertuples()}
    means = loo.groupby(["model", "environment"])["pass_rate"].mean().to_dict()
    columns, titles, groups, contexts = [], [], [], []
    for model in models:
        start = len(columns)
        for env in environments:
            if (model, env) not in means:
                continue
            contexts.append((model, env))
            columns.append(f"{environment_label(env)} μ={100 * means[(model, env)]:.0f}")
            titles.append(f"{labels.display(model)}, {environment_label(env)}")
        if len(columns) > start:
            groups.append(ColumnGroup(labels.display(model), start, len(columns)))
    values = [[deviation(m, e, pid) for m, e in contexts] for pid, _ in parties]
    notes = [[signed_points(v) if v is not None else "" for v in row] for row in values]
    bordered = frozenset(
        (i, j)
        for i, (pid, _) in enumerate(parties)
        for j, (m, e) in enumerate(contexts)
        if (m, e, pid) in flagged
    )
    sq = sub_question(key)
    limit = loo_limit(tables)
    german, dutch = LOO_SUB_QUESTIONS.get(key, (None, None))
    number = dutch if _is_dutch(tables) and dutch else german
    ref = f"Fig. {number}" if number else "Figs. 14-18"
    if _is_dutch(tables) and not dutch and german:
        ref = f"as Fig. {german}"
    gate = f" and at least {min_items} items" if min_items is not None else ""
    heatmap = Heatmap(
        figure_id=f"{tables.election_id}-loo-{sq.code.lower()}",
        title=f"{sq.code} {sq.title}: party deviations" + _where(tables, labels),
        rows=[str(name) for _, name in parties],
        columns=columns,
        column_titles=titles,
        values=values,
        annotations=notes,
        bordered=bordered,
        scale=diverging_scale(limit, "deviation"),
        column_groups=groups,
        footnote=(
            "Party pass rate minus the mean of the other parties, in pp; μ: cross-party mean pass "
            f"rate in %; bordered: |deviation| >= {points(LOO_MIN_DEVIATION)}{gate}. "
            + range_note(limit, "leave-one-out figure of this election")
        ),
    )
    return ReportFigure(
        heatmap.figure_id,
        ref,
        f"{tables.election_id}_loo_{sq.code.lower()}_{key}",
        heatmap,
        f"{sq.code} {sq.title}: each party's leave-one-out deviation per environment, one block "
        "per model (blue below the other parties, red above; bordered cells are flagged).",
    )


@dataclass(frozen=True)
class FindingFigures:
    sanitisation: PlotFigure | None  # Figs. 39/40
    impartiality: ReportFigure | None  # Fig. 22
    loo: list[ReportFigure]  # Figs. 14, 15, 17, 18 / 33, 35

    def all(self) -> list[AnyFigure]:
        found: list[AnyFigure | None] = [self.sanitisation, self.impartiality, *self.loo]
        return [f for f in found if f is not None]


def finding_figures(
    findings: FindingTables, tables: ElectionTables, labels: ModelLabels
) -> FindingFigures:
    loo = [
        loo_sub_question_figure(tables, key, labels, findings.loo_min_items)
        for key in LOO_SUB_QUESTIONS
    ]
    return FindingFigures(
        sanitisation=sanitisation_figure(findings, tables, labels),
        impartiality=impartiality_figure(findings, tables, labels),
        loo=[f for f in loo if f is not None],
    )
