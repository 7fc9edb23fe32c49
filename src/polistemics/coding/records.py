"""The coder panel's majority per subject (``majority_codes``), from the seats' records.

The records themselves (``StanceCodeRecord``, ``CodedStance``) and the probe answers they may
code (``ProbeAnswer``) are persisted in the run directory, so they live in ``runlog``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from polistemics.runlog import CodedStance, StanceCodeRecord


class SubjectCode(BaseModel):
    """The coder panel's majority on one subject."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["answer", "probe"]
    subject_key: str
    model: str
    sample_index: int
    stance: CodedStance | None  # None: no strict majority of readable seats, or all missing
    outside_knowledge: bool | None
    seats: int  # coder seats that read it
    missing_seats: int


def _strict_majority(values: list) -> object | None:
    """The value more than half of ``values`` share, else None."""
    if not values:
        return None
    value, count = Counter(values).most_common(1)[0]
    return value if count * 2 > len(values) else None


def majority_codes(records: Iterable[StanceCodeRecord]) -> list[SubjectCode]:
    """One code per subject x model x sample. The stance is the strict majority of all seats
    (a missing seat counts against every stance, so 1 readable seat of 3 gives no majority);
    ``outside_knowledge`` is the strict majority of the seats that could tell."""
    groups: dict[tuple, list[StanceCodeRecord]] = {}
    for record in records:
        key = (record.kind, record.subject_key, record.model, record.sample_index)
        groups.setdefault(key, []).append(record)
    codes = []
    for (kind, subject, model, sample), seats in sorted(groups.items()):
        stances = [seat.stance for seat in seats]
        stance = _strict_majority(stances)
        told = [seat.outside_knowledge for seat in seats if seat.outside_knowledge is not None]
        codes.append(
            SubjectCode(
                kind=kind,
                subject_key=subject,
                model=model,
                sample_index=sample,
                stance=stance,
                outside_knowledge=_strict_majority(told),
                seats=len(seats),
                missing_seats=sum(s is None for s in stances),
            )
        )
    return codes
