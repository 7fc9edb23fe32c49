"""Every analysis table, computed together, written to and read back from one folder.

A table with no rows has no file (the report never wrote empty tables; one left by an earlier
build is removed), and a missing file reads back as the empty table. An ``optional`` schema's
table is None when it was not measured (a release has no judge verdicts): no file, read back as
None; when measured it always has a file, its header alone when it has no rows.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

import pandas as pd

from polistemics.analyses.agreement import (
    AGREEMENT_BY_LANGUAGE,
    AGREEMENT_BY_RUBRIC,
    AGREEMENT_BY_SUB_QUESTION,
    AGREEMENT_BY_SUB_QUESTION_LANGUAGE,
    EXCLUDED_ITEMS,
    agreement_tables,
)
from polistemics.analyses.compositions import (
    COMPOSITION_INTERACTION,
    composition_interaction_table,
)
from polistemics.analyses.election_scores import (
    ABLATION_DELTAS,
    ADHERENCE_BY_ENVIRONMENT,
    BASELINE_PARTY_ADHERENCE,
    BOOTSTRAP,
    DISPERSION,
    ENVIRONMENT_DIFFICULTY,
    LEADERBOARD,
    LOO_DEVIATIONS,
    LOO_SUMMARY,
    PARTY_SPREAD,
    PARTY_SPREAD_BY_RUBRIC,
    RUBRIC_SCORES,
    SUB_QUESTION_PASS_RATES,
    VAGUE_MODES,
    VARIANT_SCORES,
    election_score_tables,
)
from polistemics.analyses.expansion import (
    EXPANSION_UNAVAILABLE,
    EXPANSION_VS_I4,
    expansion_tables,
)
from polistemics.analyses.failure_cooccurrence import (
    FAILURE_COOCCURRENCE,
    failure_cooccurrence_table,
)
from polistemics.analyses.fidelity import FIDELITY, FIDELITY_UNAVAILABLE, fidelity_tables
from polistemics.analyses.judges import (
    JUDGE_MAJORITY_AGREEMENT,
    JUDGE_PASS_RATES,
    JUDGE_STRICTNESS,
    judge_analyses,
)
from polistemics.analyses.mechanisms import MECHANISM_SCHEMAS, mechanism_analysis_tables
from polistemics.analyses.party_findings import (
    I4_BY_VARIANT,
    IMPARTIALITY_POOLED,
    MEAN_PARTY_SPREAD,
    PARTY_ADHERENCE,
    PARTY_PASS_RATES,
    PARTY_VS_REST,
    party_finding_tables,
)
from polistemics.analyses.pushback import (
    PUSHBACK_SCHEMAS,
    PushbackRecords,
    pushback_analysis_tables,
)
from polistemics.analyses.schema import TableSchema
from polistemics.analyses.self_consistency import (
    SELF_CONSISTENCY_SCHEMAS,
    self_consistency_tables,
)
from polistemics.records import Evidence
from polistemics.runlog import EnvironmentItem, JudgeVerdictRecord, ProbeAnswer, StanceCodeRecord
from polistemics.scoring.bootstrap import DEFAULT_RESAMPLES
from polistemics.scoring.cells import compact_cells
from polistemics.scoring.verdicts import PanelTally


@dataclass(frozen=True)
class AnalysisTables:
    failure_cooccurrence: pd.DataFrame  # FAILURE_COOCCURRENCE
    # the score tables of every election with their bootstrap CIs (analyses.election_scores)
    leaderboard: pd.DataFrame = field(default_factory=LEADERBOARD.empty)
    adherence_by_environment: pd.DataFrame = field(default_factory=ADHERENCE_BY_ENVIRONMENT.empty)
    dispersion: pd.DataFrame = field(default_factory=DISPERSION.empty)
    environment_difficulty: pd.DataFrame = field(default_factory=ENVIRONMENT_DIFFICULTY.empty)
    rubric_scores: pd.DataFrame = field(default_factory=RUBRIC_SCORES.empty)
    sub_question_pass_rates: pd.DataFrame = field(default_factory=SUB_QUESTION_PASS_RATES.empty)
    party_spread: pd.DataFrame = field(default_factory=PARTY_SPREAD.empty)
    party_spread_by_rubric: pd.DataFrame = field(default_factory=PARTY_SPREAD_BY_RUBRIC.empty)
    baseline_party_adherence: pd.DataFrame = field(default_factory=BASELINE_PARTY_ADHERENCE.empty)
    loo_deviations: pd.DataFrame = field(default_factory=LOO_DEVIATIONS.empty)
    loo_summary: pd.DataFrame = field(default_factory=LOO_SUMMARY.empty)
    vague_modes: pd.DataFrame = field(default_factory=VAGUE_MODES.empty)
    ablation_deltas: pd.DataFrame = field(default_factory=ABLATION_DELTAS.empty)
    variant_scores: pd.DataFrame = field(default_factory=VARIANT_SCORES.empty)
    bootstrap: pd.DataFrame = field(default_factory=BOOTSTRAP.empty)
    # the party and pooled analyses of every election (analyses.party_findings)
    party_adherence: pd.DataFrame = field(default_factory=PARTY_ADHERENCE.empty)
    party_pass_rates: pd.DataFrame = field(default_factory=PARTY_PASS_RATES.empty)
    mean_party_spread: pd.DataFrame = field(default_factory=MEAN_PARTY_SPREAD.empty)
    party_vs_rest: pd.DataFrame = field(default_factory=PARTY_VS_REST.empty)
    i4_by_variant: pd.DataFrame = field(default_factory=I4_BY_VARIANT.empty)
    impartiality_pooled: pd.DataFrame = field(default_factory=IMPARTIALITY_POOLED.empty)
    # App. D.4 per election (analyses.expansion): its rows, or why it has none
    expansion_vs_i4: pd.DataFrame = field(default_factory=EXPANSION_VS_I4.empty)
    expansion_vs_i4_unavailable: pd.DataFrame = field(default_factory=EXPANSION_UNAVAILABLE.empty)
    # App. D.4's rhetorical fidelity over the source's evidence (analyses.fidelity)
    fidelity: pd.DataFrame = field(default_factory=FIDELITY.empty)
    fidelity_unavailable: pd.DataFrame = field(default_factory=FIDELITY_UNAVAILABLE.empty)
    # combined environments beside their parts (analyses.compositions; issue 30)
    composition_interaction: pd.DataFrame = field(default_factory=COMPOSITION_INTERACTION.empty)
    # judge reliability (analyses.agreement); None: no raw judge verdicts
    agreement_by_rubric: pd.DataFrame | None = None
    agreement_by_sub_question: pd.DataFrame | None = None
    agreement_by_language: pd.DataFrame | None = None
    agreement_by_sub_question_language: pd.DataFrame | None = None
    excluded_items: pd.DataFrame | None = None
    # per-judge analyses (analyses.judges); None: no raw judge verdicts
    judge_pass_rates: pd.DataFrame | None = None
    judge_majority_agreement: pd.DataFrame | None = None
    judge_strictness: pd.DataFrame | None = None
    # mechanism analyses (analyses.mechanisms); None: the run did not code stances
    mechanisms_fallback_by_party: pd.DataFrame | None = None
    mechanisms_fallback_by_model: pd.DataFrame | None = None
    mechanisms_fallback_excluded: pd.DataFrame | None = None
    mechanisms_first_chunk_by_party: pd.DataFrame | None = None
    mechanisms_first_chunk_by_model: pd.DataFrame | None = None
    mechanisms_first_chunk_pooled: pd.DataFrame | None = None
    mechanisms_first_chunk_paired: pd.DataFrame | None = None
    mechanisms_first_chunk_excluded: pd.DataFrame | None = None
    mechanisms_prior_by_party: pd.DataFrame | None = None
    mechanisms_prior_by_model: pd.DataFrame | None = None
    mechanisms_prior_excluded: pd.DataFrame | None = None
    mechanisms_follows_overall: pd.DataFrame | None = None
    mechanisms_follows_conditional: pd.DataFrame | None = None
    mechanisms_prior_consistent: pd.DataFrame | None = None
    mechanisms_follows_excluded: pd.DataFrame | None = None
    mechanisms_party_points: pd.DataFrame | None = None
    mechanisms_party_correlations: pd.DataFrame | None = None
    # pushback turns (analyses.pushback); None: the run had no pushback turns
    pushback_rates: pd.DataFrame | None = None
    pushback_party_asymmetry: pd.DataFrame | None = None
    # self-consistency across samples (analyses.self_consistency); None: one sample per item
    self_consistency_verdicts: pd.DataFrame | None = None
    self_consistency_stances: pd.DataFrame | None = None


SCHEMAS: dict[str, TableSchema] = {
    "failure_cooccurrence": FAILURE_COOCCURRENCE,
    "leaderboard": LEADERBOARD,
    "adherence_by_environment": ADHERENCE_BY_ENVIRONMENT,
    "dispersion": DISPERSION,
    "environment_difficulty": ENVIRONMENT_DIFFICULTY,
    "rubric_scores": RUBRIC_SCORES,
    "sub_question_pass_rates": SUB_QUESTION_PASS_RATES,
    "party_spread": PARTY_SPREAD,
    "party_spread_by_rubric": PARTY_SPREAD_BY_RUBRIC,
    "baseline_party_adherence": BASELINE_PARTY_ADHERENCE,
    "loo_deviations": LOO_DEVIATIONS,
    "loo_summary": LOO_SUMMARY,
    "vague_modes": VAGUE_MODES,
    "ablation_deltas": ABLATION_DELTAS,
    "variant_scores": VARIANT_SCORES,
    "bootstrap": BOOTSTRAP,
    "party_adherence": PARTY_ADHERENCE,
    "party_pass_rates": PARTY_PASS_RATES,
    "mean_party_spread": MEAN_PARTY_SPREAD,
    "party_vs_rest": PARTY_VS_REST,
    "i4_by_variant": I4_BY_VARIANT,
    "impartiality_pooled": IMPARTIALITY_POOLED,
    "expansion_vs_i4": EXPANSION_VS_I4,
    "expansion_vs_i4_unavailable": EXPANSION_UNAVAILABLE,
    "fidelity": FIDELITY,
    "fidelity_unavailable": FIDELITY_UNAVAILABLE,
    "composition_interaction": COMPOSITION_INTERACTION,
    "agreement_by_rubric": AGREEMENT_BY_RUBRIC,
    "agreement_by_sub_question": AGREEMENT_BY_SUB_QUESTION,
    "agreement_by_language": AGREEMENT_BY_LANGUAGE,
    "agreement_by_sub_question_language": AGREEMENT_BY_SUB_QUESTION_LANGUAGE,
    "excluded_items": EXCLUDED_ITEMS,
    "judge_pass_rates": JUDGE_PASS_RATES,
    "judge_majority_agreement": JUDGE_MAJORITY_AGREEMENT,
    "judge_strictness": JUDGE_STRICTNESS,
    **MECHANISM_SCHEMAS,
    **PUSHBACK_SCHEMAS,
    **SELF_CONSISTENCY_SCHEMAS,
}


def analysis_tables(
    cells: pd.DataFrame,
    *,
    tally: PanelTally | None = None,
    # records on disk (read in parts when iterated) where the tally holds the judges' vote
    # totals (``report.verdict_source.analysis_inputs``)
    judge_records: Iterable[JudgeVerdictRecord] | None = None,
    items: Sequence[EnvironmentItem] = (),
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    loo_min_items: int | None = None,
    stance_codes: Sequence[StanceCodeRecord] | None = None,
    probes: Sequence[ProbeAnswer] | None = None,
    evidence: Sequence[Evidence] | None = None,
    pushback: PushbackRecords | None = None,
) -> AnalysisTables:
    """Every analysis of a source: its scored cells and, for a run, the panel's vote counts
    (``tally``) and raw verdicts with the items they judge, and its stance codes and probe
    answers (None: not coded, not probed), and its standardised evidence (App. D.4; None: none).
    ``resamples`` and ``seed``: the bootstrap's;
    ``loo_min_items``: the leave-one-out flags' minimum-items gate (None: off);
    ``pushback``: the run's pushback turns, verdicts and codes (None: no pushback turns)."""
    found: dict[str, pd.DataFrame | None] = {
        **_cell_tables(
            cells, resamples=resamples, seed=seed, loo_min_items=loo_min_items, evidence=evidence
        ),
        **mechanism_analysis_tables(items, stance_codes, cells, probes),
        **fidelity_tables(evidence),
        **pushback_analysis_tables(items, pushback, judge_records),
        **self_consistency_tables(cells, items, stance_codes, resamples=resamples, seed=seed),
        "composition_interaction": composition_interaction_table(
            cells, resamples=resamples, seed=seed
        ),
    }
    if tally is not None and tally.n_verdicts:
        agreement = agreement_tables(tally)
        found |= {
            "agreement_by_rubric": agreement.by_rubric,
            "agreement_by_sub_question": agreement.by_sub_question,
            "agreement_by_language": agreement.by_language,
            "agreement_by_sub_question_language": agreement.by_sub_question_language,
            "excluded_items": agreement.excluded,
        }
    if tally is not None:
        judges = judge_analyses(judge_records, items, tally.panel_size, tally=tally)
        if judges is not None:
            found |= {
                "judge_pass_rates": judges.pass_rates,
                "judge_majority_agreement": judges.agreement,
                "judge_strictness": judges.ranking,
            }
    return AnalysisTables(**found)


