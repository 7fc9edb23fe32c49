"""View data of the report's sections, one function per section (markup: ``templates/sections/``).

Each ``*_view`` turns ``ReportContent`` into the plain values its template shows: tables as
``TableView``, figures as ``FigureView``, texts and numbers. Section ids (``SECTIONS``) are
stable: the navigation links to them and the browser test checks them. A part the source cannot
provide is shown as a "Not available" note saying why (``None`` tables, ``*_reason`` strings); on
an authors' release's page, what the release cannot provide is left out and said once at the top
instead (``omissions.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from polistemics.conditions import ALL_ENVIRONMENTS, Environment, Variant
from polistemics.prompts import vague_modes
from polistemics.report.caveats import shared_seats_note
from polistemics.report.comparison_task import (
    COMPARISON_SECTION,
    COMPARISON_TITLE,
    comparison_view,
)
from polistemics.report.comparison_views import delta_columns, rank_views
from polistemics.report.compositions import composition_table
from polistemics.report.content import ReportContent
from polistemics.report.finding_sections import (
    FINDING_SECTIONS,
    expansion_view,
    failure_cooccurrence_view,
    judge_strictness_view,
    party_findings_view,
)
from polistemics.report.formatting import (
    count,
    number,
    percent,
    row_interval,
    signed_points,
    sized,
    with_interval,
)
from polistemics.report.human_validation import SECTION as HUMAN_VALIDATION
from polistemics.report.human_validation import SECTION_TITLE as HUMAN_VALIDATION_TITLE
from polistemics.report.human_validation import human_validation_view
from polistemics.report.issue_mapping import (
    ISSUE_MAPPING_SECTION,
    ISSUE_MAPPING_TITLE,
    issue_mapping_view,
)
from polistemics.report.labels import (
    RUBRIC_ORDER,
    VARIANT_COLUMN,
    ModelLabels,
    environment_label,
    order_rows,
    rubric_label,
    sub_question_label,
)
from polistemics.report.mechanisms import MECHANISMS_SECTION, mechanisms_view
from polistemics.report.navigation import NAVIGATION_SECTION, NAVIGATION_TITLE, navigation_view
from polistemics.report.omissions import browser_sentence
from polistemics.report.pushback import PUSHBACK_SECTION, PUSHBACK_TITLE, pushback_view
from polistemics.report.repeats import repeats_view
from polistemics.report.self_consistency import (
    SELF_CONSISTENCY_SECTION,
    SELF_CONSISTENCY_TITLE,
    self_consistency_view,
)
from polistemics.report.tables import ElectionTables
from polistemics.report.view import (
    Column,
    FigureLike,
    FigureView,
    Labelled,
    TableView,
    figure_view,
    table_view,
)
from polistemics.rubrics import SUB_QUESTIONS, SubQuestion
from polistemics.scoring.analyses import SPREAD_THRESHOLD

SECTIONS: tuple[tuple[str, str], ...] = (
    ("leaderboard", "Leaderboard"),
    ("robustness", "Robustness"),
    ("even-handedness", "Even-handedness"),
    ("sub-questions", "Sub-questions"),
    ("ablations", "Ablations"),
    ("cross-election", "Cross-election"),
    ("judges", "Judge reliability"),
    ("data-cost", "Data and cost"),
    ("browser", "Item browser"),
    *FINDING_SECTIONS,
    HUMAN_VALIDATION,
    MECHANISMS_SECTION,
    PUSHBACK_SECTION,
    SELF_CONSISTENCY_SECTION,
)
# Issue 29: the sections of the tasks beyond the paper's, shown only for a run that asked them.
TASK_SECTIONS: tuple[tuple[str, str], ...] = (
    NAVIGATION_SECTION,
    COMPARISON_SECTION,
    ISSUE_MAPPING_SECTION,
)
MAX_LISTED_ROWS = 50  # long lists (flags, exclusions) show this many; the CSV has them all
NO_CELLS = "the source has no scored cells"


def election_name(content: ReportContent, tables: ElectionTables) -> str:
    """An election's name on the page: its label or source title, else ``NL (tk2025)``."""
    return content.labels.named_election(tables.election_id) or tables.label


