"""The score tables behind the report's figures, for one election (country) at a time.

The tables are computed by ``analyses.election_scores`` (each one's meaning is in its schema
there), written to ``tables/`` and read back; ``election_tables_of`` takes one election's rows
of them, under the names the sections and figures use, with the order of its models (by EMI)
and environments (Baseline first, then by difficulty, easiest first).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from polistemics.analyses.election_scores import (
    ELECTION_SCHEMAS,
    ElectionScores,
    election_scores,
)
from polistemics.analyses.elections import election_rows
from polistemics.analyses.tables import AnalysisTables
from polistemics.conditions import Environment
from polistemics.scoring.bootstrap import DEFAULT_RESAMPLES
from polistemics.scoring.cells import distinct_texts

BASELINE = Environment.BASELINE.value


@dataclass
class ElectionTables:
    """Every score table of one election (full variant unless the name says otherwise)."""

    election_id: str
    country: str | None
    models: list[str]  # ordered by EMI, highest first
    environments: list[str]  # Baseline first, then by difficulty
    leaderboard: pd.DataFrame
    robustness: pd.DataFrame
    dispersion: pd.DataFrame
    difficulty: pd.DataFrame
    rubric_scores: pd.DataFrame
    sub_question_rates: pd.DataFrame
    party_spread: pd.DataFrame
    party_spread_rubric: pd.DataFrame
    baseline_parties: pd.DataFrame
    loo: pd.DataFrame
    loo_summary: pd.DataFrame
    vague_modes: pd.DataFrame | None  # None: no Vague cells with a recorded mode
    ablations: pd.DataFrame  # ablation deltas of every ablation variant present
    variant_scores: pd.DataFrame  # EMI and Adherence Index per variant x model (ablations too)
    bootstrap: pd.DataFrame

    @property
    def label(self) -> str:
        """``NL (tk2025)``; the election id alone when the country code is one of ISO 3166's
        user-assigned codes (the fictional demo's ``XX``), which would read as a placeholder."""
        if self.country and not user_assigned_country(self.country):
            return f"{self.country} ({self.election_id})"
        return self.election_id


def user_assigned_country(code: str) -> bool:
    """AA, QM-QZ, XA-XZ and ZZ: ISO 3166-1 codes that name no country."""
    code = code.strip().upper()
    if len(code) != 2:
        return False
    return code in ("AA", "ZZ") or code[0] == "X" or (code[0] == "Q" and code[1] >= "M")


def country_of(cells: pd.DataFrame) -> str | None:
    countries = distinct_texts(cells["country"])
    return countries[0] if len(countries) == 1 and countries[0] else None


def environment_columns(difficulty: pd.DataFrame) -> list[str]:
    """Baseline first, then the other environments easiest first (Fig. 3's column order)."""
    ordered = [e for e in difficulty["environment"] if e != BASELINE]
    return ([BASELINE] if BASELINE in set(difficulty["environment"]) else []) + ordered


def election_tables(
    cells: pd.DataFrame,
    election_id: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    loo_min_items: int | None = None,
) -> ElectionTables:
    """One election's tables computed on the spot (``analyses.election_scores``), not read
    from ``tables/``: for drawing its figures alone (the report uses ``election_tables_of``)."""
    scores = election_scores(
        cells, election_id, resamples=resamples, seed=seed, loo_min_items=loo_min_items
    )
    return _tables(scores, election_id, _country(cells, election_id))


def election_tables_of(
    analyses: AnalysisTables, cells: pd.DataFrame, election_id: str
) -> ElectionTables:
    """One election's tables as read back from ``tables/`` (the cells give only its country)."""
    found = {name: election_rows(getattr(analyses, name), election_id) for name in ELECTION_SCHEMAS}
    if found["vague_modes"].empty:
        found["vague_modes"] = None  # no Vague cells with a recorded mode
    return _tables(ElectionScores(**found), election_id, _country(cells, election_id))


def _country(cells: pd.DataFrame, election_id: str) -> str | None:
    # of its country column alone: a copy of the election's every cell took 90 MB at 8x
    return country_of(cells.loc[cells["election_id"] == election_id, ["country"]])


def _tables(scores: ElectionScores, election_id: str, country: str | None) -> ElectionTables:
    return ElectionTables(
        election_id=election_id,
        country=country,
        models=list(scores.leaderboard["model"]),
        environments=environment_columns(scores.environment_difficulty),
        leaderboard=scores.leaderboard,
        robustness=scores.adherence_by_environment,
        dispersion=scores.dispersion,
        difficulty=scores.environment_difficulty,
        rubric_scores=scores.rubric_scores,
        sub_question_rates=scores.sub_question_pass_rates,
        party_spread=scores.party_spread,
        party_spread_rubric=scores.party_spread_by_rubric,
        baseline_parties=scores.baseline_party_adherence,
        loo=scores.loo_deviations,
        loo_summary=scores.loo_summary,
        vague_modes=scores.vague_modes,
        ablations=scores.ablation_deltas,
        variant_scores=scores.variant_scores,
        bootstrap=scores.bootstrap,
    )
