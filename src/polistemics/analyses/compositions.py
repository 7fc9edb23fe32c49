"""Combined environments beside their parts (issue 30): each composition's difficulty next to
its parts' and the interaction, the observed pass rate against the product of the parts'.

Per election (headline variant) x model x composition found in the cells:

- the Adherence Index of the composition and of each part (the difficulty the adherence table
  shows, over each environment's own items);
- the answer-level pass rate (an answer passes when every sub-question scored on it passes) of
  the composition and of each part, over the observations the composition kept (matched: a part
  counts only the observations its composition has, so the drops of the other part do not shift
  it), each with n and its Wilson 95% interval (``stats.wilson_interval``);
- the product of the parts' pass rates (what independent failures would give) with its 95%
  interval (``stats.product_interval``), and the interaction: observed minus product (negative:
  the composition is harder than its parts together predict), with its own 95% interval.

The interaction's interval is a paired bootstrap over observations (``stats``' engine, seeded
per election x model x composition): the observed rate and the product come from the same
observations, so each resample draws observations and recomputes all three pass rates from the
drawn observations' answers (every sample of a drawn observation, on all three sides), then the
interaction; the percentile interval of those. ``n_observations``: the observations resampled.

A composition whose part has no scored answer on the model has no row for that model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from polistemics.analyses.columns import ELECTION, ENVIRONMENT, MODEL
from polistemics.analyses.elections import election_cells, elections_in, joined
from polistemics.analyses.schema import TableColumn, TableSchema
from polistemics.conditions import ENVIRONMENT_ORDER
from polistemics.scoring.cells import plain, scoreable_cells
from polistemics.scoring.indices import adherence_indices, is_composition
from polistemics.stats import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    check_bootstrap_settings,
    observation_matrix,
    percentile_ci,
    product_interval,
    resample_weights,
    sorted_codes,
    stratum_rng,
    wilson_interval,
)


def _side(suffix: str, what: str) -> tuple[TableColumn, ...]:
    return (
        TableColumn(f"adherence{suffix}", "float", f"Adherence Index of {what}"),
        TableColumn(f"n{suffix}", "int", f"answers of {what} on the composition's observations"),
        TableColumn(f"passes{suffix}", "int", "of them, answers passing every scored sub-question"),
        TableColumn(f"pass_rate{suffix}", "float", "passes / n"),
        TableColumn(f"ci_low{suffix}", "float", "Wilson 95% CI of the pass rate, lower bound"),
        TableColumn(f"ci_high{suffix}", "float", "its upper bound"),
    )


COMPOSITION_INTERACTION = TableSchema(
    name="composition_interaction",
    meaning="Each combined environment (issue 30) per election x model: its Adherence Index and "
    "answer-level pass rate next to its two parts' (matched to the composition's observations), "
    "and the observed pass rate against the product of the parts' pass rates",
    columns=(
        ELECTION,
        MODEL,
        ENVIRONMENT,
        TableColumn("part_a", "text", "the first part (Environment value, Table 1 order)"),
        TableColumn("part_b", "text", "the second part"),
        *_side("", "the composition"),
        *_side("_a", "part a"),
        *_side("_b", "part b"),
        TableColumn("expected", "float", "pass_rate_a x pass_rate_b (independent failures)"),
        TableColumn(
            "expected_ci_low",
            "float",
            "95% CI of the product (log-scale delta method); NaN when a part never passes",
        ),
        TableColumn("expected_ci_high", "float", "its upper bound (at most 1)"),
        TableColumn("interaction", "float", "pass_rate - expected (negative: harder together)"),
        TableColumn("n_observations", "int", "observations the interaction's bootstrap resamples"),
        TableColumn(
            "interaction_ci_low",
            "float",
            "95% CI of the interaction, paired bootstrap over observations (percentile)",
        ),
        TableColumn("interaction_ci_high", "float", "its upper bound"),
        TableColumn("n_resamples", "int", "bootstrap resamples"),
    ),
)

_ANSWER = ["model", "environment", "observation_id", "sample_index"]


def composition_interaction_table(
    cells: pd.DataFrame,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """``COMPOSITION_INTERACTION`` of scored cells (empty when no composition was scored);
    ``resamples``, ``seed`` and ``confidence``: the interaction's bootstrap."""
    check_bootstrap_settings(resamples, confidence)
    if cells.empty or not is_composition(cells["environment"]).any():
        return COMPOSITION_INTERACTION.empty()
    frames = []
    for election_id in elections_in(cells):
        _, headline = election_cells(cells, election_id)
        bootstrap = _Bootstrap(resamples, seed, confidence, election_id)
        rows = _interaction_rows(scoreable_cells(headline)[0], bootstrap)
        if rows:
            frames.append(pd.DataFrame(rows).assign(election_id=election_id))
    return joined(frames, COMPOSITION_INTERACTION)


