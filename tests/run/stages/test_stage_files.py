"""Each stage writes (and, when it has nothing, removes) only its own files: a stage that is off
in this run's config leaves none of its files from an earlier run behind, and touches no other
stage's."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from polistemics.run.stages import STAGES
from polistemics.run.stages.base import ElectionRun, StudyState
from polistemics.runlog import RunDir

ELECTION = "e1"
OWN_FILES = {
    "environments": ["swapped_items.jsonl"],
    "judge_repeats": ["judge_repeats.jsonl"],
    "prior_probe": ["prior_probe.jsonl", f"exports/{ELECTION}/prior_probe.jsonl"],
    "stance_code": ["stance_codes.jsonl", f"exports/{ELECTION}/stance_codes.jsonl"],
}


def nothing_run(run_dir: Path) -> StudyState:
    """A run whose stages produced nothing (each one off, or without rows)."""
    scoped = SimpleNamespace(election=SimpleNamespace(id=ELECTION), observations=[])
    return StudyState(None, {}, run_dir, [ElectionRun(scoped)])  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(OWN_FILES))
def test_a_stage_without_rows_removes_its_own_files_and_no_other(tmp_path: Path, name) -> None:
    stale = [path for files in OWN_FILES.values() for path in files]
    for path in stale:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("{}\n", encoding="utf-8")
    (stage,) = [stage for stage in STAGES if stage.name == name]
    stage.write(nothing_run(tmp_path), RunDir(tmp_path))
    assert [p for p in stale if (tmp_path / p).exists()] == [
        p for p in stale if p not in OWN_FILES[name]
    ]
