"""The run files annotation needs, read fast: the panel's verdicts per answer x rubric, and the
answers and items of a sample only.

A paper-scale run has ~107k judge records and ~13k answers. Validating every record as a full
``JudgeVerdictRecord`` one by one costs seconds, so judge lines are validated in one pydantic
pass per chunk as ``PanelRow`` (the fields the panel's verdicts need, raw outputs dropped),
keeping only the sample's rows when a sample is given. An answer line is parsed in full only
when its item key, read in place, belongs to the sample. The files are found through
``runlog.RunDir``; these readers are annotate's own because they keep only what it needs.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from polistemics.conditions import Environment
from polistemics.rubrics import BY_KEY, Rubric
from polistemics.runlog import Answer, RunDir, RunFileError
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.release_io import read_release_items

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
    try:
        manifest = RunDir(run_dir).read_manifest()
    except RunFileError as exc:
        raise RunDataError(str(exc)) from None
    judges = manifest.panel_judges if manifest is not None else []
    return len(judges) if judges else max(len(set(seats)), 1)


class PanelRow(BaseModel):
    """The fields of a ``JudgeVerdictRecord`` the panel's verdicts need (raw outputs are not
    kept: at paper scale they are most of the file)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    item_key: str
    environment: Environment
    model: str
    sample_index: int
    rubric: Rubric
    judge: str
    panel_position: int
    says_yes: dict[str, bool | None]

    @property
    def unit(self) -> AnswerRubric:
        return AnswerRubric(self.item_key, self.model, self.sample_index, self.rubric)


_PANEL_ROWS = TypeAdapter(list[PanelRow])
_ABSENT = object()
_CHUNK_LINES = 4096


def _top_value(line: str, name: str) -> object:
    """The value of the line's key ``name``, read in place; ``_ABSENT`` when not found.

    Inside a JSON string every quote is escaped, so ``"name":`` (a quote right after the name)
    cannot come from a string value such as an answer's text. A nested object with such a key
    could still come first: callers only use this to pass lines over, and check the lines they
    keep once parsed in full.
    """
    marker = f'"{name}":'
    at = line.find(marker)
    if at < 0:
        return _ABSENT
    start = at + len(marker)
    while start < len(line) and line[start] == " ":
        start += 1
    try:
        value, _ = _DECODER.raw_decode(line, start)
    except json.JSONDecodeError:
        return _ABSENT
    return value


def judge_rows(run_dir: Path, units: set[AnswerRubric] | None = None) -> list[PanelRow]:
    """``judges.jsonl`` as ``PanelRow``s (all, or only those of ``units``).

    Lines are validated by pydantic in chunks (its JSON parser skips the raw outputs without
    building them), and only the wanted rows are kept, so memory stays that of the result.
    Errors name the line and field.
    """
    path = RunDir(run_dir).judges
    if not path.is_file():
        raise RunDataError(f"{path} is missing: the run has no judge verdicts to annotate")
    kept: list[PanelRow] = []
    numbers: list[int] = []
    lines: list[bytes] = []

    def flush() -> None:
        try:
            rows = _PANEL_ROWS.validate_json(b"[" + b",".join(lines) + b"]")
        except ValidationError as exc:
            error = exc.errors()[0]
            loc = error["loc"]
            where = f"line {numbers[loc[0]]}" if loc and isinstance(loc[0], int) else "a line"
            field = ".".join(str(p) for p in loc[1:]) or "-"
            raise RunDataError(f"{path}, {where}, field '{field}': {error['msg']}") from None
        kept.extend(rows if units is None else (row for row in rows if row.unit in units))
        numbers.clear()
        lines.clear()

    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                numbers.append(number)
                lines.append(line)
                if len(lines) == _CHUNK_LINES:
                    flush()
    if lines:
        flush()
    return kept


def panel_verdicts(
    run_dir: Path, units: set[AnswerRubric] | None = None
) -> tuple[dict[AnswerRubric, PanelVerdicts], int]:
    """The panel's verdicts per answer x rubric (all, or ``units``), and the panel size."""
    grouped: dict[AnswerRubric, dict[str, dict[str, bool | None]]] = defaultdict(dict)
    environments: dict[AnswerRubric, str] = {}
    codes = {key: sq.code for key, sq in BY_KEY.items()}
    for row in judge_rows(run_dir, units):
        unit = row.unit
        grouped[unit][f"{row.panel_position}:{row.judge}"] = {
            codes.get(key, key): value for key, value in row.says_yes.items()
        }
        environments[unit] = row.environment.value
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
    path = RunDir(run_dir).answers
    if not path.is_file():
        raise RunDataError(f"{path} is missing: the run has no answers")
    found: dict[tuple, Answer] = {}
    item_keys = {key for key, _, _ in wanted}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            key = _top_value(line, "item_key")
            if isinstance(key, str) and key not in item_keys:
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
    files = RunDir(run_dir).release_item_files()
    if not files:
        raise RunDataError(f"{run_dir} has no exports/*/ground_truth.jsonl: is the run finished?")
    items: dict[str, EnvironmentItem] = {}
    for path in files:
        for item in read_release_items(path):
            if item_keys is None or item.key in item_keys:
                items[item.key] = item
    return items
