"""Reading JSON Lines files: one JSON object per non-blank line, errors naming the line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

LineError = Callable[[int, str], Exception]  # (line number, problem) -> the caller's error


def json_objects(path: Path, error: LineError) -> Iterator[tuple[int, dict]]:
    """Each non-blank line's JSON object with its line number (from 1).

    A line that is not JSON, or not an object, raises ``error(line, problem)``: each reader
    names the file and record in its own error type.
    """
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(number, f"invalid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise error(number, "expected a JSON object")
            yield number, row
