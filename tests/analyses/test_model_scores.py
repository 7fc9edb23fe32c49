from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mechanism_records import write_mechanism_run
from polistemics.analyses.model_scores import (
    MODEL_SCORES,
    mechanism_rates_of,
    model_scores_of,
    read_score_tables,
    score_tables,
    write_score_tables,
)
from polistemics.runlog import RunDir
from polistemics.scoring.mechanisms import mechanism_rates, mechanism_tables
from polistemics.scoring.release import load_release, variant_folders
from polistemics.scoring.summary import score_cells


def _json(scores) -> str:
    return json.dumps([s.to_json() for s in scores])


def test_the_scores_read_back_are_those_of_each_variant_alone(fixtures_dir: Path, tmp_path):
    """Scored together and read back from the files, each variant's scores are exactly (to the
    bit, as JSON) what scoring that variant's cells alone gives."""
    release = fixtures_dir / "scoring" / "release_small"
    cells = pd.concat(
        [
            load_release(folder, variant).cells
            for variant, folder in variant_folders(release).items()
        ],
        ignore_index=True,
    )
    write_score_tables(score_tables(cells, None), tmp_path)
    back = read_score_tables(tmp_path)
    assert back.mechanism_rates is None
    variants = sorted(set(cells["variant"]))
    assert len(variants) > 1
    for variant in variants:
        alone = score_cells(cells[cells["variant"] == variant])
        assert _json(model_scores_of(back.model_scores, variant)) == _json(alone)


def test_the_mechanism_rates_read_back_are_those_computed(tmp_path: Path):
    run = RunDir(write_mechanism_run(tmp_path / "run"))
    cells = run.read_cells()
    mechanisms = mechanism_tables(run.read_items(), run.read_stance_codes(), cells)
    write_score_tables(score_tables(cells, mechanisms), tmp_path / "tables")
    back = read_score_tables(tmp_path / "tables")
    for s in score_cells(cells):
        expected = mechanism_rates(mechanisms, s.variant, s.model)
        assert mechanism_rates_of(back.mechanism_rates, s.variant, s.model) == expected
        assert any(v is not None for v in expected.to_json().values())
    assert mechanism_rates_of(back.mechanism_rates, "full", "no-such-model").to_json() == (
        dict.fromkeys(expected.to_json())
    )


def test_no_scores_read_back_as_none(tmp_path: Path):
    assert model_scores_of(MODEL_SCORES.empty(), "full") == []
    assert mechanism_rates_of(None, "full", "m").fallback_match_rate is None
    with pytest.raises(FileNotFoundError):
        read_score_tables(tmp_path)