def _heading(content: ReportContent, tables: ElectionTables) -> str | None:
    """An election's sub-heading, only when the page covers several elections."""
    return election_name(content, tables) if len(content.elections) > 1 else None


def _party(name: object, party_id: object) -> str:
    return str(party_id) if name is None or pd.isna(name) or not str(name) else str(name)


# Columns many tables share (a frozen Column is safe to reuse).
ENVIRONMENT_COLUMN = Column("Environment", lambda r: environment_label(r["environment"]))
RUBRIC_COLUMN = Column("Rubric", lambda r: rubric_label(r["rubric"]))


def _model(content: ReportContent) -> Column:
    return Column("Model", lambda r: content.labels(r["model"]))


def leaderboard_view(content: ReportContent) -> dict:
    elections = []
    for tables, figures in content.elections:
        columns = [
            _model(content),
            Column("EMI", "emi", percent, numeric=True),
            Column("EMI 95% CI", row_interval("emi_ci_low", "emi_ci_high"), numeric=True),
            *(
                Column(
                    r.label, r.value, percent, numeric=True, title="mean Rubric Score across IEs"
                )
                for r in RUBRIC_ORDER
            ),
            Column("Environments", "n_environments", numeric=True),
            Column("Observations", "n_observations", numeric=True),
        ]
        heading = _heading(content, tables)
        table = table_view(
            tables.leaderboard,
            columns,
            caption=f"Leaderboard{' — ' + heading if heading else ''}",
            table_id=f"leaderboard-{tables.election_id}",
        )
        elections.append(
            {"heading": heading, "figure": figure_view(figures.leaderboard), "table": table}
        )
    return {"resamples": content.options.bootstrap_resamples, "elections": elections}


def _condition(environment: str) -> str:
    if environment == Environment.BASELINE.value:
        return "Baseline"
    kind = "Inconclusive" if Environment(environment).inconclusive else "Interfering"
    return f"Combined ({kind.lower()})" if Environment(environment).is_composition else kind


def robustness_view(content: ReportContent) -> dict:
    elections = []
    for tables, figures in content.elections:
        wide = tables.robustness.assign(
            text=tables.robustness.apply(with_interval("adherence"), axis=1)
        ).pivot(index="model", columns="environment", values="text")
        wide = wide.reindex(index=tables.models, columns=tables.environments).reset_index()
        adherence = table_view(
            wide,
            [_model(content)]
            + [Column(environment_label(env), env, numeric=True) for env in tables.environments],
            caption="Adherence Index with bootstrap 95% CI",
        )
        difficulty = table_view(
            tables.difficulty.assign(kind=tables.difficulty["environment"].map(_condition)),
            [
                ENVIRONMENT_COLUMN,
                Column("Condition", "kind"),
                Column(
                    "Mean Adherence Index across models", "mean_adherence", percent, numeric=True
                ),
                Column("Models", "n_models", numeric=True),
            ],
            caption="Environment difficulty (easiest first)",
        )
        dispersion = table_view(
            tables.dispersion.set_index("model").reindex(tables.models).reset_index(),
            [
                _model(content),
                Column(
                    "Rubric-level dispersion",
                    _dispersion_text,
                    numeric=True,
                    title="bootstrap 95% CI over the n observations (the EMI's resamples)",
                ),
                Column("Rubrics", "n_rubrics", numeric=True),
                Column(
                    "SD of the Adherence Index",
                    "adherence_sd",
                    percent,
                    numeric=True,
                    title="population SD across the same environments; not the paper's "
                    "dispersion (Absent's index averages Epistemic Calibration alone)",
                ),
                Column("Environments", "n_environments", numeric=True),
            ],
            caption="Dispersion across the active (non-Baseline) environments, the figure's strip; "
            "the rubric-level dispersion with its bootstrap 95% CI over the n observations",
        )
        elections.append(
            {
                "heading": _heading(content, tables),
                "figure": figure_view(figures.robustness),
                "adherence": adherence,
                "difficulty": difficulty,
                "dispersion": dispersion,
                "compositions": composition_table(
                    content.analyses.composition_interaction, tables.election_id, content.labels
                ),
            }
        )
    return {"elections": elections}


