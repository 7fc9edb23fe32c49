"""Mechanism analyses (issue 16) as tables: fallback accuracy, first-chunk preference, prior
accuracy, following the evidence and per-party relations, computed by ``scoring.mechanisms``
from a run's stance codes and shown by the report's "Mechanisms" section.

Every table is ``optional``: None (no file) when the run did not code stances (a release, or no
``stance_coder``); a coded run writes all of them, an empty one as its header alone (the prior
tables of a run without a probe). ``MECHANISM_SCHEMAS`` maps each ``AnalysisTables`` field to its
schema; the field is the file's name, as the report wrote it before.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from polistemics.analyses.columns import ENVIRONMENT, MODEL, PARTY, PARTY_NAME, VARIANT, WILSON_CI
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.runlog import EnvironmentItem, ProbeAnswer, StanceCodeRecord
from polistemics.scoring.mechanisms import MechanismTables, mechanism_tables

_RULE = TableColumn("rule", "text", "how Absent answers are selected: union, ec4 or coder")
_ORDER = TableColumn("chunk_order", "text", "the Contradictory chunks' order: original, swapped")
_MEASURE = TableColumn("measure", "text", "what is measured (see the table's meaning)")
_ALL_PARTIES = TableColumn("party_id", "text", "the party; empty: all parties", True)
_SHARE = (
    TableColumn("n", "int", "answers counted"),
    TableColumn("successes", "int", "answers with the property"),
    TableColumn("rate", "float", "successes / n"),
    *WILSON_CI,
)
_EXCLUDED = (
    TableColumn("reason", "text", "why answers were left out"),
    TableColumn("count", "int", "answers left out for that reason"),
)
_ABSTAIN = (
    TableColumn("abstentions", "int", "probe answers with no position or both"),
    TableColumn("abstention_rate", "float", "abstentions / probe answers"),
)


def _schema(name: str, meaning: str, *columns: TableColumn) -> TableSchema:
    return TableSchema(f"mechanisms_{name}", meaning, columns, optional=True)


def _condition(prefix: str) -> tuple[TableColumn, ...]:
    return tuple(
        TableColumn(f"{prefix}_{c.name}", c.type, f"{c.meaning}, the prior {prefix[6:]}")
        for c in _SHARE
    )


MECHANISM_SCHEMAS: dict[str, TableSchema] = {
    s.name: s
    for s in (
        _schema(
            "fallback_by_party",
            "Fallback accuracy under Absent per rule x variant x model x party",
            _RULE,
            VARIANT,
            MODEL,
            PARTY,
            PARTY_NAME,
            *_SHARE,
        ),
        _schema(
            "fallback_by_model",
            "Fallback accuracy under Absent per rule x variant x model",
            _RULE,
            VARIANT,
            MODEL,
            *_SHARE,
        ),
        _schema(
            "fallback_excluded",
            "Absent answers left out of fallback accuracy",
            _RULE,
            VARIANT,
            MODEL,
            *_EXCLUDED,
        ),
        _schema(
            "first_chunk_by_party",
            "Committed Contradictory answers following the first chunk, per party",
            _ORDER,
            VARIANT,
            MODEL,
            PARTY,
            PARTY_NAME,
            *_SHARE,
        ),
        _schema(
            "first_chunk_by_model",
            "Committed Contradictory answers following the first chunk, per model",
            _ORDER,
            VARIANT,
            MODEL,
            *_SHARE,
        ),
        _schema(
            "first_chunk_pooled",
            "Both orders pooled: following the first chunk (position) or the real position (prior)",
            _MEASURE,
            VARIANT,
            MODEL,
            *_SHARE,
            _ALL_PARTIES,
            PARTY_NAME,
        ),
        _schema(
            "first_chunk_paired",
            "McNemar exact tests over answers committed in both orders",
            VARIANT,
            MODEL,
            TableColumn("test", "text", "the paired comparison"),
            TableColumn("pairs", "int", "answer pairs"),
            TableColumn("concordant", "int", "pairs that agree"),
            TableColumn("discordant_for", "int", "discordant pairs for"),
            TableColumn("discordant_against", "int", "discordant pairs against"),
            TableColumn("p_value", "float", "McNemar exact p"),
        ),
        _schema(
            "first_chunk_excluded",
            "Contradictory answers left out of first-chunk preference",
            _ORDER,
            VARIANT,
            MODEL,
            *_EXCLUDED,
        ),
        _schema(
            "prior_by_party",
            "Closed-book prior accuracy per model x party",
            MODEL,
            PARTY,
            PARTY_NAME,
            *_SHARE,
            *_ABSTAIN,
        ),
        _schema(
            "prior_by_model",
            "Closed-book prior accuracy per model",
            MODEL,
            *_SHARE,
            *_ABSTAIN,
        ),
        _schema("prior_excluded", "Probe answers left out", MODEL, *_EXCLUDED),
        _schema(
            "follows_overall",
            "Committed answers that follow the evidence (Counterfactual, Contradictory)",
            ENVIRONMENT,
            VARIANT,
            MODEL,
            _ALL_PARTIES,
            PARTY_NAME,
            *_SHARE,
        ),
        _schema(
            "follows_conditional",
            "P(follows the evidence | the prior agrees) vs P(follows | the prior disagrees)",
            ENVIRONMENT,
            VARIANT,
            MODEL,
            _ALL_PARTIES,
            PARTY_NAME,
            *_condition("prior_agrees"),
            *_condition("prior_disagrees"),
            TableColumn("difference", "float", "agrees rate - disagrees rate"),
            TableColumn("difference_low", "float", "Newcombe 95% CI, lower bound"),
            TableColumn("difference_high", "float", "Newcombe 95% CI, upper bound"),
        ),
        _schema(
            "prior_consistent",
            "Committed answers that state the model's prior",
            ENVIRONMENT,
            VARIANT,
            MODEL,
            _ALL_PARTIES,
            PARTY_NAME,
            *_SHARE,
        ),
        _schema(
            "follows_excluded",
            "Answers left out of following the evidence",
            ENVIRONMENT,
            VARIANT,
            MODEL,
            *_EXCLUDED,
        ),
        _schema(
            "party_points",
            "Per party: prior accuracy against a pass rate or fallback accuracy",
            VARIANT,
            MODEL,
            _MEASURE,
            PARTY,
            PARTY_NAME,
            TableColumn("prior_accuracy", "float", "the party's prior accuracy"),
            TableColumn("prior_n", "int", "probe answers counted"),
            TableColumn("value", "float", "the measure's value for the party"),
            TableColumn("value_n", "int", "answers counted for the value"),
        ),
        _schema(
            "party_correlations",
            "Spearman correlation over parties of prior accuracy and each measure",
            VARIANT,
            MODEL,
            _MEASURE,
            TableColumn("n_parties", "int", "parties"),
            TableColumn("rho", "float", "Spearman rho"),
            TableColumn("p_value", "float", "its p"),
            TableColumn("ci_low", "float", "Fisher z 95% CI, lower bound"),
            TableColumn("ci_high", "float", "Fisher z 95% CI, upper bound"),
        ),
    )
}


def mechanism_frames(tables: MechanismTables) -> dict[str, pd.DataFrame]:
    """The tables of ``scoring.mechanisms`` by ``MECHANISM_SCHEMAS`` name."""
    t = tables
    return {
        "mechanisms_fallback_by_party": t.fallback.by_party,
        "mechanisms_fallback_by_model": t.fallback.by_model,
        "mechanisms_fallback_excluded": t.fallback.excluded,
        "mechanisms_first_chunk_by_party": t.first_chunk.by_party,
        "mechanisms_first_chunk_by_model": t.first_chunk.by_model,
        "mechanisms_first_chunk_pooled": t.first_chunk.pooled,
        "mechanisms_first_chunk_paired": t.first_chunk.paired,
        "mechanisms_first_chunk_excluded": t.first_chunk.excluded,
        "mechanisms_prior_by_party": t.prior.by_party,
        "mechanisms_prior_by_model": t.prior.by_model,
        "mechanisms_prior_excluded": t.prior.excluded,
        "mechanisms_follows_overall": t.follows.overall,
        "mechanisms_follows_conditional": t.follows.conditional,
        "mechanisms_prior_consistent": t.follows.prior_consistent,
        "mechanisms_follows_excluded": t.follows.excluded,
        "mechanisms_party_points": t.party_points,
        "mechanisms_party_correlations": t.party_correlations,
    }


def mechanism_analysis_tables(
    items: Sequence[EnvironmentItem],
    stance_codes: Sequence[StanceCodeRecord] | None,
    cells: pd.DataFrame,
    probes: Sequence[ProbeAnswer] | None,
) -> dict[str, pd.DataFrame | None]:
    """Every mechanism table; all None when the run did not code stances."""
    if stance_codes is None:
        return dict.fromkeys(MECHANISM_SCHEMAS)
    tables = mechanism_tables(items, stance_codes, cells, probes=probes or [])
    # An empty frame's columns depend on how it came out empty (the pooled table has its
    # measure last then): its file is the schema's header.
    return {
        name: MECHANISM_SCHEMAS[name].empty() if frame.empty else frame
        for name, frame in mechanism_frames(tables).items()
    }
