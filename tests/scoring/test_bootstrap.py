from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from polistemics.conditions import Environment
from polistemics.rubrics import Rubric, sub_questions
from polistemics.scoring.bootstrap import bootstrap_indices
from polistemics.scoring.cells import CELL_COLUMNS
from polistemics.scoring.indices import adherence_indices, emi_scores


def synthetic_cells(n_observations: int, models: tuple[str, ...], seed: int = 0) -> pd.DataFrame:
    """Every active sub-question of every environment for each observation and model."""
    rng = np.random.default_rng(seed)
    layout = [
        (env.value, r.value, sq.key)
        for env in Environment
        for r in Rubric
        for sq in sub_questions(r, env)
    ]
    blocks = []
    for m_i, model in enumerate(models):
        obs = np.repeat(np.arange(n_observations), len(layout))
        env, rubric, sq = (
            np.tile(np.array(col), n_observations) for col in zip(*layout, strict=True)
        )
        blocks.append(
            pd.DataFrame(
                {
                    "model": model,
                    "environment": env,
                    "variant": "full",
                    "observation_id": [f"e__p{o % 8}__s{o:04d}" for o in obs],
                    "sample_index": 0,
                    "party_id": [f"p{o % 8}" for o in obs],
                    "election_id": "e",
                    "language": "Dutch",
                    "rubric": rubric,
                    "sub_question": sq,
                    "passed": rng.random(len(obs)) < 0.9 - 0.05 * m_i,
                    "party_name": None,
                    "country": "NL",
                    "vague_mode": None,
                }
            )
        )
    return pd.concat(blocks, ignore_index=True).loc[:, list(CELL_COLUMNS)]


def test_point_estimates_match_indices_and_intervals_bracket_them():
    cells = synthetic_cells(60, ("m1", "m2"))
    boot = bootstrap_indices(cells, n_resamples=200, seed=3)
    emi = emi_scores(cells).set_index("model")["emi"]
    adherence = adherence_indices(cells).set_index(["model", "environment"])["adherence"]
    for row in boot.itertuples():
        expected = (
            emi[row.model] if row.measure == "emi" else adherence[(row.model, row.environment)]
        )
        assert row.estimate == pytest.approx(expected, abs=1e-12)
        assert row.ci_low <= row.estimate <= row.ci_high
        assert row.ci_low < row.ci_high
    assert len(boot) == 2 * (1 + len(Environment))


def test_seeded_bootstrap_is_deterministic_and_per_model():
    cells = synthetic_cells(40, ("m1", "m2"))
    first = bootstrap_indices(cells, n_resamples=100, seed=7)
    again = bootstrap_indices(cells, n_resamples=100, seed=7)
    pd.testing.assert_frame_equal(first, again)
    other = bootstrap_indices(cells, n_resamples=100, seed=8)
    assert not np.allclose(first["ci_low"], other["ci_low"])
    alone = bootstrap_indices(cells[cells["model"] == "m2"], n_resamples=100, seed=7)
    pd.testing.assert_frame_equal(
        alone.reset_index(drop=True), first[first["model"] == "m2"].reset_index(drop=True)
    )


def test_single_observation_has_a_degenerate_interval():
    cells = synthetic_cells(1, ("m1",))
    boot = bootstrap_indices(cells, n_resamples=50, seed=0)
    assert (boot["ci_low"] == boot["estimate"]).all() and (
        boot["ci_high"] == boot["estimate"]
    ).all()


def test_bad_parameters():
    cells = synthetic_cells(2, ("m1",))
    with pytest.raises(ValueError):
        bootstrap_indices(cells, n_resamples=0)
    with pytest.raises(ValueError):
        bootstrap_indices(cells, confidence=1.5)


def test_thousand_resamples_of_a_full_sized_run():
    # ~13k items (3 models x 6 environments x ~720 observations) x ~10 sub-questions each
    cells = synthetic_cells(720, ("m1", "m2", "m3"))
    assert len(cells) > 100_000
    boot = bootstrap_indices(cells, n_resamples=1000, seed=1)
    assert boot["n_resamples"].eq(1000).all()


def cell_level_reference(cells: pd.DataFrame, n_resamples: int, seed: int) -> pd.DataFrame:
    """The intervals as the bootstrap computed them from the cells themselves before it took
    per-observation totals: each model's matrix summed cell by cell (np.add.at), the same
    generator, draws and observation order."""
    from polistemics.scoring.bootstrap import _indices
    from polistemics.stats.bootstrap import percentile_ci, resample_weights, stratum_rng

    rows = []
    for (variant, model), group in cells.groupby(["variant", "model"], sort=True):
        obs_codes, _ = pd.factorize(group["observation_id"], sort=True)
        by_column = group.groupby(["environment", "rubric"], sort=True)
        col_codes = by_column.ngroup().to_numpy()
        column_envs = list(by_column.size().index.get_level_values("environment"))
        environments = sorted(set(column_envs))
        env_of_column = np.array([environments.index(env) for env in column_envs])
        passes = np.zeros((obs_codes.max() + 1, len(column_envs)))
        counts = np.zeros_like(passes)
        np.add.at(passes, (obs_codes, col_codes), group["passed"].to_numpy(dtype=float))
        np.add.at(counts, (obs_codes, col_codes), 1.0)
        weights = resample_weights(
            stratum_rng(seed, f"{variant}/{model}"), len(passes), n_resamples
        )
        adherence, emi = _indices(
            weights @ passes, weights @ counts, env_of_column, len(environments)
        )
        low, high = percentile_ci(emi[1:, None])
        rows.append((variant, model, "emi", None, emi[0], low[0], high[0]))
        low, high = percentile_ci(adherence[1:])
        for i, env in enumerate(environments):
            rows.append((variant, model, "adherence", env, adherence[0, i], low[i], high[i]))
    columns = ["variant", "model", "measure", "environment", "estimate", "ci_low", "ci_high"]
    return pd.DataFrame(rows, columns=columns)


