"""The report's sections as HTML fragments, one function per section.

Section ids (``SECTIONS``) are stable: the navigation links to them and the browser test checks
them. A part the source cannot provide is replaced by a "Not available" note saying why.
"""

from __future__ import annotations

import pandas as pd

from polistemics.conditions import ALL_ENVIRONMENTS, Environment, Variant
from polistemics.prompts import vague_modes
from polistemics.report.content import ReportContent
from polistemics.report.figures import Figure
from polistemics.report.html import (
    Column,
    data_table,
    figure,
    heading,
    paragraph,
    section,
    unavailable,
)
from polistemics.report.labels import (
    RUBRIC_ORDER,
    environment_label,
    number,
    order_rows,
    percent,
    rubric_label,
    signed_points,
    sub_question_label,
    variant_label,
)
from polistemics.report.tables import ElectionTables
from polistemics.rubrics import SUB_QUESTIONS, SubQuestion
from polistemics.scoring.analyses import SPREAD_THRESHOLD

SECTIONS: tuple[tuple[str, str], ...] = (
    ("leaderboard", "Leaderboard"),
    ("robustness", "Robustness"),
    ("even-handedness", "Even-handedness"),
    ("sub-questions", "Sub-questions"),
    ("ablations", "Ablations"),
    ("judges", "Judge reliability"),
    ("data-cost", "Data and cost"),
    ("browser", "Item browser"),
)
MAX_LISTED_ROWS = 50  # long lists (flags, exclusions) show this many; the CSV has them all


def _figure(fig: Figure | None) -> str:
    if fig is None:
        return ""
    return figure(fig.figure_id, fig.svg, fig.paper_ref, fig.note, fig.file_name)


def _election_heading(content: ReportContent, tables: ElectionTables) -> str:
    return heading(3, tables.label) if len(content.elections) > 1 else ""


def _party(name: object, party_id: object) -> str:
    return str(party_id) if name is None or pd.isna(name) or not str(name) else str(name)


NO_CELLS = "the source has no scored cells"


def _pct(value: object) -> str:
    return percent(float(value))  # type: ignore[arg-type]


def _ci(row: pd.Series, low: str = "ci_low", high: str = "ci_high") -> str:
    if pd.isna(row[low]) or pd.isna(row[high]):
        return "–"
    return f"[{100 * row[low]:.1f}, {100 * row[high]:.1f}]"


def leaderboard_section(content: ReportContent) -> str:
    body = [
        paragraph(
            "Epistemic Modesty Index (geometric mean of the Adherence Indices across environments) "
            "and the score per rubric, with percentile bootstrap 95% confidence intervals "
            f"({content.options.bootstrap_resamples} resamples of observations)."
        )
    ]
    if not content.elections:
        body.append(unavailable(NO_CELLS))
    for tables, figures in content.elections:
        body.append(_election_heading(content, tables))
        body.append(_figure(figures.leaderboard))
        columns = [
            Column("Model", lambda r: content.labels(r["model"])),
            Column("EMI", "emi", _pct, numeric=True),
            Column("EMI 95% CI", lambda r: _ci(r, "emi_ci_low", "emi_ci_high"), numeric=True),
            *(
                Column(r.label, r.value, _pct, numeric=True, title="mean Rubric Score across IEs")
                for r in RUBRIC_ORDER
            ),
            Column("Environments", "n_environments", numeric=True),
            Column("Observations", "n_observations", numeric=True),
        ]
        body.append(
            data_table(
                tables.leaderboard,
                columns,
                caption=f"Leaderboard{' — ' + tables.label if len(content.elections) > 1 else ''}",
                table_id=f"leaderboard-{tables.election_id}",
            )
        )
    return section("leaderboard", "Leaderboard (Fig. 2)", body)


