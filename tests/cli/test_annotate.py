"""``polistemics annotate sample|export|import`` through the real CLI app."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from annotate.small_run import build_small_run
from polistemics.annotate.store import AnnotationStore
from polistemics.cli import app

runner = CliRunner()


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return build_small_run(tmp_path / "run")


def _sample_json(run_dir: Path, *args: str) -> dict:
    result = runner.invoke(app, ["annotate", "sample", str(run_dir), *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_sample_prints_the_design_and_stores_the_items(run_dir: Path) -> None:
    result = runner.invoke(app, ["annotate", "sample", str(run_dir), "--n", "10", "--seed", "3"])
    assert result.exit_code == 0, result.output
    row = r"│ Absent\s+│ Epistemic Calibration │ split\s+│\s+1 │\s+1 │\s+1\.00 │"
    assert re.search(row, result.stdout)
    assert "split items drawn: 5 of 10 (target share 0.5)" in result.stdout
    assert "overlap: 2 items want 2 annotators" in result.stdout
    with AnnotationStore.open(run_dir) as store:
        assert len(store.sample()) == 10


def test_sample_json_and_options(run_dir: Path) -> None:
    design = _sample_json(
        run_dir, "--n", "8", "--seed", "1", "--overlap", "3", "--overlap-share", "1"
    )
    assert design["drawn"] == 8 and design["items_wanting_overlap"] == 8
    assert sum(s["drawn"] for s in design["strata"]) == 8
    with AnnotationStore.open(run_dir) as store:
        assert {s.annotators_wanted for s in store.sample()} == {3}


def test_resampling_needs_replace_and_no_labels(run_dir: Path) -> None:
    _sample_json(run_dir, "--n", "5")
    again = runner.invoke(app, ["annotate", "sample", str(run_dir), "--n", "6"])
    assert again.exit_code == 2
    assert "pass --replace" in again.stderr
    assert _sample_json(run_dir, "--n", "6", "--replace")["drawn"] == 6
    with AnnotationStore.open(run_dir) as store:
        item = store.sample()[0]
        store.add_label("Ana", item.sample_id, item.sub_questions[0].code, True)
    refused = runner.invoke(app, ["annotate", "sample", str(run_dir), "--n", "7", "--replace"])
    assert refused.exit_code == 2
    assert "labels are never deleted" in refused.stderr
    with AnnotationStore.open(run_dir) as store:
        assert len(store.sample()) == 6 and len(store.labels()) == 1


def test_not_a_finished_run_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["annotate", "sample", str(tmp_path)])
    assert result.exit_code == 2
    assert "not a finished run directory" in result.stderr


def test_export_and_import_round_trip_with_refused_lines(run_dir: Path, tmp_path: Path) -> None:
    _sample_json(run_dir, "--n", "4")
    with AnnotationStore.open(run_dir) as store:
        item = store.sample()[0]
    code = item.sub_questions[0].code
    labels = tmp_path / "labels.jsonl"
    hostile = {"annotator": "Mal\x1b[31m", "says_yes": False}
    labels.write_text(
        "\n".join(
            [
                json.dumps({"sample_id": item.sample_id, "sub_question": code, "says_yes": "Yes"}),
                json.dumps({"sample_id": "a0042", "sub_question": code, "says_yes": "No"}),
                json.dumps(
                    {"sample_id": item.sample_id, "sub_question": "\x1b[2J", "says_yes": "No"}
                ),
                json.dumps({**hostile, "sample_id": item.sample_id, "sub_question": code}),
                json.dumps({**hostile, "sample_id": item.sample_id, "sub_question": code}),
            ]
        ),
        encoding="utf-8",
    )
    result = runner.invoke(
        app, ["annotate", "import", str(run_dir), str(labels), "--annotator", "Eve"]
    )
    assert result.exit_code == 1
    assert "imported 2 labels, refused 3 lines" in result.stdout
    assert "line 2: refused: item 'a0042' is not in the run's annotation sample" in result.stderr
    assert "line 3: refused: unknown sub-question" in result.stderr
    assert "line 5: refused: Mal\\x1b[31m already labelled" in result.stderr
    assert "\x1b" not in result.stderr

    out = tmp_path / "export.jsonl"
    exported = runner.invoke(app, ["annotate", "export", str(run_dir), "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["type"] for r in rows] == ["item"] * 4 + ["label"] * 2
    assert rows[4]["annotator"] == "Eve" and rows[4]["says_yes"] == "Yes"
    assert rows[5]["annotator"] == "Mal\x1b[31m" and rows[5]["says_yes"] == "No"
    to_stdout = runner.invoke(app, ["annotate", "export", str(run_dir)])
    assert [json.loads(line) for line in to_stdout.stdout.splitlines()] == rows

    reimport = runner.invoke(app, ["annotate", "import", str(run_dir), str(out)])
    assert reimport.exit_code == 1
    assert "imported 0 labels, refused 2 lines, passed over 4 item lines" in reimport.stdout
    with AnnotationStore.open(run_dir) as store:
        assert len(store.labels()) == 2


def test_export_is_blind_and_the_design_goes_to_its_own_file(run_dir: Path, tmp_path: Path) -> None:
    """Issue 27: the annotator-facing export held each item's stratum ("...|agreed")."""
    _sample_json(run_dir, "--n", "4")
    out, design = tmp_path / "items.jsonl", tmp_path / "design.jsonl"
    result = runner.invoke(app, ["annotate", "export", str(run_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(items) == 4
    assert not any({"stratum", "weight", "judges_agreed"} & set(row) for row in items)
    assert "agreed" not in out.read_text(encoding="utf-8")
    written = runner.invoke(app, ["annotate", "design", str(run_dir), "-o", str(design)])
    assert written.exit_code == 0, written.output
    assert "not blind" in written.stderr
    strata = [json.loads(line)["stratum"] for line in design.read_text().splitlines()]
    with AnnotationStore.open(run_dir) as store:
        assert strata == [item.stratum for item in store.sample()]
    printed = runner.invoke(app, ["annotate", "design", str(run_dir)])
    assert [json.loads(line)["stratum"] for line in printed.stdout.splitlines()] == strata
