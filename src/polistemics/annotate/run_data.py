"""The run files annotation needs, read fast: the panel's verdicts per answer x rubric, and the
answers and items of a sample only.

A paper-scale run has ~107k judge records and ~13k answers. Validating every record as a
pydantic model (``results.read``) costs seconds and hundreds of MB, so this module reads the
JSONL lines as plain JSON and, when only a sample is wanted, parses in full only the lines whose
item key belongs to it (the key is read in place, without decoding the rest of the line).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from polistemics.answers.models import Answer
from polistemics.environments.items import EnvironmentItem
from polistemics.environments.release_io import read_release_items
from polistemics.judging.panel import JudgeVerdictRecord
from polistemics.results.layout import ANSWERS_FILE, JUDGES_FILE, release_item_files
from polistemics.results.read import read_manifest
from polistemics.rubrics import BY_KEY, Rubric

_DECODER = json.JSONDecoder()


class RunDataError(ValueError):
    """A run directory lacks a file annotation needs, or a line of it cannot be read."""


@dataclass(frozen=True, slots=True)
class AnswerRubric:
    """One judged unit: a target model's answer (item, model, sample) under one rubric."""

    item_key: str
    model: str
    sample_index: int
    rubric: Rubric


@dataclass(frozen=True)
class PanelVerdicts:
    """Every panel seat's verdicts on one answer x rubric (sub-question codes, App. F order)."""

    unit: AnswerRubric
    environment: str
    seats: dict[str, dict[str, bool | None]]  # "0:judge-a" -> code -> Yes/No/missing
    complete: bool  # every seat of the panel gave every verdict

    @property
    def agreed(self) -> bool:
        """Every seat gave the same verdicts."""
        verdicts = list(self.seats.values())
        return all(v == verdicts[0] for v in verdicts)

    def majority(self, panel_size: int) -> dict[str, bool | None]:
        """Per sub-question the panel's strict majority (> half the panel), None without one."""
        codes = next(iter(self.seats.values()), {})
        result: dict[str, bool | None] = {}
        for code in codes:
            votes = [seat.get(code) for seat in self.seats.values()]
            yes, no = votes.count(True), votes.count(False)
            result[code] = True if 2 * yes > panel_size else False if 2 * no > panel_size else None
        return result


def panel_size(run_dir: Path, seats: Iterable[str] = ()) -> int:
    """The panel's size from ``run.json`` (its judges), else the seats found in the records."""
    manifest = read_manifest(run_dir) or {}
    judges = (manifest.get("config") or {}).get("judges")
    if isinstance(judges, list) and judges:
        return len(judges)
    return max(len(set(seats)), 1)


def judge_rows(run_dir: Path, item_keys: set[str] | None = None) -> Iterator[dict]:
    """``judges.jsonl`` as JSON objects; with ``item_keys`` only those items' lines."""
    path = Path(run_dir) / JUDGES_FILE
    if not path.is_file():
        raise RunDataError(f"{path} is missing: the run has no judge verdicts to annotate")
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if item_keys is not None:
                key = _item_key_of(line)
                if key is not None and key not in item_keys:
                    continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RunDataError(f"{path}, line {number}: invalid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise RunDataError(f"{path}, line {number}: not a JSON object")
            yield row


def _item_key_of(line: str) -> str | None:
    """The line's top-level ``item_key``; None when it cannot be found in place.

    Inside a JSON string every quote is escaped, so ``"item_key":`` followed by optional space
    and a quote can only be the key itself. Lines without it are parsed in full by the caller.
    """
    at = line.find('"item_key":')
    if at < 0:
        return None
    start = at + len('"item_key":')
    while start < len(line) and line[start] == " ":
        start += 1
    try:
        value, _ = _DECODER.raw_decode(line, start)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def panel_verdicts(
    run_dir: Path, item_keys: set[str] | None = None
) -> tuple[dict[AnswerRubric, PanelVerdicts], int]:
    """The panel's verdicts per answer x rubric, and the panel size.

    Each record is checked as a ``JudgeVerdictRecord`` (hostile files are refused with the line
    named, not half-read).
    """
    grouped: dict[AnswerRubric, dict[str, dict[str, bool | None]]] = defaultdict(dict)
    environments: dict[AnswerRubric, str] = {}
    for row in judge_rows(run_dir, item_keys):
        if item_keys is not None and row.get("item_key") not in item_keys:
            continue
        try:
            record = JudgeVerdictRecord.model_validate(row)
        except ValueError as exc:
            raise RunDataError(f"{Path(run_dir) / JUDGES_FILE}: bad record ({exc})") from None
        unit = AnswerRubric(record.item_key, record.model, record.sample_index, record.rubric)
        seat = f"{record.panel_position}:{record.judge}"
        grouped[unit][seat] = {
            BY_KEY[key].code if key in BY_KEY else key: value
            for key, value in record.says_yes.items()
        }
        environments[unit] = record.environment.value
    seats = {seat for verdicts in grouped.values() for seat in verdicts}
    size = panel_size(run_dir, seats)
    result = {}
    for unit, verdicts in grouped.items():
        complete = len(verdicts) >= size and all(
            v is not None for seat in verdicts.values() for v in seat.values()
        )
        ordered = dict(sorted(verdicts.items(), key=lambda kv: int(kv[0].split(":", 1)[0])))
        result[unit] = PanelVerdicts(unit, environments[unit], ordered, complete)
    return result, size


def answers_for(run_dir: Path, wanted: set[tuple[str, str, int]]) -> dict[tuple, Answer]:
    """The answers keyed (item_key, model, sample_index), only those ``wanted``."""
    path = Path(run_dir) / ANSWERS_FILE
    if not path.is_file():
        raise RunDataError(f"{path} is missing: the run has no answers")
    found: dict[tuple, Answer] = {}
    item_keys = {key for key, _, _ in wanted}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            key = _item_key_of(line)
            if key is not None and key not in item_keys:
                continue
            try:
                answer = Answer.model_validate_json(line)
            except ValueError as exc:
                raise RunDataError(f"{path}, line {number}: bad answer ({exc})") from None
            found_key = (answer.item_key, answer.model, answer.sample_index)
            if found_key in wanted:
                found[found_key] = answer
    return found


def items_for(run_dir: Path, item_keys: set[str] | None = None) -> dict[str, EnvironmentItem]:
    """The run's environment items (from its release exports), only ``item_keys`` if given."""
    files = release_item_files(run_dir)
    if not files:
        raise RunDataError(f"{run_dir} has no exports/*/ground_truth.jsonl: is the run finished?")
    items: dict[str, EnvironmentItem] = {}
    for path in files:
        for item in read_release_items(path):
            if item_keys is None or item.key in item_keys:
                items[item.key] = item
    return items
