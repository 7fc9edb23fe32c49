"""The paper's remaining analyses as report tables (issue 15, item 3), beside ``tables.py``.

Per election (``FindingTables``, from the scored cells, the full variant unless a column says):

- party x environment Adherence Index with bootstrap CIs and sub-question pass rates with Wilson
  CIs (``scoring.party_analyses``), the mean party spread per model, party-vs-rest deviations;
- I4 Sanitization per party across Full / Anon / English (Figs. 39/40);
- Impartiality sub-questions pooled over environments per model (Fig. 22);
- failure co-occurrence phi between Faithfulness and Epistemic Calibration per environment;
- App. D.4: Spearman correlation of evidence expansion with the item's I4 pass rate (Baseline,
  full variant, pooled over models) and the expansion terciles, when the source has evidence.

Per report (``JudgeTables``, from a run's raw judge verdicts; a release has none): per-judge
pass rates, agreement with the panel majority and a strictness ranking, computed by
``analyses.judges`` and read back from ``tables/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from polistemics.analyses.elections import election_cells, election_rows
from polistemics.analyses.party_findings import PARTY_SCHEMAS, PartyFindings, party_findings
from polistemics.analyses.tables import AnalysisTables
from polistemics.conditions import Environment, Variant
from polistemics.evidence.fidelity import InvalidScore, expansion_vs_sanitisation
from polistemics.evidence.languages import UnsupportedLanguage
from polistemics.records import Evidence
from polistemics.scoring.bootstrap import DEFAULT_RESAMPLES
from polistemics.scoring.cells import scoreable_cells
from polistemics.scoring.party_analyses import SANITISATION

FULL = Variant.FULL.value
BASELINE = Environment.BASELINE.value


@dataclass
class FindingTables:
    election_id: str
    party_adherence: pd.DataFrame
    party_pass_rates: pd.DataFrame
    mean_party_spread: pd.DataFrame
    party_vs_rest: pd.DataFrame
    sanitisation: pd.DataFrame  # Figs. 39/40: I4 per party x variant (Baseline)
    impartiality: pd.DataFrame  # Fig. 22: I1-I5 per model pooled over environments
    expansion: pd.DataFrame | None  # App. D.4 terciles (with rho); None: see expansion_reason
    expansion_reason: str | None
    loo_min_items: int | None  # the minimum-items gate of the LOO flags; None: off (the paper)


def expansion_table(
    cells: pd.DataFrame, evidence: Sequence[Evidence] | None
) -> tuple[pd.DataFrame | None, str | None]:
    """App. D.4 per evidence language: Spearman rho of expansion (characters of the standardised
    text with ``[PARTY]`` over characters of the raw rationale, ``evidence.fidelity.expansion``)
    vs the item's I4 pass rate (Baseline, full variant, pooled over models), the median
    expansion, and one row per expansion tercile."""
    if not evidence:
        return None, "the source has no standardised evidence with its raw rationale"
    kept, _ = scoreable_cells(cells)
    i4 = kept[
        (kept["sub_question"] == SANITISATION)
        & (kept["environment"] == BASELINE)
        & (kept["variant"] == FULL)
    ]
    if i4.empty:
        return None, "no I4 Sanitization cells under Baseline"
    rates = i4.groupby("observation_id")["passed"].mean().to_dict()
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
                }
            )
    if not rows:
        return None, "no evidence item has an I4 pass rate"
    return pd.DataFrame(rows), None


def finding_tables(
    cells: pd.DataFrame,
    election_id: str,
    *,
    evidence: Sequence[Evidence] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    loo_min_items: int | None = None,
) -> FindingTables:
    """One election's findings computed on the spot (``analyses.party_findings``), not read
    from ``tables/``: for drawing its figures alone (the report uses ``finding_tables_of``)."""
    found = party_findings(cells, election_id, resamples=resamples, seed=seed)
    return _findings(found, cells, election_id, evidence, loo_min_items)


def finding_tables_of(
    analyses: AnalysisTables,
    cells: pd.DataFrame,
    election_id: str,
    *,
    evidence: Sequence[Evidence] | None = None,
    loo_min_items: int | None = None,
) -> FindingTables:
    """One election's findings as read back from ``tables/``, with the App. D.4 expansion
    analysis of its evidence."""
    found = PartyFindings(
        **{name: election_rows(getattr(analyses, name), election_id) for name in PARTY_SCHEMAS}
    )
    return _findings(found, cells, election_id, evidence, loo_min_items)


def _findings(
    found: PartyFindings,
    cells: pd.DataFrame,
    election_id: str,
    evidence: Sequence[Evidence] | None,
    loo_min_items: int | None,
) -> FindingTables:
    everything, _ = election_cells(cells, election_id)
    observations = set(everything["observation_id"])  # once, not once per evidence item
    election_evidence = [e for e in evidence or [] if e.observation_id in observations]
    expansion, reason = expansion_table(everything, election_evidence)
    return FindingTables(
        election_id=election_id,
        party_adherence=found.party_adherence,
        party_pass_rates=found.party_pass_rates,
        mean_party_spread=found.mean_party_spread,
        party_vs_rest=found.party_vs_rest,
        sanitisation=found.i4_by_variant,
        impartiality=found.impartiality_pooled,
        expansion=expansion,
        expansion_reason=reason,
        loo_min_items=loo_min_items,
    )


@dataclass
class JudgeTables:
    pass_rates: pd.DataFrame
    agreement: pd.DataFrame
    ranking: pd.DataFrame
    panel_size: int


def judge_tables(analyses: AnalysisTables, panel_size: int) -> JudgeTables | None:
    """The per-judge tables of ``analyses.judges`` as read back; None without raw verdicts."""
    found = (
        analyses.judge_pass_rates,
        analyses.judge_majority_agreement,
        analyses.judge_strictness,
    )
    if any(table is None for table in found):
        return None
    pass_rates, agreement, ranking = found
    return JudgeTables(pass_rates, agreement, ranking, panel_size)