def _dispersion_text(row: pd.Series) -> str | None:
    """``5.0% [3.1, 7.2] (n = 240)``; None (a dash) when the model has no dispersion."""
    if pd.isna(row["dispersion"]):
        return None
    shown = with_interval("dispersion", "dispersion_ci_low", "dispersion_ci_high")(row)
    return sized(shown, row["n_observations"])


def _party_with_score(name: str, party_id: str, score: str) -> Callable[[pd.Series], Labelled]:
    return lambda r: Labelled(_party(r[name], r[party_id]), f" ({percent(r[score])})")


def even_handedness_view(content: ReportContent) -> dict:
    elections = []
    for tables, figures in content.elections:
        flagged = tables.party_spread_rubric[tables.party_spread_rubric["flagged"]]
        flagged_table = None
        if not flagged.empty:
            flagged_table = table_view(
                flagged.head(MAX_LISTED_ROWS),
                [
                    _model(content),
                    ENVIRONMENT_COLUMN,
                    RUBRIC_COLUMN,
                    Column("Spread", "spread", percent, numeric=True),
                    Column(
                        "Highest party",
                        _party_with_score("max_party_name", "max_party_id", "max_score"),
                    ),
                    Column(
                        "Lowest party",
                        _party_with_score("min_party_name", "min_party_id", "min_score"),
                    ),
                ],
                caption="Flagged rubric-level party spreads (bordered cells above)",
            )
        loo_table = None
        if figures.loo is not None:
            loo = tables.loo[tables.loo["flagged"]]
            loo = loo.reindex(loo["deviation"].abs().sort_values(ascending=False).index)
            if not loo.empty:
                loo_table = table_view(
                    loo.head(MAX_LISTED_ROWS),
                    [
                        Column("Party", lambda r: _party(r["party_name"], r["party_id"])),
                        Column("Sub-question", lambda r: sub_question_label(r["sub_question"])),
                        _model(content),
                        ENVIRONMENT_COLUMN,
                        Column("Pass rate", "pass_rate", percent, numeric=True),
                        Column("Other parties", "others_mean", percent, numeric=True),
                        Column("Deviation (pp)", "deviation", signed_points, numeric=True),
                        Column("Items", "n_items", numeric=True),
                    ],
                    caption="Flagged leave-one-out deviations (largest first; all in tables/loo_deviations.csv)",
                )
        elections.append(
            {
                "heading": _heading(content, tables),
                "spread_figure": figure_view(figures.party_spread),
                "flagged": flagged_table,
                "baseline_figure": _optional_figure(figures.baseline_parties),
                "loo_figure": _optional_figure(figures.loo),
                "loo": loo_table,
            }
        )
    return {"threshold_pp": f"{100 * SPREAD_THRESHOLD:.0f}", "elections": elections}


def _optional_figure(fig: FigureLike | None) -> FigureView | None:
    return None if fig is None else figure_view(fig)


def sub_questions_view(content: ReportContent) -> dict:
    elections = []
    for tables, figures in content.elections:
        vague = None
        if tables.vague_modes is not None:
            vague = table_view(
                tables.vague_modes,
                [
                    Column(
                        "Mode",
                        lambda r: f"{int(r['vague_mode'])}. {_mode_name(int(r['vague_mode']))}",
                    ),
                    Column(
                        "Pass rate (all sub-questions, all models)",
                        "pass_rate",
                        percent,
                        numeric=True,
                    ),
                    Column("Cells", "n_cells", numeric=True),
                    Column("Observations", "n_observations", numeric=True),
                ],
                caption="Mean pass rate across all rubric sub-questions per vagueness mode",
                table_id=f"vague-modes-{tables.election_id}",
            )
        elections.append(
            {
                "heading": _heading(content, tables),
                "figures": [figure_view(fig) for fig in figures.environments],
                "vague_modes": vague,
                "vague_reason": (
                    "the authors' release does not record which vagueness mode each Vague item used"
                    if content.inputs.kind == "release"
                    else "no Vague cells with a recorded vagueness mode"
                ),
            }
        )
    return {"legend": _sub_question_legend(), "elections": elections}


