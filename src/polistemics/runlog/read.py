"""How a run directory's files are read back (``RunDir`` calls these with its paths).

Each reader raises ``RunFileError`` naming the file, record and field; callers turn it into
their own error. JSONL files are validated in one pass (one JSON array), which is what makes
reading 100,000 judge records fast.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from polistemics.jsonl import json_lines
from polistemics.runlog.answers import Answer
from polistemics.runlog.manifest import RunManifest

ANSWERS_PER_READ = 10_000
_ANSWERS = TypeAdapter(list[Answer])


class RunFileError(ValueError):
    """A run directory's file cannot be read; the message names the file and the problem."""


def read_manifest(path: Path) -> RunManifest | None:
    """``run.json``, or None when there is none. Only a file that is not JSON is an error: what
    does not fit the model reads as unknown (``runlog.manifest``)."""
    if not path.is_file():
        return None
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RunFileError(f"{path}: invalid JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise RunFileError(f"{path}: invalid JSON ({exc.reason})") from None
    return RunManifest.model_validate(value)


def read_list(path: Path, adapter: TypeAdapter) -> list | None:
    """A JSONL file validated in one pass (one JSON array) for speed; errors name the record.
    None when the file does not exist."""
    if not path.is_file():
        return None
    return [record for chunk in read_chunks(path, adapter) for record in chunk]


def read_chunks(path: Path, adapter: TypeAdapter, size: int | None = None) -> Iterator[list]:
    """A JSONL file's records, validated ``size`` lines at a time (one JSON array each, for
    speed; default: all at once), so a caller that keeps them in another form never holds
    every record as an object. Errors name the record."""
    lines = (line for _, line in json_lines(path))
    first = 0
    while chunk := list(islice(lines, size)):
        try:
            yield adapter.validate_json("[" + ",".join(chunk) + "]")
        except ValidationError as exc:
            error = exc.errors()[0]
            index = error["loc"][0] if error["loc"] else 0
            field = _field_name(error["loc"][1:])
            raise RunFileError(
                f"{path}, record {first + int(index) + 1}, field '{field}': {error['msg']}"
            ) from None
        first += len(chunk)
        if size is None:
            return


def _field_name(location: tuple) -> str:
    """A validation error's field path within one record (``-``: the record itself)."""
    return ".".join(str(part) for part in location) or "-"


def record_offsets(path: Path) -> Iterator[int]:
    """The byte offset of each record's line in a JSONL file, in the order ``read_chunks``
    reads the records: lines end at "\n" only and blank ones are skipped, as
    ``jsonl.json_lines`` reads them. A reader keeps these instead of a record's long text and
    reads the line again when it needs it (``read_answers_at``)."""
    offset = 0
    with Path(path).open("rb") as handle:
        for raw in handle:  # a binary file's lines end at b"\n" only
            text = raw.decode("utf-8", errors="replace").removesuffix("\n").removesuffix("\r")
            if text.strip():
                yield offset
            offset += len(raw)


def read_answers_at(path: Path, offsets: Iterable[int]) -> Iterator[Answer]:
    """The answers of ``answers.jsonl`` whose lines start at these byte offsets
    (``record_offsets``), in the order given, each validated as when the file was first read."""
    with Path(path).open("rb") as handle:
        for offset in offsets:
            handle.seek(offset)
            line = handle.readline()
            try:
                yield Answer.model_validate_json(line)
            except ValidationError as exc:
                error = exc.errors()[0]
                field = _field_name(error["loc"])
                raise RunFileError(
                    f"{path}, the record at byte {offset}, field '{field}': {error['msg']}"
                ) from None


def read_answer_chunks(path: Path, size: int = ANSWERS_PER_READ) -> Iterator[list[Answer]] | None:
    """``answers.jsonl``, ``size`` answers at a time (None: no such file), for readers that keep
    less than each answer (the item browser's views): a 4x study's 51,000 answers took 186 MB
    as objects at once (issue 32)."""
    return read_chunks(path, _ANSWERS, size) if path.is_file() else None
