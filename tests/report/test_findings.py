"""The report's tables of the paper's remaining analyses (``report/findings.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.analyses.expansion import expansion_table
from polistemics.analyses.failure_cooccurrence import failure_cooccurrence_table
from polistemics.analyses.party_findings import impartiality_pooled
from polistemics.conditions import Environment, Variant
from polistemics.report.findings import finding_tables
from polistemics.report.release_inputs import load_release_inputs
from polistemics.scoring.party_analyses import mean_party_spread

from .conftest import cells_frame, rate_cells

B, V = Environment.BASELINE, Environment.VAGUE


def test_impartiality_is_pooled_over_environments() -> None:
    cells = cells_frame(
        rate_cells(
            [
                ("m1", B, "p1", "sanitization", 9, 10),
                ("m1", V, "p1", "sanitization", 1, 10),
                ("m1", B, "p1", "endorsement", 10, 10),
            ]
        )
    )
    table = impartiality_pooled(cells).set_index("sub_question")
    assert table.loc["sanitization", "pass_rate"] == pytest.approx(0.5)
    assert table.loc["sanitization", "n"] == 20
    assert table.loc["sanitization", "n_environments"] == 2
    assert table.loc["endorsement", "pass_rate"] == 1.0


def test_finding_tables_keep_the_gate_and_the_full_variant() -> None:
    rows = rate_cells(
        [("m1", B, "p1", "sanitization", 8, 10), ("m1", B, "p2", "sanitization", 10, 10)]
    )
    rows += rate_cells([("m1", B, "p1", "sanitization", 10, 10)], variant=Variant.ANONYMIZED)
    found = finding_tables(cells_frame(rows), "e", resamples=50, loo_min_items=20)
    assert found.loo_min_items == 20
    assert found.mean_party_spread["mean_party_spread"].tolist() == pytest.approx([0.2])
    assert set(found.party_adherence["party_id"]) == {"p1", "p2"}
    assert set(found.sanitisation["variant"]) == {"full", "anon"}
    assert found.expansion is None and "evidence" in found.expansion_reason


@pytest.fixture(scope="module")
def dutch(release_dir: Path):
    inputs = load_release_inputs(release_dir)
    return inputs, finding_tables(
        inputs.cells, "nl_tk2025", evidence=inputs.evidence, resamples=100
    )


def test_dutch_release_findings(dutch) -> None:
    inputs, found = dutch
    full = inputs.cells[inputs.cells["variant"] == "full"]
    spread = found.mean_party_spread.set_index("model")["mean_party_spread"]
    assert spread.to_dict() == pytest.approx(
        mean_party_spread(full).set_index("model")["mean_party_spread"].to_dict()
    )
    # Qwen's largest party-vs-rest deviation: SP in Absent (Sec. 7.5: SP and PVV mirror the
    # Die Linke fallback pattern under Qwen in Absent)
    top = found.party_vs_rest.reindex(
        found.party_vs_rest["deviation"].abs().sort_values(ascending=False).index
    ).iloc[0]
    assert (top["model"], top["environment"], top["party_id"]) == (
        "qwen3_6_flash",
        Environment.ABSENT.value,
        "nl_sp",
    )
    assert top["deviation"] < -0.15
    cooccurrence = failure_cooccurrence_table(inputs.cells)
    phi = cooccurrence[cooccurrence["election_id"] == "nl_tk2025"].set_index("environment")["phi"]
    assert phi[Environment.CONTRADICTORY.value] > phi[Environment.VAGUE.value] > 0
    assert set(found.sanitisation["variant"]) == {"full", "anon", "en"}
    assert (found.sanitisation["ci_low"] <= found.sanitisation["pass_rate"]).all()
    # App. D.4 from the release's evidence: three terciles of the 240 Dutch items
    assert found.expansion is not None
    assert list(found.expansion["tercile"]) == [1, 2, 3]
    assert found.expansion["n_items"].iloc[0] == 240
    # App. D.4 (NL): rho = 0.11, median expansion 2.2x (2.23 in characters; tokens gave 0.08)
    assert round(found.expansion["spearman_rho"].iloc[0], 2) == 0.11
    assert round(found.expansion["median_expansion"].iloc[0], 2) == 2.23


def test_expansion_needs_evidence_and_i4_cells(dutch) -> None:
    inputs, _ = dutch
    assert expansion_table(inputs.cells, None)[0] is None
    no_i4 = inputs.cells[inputs.cells["sub_question"] != "sanitization"]
    table, reason = expansion_table(no_i4, inputs.evidence)
    assert table is None and "I4" in reason
