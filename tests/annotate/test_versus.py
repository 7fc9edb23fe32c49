"""Humans against each judge and the panel majority: confusion counts, accuracy, AC1, bias."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from polistemics.annotate.versus import (
    PANEL,
    human_majority,
    panel_majority,
    versus_table,
    versus_tables,
)
from polistemics.stats import wilson_interval


def _labels(rows: list[tuple[str, str, str, bool]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["annotator", "sample_id", "sub_question", "says_yes"])
    frame["rubric"] = frame["sub_question"].map(lambda c: "impartiality")
    frame["environment"] = frame["sample_id"].map(lambda s: "noisy" if s < "a5" else "baseline")
    frame["language"] = "German"
    return frame


def test_majority_ties_are_left_out_and_counted() -> None:
    labels = _labels(
        [
            ("ann", "a1", "I1", True),
            ("bob", "a1", "I1", False),  # tie
            ("ann", "a2", "I1", True),
            ("bob", "a2", "I1", True),
            ("cem", "a2", "I1", False),  # 2 of 3 Yes
            ("ann", "a3", "I1", False),  # one annotator: theirs
        ]
    )
    majority = human_majority(labels, ["rubric"])
    assert majority.n_ties == 1 and majority.ties.iloc[0]["sample_id"] == "a1"
    decided = majority.verdicts.set_index("sample_id")["human_yes"].to_dict()
    assert decided == {"a2": True, "a3": False}


def test_panel_majority_is_strict() -> None:
    verdicts = pd.DataFrame(
        [
            ("a1", "I1", "0:j", True),
            ("a1", "I1", "1:j", True),
            ("a1", "I1", "2:j", False),
            ("a2", "I1", "0:j", True),
            ("a2", "I1", "1:j", False),  # even: no majority
        ],
        columns=["sample_id", "sub_question", "judge", "says_yes"],
    )
    panel = panel_majority(verdicts)
    assert panel.to_dict("records") == [
        {"sample_id": "a1", "sub_question": "I1", "judge": PANEL, "says_yes": True}
    ]


def _scripted() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Ten items, one annotator each; judge j0 always says Yes, j1 copies the human except on
    two items, j2 always No."""
    human = [True, True, True, False, False, False, False, False, True, False]
    labels = _labels([("ann", f"a{i}", "I1", h) for i, h in enumerate(human)])
    rows = []
    for i, h in enumerate(human):
        rows.append((f"a{i}", "I1", "0:j0", True))
        rows.append((f"a{i}", "I1", "1:j1", (not h) if i in (0, 3) else h))
        rows.append((f"a{i}", "I1", "2:j2", False))
    verdicts = pd.DataFrame(rows, columns=["sample_id", "sub_question", "judge", "says_yes"])
    return labels, verdicts


def test_confusion_counts_accuracy_and_bias_by_hand() -> None:
    labels, verdicts = _scripted()
    truth = human_majority(labels, ["rubric", "environment", "language"]).verdicts
    table = versus_table(truth, verdicts).set_index("judge")
    # j0 always Yes: 4 human Yes -> TP 4, 6 human No -> FP 6.
    j0 = table.loc["0:j0"]
    assert (j0["tp"], j0["fp"], j0["fn"], j0["tn"]) == (4, 6, 0, 0)
    assert j0["accuracy"] == pytest.approx(0.4)
    assert j0["yes_when_human_no"] == 1.0 and j0["no_when_human_yes"] == 0.0
    # j1: wrong on a0 (human Yes -> FN) and a3 (human No -> FP).
    j1 = table.loc["1:j1"]
    assert (j1["tp"], j1["fp"], j1["fn"], j1["tn"]) == (3, 1, 1, 5)
    assert j1["accuracy"] == pytest.approx(0.8)
    assert (j1["accuracy_ci_low"], j1["accuracy_ci_high"]) == pytest.approx(wilson_interval(8, 10))
    assert j1["yes_when_human_no"] == pytest.approx(1 / 6)
    assert j1["no_when_human_yes"] == pytest.approx(1 / 4)
    assert (j1["no_when_human_yes_ci_low"], j1["no_when_human_yes_ci_high"]) == pytest.approx(
        wilson_interval(1, 4)
    )
    # AC1 of human vs j1, two raters: P_o = 0.8; Yes share = (4 + 4) / 20 = 0.4,
    # P_e = 2 * 0.4 * 0.6 = 0.48, AC1 = (0.8 - 0.48) / 0.52.
    assert j1["ac1"] == pytest.approx(0.32 / 0.52)


def test_tables_at_every_grain_panel_first() -> None:
    labels, verdicts = _scripted()
    truth = human_majority(labels, ["rubric", "environment", "language"]).verdicts
    tables = versus_tables(truth, verdicts)
    assert set(tables) == {"all", "sub_question", "rubric", "environment", "language"}
    pooled = tables["all"]
    assert pooled["judge"].iloc[0] == PANEL
    # Majority of (Yes, copy, No) is the copy's answer: the panel equals j1 here.
    panel = pooled.set_index("judge").loc[PANEL]
    assert (panel["tp"], panel["fp"], panel["fn"], panel["tn"]) == (3, 1, 1, 5)
    by_env = tables["environment"].set_index(["judge", "environment"])
    assert by_env.loc[("0:j0", "noisy"), "n"] == 5 and by_env.loc[("0:j0", "baseline"), "n"] == 5


def test_weighted_accuracy_uses_the_sample_weights() -> None:
    labels, verdicts = _scripted()
    truth = human_majority(labels, ["rubric"]).verdicts
    truth["weight"] = np.where(truth["sample_id"].isin(["a0", "a3"]), 4.0, 1.0)
    j1 = versus_table(truth, verdicts).set_index("judge").loc["1:j1"]
    # Wrong on the two weight-4 items: (8 * 1) / (8 * 1 + 2 * 4) = 0.5.
    assert j1["weighted_accuracy"] == pytest.approx(0.5)
    assert j1["accuracy"] == pytest.approx(0.8)


def test_no_overlap_between_labels_and_verdicts() -> None:
    labels, verdicts = _scripted()
    truth = human_majority(labels).verdicts
    assert versus_table(truth, verdicts.iloc[:0]).empty
