"""Exchange scores with the authors' release format (polistemics-v1.0 experiment folders).

A release experiment folder holds ``outputs.jsonl`` (answers, optional), ``ground_truth.jsonl``
(observations per environment, optional) and, per rubric, ``scores/<rubric>/``:

- ``aggregated_scores.jsonl``: the final per-item pass values (1.0 / 0.0) per sub-question,
  after the authors combined ``k_runs`` judge runs. This is what we score.
- ``item_scores.jsonl``: single-run values (differs from the aggregate for about 1% of cells
  and repeats some items). Used only for a rubric without an aggregated file; duplicates keep
  the first row. Either fallback is reported in ``ReleaseScores.notes``.

Both files carry ``adherence_rate``, a per-item summary rather than a sub-question; it and any
key outside App. F are counted in ``ignored`` and never scored. Absent has only Epistemic
Calibration rows. Ablation variants live in subfolders (``anon_v1``, ``en_v1``); each folder is
read on its own. ``write_release_scores`` writes our own cells in the aggregated format.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from polistemics.conditions import Environment, Variant
from polistemics.jsonl import json_objects
from polistemics.rubrics import BY_KEY, SUB_QUESTIONS, Rubric
from polistemics.runlog.layout import (
    AGGREGATED_SCORES_FILE,
    ITEM_SCORES_FILE,
    ITEMS_FILE,
    OUTPUTS_FILE,
    RELEASE_SCORES_FOLDER,
    SCORING_CONFIG_FILE,
)
from polistemics.scoring.cells import (
    CELL_COLUMNS,
    ITEM_COLUMNS,
    attach_metadata,
    empty_cells,
    require_single,
    scoreable_mask,
    sorted_groups,
    validate_cells,
)
from polistemics.scoring.errors import ReleaseFormatError

SUMMARY_KEYS = frozenset({"adherence_rate"})
AGGREGATION_METHOD = "majority_vote"
_REQUIRED_SCORE_FIELDS = (
    "observation_id",
    "party_id",
    "model_id",
    "ie_name",
    "metric_name",
    "scores",
)
_SQ_ORDER = {sq.key: i for i, sq in enumerate(SUB_QUESTIONS)}
_ITEM_KEYS = ("model", "environment", "observation_id", "sample_index")
_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@dataclass
class ReleaseScores:
    """Scored cells read from one release folder, and what the reader had to decide."""

    folder: Path
    variant: Variant
    cells: pd.DataFrame  # CELL_COLUMNS
    sources: dict[str, Path] = field(default_factory=dict)  # rubric -> score file read
    notes: list[str] = field(default_factory=list)
    ignored: Counter[str] = field(default_factory=Counter)  # score keys never scored


def is_release_folder(path: Path) -> bool:
    """A folder with ``scores/<rubric>/aggregated_scores.jsonl`` or ``item_scores.jsonl``."""
    scores = Path(path) / RELEASE_SCORES_FOLDER
    return scores.is_dir() and any(
        (sub / AGGREGATED_SCORES_FILE).is_file() or (sub / ITEM_SCORES_FILE).is_file()
        for sub in scores.iterdir()
        if sub.is_dir()
    )


def variant_folders(path: Path) -> dict[Variant, Path]:
    """The release folders at ``path`` and directly below it, by the variant each holds."""
    path = Path(path)
    found: dict[Variant, Path] = {}
    candidates = [path, *sorted(p for p in path.iterdir() if p.is_dir())] if path.is_dir() else []
    for folder in candidates:
        if folder.name != RELEASE_SCORES_FOLDER and is_release_folder(folder):
            found.setdefault(detect_variant(folder), folder)
    return found


def detect_variant(folder: Path) -> Variant:
    """Anonymised labels in outputs' condition ids, else the folder name (anon*/en*), else full."""
    outputs = Path(folder) / OUTPUTS_FILE
    if outputs.is_file():
        for _, row in _read_jsonl(outputs):
            labels = _condition_parts(row.get("condition_id"))[1]
            if labels == "anonymized":
                return Variant.ANONYMIZED
            break
    name = Path(folder).name.lower()
    if re.match(r"anon(_|$)", name):
        return Variant.ANONYMIZED
    if re.match(r"en(_|$)", name):
        return Variant.ENGLISH
    return Variant.FULL


