"""App. D.4 per election: does I4 Sanitization follow how much standardisation expanded the
evidence? Spearman rho of each evidence passage's expansion (``evidence.fidelity.expansion``:
characters of the standardised text with ``[PARTY]`` over characters of the raw rationale) with
the item's I4 pass rate (Baseline, full variant, pooled over models), per evidence language,
with its 95% interval (Fisher z, Bonett-Wright standard error: ``stats.spearman_interval``)
and n, the median expansion and one row per expansion tercile.

Two tables: ``expansion_vs_i4`` (the rows, ``election_id`` first) and
``expansion_vs_i4_unavailable`` (why an election has none: no evidence, no I4 cells, ...), so
the section's "not shown because" is data read back from ``tables/`` like its numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from polistemics.analyses.columns import ELECTION
from polistemics.analyses.elections import election_cells, elections_in, joined
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.conditions import Environment, Variant
from polistemics.evidence.fidelity import InvalidScore, expansion_vs_sanitisation
from polistemics.evidence.languages import UnsupportedLanguage
from polistemics.records import Evidence
from polistemics.scoring.cells import grouped, scoreable_cells
from polistemics.scoring.party_analyses import SANITISATION
from polistemics.stats import spearman_interval

NO_EVIDENCE = "the source has no standardised evidence with its raw rationale"
NO_I4 = "no I4 Sanitization cells under Baseline"
NO_RATE = "no evidence item has an I4 pass rate"

EXPANSION_VS_I4 = TableSchema(
    "expansion_vs_i4",
    "App. D.4: expansion of the evidence vs the item's I4 pass rate, per language and tercile",
    (
        ELECTION,
        TableColumn("language", "text", "the evidence's language"),
        TableColumn("spearman_rho", "float", "Spearman rho of expansion vs I4 pass rate"),
        TableColumn("p_value", "float", "two-sided p of rho"),
        TableColumn("n_items", "int", "evidence items with an I4 pass rate"),
        TableColumn("median_expansion", "float", "median expansion (standardised / raw chars)"),
        TableColumn("tercile", "int", "expansion tercile (1 = least expanded)"),
        TableColumn("tercile_items", "int", "items in the tercile"),
        TableColumn("expansion_min", "float", "smallest expansion in the tercile"),
        TableColumn("expansion_max", "float", "largest expansion in the tercile"),
        TableColumn("i4_pass_rate", "float", "mean I4 pass rate of the tercile's items"),
        TableColumn("parties", "int", "parties with items in the tercile"),
        TableColumn("party_min", "float", "lowest party mean I4 pass rate in the tercile"),
        TableColumn("party_max", "float", "highest party mean I4 pass rate in the tercile"),
        TableColumn(
            "rho_ci_low",
            "float",
            "95% CI of rho, lower bound (Fisher z, Bonett-Wright SE; empty: n_items <= 3)",
        ),
        TableColumn("rho_ci_high", "float", "95% CI of rho, upper bound"),
    ),
)
EXPANSION_UNAVAILABLE = TableSchema(
    "expansion_vs_i4_unavailable",
    "App. D.4: why an election has no expansion_vs_i4 rows",
    (ELECTION, TableColumn("reason", "text", "why the analysis was not made")),
)


def expansion_table(
    cells: pd.DataFrame, evidence: Sequence[Evidence] | None
) -> tuple[pd.DataFrame | None, str | None]:
    """One election's App. D.4 rows (without ``election_id``), or None and the reason."""
    if not evidence:
        return None, NO_EVIDENCE
    kept, _ = scoreable_cells(cells)
    i4 = kept[
        (kept["sub_question"] == SANITISATION)
        & (kept["environment"] == Environment.BASELINE.value)
        & (kept["variant"] == Variant.FULL.value)
    ]
    if i4.empty:
        return None, NO_I4
    rates = grouped(i4, "observation_id")["passed"].mean().to_dict()
    by_language: dict[str, list[Evidence]] = {}
    for passage in evidence:
        if passage.observation_id in rates:
            by_language.setdefault(passage.position.language, []).append(passage)
    rows = []
    for language, passages in sorted(by_language.items()):
        try:
            report = expansion_vs_sanitisation(passages, rates)
        except (InvalidScore, UnsupportedLanguage) as exc:
            return None, str(exc)
        rho = report.correlation.rho
        rho_low, rho_high = spearman_interval(math.nan if rho is None else rho, report.items)
        for tercile in report.terciles:
            rows.append(
                {
                    "language": language,
                    "spearman_rho": report.correlation.rho,
                    "p_value": report.correlation.p_value,
                    "n_items": report.items,
                    "median_expansion": report.median_expansion,
                    "tercile": tercile.tercile,
                    "tercile_items": tercile.items,
                    "expansion_min": tercile.expansion_min,
                    "expansion_max": tercile.expansion_max,
                    "i4_pass_rate": tercile.i4_pass_rate,
                    "parties": len(tercile.by_party),
                    "party_min": min(tercile.by_party.values()),
                    "party_max": max(tercile.by_party.values()),
                    "rho_ci_low": rho_low,
                    "rho_ci_high": rho_high,
                }
            )
    if not rows:
        return None, NO_RATE
    return pd.DataFrame(rows), None


def election_expansion(
    cells: pd.DataFrame, election_id: str, evidence: Sequence[Evidence] | None
) -> tuple[pd.DataFrame | None, str | None]:
    """``expansion_table`` of one election's cells (every variant) and its own evidence."""
    everything, _ = election_cells(cells, election_id)
    observations = set(everything["observation_id"])  # once, not once per evidence item
    own = [e for e in evidence or [] if e.observation_id in observations]
    return expansion_table(everything, own)


def expansion_tables(
    cells: pd.DataFrame, evidence: Sequence[Evidence] | None
) -> dict[str, pd.DataFrame]:
    """Both tables over every election of ``cells``."""
    rows, reasons = [], []
    for election_id in elections_in(cells):
        table, reason = election_expansion(cells, election_id, evidence)
        if table is None:
            reasons.append(pd.DataFrame({"election_id": [election_id], "reason": [reason]}))
        else:
            rows.append(table.assign(election_id=election_id))
    return {
        "expansion_vs_i4": joined(rows, EXPANSION_VS_I4),
        "expansion_vs_i4_unavailable": joined(reasons, EXPANSION_UNAVAILABLE),
    }
