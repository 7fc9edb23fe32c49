from __future__ import annotations

from pathlib import Path

from polistemics.analyses import fingerprint
from polistemics.analyses.schema import TableColumn, TableSchema

SCHEMA = TableSchema("t", "a table", (TableColumn("x", "int", "a count"),))


def test_the_fingerprint_follows_bytes_options_and_schemas(tmp_path: Path):
    data = tmp_path / "cells.csv"
    data.write_text("a\n1\n")
    files = {"scores/cells.csv": data}
    first = fingerprint.fingerprint([SCHEMA], files, {"seed": 0})
    assert fingerprint.fingerprint([SCHEMA], files, {"seed": 0}) == first
    assert fingerprint.fingerprint([SCHEMA], files, {"seed": 1}) != first
    other = TableSchema("t", "a table", (TableColumn("x", "float", "a count"),))
    assert fingerprint.fingerprint([other], files, {"seed": 0}) != first
    data.write_text("a\n2\n")
    assert fingerprint.fingerprint([SCHEMA], files, {"seed": 0}) != first
    data.unlink()
    absent = fingerprint.fingerprint([SCHEMA], files, {"seed": 0})
    data.write_text("")
    assert fingerprint.fingerprint([SCHEMA], files, {"seed": 0}) != absent


def test_a_moved_folder_keeps_its_fingerprint(tmp_path: Path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "cells.csv").write_text("same\n")
    prints = {
        fingerprint.fingerprint([SCHEMA], {"cells.csv": tmp_path / n / "cells.csv"}, {})
        for n in ("a", "b")
    }
    assert len(prints) == 1


def test_groups_are_recorded_and_forgotten_one_by_one(tmp_path: Path):
    assert fingerprint.recorded(tmp_path) == {}
    fingerprint.record(tmp_path, "analyses", "1")
    fingerprint.record(tmp_path, "scores", "2")
    assert fingerprint.is_current(tmp_path, "analyses", "1")
    assert not fingerprint.is_current(tmp_path, "analyses", "2")
    fingerprint.forget(tmp_path, "analyses")
    assert fingerprint.recorded(tmp_path) == {"scores": "2"}


def test_an_unreadable_or_foreign_manifest_makes_everything_stale(tmp_path: Path):
    path = tmp_path / fingerprint.MANIFEST_FILE
    for text in ("{not json", "[]", '{"format": 99, "groups": {"scores": "2"}}'):
        path.write_text(text)
        assert fingerprint.recorded(tmp_path) == {}
