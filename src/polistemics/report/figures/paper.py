"""The paper's heatmaps (Figs. 2-4, 13, 16, 19-27, 36-38) built from one election's tables.

Two layers: ``*_heatmap`` functions turn tables into a ``Heatmap`` spec (rows, columns, values,
scale); the public figure functions (``leaderboard(tables)``, ``robustness(tables)``, ...) draw
it and return a ``matplotlib.figure.Figure`` that users can restyle or save. The report wraps
each in a ``ReportFigure``: the matplotlib figure, its inline SVG, a file stem for the copies in
``figures/`` and the one-sentence note the page prints under it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

from polistemics.conditions import Environment, Variant
from polistemics.report.colours import (
    dispersion_scale,
    diverging_scale,
    score_scale,
    spread_scale,
)
from polistemics.report.figures.export import FigureFiles
from polistemics.report.figures.heatmap import ColumnGroup, Heatmap, Strip, draw_heatmap
from polistemics.report.formatting import signed_points
from polistemics.report.labels import (
    PARTY_FIGURE_RUBRICS,
    RUBRIC_ORDER,
    ModelLabels,
    environment_label,
    sub_question,
    sub_question_order,
)
from polistemics.report.tables import ElectionTables
from polistemics.rubrics import Rubric, sub_questions
from polistemics.scoring.analyses import LOO_MIN_DEVIATION, SPREAD_THRESHOLD

# Deviations and deltas: a symmetric colour range from the largest |value|, rounded up to a
# multiple of 5 pp and kept within 5-30 pp (values beyond it take the end colour).
DIVERGING_STEP, DIVERGING_MIN, DIVERGING_MAX = 0.05, 0.05, 0.30


def diverging_limit(values: Iterable[Iterable[float | None]]) -> float:
    largest = max(
        (abs(v) for row in values for v in row if v is not None and not math.isnan(v)),
        default=0.0,
    )
    rounded = math.ceil(round(largest / DIVERGING_STEP, 9)) * DIVERGING_STEP
    return round(min(DIVERGING_MAX, max(DIVERGING_MIN, rounded)), 2)


def family_limit(*columns: pd.Series) -> float:
    """One colour range for a family of figures (every leave-one-out figure of an election,
    every ablation figure, ...): ``diverging_limit`` of all their values together."""
    return diverging_limit([_num(v) for v in column] for column in columns)


def range_note(limit: float, family: str) -> str:
    """The colour range in words, for a footnote: ``Colour range ±25 pp, shared by ...``."""
    return (
        f"Colour range ±{100 * limit:.0f} pp, shared by every {family} (beyond it: the end colour)."
    )


def points(fraction: float) -> str:
    """A threshold given as a fraction, in pp: ``0.15`` -> ``15 pp``."""
    value = round(100 * fraction, 6)
    return f"{value:.0f} pp" if value == round(value) else f"{value:g} pp"


def loo_limit(tables: ElectionTables) -> float:
    """The leave-one-out family's range: Fig. 13's means and every context's deviation."""
    return family_limit(tables.loo["deviation"], tables.loo_summary["mean_deviation"])


def ablation_limit(tables: ElectionTables) -> float:
    """The ablation family's range (Figs. 36-38): every ablation delta of the election."""
    return family_limit(tables.ablations["delta"]) if not tables.ablations.empty else 0.05


class FigureDataError(ValueError):
    """The tables have nothing for the requested figure (e.g. no ablation run)."""


@dataclass(frozen=True, eq=False)
class ReportFigure(FigureFiles):
    figure_id: str  # unique within the page, e.g. "nl_tk2025-fig02"
    paper_ref: str  # "Fig. 2"
    stem: str  # file name without extension, e.g. "nl_tk2025_fig02_leaderboard"
    heatmap: Heatmap
    note: str
    figure: Figure = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "figure", draw_heatmap(self.heatmap))


class Lookup:
    """``table[column]`` by the values of ``keys`` (first row wins); missing or NaN -> None."""

    def __init__(self, table: pd.DataFrame, keys: list[str], column: str):
        self._values: dict[tuple, object] = {}
        for row in table.loc[:, [*keys, column]].itertuples(index=False, name=None):
            self._values.setdefault(tuple(row[:-1]), row[-1])

    def __call__(self, *key: object) -> float | None:
        return _num(self._values.get(tuple(key)))


