"""Reading source files strictly: UTF-8 text, JSON, and per-record schema validation."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from polistemics.paths import SAFE_NAME_RULE, is_safe_name
from polistemics.sources.errors import SourceError

Model = TypeVar("Model", bound=BaseModel)

# Characters XML 1.0 does not allow, so one in a statement or rationale would make every SVG
# figure showing it invalid: C0 controls other than tab, line feed and carriage return, U+FFFE
# and U+FFFF, and lone surrogates (JSON's "\ud800" decodes to one; no file could be written).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


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


def checked_election_id(
    value: str, *, path: Path | str, record: str | None = None, field: str | None = None
) -> str:
    """``value`` when usable as an election id: it becomes a folder name (``exports/<id>/``)."""
    if not is_safe_name(value):
        raise SourceError(
            f"{value!r} is not usable as an election id ({SAFE_NAME_RULE})",
            path=path,
            record=record,
            field=field,
        )
    return value


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
        parsed = model.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = field_prefix + _field_path(error["loc"])
        field = field.lstrip(".")
        raise SourceError(_describe(error), path=path, record=record, field=field or None) from None
    for loc, text in _strings(parsed.model_dump()):
        found = _CONTROL.search(text)
        if found:
            raise SourceError(
                f"character U+{ord(found.group()):04X} (a control character or non-character) "
                f"at offset {found.start()}; remove it from the source",
                path=path,
                record=record,
                field=(field_prefix + _field_path(loc)).lstrip(".") or None,
            )
    return parsed


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


def _strings(value: Any, loc: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Every string inside a dumped record, with where it sits."""
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*loc, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _strings(item, (*loc, index))


def _describe(error: Any) -> str:
    if error["type"] == "missing":
        return "missing"
    return f"{error['msg']} (got {error.get('input')!r})"


def _field_path(loc: tuple[Any, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
