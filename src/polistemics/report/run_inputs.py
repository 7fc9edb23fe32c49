"""A finished run (``run/finish.py``) as ``ReportInputs``: from its directory, or from memory.

From the directory, items come from the run's release exports (``exports/<election>/[anon_v1|
en_v1/]ground_truth.jsonl``, which carry chunk provenance); answers, raw judge verdicts and
evidence from the JSONL files beside them; the manifest from ``run.json``. ``finish_run`` hands
over what it just wrote instead (``run_report_inputs``), so the report does not read it back.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
from pydantic import TypeAdapter, ValidationError

from polistemics.answers.models import Answer
from polistemics.environments.items import EnvironmentItem
from polistemics.environments.release_io import read_release_items
from polistemics.judging.panel import JudgeVerdictRecord
from polistemics.records import Evidence
from polistemics.report.inputs import AnswerView, ReportInputError, ReportInputs
from polistemics.run.cells import UnknownItemError, verdict_table
from polistemics.run.exports import (
    ANSWERS_FILE,
    CELLS_FILE,
    EVIDENCE_FILE,
    JUDGES_FILE,
    read_cells,
)
from polistemics.scoring.cells import validate_cells
from polistemics.scoring.verdicts import DEFAULT_PANEL_SIZE, PanelTally, tally_panel

_RECORDS = TypeAdapter(list[JudgeVerdictRecord])
_ANSWERS = TypeAdapter(list[Answer])
_EVIDENCE = TypeAdapter(list[Evidence])
MANIFEST_FILE = "run.json"


def is_run_dir(path: Path) -> bool:
    return (Path(path) / CELLS_FILE).is_file()


def _read_list(path: Path, adapter: TypeAdapter) -> list:
    """A JSONL file validated in one pass (one JSON array) for speed; errors name the line."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        return adapter.validate_json("[" + ",".join(lines) + "]")
    except ValidationError as exc:
        error = exc.errors()[0]
        index = error["loc"][0] if error["loc"] else 0
        field = ".".join(str(p) for p in error["loc"][1:]) or "-"
        raise ReportInputError(
            f"{path}, record {int(index) + 1}, field '{field}': {error['msg']}"
        ) from None


def read_run_items(run_dir: Path) -> list[EnvironmentItem]:
    items: list[EnvironmentItem] = []
    for path in sorted((run_dir / "exports").glob("*/**/ground_truth.jsonl")):
        items.extend(read_release_items(path))
    return items


def read_manifest(run_dir: Path) -> dict | None:
    """``run.json``, or None when the run has none."""
    path = Path(run_dir) / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ReportInputError(f"{path}: invalid JSON ({exc.msg})") from None


def load_run_inputs(run_dir: Path) -> ReportInputs:
    run_dir = Path(run_dir)
    if not is_run_dir(run_dir):
        raise ReportInputError(f"{run_dir}: not a finished run directory (no {CELLS_FILE})")
    notes: list[str] = []
    cells = validate_cells(read_cells(run_dir), source=str(run_dir / CELLS_FILE))
    manifest = read_manifest(run_dir)
    if manifest is None:
        notes.append(f"no {MANIFEST_FILE} in {run_dir}: costs, times and pipeline counts unknown")
    items = read_run_items(run_dir)
    if not items:
        notes.append(f"no exports/*/ground_truth.jsonl in {run_dir}: contexts unknown")
    answers = None
    if (run_dir / ANSWERS_FILE).is_file():
        answers = _read_list(run_dir / ANSWERS_FILE, _ANSWERS)
    else:
        notes.append(f"no {ANSWERS_FILE} in {run_dir}: the item browser is empty")
    records = None
    if (run_dir / JUDGES_FILE).is_file() and items:
        records = _read_list(run_dir / JUDGES_FILE, _RECORDS)
    elif (run_dir / JUDGES_FILE).is_file():
        notes.append(
            f"{JUDGES_FILE} is not read without the items it refers to: reliability unknown"
        )
    else:
        notes.append(f"no {JUDGES_FILE} in {run_dir}: judge reliability unknown")
    evidence = None
    if (run_dir / EVIDENCE_FILE).is_file():
        evidence = _read_list(run_dir / EVIDENCE_FILE, _EVIDENCE)
    return run_report_inputs(
        run_dir,
        cells=cells,
        manifest=manifest,
        items=items,
        answers=answers or [],
        judge_records=records,
        evidence=evidence,
        notes=notes,
    )


def run_report_inputs(
    run_dir: Path,
    *,
    cells: pd.DataFrame,
    manifest: dict | None,
    items: list[EnvironmentItem],
    answers: list[Answer],
    judge_records: list[JudgeVerdictRecord] | None,
    evidence: list[Evidence] | None,
    judging: PanelTally | None = None,
    notes: list[str] | None = None,
) -> ReportInputs:
    """The report's view of a run's outputs (None: not available).

    ``judging`` is the panel's tally when the caller has it already (``finish_run``); otherwise
    it is computed from ``judge_records`` with the manifest's panel size.
    """
    notes = list(notes or [])
    by_key = {item.key: item for item in items}
    views, unknown = answer_views(answers, by_key)
    if unknown:
        notes.append(
            f"{run_dir / ANSWERS_FILE}: {unknown} answers name no item of the exports; not shown"
        )
    config = (manifest or {}).get("config", {})
    if judge_records is not None and judging is None:
        panel_size = len(config["judges"]) if config.get("judges") else DEFAULT_PANEL_SIZE
        judging = _tally(judge_records, by_key, panel_size)
    return ReportInputs(
        kind="run",
        source=run_dir,
        title=_title(run_dir, manifest),
        cells=cells,
        answers=views,
        judge_records=judge_records,
        judging=judging,
        manifest=manifest,
        evidence=evidence,
        items=items,
        notes=notes,
    )


def with_manifest(inputs: ReportInputs, manifest: dict | None) -> ReportInputs:
    """A run's inputs with its manifest (read later than the rest), which also names the run."""
    return replace(inputs, manifest=manifest, title=_title(inputs.source, manifest))


def _title(run_dir: Path, manifest: dict | None) -> str:
    return str((manifest or {}).get("config", {}).get("name") or run_dir.name)


def answer_views(
    answers: list[Answer], items: dict[str, EnvironmentItem]
) -> tuple[list[AnswerView], int]:
    """The answers the item browser shows, and how many name no known item."""
    views: list[AnswerView] = []
    for answer in answers:
        item = items.get(answer.item_key)
        if item is None:
            continue
        error = (
            None
            if answer.ok
            else (answer.error or ("empty answer" if answer.empty else answer.status))
        )
        views.append(AnswerView(item, answer.model, answer.sample_index, answer.text, error))
    return views, len(answers) - len(views)


def _tally(
    records: list[JudgeVerdictRecord], items: dict[str, EnvironmentItem], panel_size: int
) -> PanelTally:
    try:
        return tally_panel(verdict_table(records, items), panel_size)
    except UnknownItemError as exc:
        raise ReportInputError(f"{JUDGES_FILE}: {exc}") from None