def test_per_observation_totals_give_the_cell_level_intervals_exactly():
    cells = synthetic_cells(40, ("m1", "m2"), seed=5)
    cells = cells.sample(frac=0.8, random_state=1).reset_index(drop=True)  # uneven, shuffled
    ours = bootstrap_indices(cells, n_resamples=300, seed=7)
    reference = cell_level_reference(cells, n_resamples=300, seed=7)
    pd.testing.assert_frame_equal(ours[reference.columns], reference, check_exact=True)


def _dispersion_of_drawn(by_observation: dict, observations: np.ndarray):
    """scipy's statistic: the paper's dispersion (``rubric_dispersion_of`` over the pandas Rubric
    Scores) of the cells of the drawn observations, each as often as it was drawn."""
    from polistemics.scoring.analyses import model_dispersion

    def statistic(drawn: np.ndarray) -> float:
        cells = pd.concat([by_observation[observations[i]] for i in drawn], ignore_index=True)
        return float(model_dispersion(cells)["dispersion"].iloc[0])

    return statistic


def test_dispersion_interval_is_scipys_percentile_bootstrap_on_the_same_draws():
    """scipy.stats.bootstrap draws ``rng.integers(0, n, (B, n))`` as the engine does: with the
    model's generator, each resample is the same multiset of observations, so the percentile
    interval of the pandas definition must be ours to rounding."""
    from scipy.stats import bootstrap

    from polistemics.scoring.bootstrap import bootstrap_dispersion_of_totals, observation_totals
    from polistemics.stats.bootstrap import stratum_rng

    cells = synthetic_cells(25, ("m1", "m2"), seed=11)
    cells = cells.sample(frac=0.85, random_state=2).reset_index(drop=True)  # uneven cells
    ours = bootstrap_dispersion_of_totals(observation_totals(cells), n_resamples=80, seed=4)
    for model in ("m1", "m2"):
        own = cells[cells["model"] == model]
        observations = np.array(sorted(own["observation_id"].unique()))
        by_observation = dict(tuple(own.groupby("observation_id")))
        ref = bootstrap(
            (np.arange(len(observations)),),
            _dispersion_of_drawn(by_observation, observations),
            vectorized=False,
            n_resamples=80,
            method="percentile",
            random_state=stratum_rng(4, f"full/{model}"),
        ).confidence_interval
        row = ours.set_index("model").loc[model]
        assert row["ci_low"] == pytest.approx(ref.low, abs=1e-12)
        assert row["ci_high"] == pytest.approx(ref.high, abs=1e-12)
        assert row["n_observations"] == len(observations)
        estimate = _dispersion_of_drawn(by_observation, observations)(np.arange(len(observations)))
        assert row["estimate"] == pytest.approx(estimate, abs=1e-12)
        assert row["ci_low"] < row["ci_high"]


def test_dispersion_interval_leaves_out_baseline_and_compositions():
    from polistemics.scoring.bootstrap import bootstrap_dispersion_of_totals, observation_totals

    cells = synthetic_cells(30, ("m1",), seed=3)
    first = bootstrap_dispersion_of_totals(observation_totals(cells), n_resamples=60, seed=1)
    # Baseline turned around, and a composition added: neither is part of the dispersion.
    changed = cells.assign(
        passed=np.where(cells["environment"] == "baseline", ~cells["passed"], cells["passed"])
    )
    composed = changed[changed["environment"] == "ie_noise"].assign(
        environment="ie_clarity_vague+ie_noise", passed=False
    )
    again = bootstrap_dispersion_of_totals(
        observation_totals(pd.concat([changed, composed], ignore_index=True)),
        n_resamples=60,
        seed=1,
    )
    pd.testing.assert_frame_equal(first, again, check_exact=True)


def test_dispersion_without_two_active_environments_has_no_interval():
    from polistemics.scoring.bootstrap import bootstrap_dispersion_of_totals, observation_totals

    cells = synthetic_cells(10, ("m1",))
    only = cells[cells["environment"].isin(["baseline", "ie_noise"])]
    row = bootstrap_dispersion_of_totals(observation_totals(only), n_resamples=20).iloc[0]
    assert np.isnan(row["estimate"]) and np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert row["n_observations"] == 10
