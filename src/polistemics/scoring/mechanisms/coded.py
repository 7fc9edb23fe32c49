"""The coded answers and coded probe answers as tables: one row per coded subject with what the
analyses compare it with (ground truth, chunk stances, evidence-induced stance).

A code's ``status`` says whether it can be used: ``ok`` (a strict majority stance),
``no_majority`` (the coder seats disagree, or too few could be read) or ``missing`` (no seat
could be read). Answers the run stage produced but no coder read are ``not_coded`` (only when
the answers are passed). Codes naming no item of the run are dropped and counted.

A swapped-order Contradictory item (key ``<original key>|swapped``) that is not among the items
(the release exports hold one row per observation and environment) is derived from its original:
the chunks reversed, the party's chunk index moved with them, ``chunk_order`` "swapped".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from polistemics.coding.records import SubjectCode
from polistemics.conditions import Environment
from polistemics.runlog import Answer, ProbeAnswer
from polistemics.runlog.items import EnvironmentItem

OK = "ok"
NO_MAJORITY = "no_majority"
MISSING = "missing"
NOT_CODED = "not_coded"

ANSWER_COLUMNS: tuple[str, ...] = (
    "item_key",
    "variant",
    "model",
    "sample_index",
    "environment",
    "observation_id",
    "election_id",
    "party_id",
    "party_name",
    "statement_id",
    "stance_label",  # the party's real (VAA) stance: "Agree" / "Disagree" / "Neutral"
    "expected_stance",  # Counterfactual: the evidence-induced stance
    "chunk_order",  # "original" / "swapped"
    "first_stance",  # stance of the first context chunk
    "second_stance",  # stance of the second context chunk (Contradictory)
    "target_stance",  # stance of the chunk marked as the party's evidence (evidence_index)
    "code",  # CodedStance value, None unless status is ok
    "committed",  # the Stance value the code commits to (None for no_position / both)
    "outside_knowledge",  # the coders' majority, None: cannot tell
    "status",
)

PROBE_COLUMNS: tuple[str, ...] = (
    "model",
    "sample_index",
    "subject_key",
    "election_id",
    "party_id",
    "party_name",
    "statement_id",
    "stance_label",  # None: no item of the run gives this party's stance on the statement
    "code",
    "committed",
    "status",
)


def chunk_order(item: EnvironmentItem) -> str:
    """``original`` or ``swapped`` (the field arrives with the swapped-order run option)."""
    return str(getattr(item, "chunk_order", "original"))


def code_status(code: SubjectCode) -> str:
    if code.stance is not None:
        return OK
    return MISSING if code.missing_seats >= code.seats else NO_MAJORITY


def _value(stance: object) -> str | None:
    return None if stance is None else str(getattr(stance, "value", stance))


def _chunk_stance(item: EnvironmentItem, index: int | None) -> str | None:
    if index is None or not 0 <= index < len(item.chunks):
        return None
    return _value(item.chunks[index].stance)


@dataclass
class CodedAnswers:
    frame: pd.DataFrame  # ANSWER_COLUMNS, one row per coded (or uncoded) answer
    unknown_items: int  # answer codes naming no item of the run


def coded_answers(
    items: Iterable[EnvironmentItem],
    codes: Iterable[SubjectCode],
    answers: Iterable[Answer] | None = None,
    environments: Sequence[Environment] | None = None,
) -> CodedAnswers:
    """One row per answer code; with ``answers``, also a ``not_coded`` row for each usable answer
    in ``environments`` (default: the environments that have codes) that no coder read."""
    by_key = {item.key: item for item in items}
    rows, seen, unknown = [], set(), 0
    for code in codes:
        if code.kind != "answer":
            continue
        item = by_key.get(code.subject_key) or derived_swap(code.subject_key, by_key)
        if item is None:
            unknown += 1
            continue
        seen.add((code.subject_key, code.model, code.sample_index))
        status = code_status(code)
        stance = code.stance if status == OK else None
        rows.append(
            _answer_row(
                item,
                code.model,
                code.sample_index,
                stance and stance.value,
                _value(stance and stance.committed),
                code.outside_knowledge,
                status,
            )
        )
    coded_envs = {Environment(row["environment"]) for row in rows}
    wanted = set(environments) if environments is not None else coded_envs
    for answer in answers or ():
        item = by_key.get(answer.item_key) or derived_swap(answer.item_key, by_key)
        if item is None or not answer.ok or item.environment not in wanted:
            continue
        if (answer.item_key, answer.model, answer.sample_index) in seen:
            continue
        rows.append(
            _answer_row(item, answer.model, answer.sample_index, None, None, None, NOT_CODED)
        )
    frame = pd.DataFrame(rows, columns=list(ANSWER_COLUMNS))
    frame["sample_index"] = frame["sample_index"].astype("int64")
    return CodedAnswers(frame, unknown)


SWAPPED_SUFFIX = "|swapped"


class _SwappedItem:
    """A swapped-order view of an original Contradictory item, until ``EnvironmentItem`` has
    its ``chunk_order`` field (then ``swapped_item`` returns a real item)."""

    chunk_order = "swapped"

    def __init__(self, reordered: EnvironmentItem, key: str) -> None:
        self._item = reordered
        self.key = key

    def __getattr__(self, name: str) -> object:
        return getattr(self._item, name)


def swapped_item(original: EnvironmentItem) -> EnvironmentItem:
    """The contract's swapped-order item of an original Contradictory item: chunks reversed,
    the party's chunk index moved with them, ``chunk_order`` "swapped", key + ``|swapped``."""
    index = original.evidence_index
    update: dict = {
        "chunks": list(reversed(original.chunks)),
        "evidence_index": None if index is None else len(original.chunks) - 1 - index,
    }
    if "chunk_order" in EnvironmentItem.model_fields:
        return original.model_copy(update=update | {"chunk_order": "swapped"})
    reordered = original.model_copy(update=update)
    return _SwappedItem(reordered, original.key + SWAPPED_SUFFIX)  # type: ignore[return-value]


