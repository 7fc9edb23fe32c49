"""Files a finished run leaves in its directory, beside the SQLite store.

- ``scores/cells.csv``: every majority-voted cell (the input of all scores and the report);
- ``scores/summary.json``: per model and variant, EMI, Adherence Indices and rubric scores;
- ``judges.jsonl``, ``answers.jsonl``, ``evidence.jsonl``: raw stage outputs, every judge's
  verdict included;
- ``exports/<election>/``: the authors' release formats (``ground_truth.jsonl``,
  ``outputs.jsonl``, ``scores/<rubric>/aggregated_scores.jsonl``; ablations in ``anon_v1/`` and
  ``en_v1/``), so results can be exchanged with the paper's data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from polistemics.answers.models import Answer
from polistemics.conditions import Variant
from polistemics.environments.items import EnvironmentItem
from polistemics.environments.release_io import write_items
from polistemics.scoring.release import write_release_scores
from polistemics.scoring.summary import score_cells

VARIANT_FOLDERS = {Variant.FULL: "", Variant.ANONYMIZED: "anon_v1", Variant.ENGLISH: "en_v1"}
CELLS_FILE = Path("scores") / "cells.csv"
EVIDENCE_FILE = "evidence.jsonl"
ANSWERS_FILE = "answers.jsonl"
JUDGES_FILE = "judges.jsonl"


_JSON_LINE = json.JSONEncoder(ensure_ascii=False, sort_keys=True)  # one encoder for all rows


def write_jsonl(path: Path, rows: Iterable[dict]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(_JSON_LINE.encode(row) + "\n")
            count += 1
    return count


def write_cells(run_dir: Path, cells: pd.DataFrame) -> Path:
    path = run_dir / CELLS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    cells.to_csv(path, index=False)
    return path


def read_cells(run_dir: Path) -> pd.DataFrame:
    path = run_dir / CELLS_FILE
    cells = pd.read_csv(path, dtype={"observation_id": str, "party_id": str, "election_id": str})
    cells["passed"] = cells["passed"].astype(bool)
    return cells


def write_summary(run_dir: Path, cells: pd.DataFrame) -> Path:
    path = run_dir / "scores" / "summary.json"
    summaries = [s.to_json() for s in score_cells(cells)] if not cells.empty else []
    path.write_text(json.dumps(summaries, indent=2), encoding="utf-8")
    return path


def release_outputs_row(answer: Answer, item: EnvironmentItem) -> dict:
    """One answer in the release's ``outputs.jsonl`` shape."""
    return {
        "observation_id": item.observation_id,
        "statement_id": item.statement_id,
        "party_id": item.party_id,
        "model_id": answer.model,
        "prompt_variation": "default",
        "run_index": answer.sample_index,
        "predicted_stance": None,
        "predicted_explanation": answer.text,
        "latency_ms": answer.latency_ms,
        "tokens_input": answer.input_tokens,
        "tokens_output": answer.output_tokens,
        "cost_usd": answer.cost,
        "status": "success" if answer.ok else "error",
        "error_message": answer.error,
        "refusal_type": "refusal" if answer.refusal else "none",
        "ie_name": item.environment.value,
        "condition_id": f"{item.environment.value}__{'anonymized' if item.variant is Variant.ANONYMIZED else 'real'}"
        f"__{item.output_language}__none",
    }


def write_release_exports(
    run_dir: Path,
    items: list[EnvironmentItem],
    answers: list[Answer],
    cells: pd.DataFrame,
    panel: list[str],
) -> list[Path]:
    by_key = {item.key: item for item in items}
    folders = []
    for election_id in sorted({item.election_id for item in items}):
        for variant, sub in VARIANT_FOLDERS.items():
            chosen = [i for i in items if i.election_id == election_id and i.variant is variant]
            if not chosen:
                continue
            folder = run_dir / "exports" / election_id / sub
            folder.mkdir(parents=True, exist_ok=True)
            write_items(chosen, folder / "ground_truth.jsonl")
            keys = {i.key for i in chosen}
            write_jsonl(
                folder / "outputs.jsonl",
                (release_outputs_row(a, by_key[a.item_key]) for a in answers if a.item_key in keys),
            )
            part = cells[
                (cells["election_id"] == election_id) & (cells["variant"] == variant.value)
            ]
            if not part.empty:
                write_release_scores(part, folder, panel=panel)
            folders.append(folder)
    return folders
