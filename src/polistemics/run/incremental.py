"""What a rerun may skip: for each step of the finish, a content hash of its inputs, recorded
beside the run's files together with the hash of every file the step wrote (issue 32).

Two steps are recorded in the run directory's ``.incremental.json``:

- ``records``: the model stages' outputs and everything the finish computes from them (the
  JSONL records, ``exports/``, ``scores/``, ``tables/``). Its key covers what decides them: the
  run store's calls and annotation tables (``store_digest``), the config, the model endpoints,
  the loaded elections and the package's code (``code_digest``). A rerun whose key matches, and
  whose recorded files are all still as written, replays no call and rebuilds none of them.
- ``report``: the report folder. Its key is the records' key and the report's options.

A step is forgotten before its files are rewritten and recorded after, so a finish that stops
half-way leaves it stale, never falsely current. A file is as written when its size and
modification time are those recorded, or else when its bytes hash to the recorded SHA-256.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

import polistemics
from polistemics.paths import inside, write_text_replacing

LEDGER_FILE = ".incremental.json"
FORMAT = 1  # of the ledger and its keys; raise it to make every run's steps stale
RECORDS, REPORT = "records", "report"
_CHUNK = 1 << 20
# What the key of the package's code reads (templates and prompts change outputs too).
_CODE_SUFFIXES = {".py", ".html", ".j2", ".jinja", ".txt", ".md", ".css", ".js", ".json", ".toml"}
# Files of the run directory that are no step's output.
_NOT_OUTPUTS = {LEDGER_FILE, "run.json", "run.json.partial", ".run.lock", ".run.lock.json"}
_STORE_FILES = ("store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite-journal")


def content_key(*parts: object) -> str:
    """A SHA-256 of ``parts`` as canonical JSON (anything else as its ``str``)."""
    text = json.dumps([FORMAT, *parts], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A SHA-256 of the package's source, templates and prompts (path and bytes of each)."""
    package = Path(polistemics.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.suffix in _CODE_SUFFIXES and "__pycache__" not in path.parts and path.is_file():
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def store_digest(path: Path) -> str:
    """A SHA-256 of the run store's contents: every call's key, status and time of storing (a
    call stored again, e.g. retried, has a new time) and every row of the other tables (the
    human annotation sample and labels, the store's meta). "absent" when there is no store."""
    if not path.is_file():
        return "absent"
    digest = hashlib.sha256()
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        for table in tables:
            quoted = '"' + table.replace('"', '""') + '"'
            query = (
                "SELECT key, status, created_at FROM calls ORDER BY key"
                if table == "calls"
                else f"SELECT * FROM {quoted} ORDER BY 1"
            )
            # An empty table counts as absent (one made on opening the store changes nothing).
            name = b"\0table\0" + table.encode()
            for row in db.execute(query):
                digest.update(name + repr(row).encode("utf-8"))
                name = b"\0"
    finally:
        db.close()
    return digest.hexdigest()


def options_json(options: object) -> object:
    """A dataclass of options as JSON-able values (for a key)."""
    if dataclasses.is_dataclass(options) and not isinstance(options, type):
        return dataclasses.asdict(options)
    return options


class Ledger:
    """The run directory's ``.incremental.json``: per step, its inputs' key and the files it
    wrote (path in the run -> size, modification time, SHA-256)."""

    def __init__(self, root: Path):
        self.root = Path(root)

    @property
    def path(self) -> Path:
        return inside(self.root, LEDGER_FILE)

    def steps(self) -> dict[str, dict]:
        """Step -> {"key": ..., "files": {...}}; {} when absent or unreadable."""
        try:
            found = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(found, dict) or found.get("format") != FORMAT:
            return {}
        steps = found.get("steps")
        if not isinstance(steps, dict):
            return {}
        return {k: v for k, v in steps.items() if isinstance(v, dict)}

    def is_current(self, step: str, key: str) -> bool:
        """Whether ``step`` was recorded with ``key`` and each of its files is as written."""
        entry = self.steps().get(step)
        if entry is None or entry.get("key") != key:
            return False
        files = entry.get("files")
        if not isinstance(files, dict):
            return False
        return all(self._as_written(name, seen) for name, seen in files.items())

    def _as_written(self, name: str, seen: object) -> bool:
        if not isinstance(seen, dict):
            return False
        try:
            path = inside(self.root, name)
            stat = path.stat()
        except (OSError, ValueError):
            return False
        if stat.st_size != seen.get("size"):
            return False
        if stat.st_mtime_ns == seen.get("mtime_ns"):
            return True
        return file_sha256(path) == seen.get("sha256")

    def forget(self, step: str) -> None:
        """Mark ``step`` stale (before its files are rewritten)."""
        steps = self.steps()
        if step in steps:
            del steps[step]
            self._write(steps)

    def record(self, step: str, key: str, files: Iterable[Path]) -> None:
        """Mark ``step`` current for ``key`` with ``files`` as they are now."""
        entries = {}
        for path in sorted(files):
            stat = path.stat()
            entries[path.relative_to(self.root).as_posix()] = {
                "size": stat.st_size,
                "mtime_ns": stat.st_mtime_ns,
                "sha256": file_sha256(path),
            }
        self._write(self.steps() | {step: {"key": key, "files": entries}})

    def _write(self, steps: Mapping[str, dict]) -> None:
        text = json.dumps({"format": FORMAT, "steps": dict(sorted(steps.items()))}, indent=1)
        write_text_replacing(self.path, text + "\n")


def record_files(root: Path, report_folder: str) -> list[Path]:
    """Every file the finish wrote apart from the report, ``run.json``, the store, the lock and
    the ledger (temporary files of an interrupted write, starting with a dot, left out)."""
    found = []
    for path in Path(root).rglob("*"):
        relative = path.relative_to(root)
        if relative.parts[0] in (report_folder, *_STORE_FILES) or relative.name in _NOT_OUTPUTS:
            continue
        if path.is_file() and not relative.name.startswith("."):
            found.append(path)
    return found


def report_files(folder: Path) -> list[Path]:
    """Every file of the report folder (temporary files left out)."""
    return [p for p in Path(folder).rglob("*") if p.is_file() and not p.name.endswith(".tmp")]


def records_key(
    config: BaseModel,
    endpoints: Mapping[str, BaseModel],
    elections: Iterable[BaseModel],
    store: Path,
) -> str:
    """The ``records`` step's key: the code, the config, the endpoints, the loaded elections and
    the store's contents."""
    return content_key(
        code_digest(),
        config.model_dump(mode="json"),
        {name: endpoint.model_dump(mode="json") for name, endpoint in sorted(endpoints.items())},
        [election.model_dump(mode="json") for election in elections],
        store_digest(store),
    )


def report_key(records: str, options: object) -> str:
    """The ``report`` step's key: the records' key and the report's options."""
    return content_key(records, options_json(options))
