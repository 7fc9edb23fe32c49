"""Mechanism analyses (issue 16): what answers' coded stances say about fallback, first-chunk
preference and party priors. One analysis per module, pure functions on typed inputs; no model
is called here. Definitions: ``docs/mechanisms.md``.

- ``coded``: coded answers and probe answers as tables;
- ``fallback``: fallback accuracy under Absent;
- ``first_chunk``: first-chunk preference under Contradictory, position bias vs prior preference;
- ``prior_accuracy``: closed-book prior accuracy and each model's prior per party x statement;
- ``follows_evidence``: P(follows the evidence | prior agrees / disagrees);
- ``party_relations``: per-party prior accuracy vs EC3 / F1 / F3 and fallback accuracy;
- ``tables``: all of them at once; ``summary``: the four headline rates per model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polistemics.lazy_exports import exported_on_first_use, keep_functions_named_like_modules

if TYPE_CHECKING:
    from polistemics.scoring.mechanisms.coded import CodedAnswers, coded_answers, coded_probes
    from polistemics.scoring.mechanisms.fallback import FallbackAccuracy, fallback_accuracy
    from polistemics.scoring.mechanisms.first_chunk import (
        FirstChunkPreference,
        first_chunk_preference,
    )
    from polistemics.scoring.mechanisms.follows_evidence import FollowsEvidence, follows_evidence
    from polistemics.scoring.mechanisms.party_relations import (
        party_correlations,
        party_points,
        spearman_with_ci,
    )
    from polistemics.scoring.mechanisms.prior_accuracy import (
        PriorAccuracy,
        prior_accuracy,
        prior_stances,
    )
    from polistemics.scoring.mechanisms.rates import difference_interval, share_rows
    from polistemics.scoring.mechanisms.summary import MechanismRates, mechanism_rates
    from polistemics.scoring.mechanisms.tables import MechanismTables, mechanism_tables

# Public name -> its module, imported on first use: a command that needs one of them does
# not load every module of the package (and their libraries) with it.
_EXPORTS = {
    "coded_answers": "polistemics.scoring.mechanisms.coded",
    "coded_probes": "polistemics.scoring.mechanisms.coded",
    "CodedAnswers": "polistemics.scoring.mechanisms.coded",
    "difference_interval": "polistemics.scoring.mechanisms.rates",
    "fallback_accuracy": "polistemics.scoring.mechanisms.fallback",
    "FallbackAccuracy": "polistemics.scoring.mechanisms.fallback",
    "first_chunk_preference": "polistemics.scoring.mechanisms.first_chunk",
    "FirstChunkPreference": "polistemics.scoring.mechanisms.first_chunk",
    "follows_evidence": "polistemics.scoring.mechanisms.follows_evidence",
    "FollowsEvidence": "polistemics.scoring.mechanisms.follows_evidence",
    "mechanism_rates": "polistemics.scoring.mechanisms.summary",
    "mechanism_tables": "polistemics.scoring.mechanisms.tables",
    "MechanismRates": "polistemics.scoring.mechanisms.summary",
    "MechanismTables": "polistemics.scoring.mechanisms.tables",
    "party_correlations": "polistemics.scoring.mechanisms.party_relations",
    "party_points": "polistemics.scoring.mechanisms.party_relations",
    "prior_accuracy": "polistemics.scoring.mechanisms.prior_accuracy",
    "prior_stances": "polistemics.scoring.mechanisms.prior_accuracy",
    "PriorAccuracy": "polistemics.scoring.mechanisms.prior_accuracy",
    "share_rows": "polistemics.scoring.mechanisms.rates",
    "spearman_with_ci": "polistemics.scoring.mechanisms.party_relations",
}

__all__ = [
    "CodedAnswers",
    "FallbackAccuracy",
    "FirstChunkPreference",
    "FollowsEvidence",
    "MechanismRates",
    "MechanismTables",
    "PriorAccuracy",
    "coded_answers",
    "coded_probes",
    "difference_interval",
    "fallback_accuracy",
    "first_chunk_preference",
    "follows_evidence",
    "mechanism_rates",
    "mechanism_tables",
    "party_correlations",
    "party_points",
    "prior_accuracy",
    "prior_stances",
    "share_rows",
    "spearman_with_ci",
]


__getattr__ = exported_on_first_use(__name__, _EXPORTS)
keep_functions_named_like_modules(__name__, _EXPORTS)
