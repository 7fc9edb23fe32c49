"""The shared JSON Lines reader: objects with their line numbers, errors in the caller's type."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polistemics.jsonl import json_objects


class RowError(ValueError):
    pass


def read(path: Path) -> list[tuple[int, dict]]:
    return list(json_objects(path, lambda line, problem: RowError(f"line {line}: {problem}")))


def test_objects_come_with_their_line_numbers_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n   \n{"b": "ü"}\n', encoding="utf-8")
    assert read(path) == [(1, {"a": 1}), (4, {"b": "ü"})]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "line 2: invalid JSON"),
        ("[1, 2]", "line 2: expected a JSON object"),
        ("[" * 100_000, "line 2: invalid JSON"),  # nested too deeply: no RecursionError
    ],
)
def test_a_bad_line_raises_the_callers_error_naming_it(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(RowError, match=problem):
        read(path)


def test_records_are_split_on_newlines_only(tmp_path: Path) -> None:
    odd = "a\u2028b\u2029c\x85d\x0b\x0c\x1c\x1d\x1e"
    path = tmp_path / "rows.jsonl"
    # json.dumps leaves U+2028, U+2029 and U+0085 raw (the control characters are escaped)
    path.write_bytes((json.dumps({"t": odd}, ensure_ascii=False) + '\r\n{"n": 2}\n').encode())
    assert read(path) == [(1, {"t": odd}), (2, {"n": 2})]