def _pass_rule(sq: SubQuestion) -> str:
    """When a judge's answer passes, e.g. "No" or "Yes (conclusive), No (inconclusive)"."""
    rules = {}
    for env in ALL_ENVIRONMENTS:
        if sq.is_active(env):
            kind = "conclusive" if env.conclusive else "inconclusive"
            rules.setdefault(kind, "Yes" if sq.yes_passes(env) else "No")
    if len(set(rules.values())) == 1:
        return next(iter(rules.values()))
    return ", ".join(f"{answer} ({kind})" for kind, answer in rules.items())


def _sub_question_legend() -> TableView:
    rows = pd.DataFrame(
        [
            {
                "code": sq.code,
                "title": sq.title,
                "rubric": sq.rubric.label,
                "question": sq.question,
                "scored_in": ", ".join(e.label for e in ALL_ENVIRONMENTS if sq.is_active(e)),
                "passes": _pass_rule(sq),
            }
            for rubric in RUBRIC_ORDER
            for sq in SUB_QUESTIONS
            if sq.rubric is rubric
        ]
    )
    return table_view(
        rows,
        [
            Column("Code", "code"),
            Column("Sub-question", "title"),
            Column("Rubric", "rubric"),
            Column("Judge's question (App. F)", "question", limit=None),
            Column("Scored in", "scored_in", limit=None),
            Column("Passes on", "passes"),
        ],
        table_id="sub-question-legend",
    )


def _mode_name(number_: int) -> str:
    names = {m["number"]: m["name"] for m in vague_modes()}
    return names.get(number_, "unknown mode")


def ablations_view(content: ReportContent) -> dict:
    elections = []
    for tables, figures in content.elections:
        ablation_scores = tables.variant_scores[
            tables.variant_scores["variant"] != Variant.FULL.value
        ]
        if not figures.ablations and ablation_scores.empty:
            continue
        table = table_view(
            order_rows(tables.variant_scores.sort_values("emi", ascending=False)),
            [
                VARIANT_COLUMN,
                _model(content),
                Column("EMI over the variant's environments", "emi", percent, numeric=True),
                Column("95% CI", row_interval(), numeric=True),
                Column("Environments", "n_environments", numeric=True),
            ],
            caption="EMI per variant (ablations cover fewer environments: compare within a variant)",
        )
        elections.append(
            {
                "heading": _heading(content, tables),
                "table": table,
                "figures": [figure_view(fig) for fig in figures.ablations],
            }
        )
    reason = None
    if not content.elections:
        reason = NO_CELLS
    elif not elections:
        reason = _no_ablations_reason(content)
    side_by_side = _ablations_side_by_side(content)
    shown = {row["paper_ref"] for row in side_by_side}
    for election in elections:  # a figure shown side by side is not shown again below
        election["figures"] = [f for f in election["figures"] if f.paper_ref not in shown]
    return {"elections": elections, "unavailable": reason, "side_by_side": side_by_side}


def _ablations_side_by_side(content: ReportContent) -> list[dict]:
    """Figs. 36-38 as the paper prints them for DE + NL: one row per figure, panel (a), (b),
    ... one per election that has it. Empty with fewer than two such elections."""
    by_ref: dict[str, list[tuple[str, FigureView]]] = {}
    for tables, figures in content.elections:
        for fig in figures.ablations:
            name = election_name(content, tables)
            by_ref.setdefault(fig.paper_ref, []).append((name, figure_view(fig)))
    return [
        {
            "paper_ref": ref,
            "panels": [
                {"letter": f"({chr(ord('a') + i)})", "election": label, "figure": fig}
                for i, (label, fig) in enumerate(panels)
            ],
        }
        for ref, panels in sorted(by_ref.items(), key=lambda kv: int(kv[0].split()[-1]))
        if len(panels) > 1
    ]


