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

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

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


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'polistemics.scoring.mechanisms' has no attribute '{name}'")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


class _Package(ModuleType):
    """Importing the submodules ``follows_evidence`` and ``prior_accuracy`` binds their names in
    this package; the public names are their functions (as when this file imported them), so the
    bindings are skipped."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, ModuleType) and _EXPORTS.get(name) == f"{__name__}.{name}":
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
