"""A finished run with random panel verdicts and an annotation sample, for the statistics tests.

Twenty observations in Baseline and Absent, answered by two models: 80 answers, 160 answer x
rubric units. Three judges answer at random (seeded). ``mark`` is appended to every text, model and judge name (hostile-text tests). Every other unit of each stratum
(environment x rubric x judges agreed / split) is drawn, with weight stratum size / drawn.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from polistemics.annotate.store import AnnotationStore, SampleItem, sample_id_for
from polistemics.conditions import Environment, Variant
from polistemics.records import Stance
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.runlog import JudgeVerdictRecord, RunDir, write_jsonl
from polistemics.runlog.items import Chunk, EnvironmentItem
from polistemics.runlog.release_io import write_items
from polistemics.scoring.verdict_table import item_metadata, verdict_table
from polistemics.scoring.verdicts import majority

JUDGES = ("judge-a", "judge-b", "judge-c")
MODELS = ("target-a", "target-b")
ELECTION = "xx_stats"
ENVIRONMENTS = (Environment.BASELINE, Environment.ABSENT)


def _item(number: int, env: Environment, mark: str) -> EnvironmentItem:
    chunks = (
        []
        if env is Environment.ABSENT
        else [
            Chunk(
                text=f"Party wants {number}.{mark}",
                role="target",
                party_id="p1",
                statement_id=f"s{number}",
            )
        ]
    )
    return EnvironmentItem(
        observation_id=f"o{number}",
        election_id=ELECTION,
        party_id="p1",
        party_name=f"Party{mark}",
        party_anonymized="Party A",
        statement_id=f"s{number}",
        statement_number=number,
        statement_text=f"Statement {number}.{mark}",
        stance_label=Stance.AGREE,
        environment=env,
        variant=Variant.FULL,
        language="English",
        output_language="English",
        chunks=chunks,
        evidence_index=0 if chunks else None,
        expected_stance=Stance.AGREE if env.conclusive else None,
    )


def build_stats_run(target: Path, *, seed: int = 3, mark: str = "", sample: bool = True) -> Path:
    rng = random.Random(seed)
    items = [_item(n, env, mark) for n in range(20) for env in ENVIRONMENTS]
    models = [model + mark for model in MODELS]
    judges = [judge + mark for judge in JUDGES]
    records = []
    for item in items:
        for model in models:
            for rubric in active_rubrics(item.environment):
                keys = [sq.key for sq in sub_questions(rubric, item.environment)]
                for position, judge in enumerate(judges):
                    records.append(
                        JudgeVerdictRecord(
                            item_key=item.key,
                            environment=item.environment,
                            model=model,
                            sample_index=0,
                            rubric=rubric,
                            judge=judge,
                            panel_position=position,
                            call_key=None,
                            attempts=1,
                            raw_output="1. Yes",
                            parsed=True,
                            says_yes={key: rng.random() < 0.4 for key in keys},
                        )
                    )
    by_key = {item.key: item for item in items}
    cells = majority(verdict_table(records, by_key), 3, item_metadata(items, {ELECTION: "XX"}))
    target.mkdir(parents=True, exist_ok=True)
    RunDir(target).write_cells(cells.cells)
    write_jsonl(target / "judges.jsonl", (r.model_dump(mode="json") for r in records))
    write_items(items, target / "exports" / ELECTION / "ground_truth.jsonl")
    manifest = {"config": {"name": "stats-test", "judges": judges}}
    (target / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    if sample:
        _write_sample(target, records)
    return target


def _write_sample(target: Path, records: list[JudgeVerdictRecord]) -> None:
    units: dict[tuple, list[JudgeVerdictRecord]] = {}
    for record in records:
        units.setdefault((record.item_key, record.model, record.rubric), []).append(record)
    strata: dict[str, list[tuple]] = {}
    for unit, panel in units.items():
        agreed = all(r.says_yes == panel[0].says_yes for r in panel)
        env = panel[0].environment.value
        stratum = f"{env}|{unit[2].value}|{'agreed' if agreed else 'split'}"
        strata.setdefault(stratum, []).append((unit, panel[0].environment, agreed))
    drawn = []
    for stratum, members in sorted(strata.items()):
        chosen = members[::2]  # every other unit: weight = stratum size / drawn
        for unit, env, agreed in chosen:
            drawn.append((stratum, unit, env, agreed, len(members) / len(chosen)))
    sample = [
        SampleItem(
            sample_id=sample_id_for(number, len(drawn)),
            item_key=unit[0],
            model=unit[1],
            sample_index=0,
            rubric=unit[2],
            environment=env,
            language="English",
            stratum=stratum,
            judges_agreed=agreed,
            weight=weight,
            annotators_wanted=2,
            seed=0,
        )
        for number, (stratum, unit, env, agreed, weight) in enumerate(drawn, start=1)
    ]
    with AnnotationStore.open(target) as store:
        store.write_sample(sample)
