"""A run directory of the paper's size, built from the authors' Dutch release (for timing).

Items and the three models' answers come from the release; a second copy of each model answers with
altered texts, so there are about 13k answers. Each answer gets a three-judge panel with
seeded random Yes/No verdicts (raw outputs in the numbered-list format); cells are their
majority, as ``scoring.verdict_table.score_run`` would compute.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from polistemics.conditions import Variant
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.runlog import VARIANT_FOLDERS, Answer, JudgeVerdictRecord, RunDir, write_jsonl
from polistemics.runlog.release_io import (
    read_release_evidence,
    read_release_items,
    write_items,
)
from polistemics.scoring.verdict_table import item_metadata, verdict_table
from polistemics.scoring.verdicts import majority

JUDGES = ("judge-a", "judge-b", "judge-c")


def build_synthetic_run(
    release_dir: Path, target: Path, extra_models: int = 1, seed: int = 0
) -> Path:
    rng = random.Random(seed)
    items = []
    for variant, folder in VARIANT_FOLDERS.items():
        path = release_dir / folder / "ground_truth.jsonl"
        items.extend(read_release_items(path, variant=variant))
    by_key = {item.key: item for item in items}

    answers: list[Answer] = []
    for variant, folder in VARIANT_FOLDERS.items():
        with (release_dir / folder / "outputs.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                key = f"{row['observation_id']}|{row['ie_name']}|{variant.value}"
                if key not in by_key or row.get("status") != "success":
                    continue
                for copy in range(1 + extra_models):
                    model = row["model_id"] if copy == 0 else f"{row['model_id']}_v{copy}"
                    text = (
                        row["predicted_explanation"]
                        if copy == 0
                        else f"{row['predicted_explanation']} ({copy})"
                    )
                    answers.append(Answer(item_key=key, model=model, status="ok", text=text))

    records = []
    for answer in answers:
        item = by_key[answer.item_key]
        for rubric in active_rubrics(item.environment):
            keys = [sq.key for sq in sub_questions(rubric, item.environment)]
            for position, judge in enumerate(JUDGES):
                says = {k: rng.random() < 0.3 for k in keys}
                raw = "\n".join(f"{i}. {'Yes' if says[k] else 'No'}" for i, k in enumerate(keys, 1))
                records.append(
                    JudgeVerdictRecord(
                        item_key=answer.item_key,
                        environment=item.environment,
                        model=answer.model,
                        sample_index=0,
                        rubric=rubric,
                        judge=judge,
                        panel_position=position,
                        call_key=None,
                        attempts=1,
                        raw_output=raw,
                        parsed=True,
                        says_yes=says,
                    )
                )
    verdicts = verdict_table(records, by_key)
    cells = majority(verdicts, 3, item_metadata(items, {"nl_tk2025": "NL"})).cells

    target.mkdir(parents=True, exist_ok=True)
    RunDir(target).write_cells(cells)
    write_jsonl(target / "answers.jsonl", (a.model_dump(mode="json") for a in answers))
    write_jsonl(target / "judges.jsonl", (r.model_dump(mode="json") for r in records))
    evidence = read_release_evidence(release_dir / "ground_truth.jsonl", variant=Variant.FULL)
    write_jsonl(target / "evidence.jsonl", (e.model_dump(mode="json") for e in evidence))
    for variant, folder in VARIANT_FOLDERS.items():
        chosen = [i for i in items if i.variant is variant]
        write_items(chosen, target / "exports" / "nl_tk2025" / folder / "ground_truth.jsonl")
    manifest = {"config": {"name": "synthetic-paper-scale", "judges": list(JUDGES)}}
    (target / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target
