"""PPI-corrected scores: our estimator equals ``ppi_py.ppi_mean_ci`` (lam=1) on the same data,
with and without sample weights; rubric scores, Adherence Indices and the EMI on scripted runs."""

from __future__ import annotations

import importlib
import math
import sys
from types import ModuleType

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from polistemics.annotate.ppi import (
    ANSWER_RUBRIC,
    corrected_adherence,
    corrected_emi,
    corrected_rubric_scores,
    human_answer_scores,
    panel_answer_scores,
    ppi_mean,
    rectifier,
)
from polistemics.scoring.cells import ITEM_COLUMNS, compact_cells
from polistemics.scoring.indices import rubric_scores


def import_ppi_py() -> ModuleType:
    """``ppi_py`` imports numba, whose coverage hook needs coverage >= 7 when coverage can be
    imported; irrCAC pins coverage < 7. Hide coverage while numba loads (it then skips the hook)."""
    if "ppi_py" in sys.modules:
        return sys.modules["ppi_py"]
    saved = sys.modules.get("coverage")
    sys.modules["coverage"] = None  # type: ignore[assignment]
    try:
        return importlib.import_module("ppi_py")
    except ImportError as exc:
        pytest.skip(f"ppi-python is not importable: {exc}")
    finally:
        if saved is None:
            del sys.modules["coverage"]
        else:
            sys.modules["coverage"] = saved


@pytest.fixture(scope="module")
def ppi_py() -> ModuleType:
    return import_ppi_py()


def _data(seed: int, n: int = 80, big_n: int = 2000):
    rng = np.random.default_rng(seed)
    all_predicted = rng.integers(0, 5, size=big_n) / 4  # answer x rubric shares of 4 cells
    picked = rng.choice(big_n, size=n, replace=False)
    predicted = all_predicted[picked]
    truth = np.clip(predicted + rng.choice([-0.25, 0, 0, 0.25], size=n), 0, 1)
    weights = rng.choice([1.0, 3.0, 12.5], size=n)
    return truth, predicted, all_predicted, weights


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_ppi_python(ppi_py: ModuleType, seed: int, weighted: bool) -> None:
    truth, predicted, all_predicted, weights = _data(seed)
    w = weights if weighted else None
    ours = ppi_mean(truth, predicted, all_predicted, w, alpha=0.05)
    low, high = ppi_py.ppi_mean_ci(truth, predicted, all_predicted, alpha=0.05, lam=1, w=w)
    point = ppi_py.ppi_mean_pointestimate(truth, predicted, all_predicted, lam=1, w=w)
    assert ours.estimate == pytest.approx(float(np.squeeze(point)), abs=1e-12)
    assert ours.ci_low == pytest.approx(float(np.squeeze(low)), abs=1e-12)
    assert ours.ci_high == pytest.approx(float(np.squeeze(high)), abs=1e-12)
    assert ours.n_labelled == len(truth) and ours.n_total == len(all_predicted)


def test_hand_computed_small_example() -> None:
    # Panel on all 4 answers: mean 0.5, var 0.25 / 4. Labelled: Y - f = (0.5, -0.5), weights
    # (1, 3) normalised to (0.5, 1.5): terms (0.25, -0.75), mean -0.25, var 0.25 / 2.
    est = ppi_mean(np.array([1.0, 0.0]), np.array([0.5, 0.5]), np.array([0, 1, 0, 1.0]), [1, 3])
    assert est.estimate == pytest.approx(0.25)
    se = math.sqrt(0.25 / 4 + 0.25 / 2)
    assert est.std_error == pytest.approx(se)
    assert est.ci_low == pytest.approx(0.25 - norm.ppf(0.975) * se)
    assert est.panel_mean == 0.5


def test_too_few_labels_give_no_correction() -> None:
    est = ppi_mean(np.array([1.0]), np.array([0.0]), np.array([0.0, 1.0]))
    assert math.isnan(est.estimate) and math.isnan(est.ci_low) and est.panel_mean == 0.5


def test_bad_weights_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        rectifier(np.ones(3), np.zeros(3), np.array([1.0, 0.0, 1.0]))