def _rubric_groups(keys: list[str], rubrics=RUBRIC_ORDER) -> list[ColumnGroup]:
    groups, start = [], 0
    for rubric in rubrics:
        count = sum(1 for k in keys if sub_question(k).rubric is rubric)
        if count:
            groups.append(ColumnGroup(rubric.label, start, start + count))
            start += count
    return groups


def _prefix(tables: ElectionTables) -> str:
    return tables.election_id


def _where(tables: ElectionTables, labels: ModelLabels) -> str:
    """`` — DE: Bundestagswahl 2025``: the election's display name, never its raw id."""
    return f" — {labels.election(tables.election_id, tables.country)}"


def leaderboard_figure(tables: ElectionTables, labels: ModelLabels) -> ReportFigure:
    rubrics = [r.value for r in RUBRIC_ORDER]
    board = tables.leaderboard
    values = [[*(_num(row[r]) for r in rubrics), _num(row["emi"])] for _, row in board.iterrows()]
    heatmap = Heatmap(
        figure_id=f"{_prefix(tables)}-fig02",
        title=f"Overall model performance{_where(tables, labels)}",
        rows=[labels.display(m) for m in board["model"]],
        columns=[*(Rubric(r).label for r in rubrics), "EMI"],
        values=values,
        scale=score_scale(),
        column_groups=[
            ColumnGroup("Mean Rubric Score across IEs", 0, 3),
            ColumnGroup("Index", 3, 4),
        ],
        footnote="Scores in %; colour scale 60-100%; rows ordered by EMI.",
    )
    return ReportFigure(
        heatmap.figure_id,
        "Fig. 2",
        f"{_prefix(tables)}_fig02_leaderboard",
        heatmap,
        "Each model's score per rubric (mean of its Rubric Scores over the environments where the "
        "rubric is scored) and its Epistemic Modesty Index, rows ordered by EMI.",
    )


def robustness_figure(tables: ElectionTables, labels: ModelLabels) -> ReportFigure:
    envs = tables.environments
    adherence = Lookup(tables.robustness, ["model", "environment"], "adherence")
    dispersion = Lookup(tables.dispersion, ["model"], "dispersion")
    values = [[adherence(m, e) for e in envs] for m in tables.models]
    strip_values = [dispersion(m) for m in tables.models]
    heatmap = Heatmap(
        figure_id=f"{_prefix(tables)}-fig03",
        title=f"Robustness across information environments{_where(tables, labels)}",
        rows=[labels.display(m) for m in tables.models],
        columns=[environment_label(e) for e in envs],
        values=values,
        scale=score_scale(),
        strip=Strip("SD", strip_values, dispersion_scale()),
        footnote="Adherence Index in %; colour scale 60-100%; Baseline first, then easiest to "
        "hardest. Strip: rubric-level dispersion in pp (0-15 pp), mean over rubrics of the SD of "
        "the Rubric Score across active IEs.",
    )
    return ReportFigure(
        heatmap.figure_id,
        "Fig. 3",
        f"{_prefix(tables)}_fig03_robustness",
        heatmap,
        "Adherence Index per model and environment (Baseline first, then by difficulty), with each "
        "model's rubric-level dispersion in the right strip (Sec. 7.2): for each rubric, the sample "
        "SD of the model's Rubric Score across the non-Baseline environments where the rubric is "
        "scored, averaged over the rubrics. The strip is not the SD of the heatmap's row.",
    )


