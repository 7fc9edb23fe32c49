"""Hand-made items, coder records, probe answers and cells whose mechanism rates are known."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from polistemics.conditions import Environment, Variant
from polistemics.records import Stance
from polistemics.rubrics import BY_KEY
from polistemics.runlog import CodedStance, StanceCodeRecord
from polistemics.runlog.items import Chunk, EnvironmentItem

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


def mechanism_scenario() -> tuple[list[EnvironmentItem], list[StanceCodeRecord], list[dict]]:
    """Items, coder records and EC4 cells whose headline rates for model m1 are known:
    fallback 1/2, first chunk (original order) 1/2, prior accuracy 2/3, follows evidence 1/2."""
    fallback = [absent("p1", 1, A), absent("p1", 2, D), absent("p2", 1, A)]
    conflict = [contradictory("p1", 1, A), contradictory("p2", 1, A)]
    prior_conflict = [counterfactual("p1", 1, A), counterfactual("p2", 1, A)]
    records = [
        # Absent: two fall back (one right, one wrong); the third does not fall back.
        seat(fallback[0].key, CodedStance.AGREE, outside=True),
        seat(fallback[1].key, CodedStance.AGREE, outside=True),
        seat(fallback[2].key, CodedStance.AGREE, outside=False),
        # Contradictory: one follows the first chunk, one the second (two coder seats agree).
        *(seat(conflict[0].key, CodedStance.AGREE, position=i) for i in range(2)),
        *(seat(conflict[1].key, CodedStance.DISAGREE, position=i) for i in range(2)),
        # The swapped order of the first: follows the (now first) opposing chunk.
        *(seat(conflict[0].key + "|swapped", CodedStance.DISAGREE, position=i) for i in range(2)),
        # Counterfactual (evidence: Disagree): one follows, one keeps the real stance.
        seat(prior_conflict[0].key, CodedStance.DISAGREE),
        seat(prior_conflict[1].key, CodedStance.AGREE),
        probe_seat("p1", 1, CodedStance.AGREE),
        probe_seat("p2", 1, CodedStance.DISAGREE),  # wrong: p2 agrees
        probe_seat("p1", 2, CodedStance.DISAGREE),
    ]
    items = fallback + conflict + prior_conflict
    return items, records, [ec4_cell(target, fails=False) for target in fallback]


def write_mechanism_run(target: Path, *, coded: bool = True) -> Path:
    """A finished run directory of the scenario: every active sub-question passes except EC4
    fallback cells as the scenario says; answers, exports, stance codes and probe answers."""
    from polistemics.rubrics import active_rubrics, sub_questions
    from polistemics.runlog import (
        PRIOR_PROBE_FILE,
        STANCE_CODES_FILE,
        Answer,
        ProbeAnswer,
        RunDir,
        write_jsonl,
    )
    from polistemics.runlog.release_io import write_items
    from polistemics.scoring.cells import CELL_COLUMNS, validate_cells

    items, records, ec4 = mechanism_scenario()
    fixed = {(c["observation_id"], c["environment"], c["sub_question"]): c for c in ec4}
    rows = []
    for target_item in items:
        for rubric in active_rubrics(target_item.environment):
            for sq in sub_questions(rubric, target_item.environment):
                key = (target_item.observation_id, target_item.environment.value, sq.key)
                rows.append(fixed.get(key) or sq_cell(target_item, sq.key, True))
    cells = pd.DataFrame(rows, columns=list(CELL_COLUMNS))
    target.mkdir(parents=True, exist_ok=True)
    RunDir(target).write_cells(validate_cells(cells))
    write_items(items, target / "exports" / ELECTION / "ground_truth.jsonl")
    keys = [i.key for i in items] + [items[3].key + "|swapped"]
    answers = [Answer(item_key=k, model="m1", status="ok", text=f"Answer to {k}") for k in keys]
    write_jsonl(target / "answers.jsonl", (a.model_dump(mode="json") for a in answers))
    manifest = {"config": {"name": "mechanisms-scenario", "judges": ["j"]}}
    (target / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    if coded:
        write_jsonl(target / STANCE_CODES_FILE, (r.model_dump(mode="json") for r in records))
        probes = [
            ProbeAnswer(
                election_id=ELECTION,
                party_id=party,
                statement_id=f"{ELECTION}__s{statement:03d}",
                model="m1",
                language="German",
                status="ok",
                text=f"<script>alert('{party}')</script> closed-book answer",
            )
            for party, statement in (("p1", 1), ("p2", 1), ("p1", 2))
        ]
        write_jsonl(target / PRIOR_PROBE_FILE, (p.model_dump(mode="json") for p in probes))
    return target
