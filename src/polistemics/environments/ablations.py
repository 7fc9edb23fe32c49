"""The two ablations of Sec. 6, built like the authors' release (``anon_v1``, ``en_v1``).

- Anonymised labels (Baseline and Vague): the party is called by its anonymised label in the
  question and in the chunks; the Vague rewrites are the same as in the full run, only the label
  filled into ``[PARTY]`` changes (the release's ``anon_v1`` Vague chunks are exactly its full
  run's with the name replaced by the label).
- English output (Baseline): ``output_language="English"``; evidence and question unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.conditions import Variant
from polistemics.environments.baseline import build_baseline_items
from polistemics.environments.basis import observation_major
from polistemics.environments.vague import VagueRewrite, build_vague_items
from polistemics.records import Evidence
from polistemics.runlog.items import EnvironmentItem


def anonymized_items(
    evidence: Sequence[Evidence], rewrites: Sequence[VagueRewrite] = ()
) -> list[EnvironmentItem]:
    """Baseline and (for the observations that have a rewrite) Vague, under anonymised labels."""
    baseline = build_baseline_items(evidence, Variant.ANONYMIZED)
    vague = build_vague_items(evidence, rewrites, variant=Variant.ANONYMIZED)
    return observation_major(evidence, baseline + vague)


def english_items(evidence: Sequence[Evidence]) -> list[EnvironmentItem]:
    """Baseline with English output; the evidence stays in its source language."""
    return build_baseline_items(evidence, Variant.ENGLISH)
