"""Reading source files strictly: UTF-8 text, JSON, and per-record schema validation."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from polistemics.sources.errors import SourceError

Model = TypeVar("Model", bound=BaseModel)


def read_text(path: Path) -> str:
    """The file's text; a missing file or bytes that are not UTF-8 stop with a SourceError."""
    if not path.exists():
        raise SourceError("file not found", path=path)
    if not path.is_file():
        raise SourceError("not a file", path=path)
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"not valid UTF-8 text (undecodable byte at offset {exc.start}); "
            "re-save the file as UTF-8",
            path=path,
        ) from None


def parse_json(text: str, *, path: Path, record: str | None = None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            path=path,
            record=record,
        ) from None


def read_json(path: Path) -> Any:
    return parse_json(read_text(path), path=path)


def expect_list(data: Any, *, path: Path) -> list[Any]:
    if not isinstance(data, list):
        raise SourceError(f"expected a JSON list of records, got {type(data).__name__}", path=path)
    return data


def validate_record(
    model: type[Model], raw: Any, *, path: Path, record: str, field_prefix: str = ""
) -> Model:
    """One record against its schema; the first problem names the field."""
    if not isinstance(raw, dict):
        raise SourceError(f"expected an object, got {type(raw).__name__}", path=path, record=record)
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = field_prefix + _field_path(error["loc"])
        field = field.lstrip(".")
        raise SourceError(_describe(error), path=path, record=record, field=field or None) from None


def validate_records(
    model: type[Model],
    items: Sequence[Any],
    *,
    path: Path,
    describe: Callable[[int, Any], str] | None = None,
) -> list[Model]:
    describe = describe or record_label
    return [
        validate_record(model, item, path=path, record=describe(index, item))
        for index, item in enumerate(items)
    ]


def record_label(index: int, raw: Any) -> str:
    """'record 3 (id 2)': 1-based position in the list, plus the record's own id when it has one."""
    label = f"record {index + 1}"
    if isinstance(raw, dict) and "id" in raw:
        label += f" (id {raw['id']!r})"
    return label


def _describe(error: Any) -> str:
    if error["type"] == "missing":
        return "missing"
    return f"{error['msg']} (got {error.get('input')!r})"


def _field_path(loc: tuple[Any, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
