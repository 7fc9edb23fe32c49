"""The paper's remaining analyses as report tables (issue 15, item 3), beside ``tables.py``.

Per election (``FindingTables``, from the scored cells, the full variant unless a column says):

- party x environment Adherence Index with bootstrap CIs and sub-question pass rates with Wilson
  CIs (``scoring.party_analyses``), the mean party spread per model, party-vs-rest deviations;
- I4 Sanitization per party across Full / Anon / English (Figs. 39/40);
- Impartiality sub-questions pooled over environments per model (Fig. 22);
- failure co-occurrence phi between Faithfulness and Epistemic Calibration per environment;
- App. D.4: Spearman correlation of evidence expansion with the item's I4 pass rate (Baseline,
  full variant, pooled over models) and the expansion terciles, when the source has evidence
  (``analyses.expansion``; its rows, or the reason there are none, read back from ``tables/``).

Per report (``JudgeTables``, from a run's raw judge verdicts; a release has none): per-judge
pass rates, agreement with the panel majority and a strictness ranking, computed by
``analyses.judges`` and read back from ``tables/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from polistemics.analyses.elections import election_rows
from polistemics.analyses.expansion import election_expansion
from polistemics.analyses.party_findings import PARTY_SCHEMAS, PartyFindings, party_findings
from polistemics.analyses.tables import AnalysisTables
from polistemics.records import Evidence
from polistemics.scoring.bootstrap import DEFAULT_RESAMPLES

# an election with neither rows nor a reason in tables/ (a file removed by hand)
NOT_IN_TABLES = "tables/expansion_vs_i4.csv has no rows for this election"


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
    expansion, reason = election_expansion(cells, election_id, evidence)
    return _findings(found, election_id, expansion, reason, loo_min_items)


def finding_tables_of(
    analyses: AnalysisTables, election_id: str, *, loo_min_items: int | None = None
) -> FindingTables:
    """One election's findings as read back from ``tables/``, the App. D.4 expansion analysis
    (its rows, or the reason it has none) included."""
    found = PartyFindings(
        **{name: election_rows(getattr(analyses, name), election_id) for name in PARTY_SCHEMAS}
    )
    expansion = election_rows(analyses.expansion_vs_i4, election_id)
    reasons = election_rows(analyses.expansion_vs_i4_unavailable, election_id)["reason"]
    if not expansion.empty:
        return _findings(found, election_id, expansion, None, loo_min_items)
    reason = str(reasons.iloc[0]) if len(reasons) else NOT_IN_TABLES
    return _findings(found, election_id, None, reason, loo_min_items)


def _findings(
    found: PartyFindings,
    election_id: str,
    expansion: pd.DataFrame | None,
    reason: str | None,
    loo_min_items: int | None,
) -> FindingTables:
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
