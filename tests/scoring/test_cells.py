from __future__ import annotations

import pandas as pd
import pytest

from polistemics.scoring.cells import attach_metadata, empty_cells, require_single, validate_cells
from polistemics.scoring.errors import CellsError


def test_validate_cells_names_the_problem(make_cell, make_cells):
    good = make_cells([make_cell(True, "position_representation")])
    with pytest.raises(CellsError, match="missing columns"):
        validate_cells(good.drop(columns="passed"))
    with pytest.raises(CellsError, match="field 'environment'"):
        validate_cells(good.assign(environment="sunny"))
    with pytest.raises(CellsError, match="field 'passed'"):
        validate_cells(good.assign(passed=1.0))
    assert list(validate_cells(empty_cells()).columns) == list(good.columns)


def test_attach_metadata_fills_missing_values_only(make_cell, make_cells):
    cells = make_cells(
        [
            make_cell(True, "position_representation", observation="e__p1__s001"),
            make_cell(True, "position_representation", observation="e__p2__s001", party="p2"),
        ]
    )
    cells.loc[0, "party_name"] = None
    metadata = pd.DataFrame(
        {"observation_id": ["e__p1__s001", "e__p2__s001"], "party_name": ["One", "Two"]}
    )
    filled = attach_metadata(cells, metadata)
    assert filled["party_name"].tolist() == ["One", "P2"]
    with pytest.raises(CellsError, match="more than one row"):
        attach_metadata(cells, pd.concat([metadata, metadata]))
    with pytest.raises(CellsError, match="observation_id"):
        attach_metadata(cells, metadata.drop(columns="observation_id"))


def test_require_single(make_cell, make_cells):
    cells = make_cells([make_cell(True, "position_representation")])
    assert require_single(cells, "variant") == "full"
    with pytest.raises(CellsError, match="expected one value"):
        require_single(pd.concat([cells, cells.assign(variant="anon")]), "variant")
