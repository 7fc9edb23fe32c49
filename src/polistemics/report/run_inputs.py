"""Read a finished run directory (``run/finish.py``) into ``ReportInputs``.

Items come from the run's release exports (``exports/<election>/[anon_v1|en_v1/]
ground_truth.jsonl``, which carry chunk provenance); answers, raw judge verdicts and evidence
from the JSONL files beside them; the manifest from ``run.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from polistemics.answers.models import Answer
from polistemics.environments.items import EnvironmentItem
from polistemics.environments.release_io import read_release_items
from polistemics.judging.panel import JudgeVerdictRecord
from polistemics.records import Evidence
from polistemics.report.inputs import AnswerView, ReportInputError, ReportInputs
from polistemics.report.reliability import verdict_table
from polistemics.run.exports import CELLS_FILE, read_cells
from polistemics.scoring.cells import validate_cells
from polistemics.scoring.verdicts import DEFAULT_PANEL_SIZE

_RECORDS = TypeAdapter(list[JudgeVerdictRecord])
_ANSWERS = TypeAdapter(list[Answer])
_EVIDENCE = TypeAdapter(list[Evidence])


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


def load_run_inputs(run_dir: Path) -> ReportInputs:
    run_dir = Path(run_dir)
    if not is_run_dir(run_dir):
        raise ReportInputError(f"{run_dir}: not a finished run directory (no {CELLS_FILE})")
    notes: list[str] = []
    cells = validate_cells(read_cells(run_dir), source=str(run_dir / CELLS_FILE))

    manifest = None
    manifest_path = run_dir / "run.json"
    if manifest_path.is_file():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ReportInputError(f"{manifest_path}: invalid JSON ({exc.msg})") from None
    else:
        notes.append(f"no run.json in {run_dir}: costs, times and pipeline counts unknown")

    items = read_run_items(run_dir)
    by_key = {item.key: item for item in items}
    if not items:
        notes.append(f"no exports/*/ground_truth.jsonl in {run_dir}: contexts unknown")

    answers: list[AnswerView] = []
    answers_path = run_dir / "answers.jsonl"
    if answers_path.is_file():
        unknown = 0
        for answer in _read_list(answers_path, _ANSWERS):
            item = by_key.get(answer.item_key)
            if item is None:
                unknown += 1
                continue
            error = (
                None
                if answer.ok
                else (answer.error or ("empty answer" if answer.empty else answer.status))
            )
            answers.append(AnswerView(item, answer.model, answer.sample_index, answer.text, error))
        if unknown:
            notes.append(
                f"{answers_path}: {unknown} answers name no item of the exports; not shown"
            )
    else:
        notes.append(f"no answers.jsonl in {run_dir}: the item browser is empty")

    records = verdicts = None
    judges_path = run_dir / "judges.jsonl"
    if judges_path.is_file() and items:
        records = _read_list(judges_path, _RECORDS)
        verdicts = verdict_table(records, by_key)
    elif judges_path.is_file():
        notes.append("judges.jsonl is not read without the items it refers to: reliability unknown")
    else:
        notes.append(f"no judges.jsonl in {run_dir}: judge reliability unknown")

    evidence = None
    evidence_path = run_dir / "evidence.jsonl"
    if evidence_path.is_file():
        evidence = _read_list(evidence_path, _EVIDENCE)

    panel = (manifest or {}).get("config", {}).get("judges")
    title = (manifest or {}).get("config", {}).get("name") or run_dir.name
    return ReportInputs(
        kind="run",
        source=run_dir,
        title=str(title),
        cells=cells,
        answers=answers,
        judge_records=records,
        verdicts=verdicts,
        panel_size=len(panel) if panel else DEFAULT_PANEL_SIZE,
        manifest=manifest,
        evidence=evidence,
        items=items,
        notes=notes,
    )