def spread_figure(tables: ElectionTables, labels: ModelLabels) -> ReportFigure:
    envs = tables.environments
    spread = Lookup(tables.party_spread, ["model", "environment"], "spread")
    values = [[spread(m, e) for e in envs] for m in tables.models]
    rubric_level = tables.party_spread_rubric
    flagged = rubric_level[rubric_level["flagged"]]
    bordered = frozenset(
        (tables.models.index(m), envs.index(e))
        for m, e in zip(flagged["model"], flagged["environment"], strict=True)
        if m in tables.models and e in envs
    )
    heatmap = Heatmap(
        figure_id=f"{_prefix(tables)}-fig04",
        title=f"Even-handedness: party spread{_where(tables, labels)}",
        rows=[labels.display(m) for m in tables.models],
        columns=[environment_label(e) for e in envs],
        values=values,
        scale=spread_scale(),
        bordered=bordered,
        footnote="Max - min Adherence Index across parties, in pp; colour scale 0-40 pp; "
        f"bordered: a rubric's spread >= {points(SPREAD_THRESHOLD)}.",
    )
    return ReportFigure(
        heatmap.figure_id,
        "Fig. 4",
        f"{_prefix(tables)}_fig04_party_spread",
        heatmap,
        "Party spread (highest minus lowest party Adherence Index) per model and environment; "
        f"bordered cells have a rubric-level spread of at least {100 * SPREAD_THRESHOLD:.0f} pp.",
    )


def _party_order(table: pd.DataFrame) -> list[tuple[str, str]]:
    pairs = table.loc[:, ["party_id", "party_name"]].drop_duplicates("party_id")
    pairs = pairs.assign(party_name=pairs["party_name"].fillna(pairs["party_id"]))
    return sorted(
        zip(pairs["party_id"], pairs["party_name"], strict=True), key=lambda p: str(p[1]).lower()
    )


def baseline_party_figure(tables: ElectionTables, labels: ModelLabels) -> ReportFigure | None:
    table = tables.baseline_parties
    if table.empty:
        return None
    parties = _party_order(table)
    adherence = Lookup(table, ["model", "party_id"], "adherence")
    values = [[adherence(m, pid) for pid, _ in parties] for m in tables.models]
    heatmap = Heatmap(
        figure_id=f"{_prefix(tables)}-fig16",
        title=f"Baseline party adherence{_where(tables, labels)}",
        rows=[labels.display(m) for m in tables.models],
        columns=[str(name) for _, name in parties],
        values=values,
        scale=score_scale(),
        footnote="Adherence Index in % under Baseline; colour scale 60-100%.",
    )
    return ReportFigure(
        heatmap.figure_id,
        "Fig. 16",
        f"{_prefix(tables)}_fig16_baseline_parties",
        heatmap,
        "Adherence Index per model and party under the Baseline environment.",
    )


def loo_figure(tables: ElectionTables, labels: ModelLabels | None = None) -> ReportFigure | None:
    summary = tables.loo_summary
    if summary.empty:
        return None
    labels = labels or ModelLabels()
    limit = loo_limit(tables)
    keys = sub_question_order(summary["sub_question"].unique(), PARTY_FIGURE_RUBRICS)
    parties = _party_order(summary)
    mean_deviation = Lookup(summary, ["party_id", "sub_question"], "mean_deviation")
    below = Lookup(summary, ["party_id", "sub_question"], "flagged_below")
    above = Lookup(summary, ["party_id", "sub_question"], "flagged_above")
    values, notes = [], []
    for pid, _ in parties:
        row_values, row_notes = [], []
        for key in keys:
            mean = mean_deviation(pid, key)
            row_values.append(mean)
            if mean is None:
                row_notes.append("")
                continue
            count = int((below if mean < 0 else above)(pid, key) or 0)
            row_notes.append(str(count) if count else "")
        values.append(row_values)
        notes.append(row_notes)
    heatmap = Heatmap(
        figure_id=f"{_prefix(tables)}-fig13",
        title=f"Party x sub-question leave-one-out deviations{_where(tables, labels)}",
        rows=[str(name) for _, name in parties],
        columns=[sub_question(k).code for k in keys],
        column_titles=[f"{sub_question(k).code} {sub_question(k).title}" for k in keys],
        values=values,
        annotations=notes,
        scale=diverging_scale(limit, "deviation"),
        column_groups=_rubric_groups(keys, PARTY_FIGURE_RUBRICS),
        footnote=(
            "Mean LOO deviation across (IE, model) contexts, in pp; blue below, red above the "
            f"other parties; integer: contexts with |deviation| >= {points(LOO_MIN_DEVIATION)}. "
            + range_note(limit, "leave-one-out figure of this election")
        ),
    )
    return ReportFigure(
        heatmap.figure_id,
        "Fig. 13",
        f"{_prefix(tables)}_fig13_party_loo",
        heatmap,
        "Each party's mean pass-rate deviation from the other parties per sub-question across all "
        "model and environment contexts (blue below, red above); integers count flagged contexts "
        "in the direction of the colour.",
    )


