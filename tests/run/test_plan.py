"""The call plan's cost column: the prices handed in, each row naming its source."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.llm.pricing import Price
from polistemics.run.config import load_config
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_study


def test_rows_cost_with_the_given_price_else_the_registry(tmp_path: Path) -> None:
    config = load_config("demo")
    study = Study(config, tmp_path / "run", log=lambda message: None)
    elections = load_elections(config)
    endpoints = {
        name: endpoint.model_copy(
            update={"price_input_per_mtok": 1.0, "price_output_per_mtok": 3.0}
        )
        for name, endpoint in study.endpoints.items()
    }
    listed = Price("openrouter list of 2026-11-30", 2e-6, 5e-6)
    rows, _ = plan_study(config, elections, endpoints, None, {"local": listed})
    by_model = {row.model: row for row in rows}
    local = by_model["local"]
    assert local.price_source == "openrouter list of 2026-11-30"
    assert local.cost == pytest.approx((local.input_tokens * 2 + local.output_tokens * 5) / 1e6)
    creative = by_model["local-creative"]
    assert creative.price_source == "registry"
    assert creative.cost == pytest.approx(
        (creative.input_tokens * 1 + creative.output_tokens * 3) / 1e6
    )
    unpriced, _ = plan_study(config, elections, study.endpoints, None)
    assert {(row.price_source, row.cost) for row in unpriced} == {("none", None)}
