"""``polistemics compare`` end to end: JSON keys, summary, --out, one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from polistemics.cli import app

from .cells import flipped, random_cells, run_dir

runner = CliRunner()


def runs(tmp_path: Path) -> tuple[str, str]:
    rates = {"m1": 0.9, "m2": 0.8, "m3": 0.7}
    de = random_cells(election="de_x", pass_rate=rates, seed=1)
    nl = random_cells(election="nl_x", pass_rate=rates, seed=2)
    return str(run_dir(tmp_path / "de", de)), str(run_dir(tmp_path / "nl", nl))


def test_json_has_the_documented_keys(tmp_path):
    de, nl = runs(tmp_path)
    result = runner.invoke(app, ["compare", de, nl, "--json", "--resamples", "50"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["mode"] == "unpaired" and doc["delta"] == "b - a"
    assert doc["a"]["label"] == "de" and doc["b"]["elections"] == ["nl_x"]
    assert isinstance(doc["rank_agreement"]["leaderboard"]["spearman"], float)
    assert "spearman" in doc["rank_agreement"]["environment_difficulty"]
    assert doc["bootstrap"] == {
        "resamples": 50,
        "seed": 0,
        "confidence": 0.95,
        "kind": "independent",
    }
    # Unpaired rows are tested too (issue 27): bootstrap z with Holm per table, not None.
    assert doc["tests"]["test"].startswith("bootstrap z")
    assert doc["tests"]["correction"] == "Holm, each table one family"
    assert doc["tests"]["n_excludes_zero"] >= doc["tests"]["n_significant"]
    assert set(doc["deltas"]) == {
        "emi",
        "adherence",
        "rubrics",
        "sub_questions",
        "sub_questions_pooled",
        "parties",
    }
    row = doc["deltas"]["adherence"][0]
    assert {
        "variant",
        "model",
        "environment",
        "value_a",
        "value_b",
        "delta",
        "ci_low",
        "ci_high",
    } <= set(row)
    assert doc["additional_comparisons"] == []


def test_paired_json_counts_significant_tests_and_out_writes_the_page(tmp_path):
    cells = random_cells(statements=25, seed=3)
    a = run_dir(tmp_path / "a", cells)
    b = run_dir(tmp_path / "b", flipped(cells, 0.5, only_passes=True))
    out = tmp_path / "page"
    result = runner.invoke(
        app, ["compare", str(a), str(b), "--json", "--resamples", "50", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["mode"] == "paired"
    assert doc["tests"]["n_significant"] > 0
    assert (out / "compare.html").is_file() and (out / "tables" / "delta_parties.csv").is_file()


def test_summary_and_self_comparison(tmp_path):
    de, _ = runs(tmp_path)
    result = runner.invoke(app, ["compare", de, de, "--resamples", "20"])
    assert result.exit_code == 0, result.output
    assert "paired comparison" in result.stdout
    assert "significant after Holm (exact McNemar): 0 tests" in result.stdout


def test_refusals_are_one_line(tmp_path):
    de, _ = runs(tmp_path)
    other = run_dir(tmp_path / "other", random_cells(models=("x1", "x2"), seed=4))
    (tmp_path / "empty").mkdir()
    for args in ([de, str(other)], [de, str(tmp_path / "empty")], [de]):
        result = runner.invoke(app, ["compare", *args])
        assert result.exit_code == 2
        lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(lines) == 1, result.stderr
    result = runner.invoke(app, ["compare", de, str(other)])
    assert "no shared model" in result.stderr


def test_json_and_terminal_open_with_the_summary_and_small_sample_warnings(tmp_path):
    rates = {"m1": 0.9, "m2": 0.8, "m3": 0.7}
    de = run_dir(tmp_path / "de", random_cells(election="de_x", pass_rate=rates, seed=1))
    nl = run_dir(tmp_path / "nl", random_cells(election="nl_x", pass_rate=rates, seed=2))
    out = tmp_path / "page"
    args = ["compare", str(de), str(nl), "--resamples", "50"]
    result = runner.invoke(app, [*args, "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert list(doc)[:2] == ["summary", "warnings"]
    assert doc["summary"][0].startswith("nl − de: an unpaired comparison of 3 models")
    # 12 statements x 3 parties = 36 observations per model, 12 per party: the per-party
    # intervals rest on fewer than 30.
    assert len(doc["warnings"]) == 1 and doc["warnings"][0].startswith("Pass rate per party")
    assert all(row["small_sample"] for row in doc["deltas"]["parties"])
    assert not any(row["small_sample"] for row in doc["deltas"]["emi"])
    # --json and tables/ are the same computed tables.
    written = pd.read_csv(out / "tables" / "delta_sub_questions.csv")
    assert written["p_holm"].tolist() == [r["p_holm"] for r in doc["deltas"]["sub_questions"]]
    assert written["excludes_zero"].tolist() == [
        r["excludes_zero"] for r in doc["deltas"]["sub_questions"]
    ]
    terminal = runner.invoke(app, args)
    assert terminal.exit_code == 0, terminal.output
    said = " ".join(terminal.stdout.split())
    assert " ".join(doc["summary"][0].split()) in said
    assert "warning: Pass rate per party" in said
    assert "95% interval excludes 0:" in said and "significant after Holm (bootstrap z" in said