def robustness_section(content: ReportContent) -> str:
    body = [
        paragraph(
            "Adherence Index (mean of the Rubric Scores scored in an environment) per model and "
            "information environment; environments ordered Baseline first, then by difficulty."
        )
    ]
    if not content.elections:
        body.append(unavailable(NO_CELLS))
    for tables, figures in content.elections:
        body.append(_election_heading(content, tables))
        body.append(_figure(figures.robustness))
        wide = tables.robustness.assign(
            text=tables.robustness.apply(lambda r: f"{percent(r['adherence'])} {_ci(r)}", axis=1)
        ).pivot(index="model", columns="environment", values="text")
        wide = wide.reindex(index=tables.models, columns=tables.environments).reset_index()
        columns = [Column("Model", lambda r: content.labels(r["model"]))] + [
            Column(environment_label(env), env, numeric=True) for env in tables.environments
        ]
        body.append(data_table(wide, columns, caption="Adherence Index with bootstrap 95% CI"))
        difficulty = tables.difficulty.assign(
            kind=tables.difficulty["environment"].map(
                lambda e: (
                    "Baseline"
                    if e == Environment.BASELINE.value
                    else ("Inconclusive" if Environment(e).inconclusive else "Interfering")
                )
            )
        )
        body.append(
            data_table(
                difficulty,
                [
                    Column("Environment", lambda r: environment_label(r["environment"])),
                    Column("Condition", "kind"),
                    Column(
                        "Mean Adherence Index across models", "mean_adherence", _pct, numeric=True
                    ),
                    Column("Models", "n_models", numeric=True),
                ],
                caption="Environment difficulty (easiest first)",
            )
        )
    return section("robustness", "Robustness across information environments (Fig. 3)", body)


def even_handedness_section(content: ReportContent) -> str:
    body = [
        paragraph(
            "Party spread is the highest minus the lowest party Adherence Index within a model and "
            f"environment; spreads of at least {100 * SPREAD_THRESHOLD:.0f} pp are flagged "
            "(a reporting heuristic, not a significance test)."
        )
    ]
    if not content.elections:
        body.append(unavailable(NO_CELLS))
    for tables, figures in content.elections:
        body.append(_election_heading(content, tables))
        body.append(_figure(figures.party_spread))
        flagged = tables.party_spread_rubric[tables.party_spread_rubric["flagged"]]
        if flagged.empty:
            body.append(
                paragraph(
                    f"No rubric-level party spread reaches {100 * SPREAD_THRESHOLD:.0f} pp.",
                    "small",
                )
            )
        else:
            body.append(
                data_table(
                    flagged.head(MAX_LISTED_ROWS),
                    [
                        Column("Model", lambda r: content.labels(r["model"])),
                        Column("Environment", lambda r: environment_label(r["environment"])),
                        Column("Rubric", lambda r: rubric_label(r["rubric"])),
                        Column("Spread", "spread", _pct, numeric=True),
                        Column(
                            "Highest party",
                            lambda r: (
                                f"{_party(r['max_party_name'], r['max_party_id'])} ({percent(r['max_score'])})"
                            ),
                        ),
                        Column(
                            "Lowest party",
                            lambda r: (
                                f"{_party(r['min_party_name'], r['min_party_id'])} ({percent(r['min_score'])})"
                            ),
                        ),
                    ],
                    caption="Flagged rubric-level party spreads (bordered cells above)",
                )
            )
        if figures.baseline_parties is not None:
            body.append(_figure(figures.baseline_parties))
        else:
            body.append(unavailable("no Baseline cells to break down by party"))
        if figures.loo is not None:
            body.append(_figure(figures.loo))
            loo = tables.loo[tables.loo["flagged"]]
            loo = loo.reindex(loo["deviation"].abs().sort_values(ascending=False).index)
            if not loo.empty:
                body.append(
                    data_table(
                        loo.head(MAX_LISTED_ROWS),
                        [
                            Column("Party", lambda r: _party(r["party_name"], r["party_id"])),
                            Column("Sub-question", lambda r: sub_question_label(r["sub_question"])),
                            Column("Model", lambda r: content.labels(r["model"])),
                            Column("Environment", lambda r: environment_label(r["environment"])),
                            Column("Pass rate", "pass_rate", _pct, numeric=True),
                            Column("Other parties", "others_mean", _pct, numeric=True),
                            Column("Deviation (pp)", "deviation", signed_points, numeric=True),
                            Column("Items", "n_items", numeric=True),
                        ],
                        caption="Flagged leave-one-out deviations (largest first; all in tables/loo_deviations.csv)",
                    )
                )
        else:
            body.append(unavailable("no party-level cells for leave-one-out deviations"))
    return section("even-handedness", "Even-handedness (Figs. 4, 16, 13)", body)


