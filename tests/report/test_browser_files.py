"""The item browser at any scale (issue 32): a large payload is split into the page's index
and data files beside it; the files hold every answer in full, text stays escaped text, and a
write interrupted midway leaves no torn file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from polistemics.paths import UnsafePathError
from polistemics.report.browser_files import (
    INDEX_FIELDS,
    BrowserData,
    page_browser,
    write_browser_files,
)

HOSTILE = '</script><script>window.pwned=1</script>\u2028<img src=x onerror="x()">'


def payload(answers: int) -> dict:
    """A browser payload of ``answers`` rows sharing statements and contexts."""
    strings = [f"statement {n % 3}" for n in range(3)] + [f"chunk {n}" for n in range(4)]
    strings += [HOSTILE, "raw judge output", "call failed"]
    contexts = [[[3, "t"]], [[4, "t"], [5, "d"]], [], [[6, "t"]]]
    items = []
    for n in range(answers):
        strings.append(f"answer {n}")
        items.append(
            {
                "m": n % 2, "e": n % 6, "v": 0, "p": n % 4, "o": f"obs{n}", "n": 0,
                "q": n % 3, "l": f"Party {n % 4}", "x": n % 4, "a": len(strings) - 1 if n != 5 else 7,
                "f": 9 if n == 6 else None, "s": "Agree", "t": None, "g": None, "c": "PF-",
                "j": [[0, 0, 8, "YN-", None], [0, 1, None, "??-", 9]], "d": n % 2, "k": 0,
                "cs": None, "ps": None,
            }
        )  # fmt: skip
    return {"total": answers, "embedded": answers, "judges": ["0:a", "1:b"],
            "strings": strings, "contexts": contexts, "items": items}  # fmt: skip


def resolved(row: dict, strings: list[str], contexts: list[list]) -> dict:
    """A row with every string and context index replaced by its text."""

    def text(index: int | None) -> str | None:
        return None if index is None else strings[index]

    return row | {
        "q": text(row["q"]),
        "a": text(row["a"]),
        "f": text(row["f"]),
        "x": [[text(chunk), role] for chunk, role in contexts[row["x"]]],
        "j": [[r, j, text(raw), marks, text(err)] for r, j, raw, marks, err in row["j"]],
    }


def file_page(text: str) -> tuple[int, dict]:
    found = re.fullmatch(r"polistemicsBrowserPage\((\d+),(.*)\);\n", text, re.S)
    assert found, text[:80]
    return int(found.group(1)), json.loads(found.group(2))


def test_a_small_payload_stays_inline() -> None:
    data = page_browser(payload(10), inline=10)
    assert not data.paged and data.files == [] and data.index == payload(10)


def test_a_large_payload_is_paged_and_every_answer_is_in_its_file() -> None:
    whole = payload(23)
    data = page_browser(whole, inline=10, per_file=5)
    assert data.paged
    assert [name for name, _ in data.files] == [f"browser/answers-{n:04d}.js" for n in range(5)]
    assert data.index["files"] == [name for name, _ in data.files]
    assert data.index["perFile"] == 5 and data.index["judges"] == whole["judges"]
    assert data.index["strings"] == [] and data.index["contexts"] == []
    assert data.index["items"] == [{k: row[k] for k in INDEX_FIELDS} for row in whole["items"]]
    rebuilt = []
    for number, (_, text) in enumerate(data.files):
        assert file_page(text)[0] == number
        page = file_page(text)[1]
        rebuilt += [resolved(r, page["strings"], page["contexts"]) for r in page["items"]]
    expected = [resolved(r, whole["strings"], whole["contexts"]) for r in whole["items"]]
    assert rebuilt == expected


def test_answer_text_in_a_data_file_is_escaped_json() -> None:
    data = page_browser(payload(12), inline=1, per_file=100)
    (_, text), *_ = data.files
    assert "<" not in text and ">" not in text and "\u2028" not in text
    assert HOSTILE in file_page(text)[1]["strings"]


def test_files_are_replaced_and_stale_ones_removed(tmp_path: Path) -> None:
    stale = tmp_path / "browser" / "answers-0009.js"
    stale.parent.mkdir()
    stale.write_text("old")
    keep = tmp_path / "browser" / "notes.txt"  # not a data file: the user's
    keep.write_text("mine")
    written = write_browser_files(page_browser(payload(12), inline=1, per_file=5), tmp_path)
    assert [p.name for p in written] == ["answers-0000.js", "answers-0001.js", "answers-0002.js"]
    assert not stale.exists() and keep.read_text() == "mine"
    assert write_browser_files(page_browser(payload(12), inline=100), tmp_path) == []
    assert sorted(p.name for p in (tmp_path / "browser").iterdir()) == ["notes.txt"]


def test_an_interrupted_write_leaves_no_torn_file(tmp_path: Path, monkeypatch) -> None:
    """A report killed while writing a data file: the file is the old one or the new one, never
    half of one, and the rerun writes it whole."""
    data = page_browser(payload(12), inline=1, per_file=5)
    write_browser_files(data, tmp_path)
    before = {p.name: p.read_text() for p in (tmp_path / "browser").iterdir()}
    changed = BrowserData(data.index, [(n, t.replace("answer", "ANSWER")) for n, t in data.files])
    real_fdopen = os.fdopen

    class Interrupted(Exception):
        pass

    def fdopen_then_fail(fd, *args, **kwargs):
        handle = real_fdopen(fd, *args, **kwargs)
        real_write = handle.write

        def write(text: str) -> int:
            real_write(text[: len(text) // 2])
            raise Interrupted

        handle.write = write
        return handle

    monkeypatch.setattr(os, "fdopen", fdopen_then_fail)  # paths.write_text_replacing uses it
    with pytest.raises(Interrupted):
        write_browser_files(changed, tmp_path)
    monkeypatch.undo()
    after = {p.name: p.read_text() for p in (tmp_path / "browser").iterdir()}
    assert after == before  # no temporary file left, no file half written
    write_browser_files(changed, tmp_path)
    assert all(file_page(p.read_text()) for p in (tmp_path / "browser").iterdir())
    assert "ANSWER" in (tmp_path / "browser" / "answers-0000.js").read_text()


def test_a_link_in_place_of_the_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "browser").symlink_to(elsewhere)
    with pytest.raises(UnsafePathError):
        write_browser_files(page_browser(payload(12), inline=1), tmp_path / "report")
    assert list(elsewhere.iterdir()) == []
