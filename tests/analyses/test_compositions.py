"""The composition interaction's paired bootstrap interval (issue 30): the same draws by hand,
and scipy.stats.bootstrap on the same observations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import bootstrap

from polistemics.analyses.compositions import COMPOSITION_INTERACTION, composition_interaction_table
from polistemics.conditions import VAGUE_NOISY, Environment
from polistemics.scoring.cells import CELL_COLUMNS
from polistemics.stats import stratum_rng

SIDES = (VAGUE_NOISY.value, Environment.VAGUE.value, Environment.NOISY.value)


def passes(n_obs: int, samples: int, seed: int) -> dict[str, np.ndarray]:
    """Per side, observations x samples pass flags (the composition the hardest)."""
    rng = np.random.default_rng(seed)
    a = rng.random((n_obs, samples)) < 0.8
    b = rng.random((n_obs, samples)) < 0.7
    both = a & b & (rng.random((n_obs, samples)) < 0.8)
    return dict(zip(SIDES, (both, a, b), strict=True))


def cells(flags: dict[str, np.ndarray]) -> pd.DataFrame:
    rows = []
    for environment, matrix in flags.items():
        for o, s in np.ndindex(matrix.shape):
            # two sub-questions; an answer passes when both do (the second always passes)
            for sub_question, passed in (
                ("position_representation", bool(matrix[o, s])),
                ("information_fabrication", True),
            ):
                rows.append(
                    {
                        "model": "m",
                        "environment": environment,
                        "variant": "full",
                        "observation_id": f"o{o:03d}",
                        "sample_index": s,
                        "party_id": "p",
                        "election_id": "e",
                        "language": "English",
                        "rubric": "faithfulness",
                        "sub_question": sub_question,
                        "passed": passed,
                        "party_name": "P",
                        "country": "xx",
                        "vague_mode": None,
                    }
                )
    return pd.DataFrame(rows, columns=list(CELL_COLUMNS))


def interaction(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    return c.mean() - a.mean() * b.mean()


@pytest.mark.parametrize("samples", [1, 2])
def test_the_interval_is_the_same_draws_resampled_by_hand(samples: int) -> None:
    flags = passes(40, samples, seed=3)
    table = composition_interaction_table(cells(flags), resamples=200, seed=11)
    assert list(table.columns) == COMPOSITION_INTERACTION.names
    row = table.iloc[0]
    c, a, b = (flags[side] for side in SIDES)
    assert row["interaction"] == pytest.approx(interaction(c, a, b), rel=1e-12)
    assert row["n_observations"] == 40 and row["n"] == 40 * samples
    assert row["n_resamples"] == 200
    # The engine's draws, by hand: each resample takes whole observations (every sample).
    rng = stratum_rng(11, "composition_interaction", "e", "m", VAGUE_NOISY.value)
    draws = rng.integers(0, 40, size=(200, 40))
    by_hand = np.array([interaction(c[d], a[d], b[d]) for d in draws])
    low, high = np.percentile(by_hand, [2.5, 97.5])
    assert row["interaction_ci_low"] == pytest.approx(low, rel=1e-12)
    assert row["interaction_ci_high"] == pytest.approx(high, rel=1e-12)
    assert row["interaction_ci_low"] < row["interaction"] < row["interaction_ci_high"]


def test_the_interval_agrees_with_scipy_paired_bootstrap() -> None:
    flags = passes(300, 1, seed=8)
    row = composition_interaction_table(cells(flags), resamples=4000, seed=0).iloc[0]
    c, a, b = (flags[side][:, 0].astype(float) for side in SIDES)
    ref = bootstrap(
        (c, a, b),
        lambda x, y, z, axis: x.mean(axis=axis) - y.mean(axis=axis) * z.mean(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=4000,
        method="percentile",
        random_state=np.random.default_rng(1),
    ).confidence_interval
    assert row["interaction_ci_low"] == pytest.approx(ref.low, abs=0.01)
    assert row["interaction_ci_high"] == pytest.approx(ref.high, abs=0.01)


def test_the_seed_decides_the_draws() -> None:
    frame = cells(passes(30, 1, seed=4))
    first = composition_interaction_table(frame, resamples=100, seed=1)
    again = composition_interaction_table(frame, resamples=100, seed=1)
    other = composition_interaction_table(frame, resamples=100, seed=2)
    pd.testing.assert_frame_equal(first, again)
    assert (first["interaction_ci_low"] != other["interaction_ci_low"]).any()


def test_no_composition_no_rows() -> None:
    flags = passes(10, 1, seed=1)
    del flags[VAGUE_NOISY.value]
    assert composition_interaction_table(cells(flags)).empty
