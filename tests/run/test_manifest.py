"""``run.json``'s invocation history survives reruns, old files and hostile edits."""

from __future__ import annotations

import json
from pathlib import Path

from polistemics.run.manifest import previous_invocations


def test_a_file_without_the_list_counts_as_one_invocation(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(
        json.dumps(
            {
                "started": "2026-01-01T00:00:00+00:00",
                "finished": "2026-01-01T00:10:00+00:00",
                "polistemics_version": "0.1.0",
                "stage_seconds": {"answers+judges": 420.5},
                "calls_made_this_run": 176,
            }
        )
    )
    [old] = previous_invocations(path)
    assert old.calls_made == 176 and old.stage_seconds == {"answers+judges": 420.5}


def test_unreadable_entries_are_left_out(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    good = {"started": "a", "finished": "b", "calls_made": 3}
    path.write_text(json.dumps({"invocations": [good, "junk", {"started": 1}, None, good]}))
    assert [i.calls_made for i in previous_invocations(path)] == [3, 3]
    path.write_text("{not json")
    assert previous_invocations(path) == []
    path.write_text("[1, 2]")
    assert previous_invocations(path) == []
    assert previous_invocations(tmp_path / "absent.json") == []
