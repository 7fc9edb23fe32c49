"""App. D.4's rhetorical fidelity check over the source's evidence: per evidence language,
intensifier density and length of the raw rationales against the standardised texts
(``evidence.fidelity.compare_fidelity``; pooled over elections, as the report always showed it).

Two tables: ``fidelity`` (one row per language) and ``fidelity_unavailable`` (one row: why there
is none: no evidence, an unsupported language), so the "Data and cost" section's reason is data
read back from ``tables/`` like its numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.evidence.fidelity import compare_fidelity, intensifiers
from polistemics.evidence.languages import UnsupportedLanguage
from polistemics.records import Evidence

NO_EVIDENCE = "no standardised evidence"

FIDELITY = TableSchema(
    "fidelity",
    "App. D.4: intensifier density and length, raw vs standardised evidence, per language",
    (
        TableColumn("language", "text", "the evidence's language code"),
        TableColumn("items", "int", "evidence items"),
        TableColumn("intensifiers_listed", "int", "words in the language's intensifier list"),
        TableColumn("density_raw_mean", "float", "mean intensifiers per 100 tokens, raw"),
        TableColumn("density_standardised_mean", "float", "the same, standardised"),
        TableColumn("density_raw_pooled", "float", "all matches per 100 of all tokens, raw"),
        TableColumn("density_standardised_pooled", "float", "the same, standardised"),
        TableColumn("median_tokens_raw", "float", "median tokens of a raw rationale"),
        TableColumn("median_tokens_standardised", "float", "median tokens of a standardised text"),
        TableColumn("median_length_ratio", "float", "median standardised / median raw tokens"),
        TableColumn("median_expansion", "float", "median expansion in characters (D.4)"),
    ),
)
FIDELITY_UNAVAILABLE = TableSchema(
    "fidelity_unavailable",
    "App. D.4: why the source has no fidelity rows",
    (TableColumn("reason", "text", "why the check was not made"),),
)


def fidelity_table(evidence: Sequence[Evidence] | None) -> tuple[pd.DataFrame | None, str | None]:
    """The rows per language, or None and the reason."""
    if not evidence:
        return None, NO_EVIDENCE
    try:
        comparisons = compare_fidelity(list(evidence))
    except UnsupportedLanguage as exc:
        return None, str(exc)
    rows = [
        {
            "language": code,
            "items": c.items,
            "intensifiers_listed": len(intensifiers(code)),
            "density_raw_mean": c.raw.mean_density,
            "density_standardised_mean": c.standardised.mean_density,
            "density_raw_pooled": c.raw.pooled_density,
            "density_standardised_pooled": c.standardised.pooled_density,
            "median_tokens_raw": c.raw.median_tokens,
            "median_tokens_standardised": c.standardised.median_tokens,
            "median_length_ratio": c.median_length_ratio,
            "median_expansion": c.median_expansion,
        }
        for code, c in comparisons.items()
    ]
    return pd.DataFrame(rows, columns=FIDELITY.names), None


def fidelity_tables(evidence: Sequence[Evidence] | None) -> dict[str, pd.DataFrame]:
    table, reason = fidelity_table(evidence)
    return {
        "fidelity": FIDELITY.empty() if table is None else FIDELITY.check(table),
        "fidelity_unavailable": FIDELITY_UNAVAILABLE.check(
            pd.DataFrame({"reason": [] if reason is None else [reason]})
        ),
    }
