"""The journal of waiting calls: records read back as written, and a file of records dropped
once every record in it has been read for good."""

from __future__ import annotations

from pathlib import Path

from polistemics.llm.batch import journal as journal_module
from polistemics.llm.batch.journal import Journal


def test_records_read_back_as_written(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    prompt = '[{"role": "user", "content": "line one\\nline \\"two\\" é"}]'
    places = [journal.write({"n": n, "context": {"text": "ä\n"}}, prompt) for n in range(3)]
    assert [journal.read(place) for place in reversed(places)] == [
        ({"n": n, "context": {"text": "ä\n"}}, prompt) for n in (2, 1, 0)
    ]
    assert journal.waiting == 3
    assert list(tmp_path.iterdir()) == []  # anonymous files: nothing for a rerun to find
    journal.close()


def test_a_file_of_records_goes_with_its_last_record(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(journal_module, "SEGMENT_BYTES", 100)
    journal = Journal(tmp_path)
    first = [journal.write({"n": n}, "x" * 60) for n in range(2)]  # the first file is full
    second = journal.write({"n": 2}, "y")
    assert journal.disk_bytes > 140
    for place in first:
        journal.release(place)
    assert journal.waiting == 1 and journal.disk_bytes < 30  # the first file is gone
    assert journal.read(second) == ({"n": 2}, "y")
    journal.close()