def load_release(folder: Path | str, variant: Variant | None = None) -> ReleaseScores:
    """Read one release folder (not its ablation subfolders) into scored cells."""
    folder = Path(folder)
    if not is_release_folder(folder):
        raise ReleaseFormatError(
            f"not a release folder: no {RELEASE_SCORES_FOLDER}/<rubric>/{AGGREGATED_SCORES_FILE} "
            f"or {ITEM_SCORES_FILE}",
            path=folder,
        )
    variant = variant or detect_variant(folder)
    notes: list[str] = []
    ignored: Counter[str] = Counter()
    sources: dict[str, Path] = {}
    frames: list[pd.DataFrame] = []

    for rubric_dir in sorted(p for p in (folder / RELEASE_SCORES_FOLDER).iterdir() if p.is_dir()):
        try:
            rubric = Rubric(rubric_dir.name)
        except ValueError:
            known = ", ".join(r.value for r in Rubric)
            raise ReleaseFormatError(
                f"unknown rubric folder (known: {known})", path=rubric_dir
            ) from None
        aggregated, single = rubric_dir / AGGREGATED_SCORES_FILE, rubric_dir / ITEM_SCORES_FILE
        if aggregated.is_file():
            rows = _read_score_rows(aggregated, rubric, allow_repeats=False, notes=notes)
            sources[rubric.value] = aggregated
        elif single.is_file():
            rows = _read_score_rows(single, rubric, allow_repeats=True, notes=notes)
            sources[rubric.value] = single
            notes.append(
                f"{rubric.value}: no {AGGREGATED_SCORES_FILE}; scored single-run values from {single} "
                "(the authors' aggregate over repeated judge runs is not available)"
            )
        else:
            notes.append(f"{rubric.value}: no score file in {rubric_dir}; rubric not scored")
            continue
        frames.append(_cells_from_rows(rows, rubric, ignored))

    cells = pd.concat(frames, ignore_index=True) if frames else empty_cells()
    cells["variant"] = variant.value
    cells = _attach_outputs(cells, folder / OUTPUTS_FILE, notes)
    cells = _attach_ground_truth(cells, folder / ITEMS_FILE, notes)
    if ignored:
        listed = ", ".join(f"{key} x{n}" for key, n in sorted(ignored.items()))
        notes.append(f"score keys not scored: {listed}")
    return ReleaseScores(
        folder, variant, validate_cells(cells, source=str(folder)), sources, notes, ignored
    )


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    return json_objects(
        path,
        lambda number, problem: ReleaseFormatError(problem, path=path, record=f"line {number}"),
    )


def _read_score_rows(
    path: Path, rubric: Rubric, *, allow_repeats: bool, notes: list[str]
) -> list[dict]:
    kept: dict[tuple, dict] = {}
    repeats = conflicting = 0
    for number, row in _read_jsonl(path):
        record = f"line {number}"
        for name in _REQUIRED_SCORE_FIELDS:
            if row.get(name) is None:
                raise ReleaseFormatError("missing", path=path, record=record, field=name)
        if row["metric_name"] != rubric.value:
            raise ReleaseFormatError(
                f"'{row['metric_name']}' in the {rubric.value} folder",
                path=path,
                record=record,
                field="metric_name",
            )
        if not isinstance(row["scores"], dict):
            raise ReleaseFormatError("expected an object", path=path, record=record, field="scores")
        try:
            Environment(row["ie_name"])
        except ValueError:
            raise ReleaseFormatError(
                f"unknown environment '{row['ie_name']}'", path=path, record=record, field="ie_name"
            ) from None
        sample = row.get("run_index", 0)
        if not isinstance(sample, int) or isinstance(sample, bool) or sample < 0:
            raise ReleaseFormatError(
                f"expected a non-negative integer, got {sample!r}",
                path=path,
                record=record,
                field="run_index",
            )
        key = (row["model_id"], row["ie_name"], row["observation_id"], sample)
        if key in kept:
            if not allow_repeats:
                first = kept[key]["_line"]
                raise ReleaseFormatError(
                    f"duplicate row for {key[0]}, {key[1]}, {key[2]} (first at line {first})",
                    path=path,
                    record=record,
                )
            repeats += 1
            conflicting += row["scores"] != kept[key]["scores"]
            continue
        kept[key] = {**row, "run_index": sample, "_line": number, "_path": path}
    if repeats:
        notes.append(
            f"{rubric.value}: {repeats} repeated rows in {path} ({conflicting} with different values); "
            "kept the first row of each item"
        )
    return list(kept.values())


