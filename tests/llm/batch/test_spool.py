"""A batch's files on disk: input written a line at a time and renamed when complete, Anthropic's
body written as the JSON it uploads, results read back a line at a time."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from polistemics.llm.batch import spool
from polistemics.llm.batch.anthropic import request_line as anthropic_request
from polistemics.llm.batch.anthropic import requests_body
from polistemics.llm.batch.wire import read_lines, read_output, request_line
from polistemics.llm.keys import messages_json

from .test_wire import KEY_A, KEY_B, ok_line

BODY = {"model": "m", "max_tokens": 9}
MESSAGES = messages_json([{"role": "user", "content": "hello"}])


def test_an_input_file_is_complete_only_under_its_final_name(tmp_path: Path) -> None:
    file = spool.SpoolFile(tmp_path / "input-1")
    lines = [request_line(key, BODY, MESSAGES) for key in (KEY_A, KEY_B)]
    for line in lines:
        file.add(line)
    assert not file.final.exists() and (tmp_path / "input-1.part").exists()
    assert (file.lines, file.size) == (2, sum(map(len, lines)))
    path = file.finish()
    assert path == tmp_path / "input-1.jsonl" and path.read_bytes() == b"".join(lines)
    assert not (tmp_path / "input-1.part").exists()


def test_an_anthropic_file_is_the_create_requests_body(tmp_path: Path) -> None:
    lines = [anthropic_request(key, BODY, MESSAGES) for key in (KEY_A, KEY_B)]
    file = spool.SpoolFile(tmp_path / "input-2", anthropic=True)
    for line in lines:
        file.add(line)
    body = json.loads(file.finish().read_bytes())
    assert body == json.loads(requests_body(lines))
    assert [r["custom_id"] for r in body["requests"]] == [KEY_A, KEY_B]


def test_discard_and_clear_remove_what_a_run_left(tmp_path: Path) -> None:
    file = spool.SpoolFile(tmp_path / "a")
    file.add(b"x\n")
    file.discard()
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "b.part").write_bytes(b"x")
    (tmp_path / "c.jsonl").write_bytes(b"x")
    (tmp_path / "keep.txt").write_bytes(b"x")
    spool.clear(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_lines_gives_offsets_and_cuts_an_overlong_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(spool, "MAX_LINE_BYTES", 8)
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"abc\n\n" + b"x" * 20 + b"\nlast\n")
    assert list(spool.lines(path)) == [(0, b"abc\n"), (5, b"x" * 8), (26, b"last\n")]


def test_results_read_from_files_equal_those_read_in_memory(tmp_path: Path) -> None:
    data = [ok_line(KEY_A, "one") + b"\n" + ok_line("d" * 64) + b"\n", ok_line(KEY_B) + b"\n"]
    paths = []
    for i, content in enumerate(data):
        paths.append(tmp_path / f"{i}.jsonl")
        paths[-1].write_bytes(content)
    refused: Counter[str] = Counter()
    read = dict(
        read_lines(
            lambda: (raw for p in paths for _, raw in spool.lines(p)), {KEY_A, KEY_B}, refused
        )
    )
    expected = read_output(data, {KEY_A, KEY_B})
    assert read == expected.results and refused == expected.refused == {"unknown": 1}


def test_results_are_read_a_line_at_a_time() -> None:
    """The second reading hands each result out before it reads the next line."""
    lines = [ok_line(key) for key in (KEY_A, KEY_B)]
    read_so_far: list[int] = []

    def source():
        for index, line in enumerate(lines):
            read_so_far.append(index)
            yield line

    results = read_lines(source, {KEY_A, KEY_B}, Counter())
    key, _ = next(results)
    assert key == KEY_A and read_so_far == [0, 1, 0]  # the first pass, then one line
    assert [k for k, _ in results] == [KEY_B]
