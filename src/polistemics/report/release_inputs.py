"""Read an authors' release folder (full variant on top, ablations in ``anon_v1/``, ``en_v1/``)
into ``ReportInputs``: cells from ``scores/``, contexts from ``ground_truth.jsonl``, answers from
``outputs.jsonl``. A release has no raw judge verdicts, costs or manifest."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.conditions import Variant
from polistemics.jsonl import json_objects
from polistemics.report.inputs import AnswerView, ReportInputError, ReportInputs
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.layout import ITEMS_FILE, OUTPUTS_FILE
from polistemics.runlog.release_io import ReleaseFormatError as ItemsFormatError
from polistemics.runlog.release_io import read_release_evidence, read_release_items
from polistemics.scoring.release import load_release, variant_folders


def _read_answers(
    path: Path, items: dict[str, EnvironmentItem], variant: Variant
) -> tuple[list[AnswerView], int]:
    """Answers of one release ``outputs.jsonl``; also how many name no known item."""
    answers, unmatched = [], 0
    rows = json_objects(
        path, lambda number, problem: ReportInputError(f"{path}, line {number}: {problem}")
    )
    for number, row in rows:
        for name in ("observation_id", "ie_name", "model_id"):
            if not isinstance(row.get(name), str):
                raise ReportInputError(f"{path}, line {number}, field '{name}': missing")
        item = items.get(f"{row['observation_id']}|{row['ie_name']}|{variant.value}")
        if item is None:
            unmatched += 1
            continue
        status = row.get("status", "success")
        error = None if status == "success" else (row.get("error_message") or status)
        answers.append(
            AnswerView(
                item=item,
                model=row["model_id"],
                sample_index=int(row.get("run_index") or 0),
                text=row.get("predicted_explanation"),
                error=error,
            )
        )
    return answers, unmatched


def load_release_inputs(folder: Path) -> ReportInputs:
    folder = Path(folder)
    folders = variant_folders(folder)
    if not folders:
        raise ReportInputError(
            f"{folder}: not a release folder (no scores/<rubric>/aggregated_scores.jsonl "
            "here or in a subfolder)"
        )
    notes: list[str] = []
    frames: list[pd.DataFrame] = []
    items: list[EnvironmentItem] = []
    answers: list[AnswerView] = []
    evidence = None
    for variant, path in sorted(folders.items(), key=lambda kv: list(Variant).index(kv[0])):
        release = load_release(path, variant)
        frames.append(release.cells)
        notes.extend(f"{path.name}: {note}" for note in release.notes)
        ground_truth = path / ITEMS_FILE
        if not ground_truth.is_file():
            notes.append(
                f"{path.name}: no ground_truth.jsonl: its answers are not in the item browser"
            )
            continue
        try:
            variant_items = read_release_items(ground_truth, variant=variant)
            if variant is Variant.FULL:
                evidence = read_release_evidence(ground_truth, variant=variant)
        except ItemsFormatError as exc:
            # Scores do not need the contexts: report them, leave this folder out of the browser.
            notes.append(f"item browser: {exc}")
            continue
        items.extend(variant_items)
        outputs = path / OUTPUTS_FILE
        if outputs.is_file():
            by_key = {item.key: item for item in variant_items}
            found, unmatched = _read_answers(outputs, by_key, variant)
            answers.extend(found)
            if unmatched:
                notes.append(f"{outputs}: {unmatched} answers name no item of {ground_truth.name}")
    return ReportInputs(
        kind="release",
        source=folder,
        title=folder.name,
        cells=pd.concat(frames, ignore_index=True),
        answers=answers,
        evidence=evidence,
        items=items,
        notes=notes,
    )
