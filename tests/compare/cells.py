"""Random scored-cells tables and run directories for the compare tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from polistemics.conditions import Environment
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.runlog import RunDir
from polistemics.scoring.cells import CELL_COLUMNS, validate_cells

ENVIRONMENTS = (Environment.BASELINE, Environment.VAGUE, Environment.ABSENT, Environment.NOISY)


def random_cells(
    *,
    election: str = "nl_x",
    models: tuple[str, ...] = ("m1", "m2", "m3"),
    environments: tuple[Environment, ...] = ENVIRONMENTS,
    parties: tuple[str, ...] = ("p1", "p2", "p3"),
    statements: int = 12,
    pass_rate: float | dict[str, float] = 0.8,
    variant: str = "full",
    seed: int = 0,
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for model in models:
        rate = pass_rate[model] if isinstance(pass_rate, dict) else pass_rate
        for env in environments:
            for party in parties:
                for s in range(statements):
                    oid = f"{election}__{party}__s{s:03d}"
                    for rubric in active_rubrics(env):
                        for sq in sub_questions(rubric, env):
                            rows.append(
                                {
                                    "model": model,
                                    "environment": env.value,
                                    "variant": variant,
                                    "observation_id": oid,
                                    "sample_index": 0,
                                    "party_id": party,
                                    "election_id": election,
                                    "language": "Dutch",
                                    "rubric": rubric.value,
                                    "sub_question": sq.key,
                                    "passed": bool(rng.random() < rate),
                                    "party_name": party.upper(),
                                    "country": election.split("_")[0].upper(),
                                    "vague_mode": None,
                                }
                            )
    frame = pd.DataFrame(rows, columns=list(CELL_COLUMNS))
    frame["passed"] = frame["passed"].astype(bool)
    return validate_cells(frame)


def flipped(
    cells: pd.DataFrame, share: float, seed: int = 1, only_passes: bool = False
) -> pd.DataFrame:
    """A copy with ``share`` of the cells' outcomes flipped (only passes -> fails if asked)."""
    rng = np.random.default_rng(seed)
    flip = rng.random(len(cells)) < share
    if only_passes:
        flip &= cells["passed"].to_numpy()
    out = cells.copy()
    out["passed"] = np.where(flip, ~cells["passed"].to_numpy(), cells["passed"].to_numpy())
    return out


def run_dir(folder: Path, cells: pd.DataFrame) -> Path:
    RunDir(folder).write_cells(cells)
    return folder