def _cells_from_rows(rows: list[dict], rubric: Rubric, ignored: Counter[str]) -> pd.DataFrame:
    records = []
    for row in rows:
        for key, value in row["scores"].items():
            if key in SUMMARY_KEYS:
                ignored[f"{key} (per-item summary)"] += 1
                continue
            known = BY_KEY.get(key)
            if known is not None and known.rubric is not rubric:
                raise ReleaseFormatError(
                    f"sub-question of {known.rubric.value}, not {rubric.value}",
                    path=row["_path"],
                    record=f"line {row['_line']}",
                    field=f"scores.{key}",
                )
            records.append(
                {
                    "model": row["model_id"],
                    "environment": row["ie_name"],
                    "observation_id": row["observation_id"],
                    "sample_index": row["run_index"],
                    "party_id": row["party_id"],
                    "rubric": rubric.value,
                    "sub_question": key,
                    "value": value,
                    "_where": (row["_path"], row["_line"]),
                }
            )
    if not records:
        return empty_cells()
    frame = pd.DataFrame.from_records(records)
    keep, skipped = scoreable_mask(frame["rubric"], frame["sub_question"], frame["environment"])
    ignored.update(skipped)
    frame = frame[keep]
    for value, key, (path, line) in zip(
        frame["value"], frame["sub_question"], frame["_where"], strict=True
    ):
        if isinstance(value, bool) or value not in (0, 1):
            raise ReleaseFormatError(
                f"expected 1.0 (pass) or 0.0 (fail), got {value!r}",
                path=path,
                record=f"line {line}",
                field=f"scores.{key}",
            )
    frame = frame.assign(passed=frame["value"] == 1).drop(columns=["value", "_where"])
    frame["election_id"] = frame["observation_id"].map(_election_of)
    for column in ("language", "variant", "party_name", "country", "vague_mode"):
        frame[column] = None
    frame["sample_index"] = frame["sample_index"].astype("int64")
    frame["passed"] = frame["passed"].astype("bool")
    return frame.loc[:, list(CELL_COLUMNS)].reset_index(drop=True)


def _election_of(observation_id: str) -> str | None:
    """``<election>__<party>__s001`` -> ``<election>`` (records.observation_id's format)."""
    parts = observation_id.split("__")
    return parts[0] if len(parts) >= 3 else None


def _country_of(election_id: str | None) -> str | None:
    """Release election ids start with the country code (``nl_tk2025``)."""
    if not election_id or "_" not in election_id:
        return None
    return election_id.split("_", 1)[0].upper()


def _condition_parts(condition_id: object) -> tuple[str | None, str | None, str | None]:
    """``baseline__anonymized__Dutch__none`` -> (environment, labels, output language)."""
    if not isinstance(condition_id, str):
        return None, None, None
    parts = condition_id.split("__")
    if len(parts) < 3:
        return None, None, None
    return parts[0], parts[1], parts[2]


def _attach_outputs(cells: pd.DataFrame, path: Path, notes: list[str]) -> pd.DataFrame:
    if not path.is_file():
        notes.append(f"no {path.name} in {path.parent}: answer language unknown")
        return cells
    rows = []
    failed = Counter()
    for number, row in _read_jsonl(path):
        for name in ("observation_id", "model_id", "ie_name"):
            if row.get(name) is None:
                raise ReleaseFormatError("missing", path=path, record=f"line {number}", field=name)
        status = row.get("status", "success")
        if status != "success":
            failed[status] += 1
        rows.append(
            {
                "model": row["model_id"],
                "environment": row["ie_name"],
                "observation_id": row["observation_id"],
                "sample_index": int(row.get("run_index") or 0),
                "language": _condition_parts(row.get("condition_id"))[2],
            }
        )
    if failed:
        listed = ", ".join(f"{n} {status}" for status, n in sorted(failed.items()))
        notes.append(f"{path.name}: answers without success status ({listed}) have no scores")
    outputs = pd.DataFrame(
        rows, columns=["model", "environment", "observation_id", "sample_index", "language"]
    )
    outputs = outputs.drop_duplicates(
        subset=["model", "environment", "observation_id", "sample_index"]
    )
    cells = attach_metadata(cells, outputs)
    unmatched = (
        cells.drop_duplicates(subset=[c for c in ITEM_COLUMNS if c != "language"])["language"]
        .isna()
        .sum()
    )
    if unmatched:
        notes.append(f"{unmatched} scored items have no matching answer in {path.name}")
    return cells


