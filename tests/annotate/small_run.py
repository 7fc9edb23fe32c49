"""A small finished run directory for the annotation tests, with known panel agreement.

Five items of one election (Baseline, Noisy and Absent of one observation; Baseline and
Contradictory of another), answered by two target models. Three judges sit on the panel; the
first two always agree, the third agrees on ``target-a``'s answers and flips its first verdict
on ``target-b``'s, so an answer x rubric is "split" exactly when ``target-b`` answered. One
answer of ``target-b`` failed, so it was never judged. ``hostile`` puts markup in every text.
"""

from __future__ import annotations

import json
from pathlib import Path

from polistemics.conditions import Environment, Variant
from polistemics.records import Stance
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.runlog import Answer, JudgeVerdictRecord, RunDir, write_jsonl
from polistemics.runlog.items import Chunk, EnvironmentItem
from polistemics.runlog.release_io import write_items
from polistemics.scoring.verdict_table import item_metadata, verdict_table
from polistemics.scoring.verdicts import majority

JUDGES = ("judge-a", "judge-b", "judge-c")
MODELS = ("target-a", "target-b")
ELECTION = "xx_test"
HOSTILE = "<img src=x onerror=alert(1)><script>alert('x')</script>&amp;"
FAILED = ("o2|ie_consistency_contradiction|full", "target-b")


def _item(observation: str, env: Environment, chunks: list[Chunk], mark: str) -> EnvironmentItem:
    return EnvironmentItem(
        observation_id=observation,
        election_id=ELECTION,
        party_id="p1",
        party_name=f"Harbour Party{mark}",
        party_anonymized="Party A",
        statement_id=f"s-{observation}",
        statement_number=1,
        statement_text=f"The harbour should be expanded.{mark}",
        stance_label=Stance.AGREE,
        environment=env,
        variant=Variant.FULL,
        language="English",
        output_language="English",
        chunks=chunks,
        evidence_index=0 if chunks else None,
        expected_stance=Stance.AGREE if env.conclusive else None,
        conflict_party_id="p2" if env is Environment.CONTRADICTORY else None,
    )


def small_items(hostile: bool = False) -> list[EnvironmentItem]:
    mark = HOSTILE if hostile else ""

    def chunk(text: str, role: str = "target", party: str = "p1") -> Chunk:
        return Chunk(text=text + mark, role=role, party_id=party, statement_id="s-o1")

    target = chunk("Harbour Party wants a bigger harbour.")
    return [
        _item("o1", Environment.BASELINE, [target], mark),
        _item(
            "o1",
            Environment.NOISY,
            [target, chunk("The Rail Party wants trams.", "distractor", "p3")],
            mark,
        ),
        _item("o1", Environment.ABSENT, [], mark),
        _item("o2", Environment.BASELINE, [target], mark),
        _item(
            "o2",
            Environment.CONTRADICTORY,
            [target, chunk("Harbour Party opposes any expansion.", party="p2")],
            mark,
        ),
    ]


def small_answers(items: list[EnvironmentItem], hostile: bool = False) -> list[Answer]:
    mark = HOSTILE if hostile else ""
    answers = []
    for item in items:
        for model in MODELS:
            if (item.key, model) == FAILED:
                answers.append(Answer(item_key=item.key, model=model, status="error", error="x"))
                continue
            text = f"The party agrees [1].{mark}\nANSWER: Yes ({item.environment.label})"
            answers.append(Answer(item_key=item.key, model=model, status="ok", text=text))
    return answers


def small_records(items: list[EnvironmentItem], answers: list[Answer]) -> list[JudgeVerdictRecord]:
    by_key = {item.key: item for item in items}
    records = []
    for answer in answers:
        if not answer.ok:
            continue
        item = by_key[answer.item_key]
        for rubric in active_rubrics(item.environment):
            keys = [sq.key for sq in sub_questions(rubric, item.environment)]
            for position, judge in enumerate(JUDGES):
                says = {key: i % 2 == 0 for i, key in enumerate(keys)}
                if position == 2 and answer.model == "target-b":
                    says[keys[0]] = not says[keys[0]]
                records.append(
                    JudgeVerdictRecord(
                        item_key=item.key,
                        environment=item.environment,
                        model=answer.model,
                        sample_index=0,
                        rubric=rubric,
                        judge=judge,
                        panel_position=position,
                        call_key=None,
                        attempts=1,
                        raw_output="1. Yes",
                        parsed=True,
                        says_yes=says,
                    )
                )
    return records


def build_small_run(target: Path, hostile: bool = False) -> Path:
    items = small_items(hostile)
    answers = small_answers(items, hostile)
    records = small_records(items, answers)
    verdicts = verdict_table(records, {item.key: item for item in items})
    cells = majority(verdicts, len(JUDGES), item_metadata(items, {ELECTION: "XX"})).cells
    target.mkdir(parents=True, exist_ok=True)
    RunDir(target).write_cells(cells)
    write_jsonl(target / "answers.jsonl", (a.model_dump(mode="json") for a in answers))
    write_jsonl(target / "judges.jsonl", (r.model_dump(mode="json") for r in records))
    write_items(items, target / "exports" / ELECTION / "ground_truth.jsonl")
    manifest = {"config": {"name": "annotate-test", "judges": list(JUDGES)}}
    (target / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target
