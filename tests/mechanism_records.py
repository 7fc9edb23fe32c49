"""Hand-made items, coder records, probe answers and cells whose mechanism rates are known."""

from __future__ import annotations

from polistemics.coding.records import CodedStance, StanceCodeRecord
from polistemics.conditions import Environment, Variant
from polistemics.environments.items import Chunk, EnvironmentItem
from polistemics.records import Stance
from polistemics.rubrics import BY_KEY

A, D, N = Stance.AGREE, Stance.DISAGREE, Stance.NEUTRAL
ELECTION = "e"


def obs(party: str, statement: int) -> str:
    return f"{ELECTION}__{party}__s{statement:03d}"


def item(
    environment: Environment,
    party: str = "p1",
    statement: int = 1,
    *,
    truth: Stance = A,
    chunks: tuple[Stance, ...] = (),
    evidence_index: int | None = None,
    expected: Stance | None = None,
    swapped: bool = False,
    variant: Variant = Variant.FULL,
) -> EnvironmentItem:
    fields = dict(
        observation_id=obs(party, statement),
        election_id=ELECTION,
        party_id=party,
        party_name=party.upper(),
        party_anonymized="Party X",
        statement_id=f"{ELECTION}__s{statement:03d}",
        statement_number=statement,
        statement_text="A statement.",
        stance_label=truth,
        environment=environment,
        variant=variant,
        language="German",
        output_language="German",
        chunks=[
            Chunk(text=f"chunk {i}", role="target", party_id=party, statement_id="s", stance=s)
            for i, s in enumerate(chunks)
        ],
        evidence_index=evidence_index,
        expected_stance=expected,
    )
    if swapped and "chunk_order" in EnvironmentItem.model_fields:
        fields["chunk_order"] = "swapped"
    built = EnvironmentItem(**fields)
    return (
        _Swapped(built) if swapped and "chunk_order" not in EnvironmentItem.model_fields else built
    )


class _Swapped:
    """Stands in for a swapped-order item until ``EnvironmentItem.chunk_order`` exists."""

    def __init__(self, inner: EnvironmentItem) -> None:
        self._inner = inner
        self.chunk_order = "swapped"

    @property
    def key(self) -> str:
        return f"{self._inner.key}|swapped"

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def contradictory(
    party: str, statement: int, truth: Stance = A, *, swapped: bool = False
) -> EnvironmentItem:
    other = D if truth is A else A
    order = (other, truth) if swapped else (truth, other)
    return item(
        Environment.CONTRADICTORY,
        party,
        statement,
        truth=truth,
        chunks=order,
        evidence_index=1 if swapped else 0,
        swapped=swapped,
    )


def counterfactual(party: str, statement: int, truth: Stance = A) -> EnvironmentItem:
    other = D if truth is A else A
    return item(
        Environment.COUNTERFACTUAL, party, statement, truth=truth, chunks=(other,), expected=other
    )


def absent(party: str, statement: int, truth: Stance = A) -> EnvironmentItem:
    return item(Environment.ABSENT, party, statement, truth=truth)


def seat(
    subject_key: str,
    stance: CodedStance | None,
    *,
    model: str = "m1",
    outside: bool | None = None,
    position: int = 0,
    sample: int = 0,
    kind: str = "answer",
) -> StanceCodeRecord:
    return StanceCodeRecord(
        kind=kind,
        subject_key=subject_key,
        model=model,
        sample_index=sample,
        coder="coder",
        panel_position=position,
        stance=stance,
        outside_knowledge=outside,
        missing=None if stance is not None else "unreadable",
    )


def probe_seat(
    party: str, statement: int, stance: CodedStance | None, *, model: str = "m1", sample: int = 0
) -> StanceCodeRecord:
    key = f"prior|{ELECTION}|{party}|{ELECTION}__s{statement:03d}"
    return seat(key, stance, model=model, sample=sample, kind="probe")


def ec4_cell(target: EnvironmentItem, fails: bool, model: str = "m1") -> dict:
    return sq_cell(target, "parametric_fallback", not fails, model)


def sq_cell(target: EnvironmentItem, sub_question: str, passed: bool, model: str = "m1") -> dict:
    return {
        "model": model,
        "environment": target.environment.value,
        "variant": target.variant.value,
        "observation_id": target.observation_id,
        "sample_index": 0,
        "party_id": target.party_id,
        "election_id": target.election_id,
        "language": "German",
        "rubric": BY_KEY[sub_question].rubric.value,
        "sub_question": sub_question,
        "passed": passed,
        "party_name": target.party_name,
        "country": "DE",
        "vague_mode": None,
    }
