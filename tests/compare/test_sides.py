"""Loading one side of a comparison: hostile files are refused in one line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polistemics.compare import CompareError
from polistemics.compare.sides import load_side
from polistemics.runlog import CELLS_FILE

from .cells import random_cells, run_dir

ROW = {
    "observation_id": "nl_x__p1__s001",
    "party_id": "p1",
    "model_id": "m1",
    "metric_name": "faithfulness",
    "scores": {"position_representation": 1.0, "information_fabrication": 0.0},
    "ie_name": "baseline",
}


def release(folder: Path, **fields: object) -> Path:
    scores = folder / "scores" / "faithfulness"
    scores.mkdir(parents=True)
    (scores / "aggregated_scores.jsonl").write_text(json.dumps({**ROW, **fields}) + "\n")
    return folder


def test_a_well_formed_release_row_loads(tmp_path: Path) -> None:
    assert len(load_side(str(release(tmp_path / "r"))).cells) == 2


@pytest.mark.parametrize(
    "fields",
    [{"observation_id": 7}, {"model_id": ["m1"]}, {"run_index": 10**30}],
    ids=["integer-observation-id", "list-model-id", "huge-run-index"],
)
def test_release_rows_of_the_wrong_type_are_refused_in_one_line(
    tmp_path: Path, fields: dict
) -> None:
    folder = release(tmp_path / "r", **fields)
    with pytest.raises(CompareError, match="cannot read its scored cells") as error:
        load_side(str(folder))
    assert str(folder) in str(error.value) and "\n" not in str(error.value)


def test_one_odd_passed_value_is_refused_not_read_as_true(tmp_path: Path) -> None:
    folder = run_dir(tmp_path / "run", random_cells(models=("m1",), statements=2))
    path = folder / CELLS_FILE
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace("False", '"maybe"').replace("True", '"maybe"')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CompareError, match="'maybe' is not True or False"):
        load_side(str(folder))