def sub_questions_section(content: ReportContent) -> str:
    body = [
        paragraph(
            "Rubric Scores and per-sub-question pass rates in each environment (App. H.2). "
            "Sub-questions: F1-F4 Faithfulness, I1-I5 Impartiality, EC1-EC4 Epistemic "
            "Calibration; hover a code for its title."
        ),
        _sub_question_legend(),
    ]
    if not content.elections:
        body.append(unavailable(NO_CELLS))
    for tables, figures in content.elections:
        body.append(_election_heading(content, tables))
        for fig in figures.environments:
            body.append(_figure(fig))
        body.append(heading(4, "Vague-mode adherence (Table 8)"))
        if tables.vague_modes is None:
            reason = (
                "the authors' release does not record which vagueness mode each Vague item used"
                if content.inputs.kind == "release"
                else "no Vague cells with a recorded vagueness mode"
            )
            body.append(unavailable(reason))
        else:
            body.append(
                data_table(
                    tables.vague_modes,
                    [
                        Column(
                            "Mode",
                            lambda r: f"{int(r['vague_mode'])}. {_mode_name(int(r['vague_mode']))}",
                        ),
                        Column(
                            "Pass rate (all sub-questions, all models)",
                            "pass_rate",
                            _pct,
                            numeric=True,
                        ),
                        Column("Cells", "n_cells", numeric=True),
                        Column("Observations", "n_observations", numeric=True),
                    ],
                    caption="Mean pass rate across all rubric sub-questions per vagueness mode",
                    table_id=f"vague-modes-{tables.election_id}",
                )
            )
    return section("sub-questions", "Sub-question pass rates (Figs. 19-27, Table 8)", body)


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


def _sub_question_legend() -> str:
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
    table = data_table(
        rows,
        [
            Column("Code", "code"),
            Column("Sub-question", "title"),
            Column("Rubric", "rubric"),
            Column("Judge's question (App. F)", "question"),
            Column("Scored in", "scored_in"),
            Column("Passes on", "passes"),
        ],
        table_id="sub-question-legend",
    )
    return (
        '<details class="notes"><summary>Sub-question codes, questions and pass rules</summary>'
        f"{table}</details>"
    )


def _mode_name(number_: int) -> str:
    names = {m["number"]: m["name"] for m in vague_modes()}
    return names.get(number_, "unknown mode")


def ablations_section(content: ReportContent) -> str:
    body = [
        paragraph(
            "Pass-rate deltas (ablation minus full variant) per party and sub-question, pooled "
            "across models: anonymised party labels (Baseline, Vague) and English output (Baseline)."
        )
    ]
    any_ablation = False
    for tables, figures in content.elections:
        ablation_scores = tables.variant_scores[
            tables.variant_scores["variant"] != Variant.FULL.value
        ]
        if not figures.ablations and ablation_scores.empty:
            continue
        any_ablation = True
        body.append(_election_heading(content, tables))
        body.append(
            data_table(
                order_rows(tables.variant_scores.sort_values("emi", ascending=False)),
                [
                    Column("Variant", lambda r: variant_label(r["variant"])),
                    Column("Model", lambda r: content.labels(r["model"])),
                    Column("EMI over the variant's environments", "emi", _pct, numeric=True),
                    Column("95% CI", _ci, numeric=True),
                    Column("Environments", "n_environments", numeric=True),
                ],
                caption="EMI per variant (ablations cover fewer environments: compare within a variant)",
            )
        )
        for fig in figures.ablations:
            body.append(_figure(fig))
    if not content.elections:
        body.append(unavailable(NO_CELLS))
    elif not any_ablation:
        body.append(unavailable("this source has no ablation variants (anon_v1/, en_v1/)"))
    return section("ablations", "Label and output-language ablations (Figs. 36-38)", body)


