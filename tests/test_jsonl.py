"""The shared JSON Lines reader: objects with their line numbers, errors in the caller's type."""

from __future__ import annotations

import json
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polistemics.jsonl import json_lines, json_objects, lines_of


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


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", " ", "\n", "\r", "\u2028", "\x85", "ü", "{"])))
def test_a_files_lines_are_the_lines_of_its_text(text: str) -> None:
    """Read a line at a time, a file gives what ``lines_of`` gives for its whole text."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.jsonl"
        path.write_bytes(text.encode())
        assert list(json_lines(path)) == list(lines_of(text))


def test_a_large_file_is_read_without_holding_its_text(tmp_path: Path) -> None:
    """Reading the lines one by one holds about one line, not the file's text and its list of
    lines (which the whole-text reader held: over 2x the file's size)."""
    path = tmp_path / "rows.jsonl"
    line = json.dumps({"t": "x" * 200})
    path.write_text((line + "\n") * 20_000, encoding="utf-8")  # about 4 MB
    tracemalloc.start()
    try:
        count = sum(1 for _ in json_lines(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 20_000
    assert peak < 1_000_000


def test_a_missing_file_is_refused_when_its_lines_are_asked_for(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        json_lines(tmp_path / "none.jsonl")
