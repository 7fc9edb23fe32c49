"""Human-human agreement: a hand-computed example and irrCAC (the formulas: tests/stats)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC

from polistemics.annotate.agreement import POOLED, human_agreement, rating_counts


def _labels(rows: list[tuple[str, str, str, bool]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["annotator", "sample_id", "sub_question", "says_yes"])


# Four instances with two or three annotators, and one with a single annotator (left out).
HAND = _labels(
    [
        ("ann", "a1", "F1", True),
        ("bob", "a1", "F1", True),
        ("cem", "a1", "F1", True),
        ("ann", "a2", "F1", True),
        ("bob", "a2", "F1", False),
        ("ann", "a3", "F2", False),
        ("cem", "a3", "F2", False),
        ("ann", "a4", "F2", True),
        ("bob", "a4", "F2", True),
        ("cem", "a4", "F2", False),
        ("ann", "a5", "F2", True),
    ]
)


def test_hand_computed_example() -> None:
    # P_o = (1 + 0 + 1 + 1/3) / 4 = 7/12; Yes share = (1 + 1/2 + 0 + 2/3) / 4 = 13/24.
    # Fleiss: P_e = (13/24)^2 + (11/24)^2 = 290/576, kappa = (336 - 290) / (576 - 290) = 46/286.
    # AC1: P_e = 2 (13/24)(11/24) = 286/576, AC1 = (336 - 286) / (576 - 286) = 50/290.
    table = human_agreement(HAND, by=())
    row = table.iloc[0]
    assert row["n_items"] == 4 and row["n_ratings"] == 10 and row["n_single"] == 1
    assert row["n_annotators"] == 3
    assert row["percent_agreement"] == pytest.approx(7 / 12)
    assert row["fleiss_kappa"] == pytest.approx(46 / 286)
    assert row["gwet_ac1"] == pytest.approx(50 / 290)


def test_per_sub_question_rows_and_pooled_row() -> None:
    table = human_agreement(HAND).set_index("sub_question")
    assert list(table.index) == ["F1", "F2", POOLED]
    # F1: a1 unanimous, a2 split -> P_o = 1/2; F2: a3 unanimous, a4 1/3 -> P_o = 2/3.
    assert table.loc["F1", "percent_agreement"] == pytest.approx(0.5)
    assert table.loc["F2", "percent_agreement"] == pytest.approx(2 / 3)
    assert table.loc["F2", "n_single"] == 1 and table.loc["F1", "n_annotators"] == 3
    assert table.loc[POOLED, "n_items"] == 4


def _irrcac_frame(labels: pd.DataFrame) -> pd.DataFrame:
    """Instances x annotators, NaN where an annotator gave no label (irrCAC's raw format)."""
    wide = labels.assign(v=labels["says_yes"].astype(int)).pivot_table(
        index=["sample_id", "sub_question"], columns="annotator", values="v"
    )
    return wide[wide.notna().sum(axis=1) >= 2]


def _random_labels(seed: int, n_items: int, annotators: int, prevalence: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    names = [f"h{i}" for i in range(annotators)]
    for item in range(n_items):
        truth = rng.random() < prevalence
        raters = rng.choice(names, size=rng.integers(1, annotators + 1), replace=False)
        for name in raters:
            says = truth if rng.random() < 0.8 else not truth
            rows.append((str(name), f"a{item:04d}", "I4", bool(says)))
    return _labels(rows)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_equals_irrcac_with_uneven_overlap(seed: int) -> None:
    labels = _random_labels(seed, n_items=120, annotators=4, prevalence=0.3)
    ours = human_agreement(labels, by=()).iloc[0]
    cac = CAC(_irrcac_frame(labels), categories=[0, 1], digits=12)
    fleiss, gwet = cac.fleiss()["est"], cac.gwet()["est"]
    assert ours["percent_agreement"] == pytest.approx(fleiss["pa"], abs=1e-10)
    assert ours["fleiss_kappa"] == pytest.approx(fleiss["coefficient_value"], abs=1e-10)
    assert ours["gwet_ac1"] == pytest.approx(gwet["coefficient_value"], abs=1e-10)


def test_no_overlap_gives_no_figures() -> None:
    labels = _labels([("ann", "a1", "F1", True), ("bob", "a2", "F1", False)])
    row = human_agreement(labels, by=()).iloc[0]
    assert row["n_items"] == 0 and row["n_single"] == 2 and np.isnan(row["gwet_ac1"])
    assert human_agreement(labels.iloc[:0], by=("sub_question",)).iloc[0]["n_items"] == 0


def test_rating_counts() -> None:
    counts = rating_counts(HAND).set_index(["sample_id", "sub_question"])
    assert counts.loc[("a4", "F2"), "n_yes"] == 2 and counts.loc[("a4", "F2"), "n_raters"] == 3
