"""One side of a comparison: the scored cells of a run directory or of an authors' release
folder, in any mix.

A side is given as a path, optionally ending in ``@VARIANT`` (``full``, ``anon``, ``en``) to keep
one variant. A run directory (``scores/cells.csv``) brings every variant it scored; a release
folder brings its own variant (point at ``anon_v1/`` for the anonymised ablation); a folder with
release folders directly below it brings all of them. Anything else is refused in one line that
names the path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from polistemics.compare.errors import CompareError
from polistemics.conditions import Variant
from polistemics.runlog import CELLS_FILE, RunDir, RunFileError
from polistemics.scoring.cells import distinct_texts, scoreable_cells, validate_cells
from polistemics.scoring.errors import ScoringError
from polistemics.scoring.release import is_release_folder, load_release, variant_folders


@dataclass
class Side:
    label: str  # short name shown in tables and on the page
    source: Path
    kind: str  # "run" or "release"
    cells: pd.DataFrame  # scoreable cells (CELL_COLUMNS)
    notes: list[str] = field(default_factory=list)

    def values(self, column: str) -> list[str]:
        return distinct_texts(self.cells[column])


def parse_spec(spec: str) -> tuple[Path, Variant | None]:
    """``PATH`` or ``PATH@VARIANT``; a path that exists as written is never split."""
    path = Path(spec)
    if path.exists() or "@" not in spec:
        return path, None
    base, _, name = spec.rpartition("@")
    try:
        return Path(base), Variant(name)
    except ValueError:
        known = ", ".join(v.value for v in Variant)
        raise CompareError(f"{spec}: unknown variant '{name}' (known: {known})") from None


def load_side(spec: str, label: str | None = None) -> Side:
    path, variant = parse_spec(spec)
    if not path.exists():
        raise CompareError(f"{path}: no such file or folder")
    try:
        if RunDir(path).is_finished():
            kind, cells, notes = "run", RunDir(path).read_cells(), []
        elif is_release_folder(path) or variant_folders(path):
            kind = "release"
            cells, notes = _release_cells(path)
        else:
            raise CompareError(
                f"{path}: not a run directory ({CELLS_FILE}) or an authors' release folder "
                "(scores/<rubric>/aggregated_scores.jsonl)"
            )
        cells = validate_cells(cells, source=str(path))
    except CompareError:
        raise
    except (RunFileError, ScoringError, KeyError, ValueError) as exc:
        raise CompareError(f"{path}: cannot read its scored cells ({exc})") from None
    except (TypeError, AttributeError, OverflowError) as exc:
        # A release row whose field has the wrong JSON type (a number for an id, a list for a
        # model, an integer too large for a sample index) fails deep in the reader.
        raise CompareError(
            f"{path}: cannot read its scored cells (a field of the wrong type or size: {exc})"
        ) from None
    if variant is not None:
        cells = cells[cells["variant"] == variant.value]
        if cells.empty:
            raise CompareError(f"{path}: no scored cells of variant '{variant.value}'")
    kept, ignored = scoreable_cells(cells)
    if ignored:
        notes.append(f"{sum(ignored.values())} cells of keys that are never scored left out")
    if kept.empty:
        raise CompareError(f"{path}: no scored cells")
    name = label or (f"{path.name}@{variant.value}" if variant else path.name) or str(path)
    return Side(name, path, kind, kept.reset_index(drop=True), notes)


def _release_cells(path: Path) -> tuple[pd.DataFrame, list[str]]:
    folders = [path] if is_release_folder(path) else list(variant_folders(path).values())
    frames, notes = [], []
    for folder in folders:
        release = load_release(folder)
        frames.append(release.cells)
        prefix = f"{folder.name}: " if len(folders) > 1 else ""
        notes.extend(f"{prefix}{note}" for note in release.notes)
    return pd.concat(frames, ignore_index=True), notes


def load_sides(specs: list[str]) -> list[Side]:
    """Every side, labelled by its folder name (made unique when two names clash)."""
    if len(specs) < 2:
        raise CompareError("compare needs at least two runs or release folders")
    sides = [load_side(spec) for spec in specs]
    seen: dict[str, int] = {}
    for side in sides:
        seen[side.label] = seen.get(side.label, 0) + 1
        if seen[side.label] > 1:
            side.label = f"{side.label} #{seen[side.label]}"
    return sides


def sides_by_election(side: Side) -> list[Side]:
    """One side per election of ``side`` (a run that covered several elections)."""
    elections = side.values("election_id")
    if len(elections) < 2:
        return [side]
    return [
        Side(
            election,
            side.source,
            side.kind,
            side.cells[side.cells["election_id"] == election].reset_index(drop=True),
            list(side.notes),
        )
        for election in elections
    ]
