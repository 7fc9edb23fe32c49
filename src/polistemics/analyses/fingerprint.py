"""Whether the tables in a folder are current: ``manifest.json`` beside them records, per group
of tables, a fingerprint of what they were computed from.

A fingerprint covers the tables' schemas (a new column or type makes old files stale), the
bytes of every input file, and the options that change the numbers (bootstrap resamples, seed,
...). Tables whose group is not in the manifest, or whose fingerprint differs, are stale and are
computed again. A group is forgotten before its files are rewritten and recorded after, so a
write that stops half-way leaves the group stale, never falsely current.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from polistemics.analyses.schema import TableSchema
from polistemics.paths import inside, write_text_replacing

MANIFEST_FILE = "manifest.json"
FORMAT = 1  # of manifest.json and of the fingerprint; raise it to make every folder stale
_CHUNK = 1 << 20


def fingerprint(
    schemas: Iterable[TableSchema], files: Mapping[str, Path], options: Mapping[str, object]
) -> str:
    """A SHA-256 of the schemas, every file's bytes under its name in ``files`` (a name
    relative to the source, so a moved folder stays current; an absent file counts as absent),
    and ``options`` (JSON values)."""
    digest = hashlib.sha256()
    schema_text = [
        [s.name, s.optional, [[c.name, c.type, c.missing_is_none] for c in s.columns]]
        for s in schemas
    ]
    digest.update(json.dumps([FORMAT, schema_text, dict(options)], sort_keys=True).encode())
    for name, path in sorted(files.items()):
        digest.update(b"\0" + name.encode() + b"\0")
        if not path.is_file():
            digest.update(b"absent")
            continue
        digest.update(str(path.stat().st_size).encode() + b"\0")
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    return digest.hexdigest()


def _manifest_path(folder: Path) -> Path:
    return inside(folder, MANIFEST_FILE)


def recorded(folder: Path) -> dict[str, str]:
    """Group -> fingerprint, as ``manifest.json`` records it; {} when absent or unreadable."""
    path = _manifest_path(folder)
    if not path.is_file():
        return {}
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        return {}
    groups = found.get("groups")
    if not isinstance(groups, dict):
        return {}
    return {str(k): v for k, v in groups.items() if isinstance(v, str)}


def is_current(folder: Path, group: str, print_: str) -> bool:
    return recorded(folder).get(group) == print_


def _write(folder: Path, groups: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"format": FORMAT, "groups": dict(sorted(groups.items()))}, indent=2)
    write_text_replacing(_manifest_path(folder), text + "\n")


def forget(folder: Path, group: str) -> None:
    """Mark ``group`` stale (before its files are rewritten)."""
    groups = recorded(folder)
    if group in groups:
        del groups[group]
        _write(folder, groups)


def record(folder: Path, group: str, print_: str) -> None:
    """Mark ``group`` current with ``print_`` (after its files are written)."""
    _write(folder, recorded(folder) | {group: print_})