def _interaction_rows(cells: pd.DataFrame, bootstrap: _Bootstrap) -> list[dict]:
    # observed=True and plain: a compact frame (``scoring.cells.compact_cells``, as the finish
    # scores it) gives the answers and text keys its text columns give
    answers = plain(cells.groupby(_ANSWER, sort=True, observed=True)["passed"].all().reset_index())
    adherence = adherence_indices(cells).set_index(["model", "environment"])["adherence"]
    present = set(cells["environment"])
    rows = []
    for composition in ENVIRONMENT_ORDER:
        if not composition.is_composition or composition.value not in present:
            continue
        part_a, part_b = composition.parts
        for model in sorted(cells.loc[cells["environment"] == composition.value, "model"].unique()):
            mine = answers[answers["model"] == model]
            composed = mine[mine["environment"] == composition.value]
            kept = set(composed["observation_id"])
            sides_answers = [composed]
            for part in (part_a, part_b):
                sides_answers.append(
                    mine[(mine["environment"] == part.value) & mine["observation_id"].isin(kept)]
                )
            sides = [_rates(side) for side in sides_answers]
            if not sides[1]["n"] or not sides[2]["n"]:
                continue
            row = {"model": model, "environment": composition.value}
            row |= {"part_a": part_a.value, "part_b": part_b.value}
            for suffix, env, side in zip(
                ("", "_a", "_b"), (composition, part_a, part_b), sides, strict=True
            ):
                row[f"adherence{suffix}"] = float(adherence.get((model, env.value), float("nan")))
                row |= {f"{key}{suffix}": value for key, value in side.items()}
            low, high = product_interval(
                sides[1]["passes"], sides[1]["n"], sides[2]["passes"], sides[2]["n"]
            )
            expected = sides[1]["pass_rate"] * sides[2]["pass_rate"]
            row |= {"expected": expected, "expected_ci_low": low, "expected_ci_high": high}
            row["interaction"] = sides[0]["pass_rate"] - expected
            row |= bootstrap.interaction(model, composition.value, sides_answers)
            rows.append(row)
    return rows


def _rates(answers: pd.DataFrame) -> dict:
    n, passes = len(answers), int(answers["passed"].sum())
    low, high = wilson_interval(passes, n)
    rate = passes / n if n else float("nan")
    return {"n": n, "passes": passes, "pass_rate": rate, "ci_low": low, "ci_high": high}


@dataclass(frozen=True)
class _Bootstrap:
    resamples: int
    seed: int
    confidence: float
    election_id: str

    def interaction(self, model: str, composition: str, sides: list[pd.DataFrame]) -> dict:
        """The paired bootstrap of observed - product over the observations of ``sides``
        (composition, part a, part b answers, each with observation_id and passed)."""
        answers = pd.concat(
            [side.assign(side=i) for i, side in enumerate(sides)], ignore_index=True
        )
        obs, observations = sorted_codes(answers["observation_id"])
        column = answers["side"].to_numpy()
        n_obs = len(observations)
        passes = observation_matrix(obs, column, answers["passed"].to_numpy(), n_obs, 3)
        counts = observation_matrix(obs, column, np.ones(len(answers)), n_obs, 3)
        rng = stratum_rng(
            self.seed, "composition_interaction", self.election_id, model, composition
        )
        weights = resample_weights(rng, n_obs, self.resamples)  # row 0: the full data
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = (weights @ passes) / (weights @ counts)  # NaN: a side without answers
        interaction = rates[:, 0] - rates[:, 1] * rates[:, 2]
        low, high = percentile_ci(interaction[1:, None], self.confidence)
        return {
            "n_observations": n_obs,
            "interaction_ci_low": float(low[0]),
            "interaction_ci_high": float(high[0]),
            "n_resamples": self.resamples,
        }