def environment_figure(tables: ElectionTables, env: str, labels: ModelLabels) -> ReportFigure:
    environment = Environment(env)
    keys = sub_question_order(
        [sq.key for r in RUBRIC_ORDER for sq in sub_questions(r, environment)]
    )
    columns = [r.abbreviation for r in RUBRIC_ORDER] + [sub_question(k).code for k in keys]
    titles = [r.label for r in RUBRIC_ORDER] + [
        f"{sub_question(k).code} {sub_question(k).title}" for k in keys
    ]
    score = Lookup(tables.rubric_scores, ["model", "environment", "rubric"], "score")
    rate = Lookup(tables.sub_question_rates, ["model", "environment", "sub_question"], "pass_rate")
    values = [
        [score(model, env, r.value) for r in RUBRIC_ORDER] + [rate(model, env, k) for k in keys]
        for model in tables.models
    ]
    groups = [ColumnGroup("Rubric Score", 0, len(RUBRIC_ORDER))] + [
        ColumnGroup(g.label, g.start + len(RUBRIC_ORDER), g.stop + len(RUBRIC_ORDER))
        for g in _rubric_groups(keys)
    ]
    heatmap = Heatmap(
        figure_id=f"{_prefix(tables)}-env-{environment.name.lower()}",
        title=f"{environment.label}: rubric scores and sub-question pass rates"
        + _where(tables, labels),
        rows=[labels.display(m) for m in tables.models],
        columns=columns,
        column_titles=titles,
        values=values,
        scale=score_scale(),
        column_groups=groups,
        footnote="Scores and pass rates in %; colour scale 60-100% (lower values take the "
        "lightest colour); grey: not scored here.",
    )
    return ReportFigure(
        heatmap.figure_id,
        "Figs. 19-27",
        f"{_prefix(tables)}_env_{environment.name.lower()}_sub_questions",
        heatmap,
        f"Rubric Scores and sub-question pass rates per model in the {environment.label} "
        "environment; grey cells are rubrics not scored in it.",
    )


ABLATION_FIGURES = {
    (Variant.ANONYMIZED.value, Environment.BASELINE.value): (
        "Fig. 36",
        36,
        "Anonymous-label delta, Baseline",
    ),
    (Variant.ENGLISH.value, Environment.BASELINE.value): (
        "Fig. 37",
        37,
        "English-output delta, Baseline",
    ),
    (Variant.ANONYMIZED.value, Environment.VAGUE.value): (
        "Fig. 38",
        38,
        "Anonymous-label delta, Vague",
    ),
}


def ablation_figure(
    tables: ElectionTables, variant: str, env: str, labels: ModelLabels | None = None
) -> ReportFigure | None:
    """Fig. 36, 37 or 38 (``ABLATION_FIGURES``); None when the run lacks that ablation."""
    if (variant, env) not in ABLATION_FIGURES:
        raise FigureDataError(f"no paper figure for ablation '{variant}' under '{env}'")
    ref, number, title = ABLATION_FIGURES[(variant, env)]
    deltas = tables.ablations
    part = deltas[(deltas["ablation"] == variant) & (deltas["environment"] == env)]
    if part.empty:
        return None
    labels = labels or ModelLabels()
    limit = ablation_limit(tables)
    keys = sub_question_order(part["sub_question"].unique(), PARTY_FIGURE_RUBRICS)
    parties = _party_order(part)
    delta = Lookup(part, ["party_id", "sub_question"], "delta")
    values = [[delta(pid, k) for k in keys] for pid, _ in parties]
    notes = [[signed_points(v) if v is not None else "" for v in row] for row in values]
    which = "anonymised labels" if variant == Variant.ANONYMIZED.value else "English output"
    heatmap = Heatmap(
        figure_id=f"{_prefix(tables)}-fig{number}",
        title=f"{title}{_where(tables, labels)}",
        rows=[str(name) for _, name in parties],
        columns=[sub_question(k).code for k in keys],
        column_titles=[f"{sub_question(k).code} {sub_question(k).title}" for k in keys],
        values=values,
        annotations=notes,
        scale=diverging_scale(limit, "delta"),
        column_groups=_rubric_groups(keys, PARTY_FIGURE_RUBRICS),
        footnote=f"Pass rate with {which} minus full variant, in pp, pooled across models. "
        + range_note(limit, "ablation figure of this election"),
    )
    return ReportFigure(
        heatmap.figure_id,
        ref,
        f"{_prefix(tables)}_fig{number}_{variant}_{Environment(env).name.lower()}_delta",
        heatmap,
        f"Signed pass-rate difference ({which} minus the full variant) per "
        f"party and sub-question under {environment_label(env)}, pooled across models "
        "(blue: lower with the ablation, red: higher).",
    )