def cross_election_view(content: ReportContent) -> dict:
    """App. I: every election after the first minus the first (NL - DE)."""
    parts = []
    for part in content.cross_elections:
        c = part.comparison
        heading = f"{part.label_b} − {part.label_a}"
        if c is None:
            parts.append({"heading": heading, "reason": part.reason})
            continue
        delta = delta_columns(False)
        full = c.deltas.emi["variant"] == c.ranks["variant"]
        adherence = c.deltas.adherence[c.deltas.adherence["variant"] == c.ranks["variant"]]
        parts.append(
            {
                "heading": heading,
                "reason": None,
                "label_a": part.label_a,
                "label_b": part.label_b,
                "left_out": list(c.matched.left_out),
                "ranks": rank_views(c, content.labels),
                "emi": table_view(
                    c.deltas.emi[full], [_model(content), *delta], caption=f"EMI, {heading}"
                ),
                "adherence": table_view(
                    adherence,
                    [_model(content), ENVIRONMENT_COLUMN, *delta],
                    caption=f"Adherence Index, {heading}",
                ),
                "figures": [figure_view(f) for f in part.figures],
                "resamples": c.options.resamples,
            }
        )
    reason = None
    if not parts:
        covered = "no election" if not content.elections else "one election"
        reason = (
            f"the report covers {covered} (a run of several elections, or "
            "'polistemics report A B', shows the deltas between them)"
        )
    return {"parts": parts, "unavailable": reason}


def _no_ablations_reason(content: ReportContent) -> str:
    """Why the page has no ablation: in the reader's terms, not the release's folder names."""
    variants = "the anonymised-labels and English-output variants"
    if content.inputs.kind == "release":
        return f"this release has no results for {variants}"
    manifest = content.inputs.manifest
    config = manifest.config if manifest is not None else None
    if config is not None and config.ablations == []:
        return f"the run's config sets ablations = [], so {variants} were not run"
    return f"the run has no scored answers for {variants}"


def _agreement_columns(first: list[Column]) -> list[Column]:
    return first + [
        Column("n", "n", numeric=True),
        Column("Prev.", "prevalence", percent, numeric=True, title="marginal pass rate"),
        Column("Unan.", "unanimity", percent, numeric=True, title="share of unanimous items"),
        Column("Fleiss' κ", "fleiss_kappa", number, numeric=True),
        Column("Gwet's AC1", "gwet_ac1", number, numeric=True),
    ]


@dataclass(frozen=True)
class Agreement:
    panel_size: int
    by_rubric: TableView
    by_language: TableView
    by_language_long: TableView
    by_sub_question: TableView
    n_excluded: int
    excluded: TableView | None


def _agreement(content: ReportContent) -> Agreement | None:
    reliability = content.reliability
    if reliability is None:
        return None
    by_language = order_rows(reliability.by_language)
    languages = sorted(by_language["language"].dropna().unique(), key=lambda v: (v == "English", v))
    wide = by_language.pivot(index="rubric", columns="language", values="gwet_ac1")
    wide = order_rows(wide.reindex(columns=languages).reset_index())
    excluded = reliability.excluded
    return Agreement(
        panel_size=reliability.panel_size,
        by_rubric=table_view(
            order_rows(reliability.by_rubric),
            _agreement_columns([RUBRIC_COLUMN]),
            caption=f"Inter-judge agreement by rubric (Table 12; panel of {reliability.panel_size})",
            table_id="agreement-rubric",
        ),
        by_language=table_view(
            wide,
            [RUBRIC_COLUMN] + [Column(str(lang), lang, number, numeric=True) for lang in languages],
            caption="Gwet's AC1 by answer language (Table 13; English output is the English-output ablation where the evidence is not English)",
            table_id="agreement-language",
        ),
        by_language_long=table_view(
            by_language,
            _agreement_columns([RUBRIC_COLUMN, Column("Answer language", "language")]),
            caption="Agreement by rubric and answer language",
            table_id="agreement-language-long",
        ),
        by_sub_question=table_view(
            order_rows(reliability.by_sub_question),
            _agreement_columns(
                [
                    RUBRIC_COLUMN,
                    Column("Sub-question", lambda r: sub_question_label(r["sub_question"])),
                ]
            ),
            caption="Agreement by sub-question",
            table_id="agreement-sub-question",
        ),
        n_excluded=len(excluded),
        excluded=None
        if excluded.empty
        else table_view(
            excluded.head(MAX_LISTED_ROWS),
            [
                _model(content),
                ENVIRONMENT_COLUMN,
                VARIANT_COLUMN,
                Column("Observation", "observation_id"),
                RUBRIC_COLUMN,
                Column("Complete judges", "n_complete_judges", numeric=True),
            ],
            caption="Excluded answers x rubric (all in tables/excluded_items.csv)",
        ),
    )


