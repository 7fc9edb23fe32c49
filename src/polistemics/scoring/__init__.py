"""Scoring: judge verdicts -> scored cells -> Rubric Scores, Adherence Indices, EMI and analyses.

- ``verdicts``: judge verdict records and the panel's strict-majority vote.
- ``cells``: the scored-cells table every source produces and every index consumes.
- ``indices``: pass rates, Rubric Scores, Adherence Indices, EMI at any grain.
- ``summary``: ``score_cells`` -> per-model ``ModelScores`` (what ``polistemics score`` prints).
- ``analyses``: environment difficulty, dispersion, party spread, leave-one-out, ablations,
  vague modes.
- ``agreement``: the judge panel's agreement tables; ``flips``: the judge flip rate;
  ``bootstrap``: percentile CIs of the indices (the formulas and the engine are ``stats``').
- ``release``: read and write the authors' release score files.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from polistemics.scoring.agreement import agreement_table
    from polistemics.scoring.analyses import (
        ablation_deltas,
        environment_difficulty,
        leave_one_out,
        model_dispersion,
        party_spread,
    )
    from polistemics.scoring.bootstrap import bootstrap_indices
    from polistemics.scoring.cells import validate_cells
    from polistemics.scoring.flips import FlipRate, flip_table
    from polistemics.scoring.indices import (
        adherence_indices,
        emi_scores,
        rubric_scores,
        sub_question_rates,
    )
    from polistemics.scoring.release import ReleaseScores, load_release
    from polistemics.scoring.summary import ModelScores, score_cells
    from polistemics.scoring.verdicts import MajorityResult, majority

# Public name -> its module. Imported on first use, so that a command importing one scoring
# module (``annotate serve``, ``score``) does not load every analysis with it.
_EXPORTS = {
    "FlipRate": "flips",
    "MajorityResult": "verdicts",
    "ModelScores": "summary",
    "ReleaseScores": "release",
    "ablation_deltas": "analyses",
    "adherence_indices": "indices",
    "agreement_table": "agreement",
    "bootstrap_indices": "bootstrap",
    "emi_scores": "indices",
    "environment_difficulty": "analyses",
    "flip_table": "flips",
    "leave_one_out": "analyses",
    "load_release": "release",
    "majority": "verdicts",
    "model_dispersion": "analyses",
    "party_spread": "analyses",
    "rubric_scores": "indices",
    "score_cells": "summary",
    "sub_question_rates": "indices",
    "validate_cells": "cells",
}
__all__ = [
    "FlipRate",
    "MajorityResult",
    "ModelScores",
    "ReleaseScores",
    "ablation_deltas",
    "adherence_indices",
    "agreement_table",
    "bootstrap_indices",
    "emi_scores",
    "environment_difficulty",
    "flip_table",
    "leave_one_out",
    "load_release",
    "majority",
    "model_dispersion",
    "party_spread",
    "rubric_scores",
    "score_cells",
    "sub_question_rates",
    "validate_cells",
]


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'polistemics.scoring' has no attribute '{name}'")
    return getattr(import_module(f"polistemics.scoring.{_EXPORTS[name]}"), name)