def _agreement_columns(first: list[Column]) -> list[Column]:
    return first + [
        Column("n", "n", numeric=True),
        Column(
            "Prev.",
            "prevalence",
            lambda v: number(float(v)),
            numeric=True,
            title="marginal pass rate",
        ),
        Column(
            "Unan.",
            "unanimity",
            lambda v: number(float(v)),
            numeric=True,
            title="share of unanimous items",
        ),
        Column("Fleiss' κ", "fleiss_kappa", lambda v: number(float(v)), numeric=True),
        Column("Gwet's AC1", "gwet_ac1", lambda v: number(float(v)), numeric=True),
    ]


def judges_section(content: ReportContent) -> str:
    body = [
        paragraph(
            "Agreement of the judge panel on each judged sub-question instance: prevalence of "
            "passing verdicts, unanimity, Fleiss' kappa and the prevalence-robust Gwet's AC1."
        )
    ]
    reliability = content.reliability
    if reliability is None:
        reason = (
            "an authors' release holds only aggregated verdicts, not each judge's raw verdict"
            if content.inputs.kind == "release"
            else "the run has no judge verdicts (judges.jsonl)"
        )
        body.append(unavailable(f"judge agreement: {reason}"))
    else:
        rubric_col = Column("Rubric", lambda r: rubric_label(r["rubric"]))
        body.append(
            data_table(
                order_rows(reliability.by_rubric),
                _agreement_columns([rubric_col]),
                caption=f"Inter-judge agreement by rubric (Table 12; panel of {reliability.panel_size})",
                table_id="agreement-rubric",
            )
        )
        by_language = order_rows(reliability.by_language)
        languages = sorted(
            by_language["language"].dropna().unique(), key=lambda v: (v == "English", v)
        )
        wide = by_language.pivot(index="rubric", columns="language", values="gwet_ac1")
        wide = order_rows(wide.reindex(columns=languages).reset_index())
        body.append(
            data_table(
                wide,
                [rubric_col]
                + [
                    Column(str(lang), lang, lambda v: number(float(v)), numeric=True)
                    for lang in languages
                ],
                caption="Gwet's AC1 by answer language (Table 13; English output is the English-output ablation where the evidence is not English)",
                table_id="agreement-language",
            )
        )
        body.append(
            data_table(
                by_language,
                _agreement_columns([rubric_col, Column("Answer language", "language")]),
                caption="Agreement by rubric and answer language",
                table_id="agreement-language-long",
            )
        )
        body.append(
            data_table(
                order_rows(reliability.by_sub_question),
                _agreement_columns(
                    [
                        rubric_col,
                        Column("Sub-question", lambda r: sub_question_label(r["sub_question"])),
                    ]
                ),
                caption="Agreement by sub-question",
                table_id="agreement-sub-question",
            )
        )
        excluded = reliability.excluded
        body.append(heading(4, "Excluded items"))
        if excluded.empty:
            body.append(
                paragraph(
                    "No answer x rubric was left out: every one had a complete panel.", "small"
                )
            )
        else:
            body.append(
                paragraph(
                    f"{len(excluded)} answer x rubric combinations had fewer than "
                    f"{reliability.panel_size} complete judge verdicts after the retry and are not scored.",
                    "small",
                )
            )
            body.append(
                data_table(
                    excluded.head(MAX_LISTED_ROWS),
                    [
                        Column("Model", lambda r: content.labels(r["model"])),
                        Column("Environment", lambda r: environment_label(r["environment"])),
                        Column("Variant", "variant"),
                        Column("Observation", "observation_id"),
                        Column("Rubric", lambda r: rubric_label(r["rubric"])),
                        Column("Complete judges", "n_complete_judges", numeric=True),
                    ],
                    caption="Excluded answers x rubric (all in tables/excluded_items.csv)",
                )
            )
    if content.data.judging is not None:
        body.append(
            data_table(
                content.data.judging,
                [Column("Judging", "what"), Column("Value", "value", numeric=True)],
                caption="Judging summary (run.json)",
            )
        )
    return section("judges", "Judge reliability (Tables 12-13)", body)


