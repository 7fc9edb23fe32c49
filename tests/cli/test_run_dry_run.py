"""``polistemics run --dry-run``: costs from OpenRouter's list (the test server), with each source named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.testing import FakeOpenAIServer

LISTING = {
    "data": [
        {"id": "openai/gpt-x", "pricing": {"prompt": "0.000001", "completion": "0.000004"}},
        {"id": "google/judge", "pricing": {"prompt": "0.0000001", "completion": "NaN"}},
    ]
}
MODELS = """
[models.or-target]
provider = "openrouter"
model = "openai/gpt-x"
api_key_env = "OPENROUTER_API_KEY"

[models.or-judge]
provider = "openrouter"
model = "google/judge"
api_key_env = "OPENROUTER_API_KEY"
price_input_per_mtok = 0.5
price_output_per_mtok = 2.0
"""
CONFIG = """
name = "priced"
targets = ["or-target"]
judges = ["or-judge", "or-judge", "or-judge"]
standardiser = "local"
vague_generator = "local"
vague_auditor = "local"
models_file = "{models}"
output_dir = "{run_dir}"
[[elections]]
source = "demo"
scope = "demo"
statements = [1, 2]
"""


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(model_list=LISTING) as running:
        yield running


@pytest.fixture
def study(tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("POLISTEMICS_OPENROUTER_BASE_URL", server.base_url)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    models = tmp_path / "models.toml"
    models.write_text(MODELS, encoding="utf-8")
    config = tmp_path / "study.toml"
    config.write_text(CONFIG.format(models=models, run_dir=tmp_path / "run"), encoding="utf-8")
    return config


def plan(config: Path, *options: str) -> dict:
    result = CliRunner().invoke(app, ["run", str(config), "--dry-run", "--json", *options])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def sources(payload: dict) -> dict[str, str]:
    return {row["model"]: row["price_source"] for row in payload["stages"]}


def test_dry_run_prices_openrouter_models_from_the_list(study: Path, server, tmp_path):
    payload = plan(study)
    rows = {row["model"]: row for row in payload["stages"]}
    target = rows["or-target"]
    assert target["price_source"].startswith("openrouter list of ")
    expected = target["input_tokens"] * 1e-6 + target["output_tokens"] * 4e-6
    assert target["cost"] == pytest.approx(expected) and expected > 0
    # The judge's listed price is NaN: ignored, so the registry's price is used and named.
    judge = rows["or-judge"]
    assert judge["price_source"] == "registry"
    assert judge["cost"] == pytest.approx(
        (judge["input_tokens"] * 0.5 + judge["output_tokens"] * 2.0) / 1e6
    )
    assert rows["local"]["price_source"] == "none" and rows["local"]["cost"] is None
    assert payload["prices_note"] == "1 entries of the OpenRouter price list ignored (unusable)"
    assert (tmp_path / "cache" / "polistemics" / "openrouter-models.json").is_file()
    assert server.model_list_requests == 1

    assert sources(plan(study)) == sources(payload)  # from the cache: no second request
    assert server.model_list_requests == 1
    plan(study, "--refresh-prices")
    plan(study, "--prices-max-age", "0")
    assert server.model_list_requests == 3


def test_dry_run_offline_falls_back_to_the_registry_and_says_why(study: Path, server):
    server.stop()
    payload = plan(study)
    assert sources(payload) == {"local": "none", "or-target": "none", "or-judge": "registry"}
    assert payload["prices_note"].startswith("OpenRouter price list not used (ConnectError")


def test_dry_run_table_has_a_price_source_column_and_one_line_note(
    study: Path, server, monkeypatch
):
    server.model_list = b'{"data": [{"id": "[bold]x[/bold]"'
    monkeypatch.setenv("COLUMNS", "200")
    result = CliRunner().invoke(app, ["run", str(study), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "price source" in result.stdout and "registry" in result.stdout
    notes = [line for line in result.stdout.splitlines() if "price list not used" in line]
    assert notes == [
        'OpenRouter price list not used (the model list is not JSON of the form {"data": '
        "[...]}); using registry prices"
    ]


def test_piped_dry_run_table_is_not_cut_at_80_columns(study: Path, server, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    result = CliRunner().invoke(app, ["run", str(study), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout
    rows = [line for line in result.stdout.splitlines() if "or-target" in line]
    assert len(rows) == 1 and len(rows[0]) > 80  # one row, wider than Rich's default width
    payload = plan(study)
    target = next(r for r in payload["stages"] if r["model"] == "or-target")
    assert f"{target['input_tokens']:,}" in rows[0]


def test_out_names_the_run_directory_and_output_still_does_with_a_warning(
    study: Path, server, tmp_path
):
    assert plan(study)["run_dir"] == str(tmp_path / "run")  # the config's output_dir
    for flag in ("--out", "-o"):
        assert plan(study, flag, str(tmp_path / flag))["run_dir"] == str(tmp_path / flag)
    old = CliRunner().invoke(
        app, ["run", str(study), "--dry-run", "--json", "--output", str(tmp_path / "old")]
    )
    assert old.exit_code == 0, old.output
    assert json.loads(old.stdout)["run_dir"] == str(tmp_path / "old")
    assert old.stderr == "warning: --output is deprecated; use --out\n"


def test_dry_run_shows_online_batch_and_cached_prefix_costs_side_by_side(
    study: Path, server, monkeypatch
):
    payload = plan(study)
    rows = {row["model"]: row for row in payload["stages"]}
    target = rows["or-target"]  # openai/... on OpenRouter: OpenAI's batch API bills half
    assert target["batch_cost"] == pytest.approx(target["cost"] * 0.5)
    # No shared prefix of 1,024 tokens in the demo's prompts: the cached estimate is online's.
    assert target["cached_input_tokens"] == 0 and target["cached_prefix_cost"] == target["cost"]
    assert rows["or-judge"]["batch_cost"] is None  # google/...: no batch discount known
    monkeypatch.setenv("COLUMNS", "250")
    result = CliRunner().invoke(app, ["run", str(study), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert all(h in result.stdout for h in ("online $", "batch $", "cached prefix $"))
    priced = [r for r in payload["stages"] if r["cost"] is not None]
    online = sum(r["cost"] for r in priced)
    in_batch = sum(r["cost"] if r["batch_cost"] is None else r["batch_cost"] for r in priced)
    without = sum(r["batch_cost"] is None for r in priced)
    unpriced = len(payload["stages"]) - len(priced)
    assert (
        f"cost estimates: online ${online:,.2f} ({unpriced} rows n/a, left out), "
        f"batch ${in_batch:,.2f} ({unpriced} rows n/a, left out) ({without} rows without a "
        f"known batch discount at online)" in result.stdout
    )
