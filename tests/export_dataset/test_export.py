"""``export_dataset``: a run's tables load with Hugging Face ``datasets`` and hold the run's
records; keys never reach a file; nothing is written through a link."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from polistemics.export_dataset import ExportError, export_dataset, item_from_row
from polistemics.export_dataset.parquet import MissingPyarrow
from polistemics.paths import UnsafePathError
from polistemics.runlog import RunDir
from polistemics.runlog.items import is_swapped_key

datasets = pytest.importorskip("datasets", reason="the dev extra installs Hugging Face datasets")

TABLES = ("items", "ground_truth", "answers", "verdicts", "panel_verdicts")


def load(folder: Path, config: str):
    """One table, with a cache of the folder's own: ``datasets`` keys its cache on the folder's
    name, so two exports named ``out`` would otherwise share one."""
    cache = folder.parent / f"hf-cache-{folder.name}"
    return datasets.load_dataset(str(folder), config, split="test", cache_dir=str(cache))


def test_the_folder_loads_in_one_line_as_the_items(demo_run: Path, demo_dataset: Path) -> None:
    cache = demo_dataset.parent / "hf-cache-parquet"
    loaded = datasets.load_dataset("parquet", data_dir=str(demo_dataset), cache_dir=str(cache))
    items = RunDir(demo_run).read_items()
    assert list(loaded) == ["test"]
    assert loaded["test"].num_rows == len(items) > 0
    assert sorted(loaded["test"]["key"]) == sorted(item.key for item in items)


def test_every_table_loads_through_the_cards_configs(demo_run: Path, demo_dataset: Path) -> None:
    run = RunDir(demo_run)
    answers = [a for a in run.read_answers() if not is_swapped_key(a.item_key)]
    records = run.read_judge_records()
    expected = {
        "items": len(run.read_items()),
        "ground_truth": len({item.observation_id for item in run.read_items()}),
        "answers": len(answers),
        "verdicts": len(run.read_cells()),
        "panel_verdicts": sum(len(record.says_yes) for record in records),
    }
    assert {config: load(demo_dataset, config).num_rows for config in TABLES} == expected


def test_items_read_back_as_the_runs_items(demo_run: Path, demo_dataset: Path) -> None:
    original = {item.key: item for item in RunDir(demo_run).read_items()}
    rows = load(demo_dataset, "items").to_list()
    rebuilt = {row["key"]: item_from_row(row) for row in rows}
    assert rebuilt == original
    # pandas reads integer columns with gaps as floats: they read back too.
    frame = load(demo_dataset, "items").to_pandas()
    assert {item_from_row(row).key for row in frame.to_dict("records")} == set(original)


def test_items_carry_the_prompt_the_answerer_got(demo_run: Path, demo_dataset: Path) -> None:
    from polistemics.environments.task_prompt import task_messages

    original = {item.key: item for item in RunDir(demo_run).read_items()}
    for row in load(demo_dataset, "items").to_list():
        system, user = task_messages(original[row["key"]])
        assert (row["system_prompt"], row["user_prompt"]) == (system["content"], user["content"])


def test_ground_truth_holds_each_observations_stance_and_evidence(
    demo_run: Path, demo_dataset: Path
) -> None:
    run = RunDir(demo_run)
    evidence = {ev.observation_id: ev for ev in run.read_evidence()}
    rows = load(demo_dataset, "ground_truth").to_list()
    assert len(rows) == len(evidence)
    for row in rows:
        passage = evidence[row["observation_id"]]
        assert row["stance_label"] == passage.position.stance.value
        assert row["evidence_text"] == passage.text
        assert row["country"] == passage.position.country


def test_verdicts_are_the_runs_majority_cells(demo_run: Path, demo_dataset: Path) -> None:
    cells = RunDir(demo_run).read_cells()
    rows = load(demo_dataset, "verdicts").to_pandas()
    key = ["model", "environment", "variant", "observation_id", "rubric", "sub_question"]
    merged = rows.merge(cells, on=key, suffixes=("", "_run"))
    assert len(merged) == len(cells) == len(rows)
    assert (merged["passed"] == merged["passed_run"].astype(bool)).all()
    items = set(load(demo_dataset, "items")["key"])
    assert set(rows["item_key"]) <= items


def test_only_items_and_ground_truth_without_flags(demo_run: Path, tmp_path: Path) -> None:
    result = export_dataset(demo_run, tmp_path / "out")
    assert list(result.rows) == ["items", "ground_truth"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "README.md",
        "ground_truth",
        "items",
    ]
    assert "config_name: answers" not in (tmp_path / "out" / "README.md").read_text()


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="no environment items"):
        export_dataset(tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_verdicts_asked_of_a_run_without_them_are_refused(run_copy: Path, tmp_path: Path) -> None:
    (run_copy / "judges.jsonl").unlink()
    with pytest.raises(ExportError, match="no verdicts"):
        export_dataset(run_copy, tmp_path / "out", verdicts=True)


def test_a_planted_key_reaches_no_file(run_copy: Path, tmp_path: Path, monkeypatch) -> None:
    secret = "sk-test-planted-9f8e7d6c5b4a3928"
    monkeypatch.setenv("POLISTEMICS_EXPORT_TEST_KEY", secret)
    manifest = json.loads((run_copy / "run.json").read_text())
    manifest["models"]["target-a"]["api_key_env"] = "POLISTEMICS_EXPORT_TEST_KEY"
    manifest["config"]["name"] = f"study {secret[:12]}"
    (run_copy / "run.json").write_text(json.dumps(manifest))
    lines = (run_copy / "answers.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["text"] = f"my key is {secret}, and a piece: {secret[3:14]}"
    (run_copy / "answers.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    out = tmp_path / "out"
    export_dataset(run_copy, out, answers=True, verdicts=True)
    answers = load(out, "answers").to_list()
    planted = next(row for row in answers if row["item_key"] == first["item_key"])
    assert "[redacted]" in planted["text"]
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            pieces = {secret[i : i + 8].encode() for i in range(len(secret) - 7)}
            assert not any(piece in data for piece in pieces), path


def test_an_output_folder_that_is_a_link_is_refused(demo_run: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").symlink_to(elsewhere)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        export_dataset(demo_run, tmp_path / "out")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("place", ["README.md", "items", "items/test-00000-of-00001.parquet"])
def test_a_link_inside_the_output_folder_is_not_written_through(
    demo_run: Path, tmp_path: Path, place: str
) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    out = tmp_path / "out"
    (out / "items").mkdir(parents=True)
    link = out / place
    if link.is_dir():
        link.rmdir()
    link.symlink_to(target if place != "items" else tmp_path)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        export_dataset(demo_run, out)
    assert target.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "precious.txt"]


def test_without_pyarrow_the_error_names_the_extra(demo_run, tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(os.sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingPyarrow, match=r"pip install 'polistemics\[dataset\]'"):
        export_dataset(demo_run, tmp_path / "out")
    assert not (tmp_path / "out").exists()