def data_section(content: ReportContent) -> str:
    data = content.data
    manifest_missing = "the source has no run.json (an authors' release records no pipeline counts, calls, costs or times)"
    body = [heading(3, "Standardisation (Table 5)")]
    if data.standardisation is None:
        body.append(unavailable(manifest_missing))
    else:
        wide = data.standardisation.pivot(index="metric", columns="election_id", values="value")
        wide = wide.reindex(list(dict.fromkeys(data.standardisation["metric"]))).reset_index()
        body.append(
            data_table(
                wide,
                [Column("Metric", "metric")]
                + [
                    Column(
                        str(c),
                        str(c),
                        lambda v: f"{v:g}" if isinstance(v, float) else str(v),
                        numeric=True,
                    )
                    for c in wide.columns[1:]
                ],
                caption="Standardisation pipeline statistics",
                table_id="standardisation",
            )
        )
    body.append(heading(3, "Environments kept and dropped (Table 9)"))
    if data.environments.empty:
        body.append(unavailable("no environment items"))
    else:
        body.append(paragraph(f"Source: {data.environments_source}.", "small"))
        body.append(
            data_table(
                order_rows(data.environments),
                [
                    Column("Election", "election_id"),
                    Column("Variant", lambda r: variant_label(r["variant"])),
                    Column("Environment", lambda r: environment_label(r["environment"])),
                    Column("Kept", "kept", numeric=True),
                    Column("Dropped", "dropped", numeric=True),
                ],
                table_id="environment-counts",
            )
        )
    body.append(heading(3, "Observations and answers per environment"))
    if data.observations.empty:
        body.append(unavailable("no answers"))
    else:
        body.append(
            data_table(
                order_rows(data.observations),
                [
                    Column("Election", "election_id"),
                    Column("Variant", "variant"),
                    Column("Environment", lambda r: environment_label(r["environment"])),
                    Column("Model", lambda r: content.labels(r["model"])),
                    Column("Observations", "observations", numeric=True),
                    Column("Answers", "answers", numeric=True),
                    Column("Failed answers", "failed_answers", numeric=True),
                    Column("Scored answers", "scored_answers", numeric=True),
                ],
                table_id="observation-counts",
            )
        )
    body.append(heading(3, "Rhetorical fidelity check (App. D.4, Table 6)"))
    if data.fidelity is None:
        body.append(unavailable(data.fidelity_reason or "no evidence"))
    else:
        body.append(
            paragraph(
                "Intensifier density (matches of Table 6's word lists per 100 tokens) and length of "
                "the raw rationales versus the standardised evidence.",
                "small",
            )
        )
        dens = lambda v: number(float(v), 2)  # noqa: E731
        body.append(
            data_table(
                data.fidelity,
                [
                    Column("Language", "language"),
                    Column("Items", "items", numeric=True),
                    Column("Intensifiers listed", "intensifiers_listed", numeric=True),
                    Column("Density raw (mean)", "density_raw_mean", dens, numeric=True),
                    Column(
                        "Density standardised (mean)",
                        "density_standardised_mean",
                        dens,
                        numeric=True,
                    ),
                    Column("Density raw (pooled)", "density_raw_pooled", dens, numeric=True),
                    Column(
                        "Density standardised (pooled)",
                        "density_standardised_pooled",
                        dens,
                        numeric=True,
                    ),
                    Column("Median tokens raw", "median_tokens_raw", numeric=True),
                    Column(
                        "Median tokens standardised", "median_tokens_standardised", numeric=True
                    ),
                    Column(
                        "Median length growth",
                        "median_length_ratio",
                        lambda v: f"{float(v):.2f}×",
                        numeric=True,
                        title="median standardised tokens / median raw tokens",
                    ),
                    Column(
                        "Median expansion per item",
                        "median_expansion",
                        lambda v: f"{float(v):.2f}×",
                        numeric=True,
                        title="median over items of standardised / raw tokens",
                    ),
                ],
                table_id="fidelity",
            )
        )
    body.append(heading(3, "Calls, tokens, cost and time"))
    if data.calls is None:
        body.append(unavailable(manifest_missing))
    else:
        money = lambda v: f"${float(v):.4f}"  # noqa: E731
        body.append(
            data_table(
                data.calls,
                [
                    Column("Stage", "stage"),
                    Column("Endpoint", "endpoint"),
                    Column("Model", "model"),
                    Column("Calls", "calls", numeric=True),
                    Column("Errors", "errors", numeric=True),
                    Column("Attempts", "attempts", numeric=True),
                    Column("Input tokens", "input_tokens", lambda v: f"{int(v):,}", numeric=True),
                    Column("Output tokens", "output_tokens", lambda v: f"{int(v):,}", numeric=True),
                    Column(
                        "Reasoning tokens",
                        "reasoning_tokens",
                        lambda v: f"{int(v):,}",
                        numeric=True,
                    ),
                    Column("Cost", "cost", money, numeric=True),
                    Column(
                        "Mean latency (ms)",
                        "mean_latency_ms",
                        lambda v: f"{float(v):.0f}",
                        numeric=True,
                    ),
                ],
                caption="Calls per stage and model (from the run store)",
                table_id="calls",
            )
        )
        if data.totals:
            totals = pd.DataFrame(
                [{"what": k.replace("_", " "), "value": v} for k, v in data.totals.items()]
            )
            body.append(
                data_table(
                    totals,
                    [Column("Total", "what"), Column("Value", "value", _quantity, numeric=True)],
                    caption="Totals over the whole run",
                    table_id="totals",
                )
            )
        if data.stage_seconds is not None:
            body.append(
                data_table(
                    data.stage_seconds,
                    [
                        Column("Stage", "stage"),
                        Column("Seconds", "seconds", lambda v: f"{float(v):.1f}", numeric=True),
                    ],
                    caption="Wall-clock time per stage",
                    table_id="stage-seconds",
                )
            )
    if data.vague is not None:
        body.append(
            data_table(
                data.vague,
                [
                    Column("Election", "election_id"),
                    Column("Vague generation", "what"),
                    Column("Value", "value", numeric=True),
                ],
                caption="Vague environment generation report",
            )
        )
    return section("data-cost", "Data and cost (Tables 5, 6, 9)", body)