def judges_view(content: ReportContent) -> dict:
    reason = (
        "an authors' release holds only aggregated verdicts, not each judge's raw verdict"
        if content.inputs.kind == "release"
        else "the run has no judge verdicts (judges.jsonl)"
    )
    judging = None
    if content.data.judging is not None:
        judging = table_view(
            content.data.judging,
            [Column("Judging", "what"), Column("Value", "value", numeric=True)],
            caption="Judging summary (run.json)",
        )
    parsing = None
    if content.data.judge_parsing is not None:
        parsing = _judge_parsing(content.data.judge_parsing)
    planted = None
    if content.data.planted_by_model is not None:
        planted = _planted_by_model(content.data.planted_by_model, content.labels)
    return {
        "agreement": _agreement(content),
        "unavailable": reason,
        "judging": judging,
        "parsing": parsing,
        "planted": planted,
        "shared_seats": shared_seats_note(content.inputs.manifest),
        "repeats": repeats_view(content.inputs.manifest, content.inputs.kind),
    }


def _share(value: object) -> str:
    """A share from run.json (two decimals: a few missing verdicts in thousands must not read as
    0.0%); anything that is not a number is shown as the text it is."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return percent(value, 2) if ok else str(value)


def _judge_parsing(frame: pd.DataFrame) -> TableView:
    return table_view(
        frame,
        [
            Column("Judge", "judge"),
            Column("Model", "model"),
            Column("Output mode", "output_mode"),
            Column("Verdict sets", "verdict_sets", count, numeric=True),
            Column("Panel calls", "panel_calls", count, numeric=True),
            Column(
                "Asked again",
                "asked_again",
                count,
                numeric=True,
                title="Judgments whose first output could not be read, asked a second time",
            ),
            Column("HTTP attempts", "http_attempts", count, numeric=True),
            Column(
                "Client retries",
                "client_retries",
                count,
                numeric=True,
                title="Retries of the client layer: transient faults, and content faults such "
                "as a reply without the forced tool call",
            ),
            Column("Call failed", "call_failed", count, numeric=True),
            Column("Unreadable", "unreadable", count, numeric=True),
            Column("Missing verdicts", "missing", count, numeric=True),
            Column("Missing share", "missing_share", _share, numeric=True),
            Column(
                "Possibly planted",
                "possibly_planted",
                count,
                numeric=True,
                title="Verdict sets left missing because they matched a verdict list the answer "
                "itself spelled out, on the first try and when asked again "
                "(docs/judge-parsing.md)",
            ),
        ],
        caption="Judge output parsing per judge and output mode (run.json): the exclusion rate",
        table_id="judge-parsing",
    )


def _planted_by_model(frame: pd.DataFrame, labels: ModelLabels) -> TableView:
    """Answers that spelled out verdicts their judges then gave: a finding about the model."""
    shown = frame.assign(model=[labels(str(model)) for model in frame["model"]])
    return table_view(
        shown,
        [
            Column("Target model", "model"),
            Column("Answers with planted verdicts", "answers", count, numeric=True),
            Column("Verdict sets left missing", "verdict_sets", count, numeric=True),
        ],
        caption="Answers that spelled out a verdict list the judges then gave, per target model "
        "(run.json judge_parsing.possibly_planted_by_model; such verdicts are not scored)",
        table_id="judge-planted",
    )


def _standardisation(frame: pd.DataFrame) -> TableView:
    wide = frame.pivot(index="metric", columns="election_id", values="value")
    wide = wide.reindex(list(dict.fromkeys(frame["metric"]))).reset_index()
    return table_view(
        wide,
        [Column("Metric", "metric")]
        + [Column(str(c), str(c), count, numeric=True) for c in wide.columns[1:]],
        caption="Standardisation pipeline statistics",
        table_id="standardisation",
    )


def _fidelity(frame: pd.DataFrame) -> TableView:
    dens = lambda v: number(v, 2)  # noqa: E731
    times = lambda v: f"{float(v):.2f}×"  # noqa: E731
    return table_view(
        frame,
        [
            Column("Language", "language"),
            Column("Items", "items", numeric=True),
            Column("Intensifiers listed", "intensifiers_listed", numeric=True),
            Column("Density raw (mean)", "density_raw_mean", dens, numeric=True),
            Column("Density standardised (mean)", "density_standardised_mean", dens, numeric=True),
            Column("Density raw (pooled)", "density_raw_pooled", dens, numeric=True),
            Column(
                "Density standardised (pooled)", "density_standardised_pooled", dens, numeric=True
            ),
            Column("Median tokens raw", "median_tokens_raw", numeric=True),
            Column("Median tokens standardised", "median_tokens_standardised", numeric=True),
            Column(
                "Median length growth",
                "median_length_ratio",
                times,
                numeric=True,
                title="median standardised tokens / median raw tokens",
            ),
            Column(
                "Median expansion per item",
                "median_expansion",
                times,
                numeric=True,
                title="median over items of standardised / raw characters ([PARTY] as written; "
                "App. D.4)",
            ),
        ],
        table_id="fidelity",
    )


def _calls(frame: pd.DataFrame) -> TableView:
    return table_view(
        frame,
        [
            Column("Stage", "stage"),
            Column("Endpoint", "endpoint"),
            Column("Model", "model"),
            Column("Calls", "calls", numeric=True),
            Column("Errors", "errors", numeric=True),
            Column("Attempts", "attempts", numeric=True),
            Column("Input tokens", "input_tokens", count, numeric=True),
            Column(
                "Cached input tokens",
                "cached_input_tokens",
                count,
                numeric=True,
                title="input tokens the provider served from its prompt cache (cached-input rate)",
            ),
            Column("Uncached input tokens", "uncached_input_tokens", count, numeric=True),
            Column("Output tokens", "output_tokens", count, numeric=True),
            Column("Reasoning tokens", "reasoning_tokens", count, numeric=True),
            Column("Cost", "cost", lambda v: f"${float(v):.4f}", numeric=True),
            Column("Mean latency (ms)", "mean_latency_ms", lambda v: number(v, 0), numeric=True),
        ],
        caption="Calls per stage and model (from the run store)",
        table_id="calls",
    )


def _quantity(value: object) -> str:
    """A run total: a count, or an amount (cost) with four decimals."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.4f}"
    return count(value)