# -- a scripted run: cells of two models in Baseline and Absent --------------------------------


def _cells(seed: int, answers: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    codes = {
        ("baseline", "faithfulness"): ["position_representation", "information_fabrication"],
        ("baseline", "epistemic_calibration"): [
            "epistemic_certainty",
            "epistemic_hedging",
            "parametric_fallback",
        ],
        ("ie_availability_absent", "epistemic_calibration"): [
            "epistemic_certainty",
            "context_transparency",
            "parametric_fallback",
        ],
    }
    for model in ("m1", "m2"):
        for (env, rubric), keys in codes.items():
            for obs in range(answers):
                for key in keys:
                    rows.append(
                        (model, env, "full", f"o{obs}", 0, "p1", "e1", "German", rubric, key)
                        + (bool(rng.random() < 0.7), None, None, None)
                    )
    columns = [*ITEM_COLUMNS, "rubric", "sub_question", "passed"]
    return pd.DataFrame(rows, columns=[*columns, "party_name", "country", "vague_mode"])


def _labelled(panel: pd.DataFrame, seed: int, n: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    chosen = panel.iloc[rng.choice(len(panel), size=n, replace=False)]
    human = np.clip(chosen["score"].to_numpy() + rng.choice([-1 / 3, 0, 0.5], size=n), 0, 1)
    return chosen[ANSWER_RUBRIC].assign(human_score=human, weight=rng.choice([1.0, 4.0], size=n))


def test_panel_answer_scores_average_to_the_rubric_score() -> None:
    cells = _cells(0)
    panel = panel_answer_scores(cells)
    mean = panel.groupby(["model", "environment", "rubric"])["score"].mean()
    pooled = rubric_scores(cells).set_index(["model", "environment", "rubric"])["score"]
    assert np.allclose(mean.sort_index(), pooled.sort_index())


def test_corrected_rubric_scores_equal_ppi_per_population(ppi_py: ModuleType) -> None:
    panel = panel_answer_scores(_cells(1))
    labelled = _labelled(panel, 2, n=200)
    table = corrected_rubric_scores(panel, labelled)
    assert len(table) == 6
    keys = ["variant", "model", "environment", "rubric"]
    for _, row in table.iterrows():
        in_group = (panel[keys] == row[keys]).all(axis=1)
        sample = labelled.merge(panel, on=ANSWER_RUBRIC)
        sample = sample[(sample[keys] == row[keys]).all(axis=1)]
        low, high = ppi_py.ppi_mean_ci(
            sample["human_score"].to_numpy(),
            sample["score"].to_numpy(),
            panel.loc[in_group, "score"].to_numpy(),
            alpha=0.05,
            lam=1,
            w=sample["weight"].to_numpy(),
        )
        assert row["n_labelled"] == len(sample)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((float(low[0]), float(high[0])))
        assert row["difference"] == pytest.approx(row["corrected"] - row["panel"])


def test_adherence_of_one_rubric_is_its_rubric_score_and_combines_linearly() -> None:
    panel = panel_answer_scores(_cells(3))
    labelled = _labelled(panel, 4, n=200)
    rubrics = corrected_rubric_scores(panel, labelled).set_index(["model", "environment", "rubric"])
    adherence = corrected_adherence(panel, labelled).set_index(["model", "environment"])
    # Absent: Epistemic Calibration only -> the same estimate and interval.
    absent = adherence.loc[("m1", "ie_availability_absent")]
    ec = rubrics.loc[("m1", "ie_availability_absent", "epistemic_calibration")]
    for column in ("panel", "corrected", "ci_low", "ci_high"):
        assert absent[column] == pytest.approx(ec[column])
    # Baseline: the mean of the two rubrics' estimates; the variance as the docstring says.
    base = adherence.loc[("m2", "baseline")]
    f = rubrics.loc[("m2", "baseline", "faithfulness")]
    c = rubrics.loc[("m2", "baseline", "epistemic_calibration")]
    assert base["corrected"] == pytest.approx((f["corrected"] + c["corrected"]) / 2)
    assert base["panel"] == pytest.approx((f["panel"] + c["panel"]) / 2)
    m2 = panel[(panel["model"] == "m2") & (panel["environment"] == "baseline")]
    per_answer = m2.groupby("observation_id")["score"].mean()
    panel_var = per_answer.var(ddof=0) / len(per_answer)
    rect_var = [
        x["std_error"] ** 2
        - panel[
            (panel["model"] == "m2") & (panel["environment"] == "baseline") & (panel["rubric"] == r)
        ]["score"].var(ddof=0)
        / x["n_answers"]
        for r, x in (("faithfulness", f), ("epistemic_calibration", c))
    ]
    assert base["std_error"] == pytest.approx(math.sqrt(panel_var + sum(rect_var) / 4))


def test_adherence_needs_labels_in_every_rubric() -> None:
    panel = panel_answer_scores(_cells(5))
    only_faithfulness = panel[panel["rubric"] == "faithfulness"].iloc[:10]
    labelled = only_faithfulness[ANSWER_RUBRIC].assign(human_score=1.0, weight=1.0)
    adherence = corrected_adherence(panel, labelled).set_index(["model", "environment"])
    row = adherence.loc[("m1", "baseline")]
    assert math.isnan(row["corrected"]) and row["n_labelled"] == 10
    assert not math.isnan(row["panel"])


def test_emi_delta_method_by_hand() -> None:
    adherence = pd.DataFrame(
        {
            "variant": "full",
            "model": "m1",
            "environment": ["baseline", "ie_availability_absent"],
            "panel": [0.8, 0.5],
            "corrected": [0.64, 0.25],
            "std_error": [0.064, 0.05],
        }
    )
    row = corrected_emi(adherence).iloc[0]
    assert row["corrected"] == pytest.approx(0.4)  # sqrt(0.64 * 0.25)
    assert row["panel"] == pytest.approx(math.sqrt(0.4))
    se_log = math.sqrt(0.1**2 + 0.2**2) / 2
    assert row["ci_low"] == pytest.approx(0.4 * math.exp(-norm.ppf(0.975) * se_log))
    assert row["ci_high"] == pytest.approx(0.4 * math.exp(norm.ppf(0.975) * se_log))
    adherence.loc[1, "corrected"] = float("nan")
    assert math.isnan(corrected_emi(adherence).iloc[0]["corrected"])


def test_human_answer_scores_use_the_scoring_rules_and_complete_annotators() -> None:
    labels = pd.DataFrame(
        [
            # a1 Baseline EC (EC1, EC2, EC4): Yes passes EC1 only in a conclusive IE.
            ("a1", "ann", "epistemic_certainty", True),
            ("a1", "ann", "epistemic_hedging", False),
            ("a1", "ann", "parametric_fallback", True),  # fails
            ("a1", "bob", "epistemic_certainty", False),  # fails
            ("a1", "bob", "epistemic_hedging", False),
            ("a1", "bob", "parametric_fallback", False),
            ("a1", "cem", "epistemic_certainty", True),  # incomplete: not used
        ],
        columns=["sample_id", "annotator", "sub_question", "says_yes"],
    ).assign(environment="baseline", rubric="epistemic_calibration")
    scores = human_answer_scores(labels).set_index("sample_id")
    assert scores.loc["a1", "n_annotators"] == 2
    assert scores.loc["a1", "human_score"] == pytest.approx(2 / 3)


def test_a_compact_frame_gives_the_answer_scores_and_estimates_of_its_text_columns() -> None:
    """Cells coded (``compact_cells``, as a run's finish scores them) and a model left out (a
    category no row holds): the same panel scores, with text keys, and the same estimates."""
    cells = _cells(6)
    cells.loc[cells.index[:5], "model"] = "m3"
    keep = cells["model"] != "m3"
    plain_panel = panel_answer_scores(cells[keep])
    compact_panel = panel_answer_scores(compact_cells(cells)[keep])
    pd.testing.assert_frame_equal(compact_panel, plain_panel)
    labelled = _labelled(plain_panel, 7, n=100)
    pd.testing.assert_frame_equal(
        corrected_adherence(compact_panel, labelled), corrected_adherence(plain_panel, labelled)
    )
