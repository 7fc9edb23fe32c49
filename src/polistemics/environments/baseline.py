"""Baseline: the observation's own standardised evidence, ``[PARTY]`` filled with its label."""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import check_evidence, make_item, party_label, target_chunk
from polistemics.records import Evidence
from polistemics.runlog.items import EnvironmentItem


def baseline_item(ev: Evidence, variant: Variant = Variant.FULL) -> EnvironmentItem:
    label = party_label(ev.position.party, variant, observation_id=ev.observation_id)
    return make_item(ev, Environment.BASELINE, variant, [target_chunk(ev, label)])


def build_baseline_items(
    evidence: Sequence[Evidence], variant: Variant = Variant.FULL
) -> list[EnvironmentItem]:
    check_evidence(evidence)
    return [baseline_item(ev, variant) for ev in evidence]
