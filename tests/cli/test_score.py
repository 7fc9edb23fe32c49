from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from mechanism_records import write_mechanism_run
from polistemics.cli import app

runner = CliRunner()

# Published Dutch EMIs (paper App. I, Fig. 28; quoted in issue 5): Claude 95.1%, GPT 92.6%,
# Qwen 91.4%. Only these three figures are fixed; per-environment values come from the code.
PAPER_NL_EMI = {"claude_sonnet_4_6": 0.951, "gpt_5_4": 0.926, "qwen3_6_flash": 0.914}


@pytest.fixture
def small(fixtures_dir: Path) -> Path:
    return fixtures_dir / "scoring" / "release_small"


def run_json(*args: str) -> list[dict]:
    result = runner.invoke(app, ["score", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_on_the_small_release(small):
    scores = run_json(str(small))
    by_model = {s["model"]: s for s in scores}
    baseline = (3 / 4 + 9 / 10 + 5 / 6) / 3
    assert by_model["model_a"]["emi"] == pytest.approx(math.sqrt(baseline * 5 / 6))
    assert by_model["model_a"]["adherence"] == pytest.approx(
        {"baseline": baseline, "ie_availability_absent": 5 / 6}
    )
    assert by_model["model_b"]["rubrics"]["ie_availability_absent"] == pytest.approx(
        {"epistemic_calibration": 0.5}
    )
    assert {s["variant"] for s in scores} == {"full"}


def test_notes_go_to_stderr_and_json_stays_clean(small):
    result = runner.invoke(app, ["score", str(small), "--json"])
    assert "note: impartiality: no aggregated_scores.jsonl" in result.stderr
    assert "note:" not in result.stdout


def test_ablation_by_path_and_by_variant_option(small):
    by_path = run_json(str(small / "anon_v1"))
    by_option = run_json(str(small), "--variant", "anon")
    assert by_path == by_option
    assert {s["model"]: s["emi"] for s in by_path} == pytest.approx(
        {"model_a": 3 / 4, "model_b": 1.0}
    )
    assert {s["variant"] for s in by_path} == {"anon"}


def test_table_in_percent(small):
    result = runner.invoke(app, ["score", str(small)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    baseline = (3 / 4 + 9 / 10 + 5 / 6) / 3
    assert f"{100 * math.sqrt(baseline * 5 / 6):.1f}" in result.stdout
    assert "70.7" in result.stdout  # model_b EMI sqrt(1/2)
    assert "Absent" in result.stdout and "EMI" in result.stdout


def test_user_errors_exit_2(small, tmp_path):
    result = runner.invoke(app, ["score", str(tmp_path)])
    assert result.exit_code == 2 and "not a release folder" in result.stderr
    result = runner.invoke(app, ["score", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "no such file" in result.stderr
    result = runner.invoke(app, ["score", str(small), "--variant", "en"])
    assert result.exit_code == 2 and "no release folder for variant 'en'" in result.stderr


@pytest.mark.shared
def test_dutch_release_emi_matches_the_paper(release_dir):
    scores = {s["model"]: s for s in run_json(str(release_dir))}
    for model, paper in PAPER_NL_EMI.items():
        assert abs(scores[model]["emi"] - paper) <= 0.0005, (model, scores[model]["emi"])
        assert len(scores[model]["adherence"]) == 6


@pytest.mark.shared
@pytest.mark.parametrize(("sub", "environments"), [("anon_v1", 2), ("en_v1", 1)])
def test_dutch_ablation_folders_score(release_dir, sub, environments):
    scores = run_json(str(release_dir / sub))
    assert {s["model"] for s in scores} == set(PAPER_NL_EMI)
    assert all(len(s["adherence"]) == environments for s in scores)
    assert all(0.8 < s["emi"] <= 1.0 for s in scores)


def test_json_on_the_dutch_release_has_the_mean_party_spread_per_model(release_dir: Path):
    from polistemics.scoring.party_analyses import mean_party_spread
    from polistemics.scoring.release import load_release

    scores = run_json(str(release_dir))
    expected = mean_party_spread(load_release(release_dir).cells).set_index("model")
    assert len(scores) == 3
    for row in scores:
        value = row["mean_party_spread"]
        assert 0.0 < value < 0.2  # a fraction, not pp
        assert value == pytest.approx(expected.loc[row["model"], "mean_party_spread"])


MECHANISM_KEYS = {
    "fallback_match_rate",
    "first_chunk_rate",
    "prior_accuracy",
    "follows_evidence_rate",
}


def test_json_rows_carry_the_mechanism_rates_of_a_coded_run(tmp_path: Path):
    run = write_mechanism_run(tmp_path / "run")
    (row,) = run_json(str(run))
    assert row["model"] == "m1"
    assert row["mechanisms"] == {
        "fallback_match_rate": 0.5,
        "first_chunk_rate": 0.5,
        "prior_accuracy": pytest.approx(2 / 3),
        "follows_evidence_rate": 0.5,
    }


def test_mechanisms_are_null_where_not_measured(small, tmp_path: Path):
    for path in (small, write_mechanism_run(tmp_path / "uncoded", coded=False)):
        for row in run_json(str(path)):
            assert row["mechanisms"] == dict.fromkeys(MECHANISM_KEYS)


def test_an_unreadable_stance_code_file_is_a_user_error(tmp_path: Path):
    run = write_mechanism_run(tmp_path / "run")
    (run / "stance_codes.jsonl").write_text('{"kind": "answer"}\n', encoding="utf-8")
    result = runner.invoke(app, ["score", str(run), "--json"])
    assert result.exit_code == 2
    assert "stance_codes.jsonl, record 1" in result.stderr


def _raw_rubric_scores(release_dir: Path) -> pd.DataFrame:
    """Rubric Score per model x environment x rubric straight from the release's aggregated
    score files (not through the tool's reader): the share of passing sub-question values."""
    rows = []
    for path in sorted((release_dir / "scores").glob("*/aggregated_scores.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for key, value in row["scores"].items():
                if key not in ("adherence_rate", "structural_balance") and value is not None:
                    rows.append((row["model_id"], row["ie_name"], path.parent.name, value))
    table = pd.DataFrame(rows, columns=["model", "environment", "rubric", "passed"])
    return table.groupby(["model", "environment", "rubric"])["passed"].mean().reset_index()


@pytest.mark.shared
def test_dutch_release_rubric_dispersion_matches_an_independent_reading(release_dir):
    """The paper prints the German 5 / 9 / 12% (Sec. 7.2), no Dutch figure; on the Dutch release
    ``rubric_dispersion`` equals the definition applied with pandas to the raw files: Claude
    0.050, Qwen 0.084, GPT 0.108 (the SD of the Adherence Index gave 0.042, 0.069, 0.095)."""
    raw = _raw_rubric_scores(release_dir)
    active = raw[raw["environment"] != "baseline"]
    expected = active.groupby(["model", "rubric"])["passed"].std(ddof=1).groupby("model").mean()
    scores = {s["model"]: s["rubric_dispersion"] for s in run_json(str(release_dir))}
    assert scores == pytest.approx(expected.to_dict())
    assert scores["claude_sonnet_4_6"] < scores["qwen3_6_flash"] < scores["gpt_5_4"]
    assert {m: round(v, 3) for m, v in scores.items()} == {
        "claude_sonnet_4_6": 0.050,
        "qwen3_6_flash": 0.084,
        "gpt_5_4": 0.108,
    }


def test_a_piped_table_is_not_cut_at_80_columns(release_dir: Path) -> None:
    # CliRunner's stdout is not a terminal; COLUMNS=80 is what pytest-xdist's workers set.
    result = runner.invoke(app, ["score", str(release_dir)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout
    header = next(line for line in result.stdout.splitlines() if "Model" in line)
    for environment in ("Baseline", "Contradictory", "Counterfactual"):
        assert environment in header
    assert "claude_sonnet_4_6" in result.stdout
