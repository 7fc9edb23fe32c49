"""Builders for small hand-made verdict and cell tables used across the scoring tests."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import BY_KEY
from polistemics.scoring.cells import CELL_COLUMNS, validate_cells


def cell(
    passed: bool,
    sub_question: str,
    *,
    model: str = "m1",
    environment: Environment = Environment.BASELINE,
    variant: Variant = Variant.FULL,
    observation: str = "e__p1__s001",
    party: str = "p1",
    party_name: str | None = None,
    sample_index: int = 0,
    language: str | None = "Dutch",
    country: str | None = "NL",
    vague_mode: int | None = None,
) -> dict:
    return {
        "model": model,
        "environment": environment.value,
        "variant": variant.value,
        "observation_id": observation,
        "sample_index": sample_index,
        "party_id": party,
        "election_id": observation.split("__")[0],
        "language": language,
        "rubric": BY_KEY[sub_question].rubric.value if sub_question in BY_KEY else "faithfulness",
        "sub_question": sub_question,
        "passed": passed,
        "party_name": party_name or party.upper(),
        "country": country,
        "vague_mode": vague_mode,
    }


def frame(rows: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=list(CELL_COLUMNS))
    table["passed"] = table["passed"].astype(bool)
    table["sample_index"] = table["sample_index"].astype("int64")
    return validate_cells(table)


@pytest.fixture
def make_cell() -> Callable[..., dict]:
    return cell


@pytest.fixture
def make_cells() -> Callable[[list[dict]], pd.DataFrame]:
    return frame
