"""A task's four files (``runlog.task_files``): written, read back with the task's own item
model, absent when the run did not ask the task, and removed without a trace."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from polistemics.runlog import Answer
from polistemics.runlog.comparison import COMPARISON_FILES
from polistemics.runlog.issue_mapping import ISSUE_MAPPING_FILES
from polistemics.runlog.navigation import NAVIGATION_FILES, NavigationFiles
from polistemics.runlog.task_files import (
    TASK_FILE_NAMES,
    NamedParty,
    NavigationCodeRecord,
    TaskFiles,
    TaskRecords,
)


class ToyItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    text: str


TOY_FILES = TaskFiles("tasks/toy", ToyItem)


def _records() -> TaskRecords[ToyItem]:
    return TOY_FILES.records(
        items=[ToyItem(key="toy|1", text='«hostile» "text"\n')],
        answers=[Answer(item_key="toy|1", model="m", sample_index=0, status="ok", text="yes")],
        codes=[
            NavigationCodeRecord(
                item_key="toy|1",
                model="m",
                sample_index=0,
                coder="c",
                panel_position=0,
                named=[NamedParty(name="A", stance=None)],
            )
        ],
        verdicts=[],
    )


def test_records_round_trip_with_the_item_model(tmp_path: Path) -> None:
    records = _records()
    TOY_FILES.write(tmp_path, records)
    assert sorted(p.name for p in (tmp_path / "tasks" / "toy").iterdir()) == sorted(TASK_FILE_NAMES)
    read = TOY_FILES.read(tmp_path)
    assert read == records
    assert read is not None and isinstance(read.items[0], ToyItem)
    assert (tmp_path / "tasks" / "toy" / "judges.jsonl").read_text(encoding="utf-8") == ""


def test_no_items_file_reads_as_a_run_without_the_task(tmp_path: Path) -> None:
    assert TOY_FILES.read(tmp_path) is None
    TOY_FILES.write(tmp_path, _records())
    (tmp_path / "tasks" / "toy" / "codes.jsonl").unlink()
    read = TOY_FILES.read(tmp_path)
    assert read is not None and read.codes == [] and len(read.answers) == 1


def test_remove_leaves_no_task_file(tmp_path: Path) -> None:
    TOY_FILES.write(tmp_path, _records())
    TOY_FILES.remove(tmp_path)
    TOY_FILES.remove(tmp_path)  # nothing left to remove is no error
    assert TOY_FILES.read(tmp_path) is None
    assert list((tmp_path / "tasks" / "toy").iterdir()) == []


def test_each_task_keeps_its_folder_and_item_model() -> None:
    assert [f.folder for f in (NAVIGATION_FILES, COMPARISON_FILES, ISSUE_MAPPING_FILES)] == [
        "tasks/navigation",
        "tasks/comparison",
        "tasks/issue_mapping",
    ]
    assert NavigationFiles is TaskRecords[NAVIGATION_FILES.item_model]
