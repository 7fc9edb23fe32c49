"""Everything the report shows, computed once from ``ReportInputs``: score tables and figures per
election, judge reliability, data and cost tables, and the item browser's payload."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import pandas as pd

from polistemics.analyses.elections import elections_in
from polistemics.analyses.tables import AnalysisTables
from polistemics.annotate.stats import AnnotationStats
from polistemics.report.browser import browser_payload
from polistemics.report.cross_election import (
    CrossComparison,
    CrossElection,
    cross_comparisons,
    drawn_cross_elections,
)
from polistemics.report.datasets import (
    StageTimes,
    calls_table,
    environment_counts,
    invocation_table,
    judge_parsing_table,
    judging_summary,
    observation_counts,
    planted_by_model_table,
    stage_times,
    standardisation_table,
    vague_table,
)
from polistemics.report.figures import ElectionFigures, election_figures
from polistemics.report.figures.findings import FindingFigures, finding_figures
from polistemics.report.findings import (
    FindingTables,
    JudgeTables,
    finding_tables_of,
    judge_tables,
)
from polistemics.report.human_validation import human_validation_stats
from polistemics.report.inputs import ReportInputs
from polistemics.report.labels import ModelLabels
from polistemics.report.mechanisms import (
    MechanismCodes,
    MechanismContent,
    answer_stances,
    mechanism_codes,
    mechanism_content,
)
from polistemics.report.options import ReportOptions as ReportOptions  # its home before
from polistemics.report.reliability import ReliabilityTables, reliability_tables
from polistemics.report.tables import ElectionTables, election_tables_of


@dataclass
class DataTables:
    standardisation: pd.DataFrame | None  # Table 5
    environments: pd.DataFrame  # Table 9 (kept / dropped)
    environments_source: str
    observations: pd.DataFrame
    fidelity: pd.DataFrame | None  # App. D.4
    fidelity_reason: str | None
    calls: pd.DataFrame | None
    stage_seconds: StageTimes | None  # of the invocation that made the calls
    invocations: pd.DataFrame | None  # run.json's invocation history
    judging: pd.DataFrame | None
    vague: pd.DataFrame | None
    totals: dict | None
    judge_parsing: pd.DataFrame | None = None  # per judge and output mode (run.json)
    planted_by_model: pd.DataFrame | None = None  # answers that planted verdicts, per model


@dataclass
class ReportContent:
    inputs: ReportInputs
    labels: ModelLabels
    options: ReportOptions
    elections: list[tuple[ElectionTables, ElectionFigures]]
    reliability: ReliabilityTables | None
    data: DataTables
    browser: dict
    generated: str
    analyses: AnalysisTables  # the analysis tables, as read back from tables/ (analyses/)
    cross_elections: list[CrossElection] = field(default_factory=list)  # App. I, read back
    findings: list[tuple[FindingTables, FindingFigures]] = field(default_factory=list)
    judges: JudgeTables | None = None  # per-judge analyses; None: no raw verdicts
    human_validation: AnnotationStats | None = None  # a run's human labels; None: a release
    mechanisms: MechanismContent | None = None  # issue 16; tables None: no stance codes


@dataclass
class ScoreContent:
    """What the report computes from scores, answers, verdicts and evidence, not from the
    manifest: nearly all of its work, so a run can do it before its manifest exists."""

    labels: ModelLabels
    observations: pd.DataFrame
    browser: dict
    # App. I, computed; the report writes their tables and draws them as read back
    cross_elections: list[CrossComparison] = field(default_factory=list)
    mechanism_codes: MechanismCodes | None = None  # None: no stance codes


def _election_parts(
    inputs: ReportInputs, options: ReportOptions, analyses: AnalysisTables, labels: ModelLabels
) -> tuple[
    list[tuple[ElectionTables, ElectionFigures]], list[tuple[FindingTables, FindingFigures]]
]:
    """Each election's tables (read back from ``tables/``) and figures."""
    elections, findings = [], []
    for election_id in elections_in(inputs.cells):
        tables = election_tables_of(analyses, inputs.cells, election_id)
        elections.append((tables, election_figures(tables, labels)))
        found = finding_tables_of(analyses, election_id, loo_min_items=options.loo_min_items)
        findings.append((found, finding_figures(found, tables, labels)))
    return elections, findings