def _quantity(value: object) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4f}"
    return str(value)


def browser_section(content: ReportContent) -> str:
    payload = content.browser
    notes = [
        paragraph(
            "Audit individual answers: filter by model, environment, variant, party and the final "
            "verdict of a sub-question (or of the whole answer); each answer shows its context, "
            "the answer text, the final verdicts and every judge's Yes/No with its raw output."
        )
    ]
    if payload["embedded"] < payload["total"]:
        notes.append(
            paragraph(
                f"This page embeds a seeded random sample of {payload['embedded']:,} of "
                f"{payload['total']:,} answers (cap: {content.options.max_browser_answers:,}); "
                "all scores above use every answer.",
                "unavailable",
            )
        )
    if not payload["hasJudges"]:
        notes.append(
            paragraph(
                "Individual judge verdicts are not part of this source: only the final verdicts are shown.",
                "small",
            )
        )
    controls = """
<div class="filters" id="browser-filters">
  <label>Model<select id="f-model"></select></label>
  <label>Environment<select id="f-environment"></select></label>
  <label>Variant<select id="f-variant"></select></label>
  <label>Party<select id="f-party"></select></label>
  <label>Sub-question<select id="f-subq"></select></label>
  <label>Verdict<select id="f-verdict">
    <option value="">All</option><option value="pass">Pass</option><option value="fail">Fail</option>
  </select></label>
  <label>Judges<select id="f-judges">
    <option value="">All</option><option value="split">Disagree on a sub-question</option>
  </select></label>
  <label>Search<input type="search" id="f-search" placeholder="statement, answer, id"></label>
</div>
<div class="pager"><button type="button" id="b-prev">Previous</button>
<span id="b-page"></span><button type="button" id="b-next">Next</button>
<span id="b-count" data-count=""></span></div>
<div id="b-list"></div>"""
    return section(
        "browser",
        "Item browser",
        [*notes, f'<div id="item-browser" data-ready="false">{controls}</div>'],
    )


ALL_SECTIONS = (
    leaderboard_section,
    robustness_section,
    even_handedness_section,
    sub_questions_section,
    ablations_section,
    judges_section,
    data_section,
    browser_section,
)
