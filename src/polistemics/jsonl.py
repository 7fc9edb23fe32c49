"""Reading JSON Lines files: one JSON object per non-blank line, errors naming the line.

Records are separated by "\\n" only (a "\\r" before it is dropped). ``str.splitlines`` would also
split at U+2028, U+2029, U+0085 and other characters that JSON strings may hold unescaped,
cutting a record in two; every JSON Lines reader of the project goes through ``lines_of``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

LineError = Callable[[int, str], Exception]  # (line number, problem) -> the caller's error


def lines_of(text: str) -> Iterator[tuple[int, str]]:
    """Each non-blank line of JSON Lines ``text`` with its number (from 1), split on "\\n" only."""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            yield number, line


def json_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``lines_of`` a file's text, read without newline translation, a line at a time: a
    200 MB ``judges.jsonl`` is never held whole, nor as a list of its lines (issue 32). The file
    is opened now (a missing one raises here) and closed when the lines are read."""
    # newline="\n": lines end at "\n" only, untranslated (a lone "\r" or U+2028 is no end).
    handle = Path(path).open(encoding="utf-8", newline="\n")  # noqa: SIM115 (closed by _file_lines)
    return _file_lines(handle)


def _file_lines(handle: TextIO) -> Iterator[tuple[int, str]]:
    with handle:
        for number, line in enumerate(handle, start=1):
            line = line.removesuffix("\n").removesuffix("\r")
            if line.strip():
                yield number, line


def json_objects(path: Path, error: LineError) -> Iterator[tuple[int, dict]]:
    """Each non-blank line's JSON object with its line number (from 1).

    A line that is not JSON, or not an object, raises ``error(line, problem)``: each reader
    names the file and record in its own error type.
    """
    for number, line in json_lines(path):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(number, f"invalid JSON ({exc.msg})") from None
        except RecursionError:  # hostile input nested deeper than the decoder's stack
            raise error(number, "invalid JSON (nested too deeply)") from None
        if not isinstance(row, dict):
            raise error(number, "expected a JSON object")
        yield number, row