def _fidelity_reason(analyses: AnalysisTables) -> str | None:
    """Why the fidelity table has no rows, as read back (None: it has rows)."""
    if not analyses.fidelity.empty:
        return None
    reasons = analyses.fidelity_unavailable["reason"]
    return str(reasons.iloc[0]) if len(reasons) else "tables/fidelity.csv has no rows"


def score_content(inputs: ReportInputs, options: ReportOptions | None = None) -> ScoreContent:
    """The manifest-free part of ``build_content`` (``inputs.manifest`` is not read) that does
    not draw the analysis tables: a run makes it before its manifest and its tables exist."""
    options = options or ReportOptions()
    labels = options.labels()
    codes = mechanism_codes(inputs)
    browser = browser_payload(
        inputs.answers,
        inputs.cells,
        inputs.judge_records,
        labels,
        max_answers=options.max_browser_answers,
        seed=options.seed,
        stances=answer_stances(codes),
    )
    return ScoreContent(
        labels=labels,
        observations=observation_counts(inputs.answers, inputs.cells),
        browser=browser,
        cross_elections=cross_comparisons(
            inputs.cells, inputs.source, resamples=options.bootstrap_resamples, seed=options.seed
        ),
        mechanism_codes=codes,
    )


def build_content(
    inputs: ReportInputs,
    options: ReportOptions | None = None,
    *,
    analyses: AnalysisTables,
    scores: ScoreContent | None = None,
    cross_elections: list[CrossElection] | None = None,
    human_validation: AnnotationStats | None | Literal["compute"] = "compute",
) -> ReportContent:
    """Everything the page shows; ``scores``, when given, is ``score_content`` of the same inputs
    and options (computed earlier, before the manifest was written); ``analyses``: the analysis
    tables of the same inputs, as read back from ``tables/``; ``cross_elections``: ``scores``'
    comparisons as read back from ``tables/`` (``write_report``; None: drawn as computed);
    ``human_validation``: the run's annotation statistics as read back from ``tables/``
    (``write_report``; "compute": computed here and drawn as computed)."""
    options = options or ReportOptions()
    scores = scores or score_content(inputs, options)
    elections, findings = _election_parts(inputs, options, analyses, scores.labels)
    environments, environments_source = environment_counts(inputs.manifest, inputs.items)
    panel_size = inputs.panel_size
    data = DataTables(
        standardisation=standardisation_table(inputs.manifest),
        environments=environments,
        environments_source=environments_source,
        observations=scores.observations,
        fidelity=None if analyses.fidelity.empty else analyses.fidelity,
        fidelity_reason=_fidelity_reason(analyses),
        calls=calls_table(inputs.manifest),
        stage_seconds=stage_times(inputs.manifest),
        invocations=invocation_table(inputs.manifest),
        judging=judging_summary(inputs.manifest),
        vague=vague_table(inputs.manifest),
        totals=inputs.manifest.totals if inputs.manifest is not None else None,
        judge_parsing=judge_parsing_table(inputs.manifest),
        planted_by_model=planted_by_model_table(inputs.manifest),
    )
    return ReportContent(
        inputs=inputs,
        labels=scores.labels,
        options=options,
        elections=elections,
        reliability=reliability_tables(analyses, panel_size),
        data=data,
        browser=scores.browser,
        generated=datetime.now(UTC).isoformat(timespec="seconds"),
        cross_elections=(
            cross_elections
            if cross_elections is not None
            else drawn_cross_elections(scores.cross_elections, scores.labels)
        ),
        findings=findings,
        judges=judge_tables(analyses, panel_size),
        human_validation=(
            human_validation_stats(inputs)
            if isinstance(human_validation, str)
            else human_validation
        ),
        mechanisms=mechanism_content(analyses, scores.mechanism_codes, scores.labels),
        analyses=analyses,
    )