def data_view(content: ReportContent) -> dict:
    data = content.data
    totals = None
    if data.calls is not None and data.totals:
        totals = table_view(
            pd.DataFrame(
                [{"what": k.replace("_", " "), "value": v} for k, v in data.totals.items()]
            ),
            [Column("Total", "what"), Column("Value", "value", _quantity, numeric=True)],
            caption="Totals over the whole run",
            table_id="totals",
        )
    stage_seconds = invocations = None
    times = data.stage_seconds
    if data.calls is not None and times is not None:
        which = (
            ""
            if times.invocations == 1
            else f" in invocation {times.invocation} of {times.invocations}"
            f" (started {times.started}, the latest that made model calls)"
        )
        stage_seconds = table_view(
            times.table,
            [
                Column("Stage", "stage"),
                Column("Seconds", "seconds", lambda v: number(v, 1), numeric=True),
            ],
            caption=f"Wall-clock time per stage{which}; {times.calls_made:,} model calls made",
            table_id="stage-seconds",
        )
    if data.calls is not None and data.invocations is not None:
        invocations = table_view(
            data.invocations,
            [
                Column("#", "invocation", numeric=True),
                Column("Started", "started"),
                Column("Finished", "finished"),
                Column("Stage seconds", "seconds", lambda v: number(v, 1), numeric=True),
                Column("Model calls made", "calls_made", count, numeric=True),
                Column("Version", "version"),
                Column("Git revision", "git_revision"),
            ],
            caption="Invocations of this run directory (run.json); later ones reuse stored calls",
            table_id="invocations",
        )
    return {
        "standardisation": None
        if data.standardisation is None
        else _standardisation(data.standardisation),
        "environments": None
        if data.environments.empty
        else table_view(
            order_rows(data.environments),
            [
                Column("Election", "election_id"),
                VARIANT_COLUMN,
                ENVIRONMENT_COLUMN,
                Column("Kept", "kept", numeric=True),
                Column("Dropped", "dropped", numeric=True),
            ],
            table_id="environment-counts",
        ),
        "environments_source": data.environments_source,
        "observations": None
        if data.observations.empty
        else table_view(
            order_rows(data.observations),
            [
                Column("Election", "election_id"),
                VARIANT_COLUMN,
                ENVIRONMENT_COLUMN,
                _model(content),
                Column("Observations", "observations", numeric=True),
                Column("Answers", "answers", numeric=True),
                Column("Failed answers", "failed_answers", numeric=True),
                Column("Scored answers", "scored_answers", numeric=True),
            ],
            table_id="observation-counts",
        ),
        "fidelity": None if data.fidelity is None else _fidelity(data.fidelity),
        "fidelity_reason": data.fidelity_reason or "no evidence",
        "calls": None if data.calls is None else _calls(data.calls),
        "totals": totals,
        "stage_seconds": stage_seconds,
        "invocations": invocations,
        "vague": None
        if data.vague is None
        else table_view(
            data.vague,
            [
                Column("Election", "election_id"),
                Column("Vague generation", "what"),
                Column("Value", "value", numeric=True),
            ],
            caption="Vague environment generation report",
        ),
    }


