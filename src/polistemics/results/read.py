"""How ``score`` and ``report`` read a run directory's files back (``layout`` names them).

Each reader raises ``RunFileError`` naming the file, record and field; callers turn it into
their own error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from pydantic import TypeAdapter, ValidationError

from polistemics.answers.models import Answer
from polistemics.coding.records import ProbeAnswer, StanceCodeRecord
from polistemics.csv_tables import read_csv_table
from polistemics.environments.items import EnvironmentItem
from polistemics.environments.release_io import read_release_items
from polistemics.jsonl import json_lines
from polistemics.judging.panel import JudgeVerdictRecord
from polistemics.records import Evidence
from polistemics.results.layout import (
    ANSWERS_FILE,
    CELLS_FILE,
    EVIDENCE_FILE,
    JUDGES_FILE,
    MANIFEST_FILE,
    PRIOR_PROBE_FILE,
    STANCE_CODES_FILE,
    release_item_files,
)

_RECORDS = TypeAdapter(list[JudgeVerdictRecord])
_ANSWERS = TypeAdapter(list[Answer])
_EVIDENCE = TypeAdapter(list[Evidence])
_STANCE_CODES = TypeAdapter(list[StanceCodeRecord])
_PROBES = TypeAdapter(list[ProbeAnswer])


class RunFileError(ValueError):
    """A run directory's file cannot be read; the message names the file and the problem."""


def read_cells(run_dir: Path) -> pd.DataFrame:
    path = Path(run_dir) / CELLS_FILE
    ids = {"observation_id": str, "party_id": str, "election_id": str}
    cells = read_csv_table(path, dtype=ids)
    cells["passed"] = cells["passed"].astype(bool)
    return cells


def read_manifest(run_dir: Path) -> dict | None:
    """``run.json``, or None when the run has none."""
    path = Path(run_dir) / MANIFEST_FILE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RunFileError(f"{path}: invalid JSON ({exc.msg})") from None


def read_run_items(run_dir: Path) -> list[EnvironmentItem]:
    """The items of every release export of the run (they carry chunk provenance)."""
    items: list[EnvironmentItem] = []
    for path in release_item_files(run_dir):
        items.extend(read_release_items(path))
    return items


def read_answers(run_dir: Path) -> list[Answer] | None:
    """``answers.jsonl``, or None when the run has none."""
    return _read_list(Path(run_dir) / ANSWERS_FILE, _ANSWERS)


def read_judge_records(run_dir: Path) -> list[JudgeVerdictRecord] | None:
    """``judges.jsonl``, or None when the run has none."""
    return _read_list(Path(run_dir) / JUDGES_FILE, _RECORDS)


def read_evidence(run_dir: Path) -> list[Evidence] | None:
    """``evidence.jsonl``, or None when the run has none."""
    return _read_list(Path(run_dir) / EVIDENCE_FILE, _EVIDENCE)


def read_stance_codes(run_dir: Path) -> list[StanceCodeRecord] | None:
    """``stance_codes.jsonl``, or None when the run did not code stances."""
    return _read_list(Path(run_dir) / STANCE_CODES_FILE, _STANCE_CODES)


def read_prior_probe(run_dir: Path) -> list[ProbeAnswer] | None:
    """``prior_probe.jsonl``, or None when the run did not probe priors."""
    return _read_list(Path(run_dir) / PRIOR_PROBE_FILE, _PROBES)


def _read_list(path: Path, adapter: TypeAdapter) -> list | None:
    """A JSONL file validated in one pass (one JSON array) for speed; errors name the record."""
    if not path.is_file():
        return None
    lines = [line for _, line in json_lines(path)]
    try:
        return adapter.validate_json("[" + ",".join(lines) + "]")
    except ValidationError as exc:
        error = exc.errors()[0]
        index = error["loc"][0] if error["loc"] else 0
        field = ".".join(str(p) for p in error["loc"][1:]) or "-"
        raise RunFileError(
            f"{path}, record {int(index) + 1}, field '{field}': {error['msg']}"
        ) from None
