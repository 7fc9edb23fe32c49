"""Every mechanism analysis of a run at once, from its items, scored cells and stance codes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from polistemics.coding.records import majority_codes
from polistemics.runlog import Answer, ProbeAnswer, StanceCodeRecord
from polistemics.runlog.items import EnvironmentItem
from polistemics.scoring.mechanisms.coded import coded_answers, coded_probes
from polistemics.scoring.mechanisms.fallback import FallbackAccuracy, fallback_accuracy
from polistemics.scoring.mechanisms.first_chunk import FirstChunkPreference, first_chunk_preference
from polistemics.scoring.mechanisms.follows_evidence import FollowsEvidence, follows_evidence
from polistemics.scoring.mechanisms.party_relations import party_correlations, party_points
from polistemics.scoring.mechanisms.prior_accuracy import (
    PriorAccuracy,
    prior_accuracy,
    prior_stances,
)


@dataclass
class MechanismTables:
    answers: pd.DataFrame  # coded.coded_answers
    probes: pd.DataFrame  # coded.coded_probes
    unknown_items: int  # answer codes naming no item of the run
    fallback: FallbackAccuracy
    first_chunk: FirstChunkPreference
    prior: PriorAccuracy
    priors: pd.DataFrame  # prior_stances: the model's prior per party x statement
    follows: FollowsEvidence
    party_points: pd.DataFrame
    party_correlations: pd.DataFrame

    @property
    def coded(self) -> bool:
        """Whether the run coded any answer."""
        return not self.answers.empty

    @property
    def probed(self) -> bool:
        """Whether the run coded any probe answer."""
        return not self.probes.empty


def mechanism_tables(
    items: Iterable[EnvironmentItem],
    records: Iterable[StanceCodeRecord],
    cells: pd.DataFrame,
    *,
    answers: Iterable[Answer] | None = None,
    probes: Iterable[ProbeAnswer] = (),
) -> MechanismTables:
    """All analyses; ``records`` are the coder seats' records (their panel majority is taken)."""
    items = list(items)
    codes = majority_codes(records)
    coded = coded_answers(items, codes, answers)
    probe_frame = coded_probes(items, codes, probes)
    fallback = fallback_accuracy(coded.frame, cells)
    prior = prior_accuracy(probe_frame)
    priors = prior_stances(probe_frame)
    points = party_points(prior.by_party, cells, fallback.by_party)
    return MechanismTables(
        answers=coded.frame,
        probes=probe_frame,
        unknown_items=coded.unknown_items,
        fallback=fallback,
        first_chunk=first_chunk_preference(coded.frame),
        prior=prior,
        priors=priors,
        follows=follows_evidence(coded.frame, priors if not probe_frame.empty else None),
        party_points=points,
        party_correlations=party_correlations(points),
    )
