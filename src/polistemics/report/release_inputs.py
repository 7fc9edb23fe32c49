"""Read an authors' release folder (full variant on top, ablations in ``anon_v1/``, ``en_v1/``)
into ``ReportInputs``: cells from ``scores/``, contexts from ``ground_truth.jsonl``, answers from
``outputs.jsonl``. A release has no raw judge verdicts, costs or manifest.

Besides the technical notes, what a folder lacks is said in plain words (``SourceGap``): a
variant without its answers or contexts file, answers that name no item, score keys the report
does not use."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.conditions import Variant
from polistemics.jsonl import json_objects
from polistemics.report.inputs import AnswerView, ReportInputError, ReportInputs, SourceGap
from polistemics.report.labels import variant_label
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.layout import ITEMS_FILE, OUTPUTS_FILE
from polistemics.runlog.release_io import ReleaseFormatError as ItemsFormatError
from polistemics.runlog.release_io import read_release_evidence, read_release_items
from polistemics.scoring.release import SUMMARY_KEYS, load_release, variant_folders


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
                stored_text=row.get("predicted_explanation"),
                error=error,
            )
        )
    return answers, unmatched


def _results(variant: Variant, path: Path) -> str:
    """How the page names one variant's folder: ``Anonymised labels results (anon_v1/)``."""
    return f"{variant_label(variant.value)} results ({path.name}/)"


def _unused_scores(ignored: dict[str, int]) -> SourceGap | None:
    """The score keys a release carries that the report does not score, in plain words (the
    keys come as ``scoring.release`` counts them: ``adherence_rate (per-item summary)``, ``key
    (not an App. F sub-question)``)."""
    names = {key: key.split(" (", 1)[0] for key in ignored}
    summaries = sorted(name for key, name in names.items() if name in SUMMARY_KEYS)
    others = sorted(name for key, name in names.items() if name not in SUMMARY_KEYS)
    parts = []
    if summaries:
        parts.append(
            f"a per-answer summary score ({', '.join(summaries)}), which this page does not use: "
            "every score here is recomputed from the judges' sub-question verdicts, as in the "
            "paper"
        )
    if others:
        n = sum(n for key, n in ignored.items() if names[key] not in SUMMARY_KEYS)
        parts.append(
            f"{n:,} {'entry' if n == 1 else 'entries'} under keys that are not sub-questions of the paper "
            f"({', '.join(others)}), which are left out"
        )
    if not parts:
        return None
    return SourceGap("The release's score files also hold " + "; and ".join(parts) + ".")


def load_release_inputs(folder: Path) -> ReportInputs:
    folder = Path(folder)
    folders = variant_folders(folder)
    if not folders:
        raise ReportInputError(
            f"{folder}: not a release folder (no scores/<rubric>/aggregated_scores.jsonl "
            "here or in a subfolder)"
        )
    notes: list[str] = []
    gaps: list[SourceGap] = []
    ignored: dict[str, int] = {}
    frames: list[pd.DataFrame] = []
    items: list[EnvironmentItem] = []
    answers: list[AnswerView] = []
    evidence = None
    for variant, path in sorted(folders.items(), key=lambda kv: list(Variant).index(kv[0])):
        release = load_release(path, variant)
        frames.append(release.cells)
        notes.extend(f"{path.name}: {note}" for note in release.notes)
        for key, n in release.ignored.items():
            ignored[key] = ignored.get(key, 0) + n
        results = _results(variant, path)
        ground_truth = path / ITEMS_FILE
        if not ground_truth.is_file():
            notes.append(
                f"{path.name}: no ground_truth.jsonl: its answers are not in the item browser"
            )
            gaps.append(
                SourceGap(
                    f"The {results} come without their contexts file "
                    "(ground_truth.jsonl): their scores are shown, but their answers cannot be "
                    "shown in the item browser.",
                    variant.value,
                )
            )
            continue
        try:
            variant_items = read_release_items(ground_truth, variant=variant)
            if variant is Variant.FULL:
                evidence = read_release_evidence(ground_truth, variant=variant)
        except ItemsFormatError as exc:
            # Scores do not need the contexts: report them, leave this folder out of the browser.
            notes.append(f"item browser: {exc}")
            gaps.append(
                SourceGap(
                    f"The contexts file of the {results} cannot be read (the notes on the source say "
                    "where): their scores are shown, but their answers are not in the item "
                    "browser.",
                    variant.value,
                )
            )
            continue
        items.extend(variant_items)
        outputs = path / OUTPUTS_FILE
        if outputs.is_file():
            by_key = {item.key: item for item in variant_items}
            found, unmatched = _read_answers(outputs, by_key, variant)
            answers.extend(found)
            if unmatched:
                notes.append(f"{outputs}: {unmatched} answers name no item of {ground_truth.name}")
                gaps.append(
                    SourceGap(
                        f"{unmatched:,} answers of the {results} name no item of its contexts file, "
                        "so they are not in the item browser.",
                        variant.value,
                    )
                )
        else:
            gaps.append(
                SourceGap(
                    f"The {results} come without their answers file (outputs.jsonl): "
                    "their scores are shown, but not the answers themselves.",
                    variant.value,
                )
            )
    return ReportInputs(
        kind="release",
        source=folder,
        title=folder.name,
        cells=pd.concat(frames, ignore_index=True),
        answers=answers,
        evidence=evidence,
        items=items,
        notes=notes,
        gaps=[*gaps, *filter(None, [_unused_scores(ignored)])],
    )