def _cell_tables(
    cells: pd.DataFrame,
    *,
    resamples: int,
    seed: int,
    loo_min_items: int | None,
    evidence: Sequence[Evidence] | None,
) -> dict[str, pd.DataFrame | None]:
    """The tables computed from the cells' text columns as codes (``compact_cells``): their
    subsets and groupings of every election's cells stay small. The coded copy is let go when
    they are made, before the vote counts' tables (a million cells at 8x the paper's election:
    it held 130 MB through the judge agreement's grouping, issue 32)."""
    compact = compact_cells(cells)
    return {
        "failure_cooccurrence": failure_cooccurrence_table(compact),
        **election_score_tables(
            compact, resamples=resamples, seed=seed, loo_min_items=loo_min_items
        ),
        **party_finding_tables(compact, resamples=resamples, seed=seed),
        **expansion_tables(compact, evidence),
    }


def write_analysis_tables(tables: AnalysisTables, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for entry in fields(tables):
        table, schema = getattr(tables, entry.name), SCHEMAS[entry.name]
        if table is None or (table.empty and not schema.optional):
            schema.path(folder).unlink(missing_ok=True)  # not read back from an earlier build
        else:
            written.append(schema.write(table, folder))
    return written


def copy_analysis_tables(source: Path, folder: Path) -> None:
    """The analysis tables' files of ``source`` copied byte for byte into ``folder`` (a table
    with no file in ``source`` has none in ``folder`` either)."""
    folder.mkdir(parents=True, exist_ok=True)
    for schema in SCHEMAS.values():
        target = schema.path(folder)
        if schema.path(source).is_file():
            target.unlink(missing_ok=True)  # a link there is replaced, its target left alone
            shutil.copyfile(schema.path(source), target)
        else:
            target.unlink(missing_ok=True)


def read_analysis_tables(folder: Path) -> AnalysisTables:
    found = {}
    for name, schema in SCHEMAS.items():
        if schema.path(folder).is_file():
            found[name] = schema.read(folder)
        else:
            found[name] = None if schema.optional else schema.empty()
    return AnalysisTables(**found)