def browser_view(content: ReportContent) -> dict:
    payload = content.browser
    return {
        "embedded": payload["embedded"],
        "total": payload["total"],
        "cap": content.options.max_browser_answers,
        "has_judges": payload["hasJudges"],
        "truncated": sum(answer.truncated for answer in content.inputs.answers),
        "answers": len(content.inputs.answers),
        "missing_answers": browser_sentence(content.inputs),
    }


@dataclass(frozen=True)
class Section:
    section_id: str  # one of ``SECTIONS``; the template is ``sections/<section_id>.html``
    title: str
    view: Callable[[ReportContent], dict]


ALL_SECTIONS = (
    Section("leaderboard", "Leaderboard (Fig. 2)", leaderboard_view),
    Section("robustness", "Robustness across information environments (Fig. 3)", robustness_view),
    Section("even-handedness", "Even-handedness (Figs. 4, 16, 13)", even_handedness_view),
    Section("sub-questions", "Sub-question pass rates (Figs. 19-27, Table 8)", sub_questions_view),
    Section("ablations", "Label and output-language ablations (Figs. 36-38)", ablations_view),
    Section(
        "cross-election",
        "Cross-election deltas (App. I, Figs. 22b, 24b-27b, 30-32)",
        cross_election_view,
    ),
    Section("judges", "Judge reliability (Tables 12-13)", judges_view),
    Section("data-cost", "Data and cost (Tables 5, 6, 9)", data_view),
    Section("browser", "Item browser", browser_view),
    Section(
        "party-findings",
        "Party findings with uncertainty (Sec. 7.3; Figs. 14-18, 33, 35, 39, 40)",
        party_findings_view,
    ),
    Section(
        "failure-cooccurrence",
        "Failure co-occurrence and Impartiality pooled (Sec. 7.2, Fig. 22)",
        failure_cooccurrence_view,
    ),
    Section("judge-strictness", "Per-judge strictness (Sec. 10)", judge_strictness_view),
    Section("expansion-i4", "Evidence expansion and I4 Sanitization (App. D.4)", expansion_view),
    Section(HUMAN_VALIDATION[0], HUMAN_VALIDATION_TITLE, human_validation_view),
    Section("mechanisms", "Mechanisms: fallback, first chunk and party priors", mechanisms_view),
    # Issue 29: a task's section; its view is None (no section) for a run without the task.
    Section(NAVIGATION_SECTION[0], NAVIGATION_TITLE, navigation_view),
    Section(COMPARISON_SECTION[0], COMPARISON_TITLE, comparison_view),
    Section(ISSUE_MAPPING_SECTION[0], ISSUE_MAPPING_TITLE, issue_mapping_view),
    Section(PUSHBACK_SECTION[0], PUSHBACK_TITLE, pushback_view),
    Section(SELF_CONSISTENCY_SECTION[0], SELF_CONSISTENCY_TITLE, self_consistency_view),
)