def ablation_figures(
    tables: ElectionTables, labels: ModelLabels | None = None
) -> list[ReportFigure]:
    found = (ablation_figure(tables, variant, env, labels) for variant, env in ABLATION_FIGURES)
    return [f for f in found if f is not None]


def _num(value: object) -> float | None:
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if math.isnan(number) else number


@dataclass(frozen=True)
class ElectionFigures:
    leaderboard: ReportFigure
    robustness: ReportFigure
    party_spread: ReportFigure
    baseline_parties: ReportFigure | None
    loo: ReportFigure | None
    environments: list[ReportFigure]  # Figs. 19-27: one per environment, in column order
    ablations: list[ReportFigure]  # Figs. 36-38, those the run has

    def all(self) -> list[ReportFigure]:
        found = [
            self.leaderboard,
            self.robustness,
            self.party_spread,
            self.baseline_parties,
            self.loo,
        ]
        return [f for f in found if f is not None] + self.environments + self.ablations


def election_figures(tables: ElectionTables, labels: ModelLabels) -> ElectionFigures:
    return ElectionFigures(
        leaderboard=leaderboard_figure(tables, labels),
        robustness=robustness_figure(tables, labels),
        party_spread=spread_figure(tables, labels),
        baseline_parties=baseline_party_figure(tables, labels),
        loo=loo_figure(tables, labels),
        environments=[environment_figure(tables, env, labels) for env in tables.environments],
        ablations=ablation_figures(tables, labels),
    )


# Public figure functions: matplotlib figures for users (restyle with the object API, save
# with ``fig.savefig``). ``labels`` maps model ids to display names.


def _required(figure: ReportFigure | None, what: str) -> Figure:
    if figure is None:
        raise FigureDataError(f"the tables have no {what}")
    return figure.figure


def leaderboard(tables: ElectionTables, labels: ModelLabels | None = None) -> Figure:
    """Fig. 2: score per rubric and EMI per model."""
    return leaderboard_figure(tables, labels or ModelLabels()).figure


def robustness(tables: ElectionTables, labels: ModelLabels | None = None) -> Figure:
    """Fig. 3: Adherence Index per model and environment, dispersion strip."""
    return robustness_figure(tables, labels or ModelLabels()).figure


def party_spread(tables: ElectionTables, labels: ModelLabels | None = None) -> Figure:
    """Fig. 4: party spread per model and environment, flagged cells bordered."""
    return spread_figure(tables, labels or ModelLabels()).figure


def baseline_parties(tables: ElectionTables, labels: ModelLabels | None = None) -> Figure:
    """Fig. 16: Adherence Index per model and party under Baseline."""
    return _required(baseline_party_figure(tables, labels or ModelLabels()), "Baseline parties")


def party_loo(tables: ElectionTables, labels: ModelLabels | None = None) -> Figure:
    """Fig. 13: party x sub-question leave-one-out deviations."""
    return _required(loo_figure(tables, labels), "leave-one-out deviations")


def environment_detail(
    tables: ElectionTables, environment: str, labels: ModelLabels | None = None
) -> Figure:
    """Figs. 19-27: Rubric Scores and sub-question pass rates in one environment."""
    return environment_figure(tables, environment, labels or ModelLabels()).figure


def ablation_delta(
    tables: ElectionTables, variant: str, environment: str, labels: ModelLabels | None = None
) -> Figure:
    """Figs. 36-38: pass-rate deltas of an ablation (``anon``/``en``) under an environment."""
    return _required(ablation_figure(tables, variant, environment, labels), f"'{variant}' ablation")