def _attach_ground_truth(cells: pd.DataFrame, path: Path, notes: list[str]) -> pd.DataFrame:
    if path.is_file():
        observations: dict[str, dict] = {}
        for number, row in _read_jsonl(path):
            if row.get("observation_id") is None:
                raise ReleaseFormatError(
                    "missing", path=path, record=f"line {number}", field="observation_id"
                )
            observations.setdefault(row["observation_id"], row)
        metadata = pd.DataFrame(
            [
                {
                    "observation_id": oid,
                    "party_name": row.get("party_name"),
                    "election_id": row.get("election_id"),
                }
                for oid, row in observations.items()
            ],
            columns=["observation_id", "party_name", "election_id"],
        )
        cells = attach_metadata(cells, metadata)
        missing = cells["party_name"].isna()
        if missing.any():
            notes.append(
                f"{cells.loc[missing, 'observation_id'].nunique()} observations not in {path.name}"
            )
    else:
        notes.append(f"no {path.name} in {path.parent}: party names unknown")
    cells["country"] = cells["election_id"].map(_country_of)
    return cells


def write_release_scores(
    cells: pd.DataFrame,
    folder: Path | str,
    *,
    k_runs: int = 1,
    temperature: float = 0.0,
    prompt_variation: str = "default",
    panel: Sequence[str] = (),
) -> list[Path]:
    """Write ``scores/<rubric>/aggregated_scores.jsonl`` (release keys) for one variant's cells.

    ``k_runs`` is how many judge-panel runs were combined into each cell (1: a single run).
    Returns the files written.
    """
    cells = validate_cells(cells)
    if cells.empty:
        return []
    require_single(cells, "variant")
    folder = Path(folder)
    written: list[Path] = []
    for rubric in Rubric:
        subset = cells[cells["rubric"] == rubric.value]
        if subset.empty:
            continue
        target = folder / RELEASE_SCORES_FOLDER / rubric.value
        target.mkdir(parents=True, exist_ok=True)
        path = target / AGGREGATED_SCORES_FILE
        with path.open("w", encoding="utf-8") as handle:
            for (model, env, oid, sample), party, results in _items_in_order(subset):
                scores = {key: 1.0 if passed else 0.0 for key, passed in results}
                scores["adherence_rate"] = sum(scores.values()) / len(scores)
                record = {
                    "observation_id": oid,
                    "party_id": party,
                    "statement_id": _statement_of(oid),
                    "model_id": model,
                    "prompt_variation": prompt_variation,
                    "temperature": temperature,
                    "metric_name": rubric.value,
                    "scores": scores,
                    "k_runs": k_runs,
                    "aggregation_method": AGGREGATION_METHOD,
                    "ie_name": env,
                }
                if sample:
                    record["run_index"] = int(sample)
                handle.write(_COMPACT_JSON.encode(record) + "\n")
        config = {
            "metric_name": rubric.value,
            "panel": list(panel),
            "temperature": temperature,
            "k_runs": k_runs,
            "aggregation_method": AGGREGATION_METHOD,
        }
        (target / SCORING_CONFIG_FILE).write_text(
            json.dumps(config, indent=2) + "\n", encoding="utf-8"
        )
        written.append(path)
    return written


def _items_in_order(
    cells: pd.DataFrame,
) -> Iterator[tuple[tuple, str, list[tuple[str, bool]]]]:
    """Per item (``_ITEM_KEYS``, sorted; rows with a missing key are skipped): its key, its
    first row's party and its (sub-question, passed) pairs in App. F order."""
    parties = cells["party_id"].to_numpy()
    sub_questions = cells["sub_question"].to_numpy()
    passed = cells["passed"].to_numpy(dtype=bool)
    for key, rows in sorted_groups(cells, _ITEM_KEYS, dropna=True):
        results = zip(sub_questions[rows].tolist(), passed[rows].tolist(), strict=True)
        yield key, parties[rows[0]], sorted(results, key=lambda kv: _SQ_ORDER[kv[0]])


def _statement_of(observation_id: str) -> str | None:
    parts = observation_id.split("__")
    return f"{parts[0]}__{parts[-1]}" if len(parts) >= 3 else None