def derived_swap(key: str, by_key: dict[str, EnvironmentItem]) -> EnvironmentItem | None:
    """The swapped-order item a ``<key>|swapped`` names, from its original in ``by_key`` (None:
    not such a key, or no original Contradictory item). Added to ``by_key``."""
    if not key.endswith(SWAPPED_SUFFIX):
        return None
    original = by_key.get(key.removesuffix(SWAPPED_SUFFIX))
    if original is None or original.environment is not Environment.CONTRADICTORY:
        return None
    if chunk_order(original) != "original":
        return None
    derived = by_key[key] = swapped_item(original)
    return derived


def _answer_row(
    item: EnvironmentItem,
    model: str,
    sample_index: int,
    code: str | None,
    committed: str | None,
    outside: bool | None,
    status: str,
) -> dict:
    return {
        "item_key": item.key,
        "variant": item.variant.value,
        "model": model,
        "sample_index": sample_index,
        "environment": item.environment.value,
        "observation_id": item.observation_id,
        "election_id": item.election_id,
        "party_id": item.party_id,
        "party_name": item.party_name,
        "statement_id": item.statement_id,
        "stance_label": item.stance_label.value,
        "expected_stance": _value(item.expected_stance),
        "chunk_order": chunk_order(item),
        "first_stance": _chunk_stance(item, 0),
        "second_stance": _chunk_stance(item, 1),
        "target_stance": _chunk_stance(item, item.evidence_index),
        "code": code,
        "committed": committed,
        "outside_knowledge": outside,
        "status": status,
    }


def probe_subject(key: str) -> tuple[str, str, str] | None:
    """(election, party, statement) of a ``prior|<election>|<party>|<statement>`` key."""
    parts = key.split("|")
    if len(parts) != 4 or parts[0] != "prior":
        return None
    return parts[1], parts[2], parts[3]


def coded_probes(
    items: Iterable[EnvironmentItem],
    codes: Iterable[SubjectCode],
    probes: Iterable[ProbeAnswer] = (),
) -> pd.DataFrame:
    """One row per probe code (PROBE_COLUMNS). The ground truth is the party's stance on the
    statement as the run's items give it (any environment; it is the same in all)."""
    truth: dict[tuple[str, str, str], tuple[str, str]] = {}
    for item in items:
        subject = (item.election_id, item.party_id, item.statement_id)
        truth.setdefault(subject, (item.stance_label.value, item.party_name))
    subjects = {
        probe.key: (probe.election_id, probe.party_id, probe.statement_id) for probe in probes
    }
    rows = []
    for code in codes:
        if code.kind != "probe":
            continue
        subject = subjects.get(code.subject_key) or probe_subject(code.subject_key)
        if subject is None:
            continue
        stance_label, party_name = truth.get(subject, (None, None))
        status = code_status(code)
        stance = code.stance if status == OK else None
        rows.append(
            {
                "model": code.model,
                "sample_index": code.sample_index,
                "subject_key": code.subject_key,
                "election_id": subject[0],
                "party_id": subject[1],
                "party_name": party_name or subject[1],
                "statement_id": subject[2],
                "stance_label": stance_label,
                "code": stance and stance.value,
                "committed": _value(stance and stance.committed),
                "status": status,
            }
        )
    frame = pd.DataFrame(rows, columns=list(PROBE_COLUMNS))
    frame["sample_index"] = frame["sample_index"].astype("int64")
    return frame
