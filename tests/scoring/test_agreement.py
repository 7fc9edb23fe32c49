from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import Rubric
from polistemics.scoring.agreement import (
    agreement_stats,
    agreement_table,
    binary_counts,
    fleiss_kappa,
    gwet_ac1,
    wilson_interval,
)
from polistemics.scoring.errors import ScoringError
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict

TOLERANCE = 1e-9


def reference(ratings: np.ndarray) -> tuple[float, float, float]:
    """(irrCAC Fleiss, irrCAC AC1, statsmodels Fleiss) for an items x raters 0/1 matrix."""
    frame = pd.DataFrame(ratings.astype(int))
    cac = CAC(frame, categories=[0, 1], digits=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            irr_kappa = cac.fleiss()["est"]["coefficient_value"]
        except ZeroDivisionError:
            irr_kappa = float("nan")
        irr_ac1 = CAC(frame, categories=[0, 1], digits=15).gwet()["est"]["coefficient_value"]
        sm_kappa = sm_fleiss_kappa(binary_counts(ratings), method="fleiss")
    return float(irr_kappa), float(irr_ac1), float(sm_kappa)


def close(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or abs(ours - theirs) <= TOLERANCE


@pytest.mark.parametrize(
    ("items", "raters", "prevalence", "seed"),
    [
        (50, 3, 0.5, 1),
        (200, 3, 0.9, 2),
        (400, 3, 0.97, 3),
        (30, 2, 0.6, 4),
        (80, 2, 0.2, 5),
        (60, 7, 0.7, 6),
        (25, 12, 0.4, 7),
        (5, 3, 0.5, 8),
    ],
)
def test_random_data_matches_irrcac_and_statsmodels(items, raters, prevalence, seed):
    rng = np.random.default_rng(seed)
    # correlated raters: an item-level tendency plus rater noise
    tendency = rng.random(items) < prevalence
    ratings = np.where(
        rng.random((items, raters)) < 0.8,
        tendency[:, None],
        rng.random((items, raters)) < prevalence,
    )
    counts = binary_counts(ratings)
    irr_kappa, irr_ac1, sm_kappa = reference(ratings)
    assert close(fleiss_kappa(counts), irr_kappa)
    assert close(fleiss_kappa(counts), sm_kappa)
    assert close(gwet_ac1(counts), irr_ac1)


def test_all_raters_agree_on_every_item():
    ratings = np.array([[1, 1, 1], [0, 0, 0], [1, 1, 1], [1, 1, 1]], dtype=bool)
    irr_kappa, irr_ac1, sm_kappa = reference(ratings)
    counts = binary_counts(ratings)
    assert fleiss_kappa(counts) == pytest.approx(1.0) and close(fleiss_kappa(counts), irr_kappa)
    assert close(fleiss_kappa(counts), sm_kappa)
    assert gwet_ac1(counts) == pytest.approx(1.0) and close(gwet_ac1(counts), irr_ac1)
    stats = agreement_stats(counts)
    assert stats.unanimity == 1.0 and stats.prevalence == pytest.approx(9 / 12)


@pytest.mark.parametrize("value", [True, False])
def test_all_ratings_in_one_category_kappa_is_nan_ac1_is_one(value):
    ratings = np.full((6, 3), value)
    counts = binary_counts(ratings)
    _, irr_ac1, sm_kappa = reference(ratings)
    assert math.isnan(fleiss_kappa(counts)) and math.isnan(sm_kappa)
    assert gwet_ac1(counts) == 1.0 and close(gwet_ac1(counts), irr_ac1)
    stats = agreement_stats(counts)
    assert stats.prevalence == (1.0 if value else 0.0) and math.isnan(stats.fleiss_kappa)


def test_multi_category_counts_match_statsmodels():
    rng = np.random.default_rng(9)
    counts = rng.multinomial(5, [0.5, 0.3, 0.2], size=40)
    assert close(fleiss_kappa(counts), float(sm_fleiss_kappa(counts)))


def test_undefined_and_bad_tables():
    empty = np.zeros((0, 2))
    assert math.isnan(fleiss_kappa(empty)) and math.isnan(gwet_ac1(empty))
    assert agreement_stats(empty).n == 0
    with pytest.raises(ScoringError, match="same number of raters"):
        fleiss_kappa([[1, 2], [0, 2]])
    with pytest.raises(ScoringError, match="at least two raters"):
        gwet_ac1([[1, 0], [0, 1]])
    with pytest.raises(ScoringError, match="items x categories"):
        fleiss_kappa([1, 2, 3])


def test_unanimity_and_prevalence():
    counts = binary_counts(np.array([[1, 1, 0], [1, 1, 1], [0, 0, 0], [1, 0, 0]], dtype=bool))
    stats = agreement_stats(counts)
    assert stats.n == 4
    assert stats.unanimity == 0.5
    assert stats.prevalence == pytest.approx(6 / 12)


def key(obs: str, language: str = "Dutch", env: Environment = Environment.BASELINE) -> ItemKey:
    return ItemKey("m1", env, Variant.FULL, obs, "p1", election_id="e", language=language)


def test_agreement_table_uses_pass_values_of_complete_panels():
    verdicts = []
    # F1 Yes passes, F2 Yes fails: judges split 2-1 on F1 for s001, unanimous elsewhere
    for obs, f1, f2 in (
        ("e__p1__s001", (True, True, False), (False,) * 3),
        ("e__p1__s002", (True,) * 3, (True,) * 3),
    ):
        for judge, a, b in zip(("j1", "j2", "j3"), f1, f2, strict=True):
            verdicts.append(
                JudgeVerdict(key(obs), Rubric.FAITHFULNESS, judge, "position_representation", a)
            )
            verdicts.append(
                JudgeVerdict(key(obs), Rubric.FAITHFULNESS, judge, "information_fabrication", b)
            )
    # an incomplete panel is left out
    verdicts.append(
        JudgeVerdict(key("e__p1__s003"), Rubric.FAITHFULNESS, "j1", "position_representation", True)
    )
    table = agreement_table(verdicts).set_index("sub_question")
    assert table.loc["position_representation", "n"] == 2
    assert table.loc["position_representation", "prevalence"] == pytest.approx(5 / 6)
    assert table.loc["position_representation", "unanimity"] == 0.5
    assert table.loc["information_fabrication", "prevalence"] == pytest.approx(
        3 / 6
    )  # No passes F2
    assert table.loc["information_fabrication", "fleiss_kappa"] == pytest.approx(1.0)
    pooled = agreement_table(verdicts, by=("rubric",))
    assert pooled["n"].tolist() == [4]
    expected = agreement_stats([[1, 2], [0, 3], [0, 3], [3, 0]])
    assert pooled["gwet_ac1"].iloc[0] == pytest.approx(expected.gwet_ac1)


def test_wilson_interval_matches_statsmodels():
    for successes, n in ((0, 10), (3, 10), (437, 5754), (10, 10), (1, 1)):
        low, high = wilson_interval(successes, n)
        ref_low, ref_high = proportion_confint(successes, n, alpha=0.05, method="wilson")
        assert abs(low - ref_low) < TOLERANCE and abs(high - ref_high) < TOLERANCE
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ScoringError):
        wilson_interval(5, 3)
