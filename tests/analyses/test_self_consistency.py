"""Self-consistency across samples (issue 30, item 3): agreement of the majority verdicts and of
the coded stances, and the share of observations whose verdict flips, checked against
statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

from polistemics.analyses.self_consistency import (
    SELF_CONSISTENCY_STANCES,
    SELF_CONSISTENCY_VERDICTS,
    self_consistency_tables,
)
from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.runlog import CodedStance, EnvironmentItem, StanceCodeRecord
from polistemics.scoring.cells import CELL_COLUMNS
from polistemics.stats import stratum_rng, uneven_agreement

# observation -> per sub-question, the verdict of samples 0, 1, 2
VERDICTS = {
    "o1": {"F1": (True, True, True), "F2": (False, False, False)},  # stable
    "o2": {"F1": (True, False, True), "F2": (False, False, False)},  # flips on F1
    "o3": {"F1": (False, False, False), "F2": (True, True, False)},  # flips on F2
    "o4": {"F1": (True, True, True), "F2": (True, True, True)},  # stable
}


def cells(samples: int = 3) -> pd.DataFrame:
    rows = []
    for observation, verdicts in VERDICTS.items():
        for sub_question, by_sample in verdicts.items():
            for sample in range(samples):
                rows.append(
                    {
                        "model": "m",
                        "environment": "baseline",
                        "variant": "full",
                        "observation_id": observation,
                        "sample_index": sample,
                        "party_id": "p",
                        "election_id": "e",
                        "language": "English",
                        "rubric": "faithfulness",
                        "sub_question": sub_question,
                        "passed": by_sample[sample],
                        "party_name": "P",
                        "country": "xx",
                        "vague_mode": None,
                    }
                )
    return pd.DataFrame(rows, columns=list(CELL_COLUMNS))


def test_verdict_agreement_and_flips_across_samples() -> None:
    tables = self_consistency_tables(cells(), [], None)
    table = tables["self_consistency_verdicts"]
    assert list(table.columns) == SELF_CONSISTENCY_VERDICTS.names
    (row,) = table.to_dict("records")
    assert (row["n_observations"], row["n_cells"], row["samples"]) == (4, 8, 3)
    assert (row["flipped"], row["flip_rate"]) == (2, 0.5)
    low, high = proportion_confint(2, 4, method="wilson")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    counts = np.array([[3 - sum(v), sum(v)] for o in VERDICTS.values() for v in o.values()])
    assert row["fleiss_kappa"] == pytest.approx(fleiss_kappa(counts), abs=1e-12)
    pairs_agree = [(n_yes * (n_yes - 1) + (3 - n_yes) * (2 - n_yes)) / 6 for _, n_yes in counts]
    assert row["percent_agreement"] == pytest.approx(np.mean(pairs_agree))
    assert tables["self_consistency_stances"] is None  # no stance codes


def test_one_sample_per_item_gives_no_tables() -> None:
    assert self_consistency_tables(cells(samples=1), [], None) == {
        "self_consistency_verdicts": None,
        "self_consistency_stances": None,
    }


def item(observation: str) -> EnvironmentItem:
    return EnvironmentItem(
        observation_id=observation,
        election_id="e",
        party_id="p",
        party_name="P",
        party_anonymized="Party A",
        statement_id="e__s1",
        statement_text="S.",
        stance_label=Stance.AGREE,
        environment=Environment.VAGUE,
        language="English",
        output_language="English",
        chunks=[],
    )


def code(key: str, sample: int, stance: CodedStance | None) -> StanceCodeRecord:
    return StanceCodeRecord(
        kind="answer",
        subject_key=key,
        model="m",
        sample_index=sample,
        coder="c",
        panel_position=0,
        stance=stance,
        outside_knowledge=False,
    )


def test_stance_agreement_across_samples() -> None:
    a, b, c = item("o1"), item("o2"), item("o3")
    records = [
        *(code(a.key, s, CodedStance.AGREE) for s in range(3)),  # all alike
        code(b.key, 0, CodedStance.AGREE),
        code(b.key, 1, CodedStance.NO_POSITION),
        code(b.key, 2, CodedStance.AGREE),  # 1 of 3 pairs agree
        code(c.key, 0, CodedStance.AGREE),
        code(c.key, 1, None),  # one coded sample only: left out
    ]
    table = self_consistency_tables(cells(), [a, b, c], records)["self_consistency_stances"]
    assert list(table.columns) == SELF_CONSISTENCY_STANCES.names
    (row,) = table.to_dict("records")
    assert (row["n_observations"], row["all_agree"], row["agreement_rate"]) == (2, 1, 0.5)
    assert row["pairwise_agreement"] == pytest.approx((1 + 1 / 3) / 2)
    low, high = proportion_confint(1, 2, method="wilson")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12)


def test_verdict_agreement_intervals_resample_observations() -> None:
    """The intervals are stats.agreement_intervals over the observations, seeded per stratum:
    the same draws by hand give statsmodels' Fleiss' kappa of each resampled table."""
    table = self_consistency_tables(cells(), [], None, resamples=200, seed=5)
    (row,) = table["self_consistency_verdicts"].to_dict("records")
    assert row["n_resamples"] == 200
    observations = list(VERDICTS)  # sorted: o1..o4, the engine's cluster order
    rng = stratum_rng(5, "self_consistency_verdicts", "e", "m", "baseline", "full")
    kappas, agreement = [], []
    for drawn in rng.integers(0, len(observations), size=(200, len(observations))):
        counts = np.array(
            [[3 - sum(v), sum(v)] for o in drawn for v in VERDICTS[observations[o]].values()]
        )
        kappas.append(fleiss_kappa(counts) if 0 < counts[:, 1].sum() < counts.sum() else np.nan)
        agreement.append(uneven_agreement(counts[:, 1], counts.sum(axis=1)).percent_agreement)
    low, high = np.nanpercentile(kappas, [2.5, 97.5])
    assert (row["fleiss_kappa_ci_low"], row["fleiss_kappa_ci_high"]) == pytest.approx((low, high))
    low, high = np.percentile(agreement, [2.5, 97.5])
    assert (row["percent_agreement_ci_low"], row["percent_agreement_ci_high"]) == pytest.approx(
        (low, high)
    )
    assert row["gwet_ac1_ci_low"] <= row["gwet_ac1"] <= row["gwet_ac1_ci_high"]


def test_stance_pairwise_agreement_interval_resamples_observations() -> None:
    items = [item(f"o{i}") for i in range(6)]
    shares = {0: 1.0, 1: 1 / 3, 2: 1.0, 3: 1 / 3, 4: 1.0, 5: 1.0}  # pairwise agreement
    records = []
    for i, it in enumerate(items):
        second = CodedStance.AGREE if shares[i] == 1.0 else CodedStance.NO_POSITION
        records += [code(it.key, 0, CodedStance.AGREE), code(it.key, 1, second)]
        records.append(code(it.key, 2, CodedStance.AGREE))
    table = self_consistency_tables(cells(), items, records, resamples=300, seed=2)
    (row,) = table["self_consistency_stances"].to_dict("records")
    rng = stratum_rng(2, "self_consistency_stances", "e", "m", "ie_clarity_vague", "full")
    values = np.array([shares[i] for i in range(6)])
    means = [values[d].mean() for d in rng.integers(0, 6, size=(300, 6))]
    low, high = np.percentile(means, [2.5, 97.5])
    assert row["pairwise_agreement"] == pytest.approx(values.mean())
    assert (row["pairwise_agreement_ci_low"], row["pairwise_agreement_ci_high"]) == pytest.approx(
        (low, high)
    )
    assert row["n_resamples"] == 300
