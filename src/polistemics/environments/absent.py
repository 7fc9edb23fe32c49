"""Absent: no evidence at all; the answerer's context is ``ABSENT_SENTINEL`` (see task_prompt)."""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import check_evidence, make_item
from polistemics.records import Evidence
from polistemics.runlog.items import EnvironmentItem


def build_absent_items(
    evidence: Sequence[Evidence], variant: Variant = Variant.FULL
) -> list[EnvironmentItem]:
    check_evidence(evidence)
    return [make_item(ev, Environment.ABSENT, variant, []) for ev in evidence]
