from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from polistemics.conditions import Variant
from polistemics.scoring.errors import ReleaseFormatError
from polistemics.scoring.indices import adherence_indices, emi_scores, rubric_scores
from polistemics.scoring.release import (
    detect_variant,
    is_release_folder,
    load_release,
    variant_folders,
    write_release_scores,
)

# Hand-computed from tests/fixtures/scoring/release_small (see its README):
# model_a Baseline: F 3/4 cells pass, I 9/10 (first of the repeated rows kept), EC 5/6; Absent EC 5/6.
# model_b Baseline: all pass; Absent EC 3/6.
A_BASELINE = (3 / 4 + 9 / 10 + 5 / 6) / 3
EXPECTED_ADHERENCE = {
    ("model_a", "baseline"): A_BASELINE,
    ("model_a", "ie_availability_absent"): 5 / 6,
    ("model_b", "baseline"): 1.0,
    ("model_b", "ie_availability_absent"): 1 / 2,
}
EXPECTED_EMI = {"model_a": math.sqrt(A_BASELINE * 5 / 6), "model_b": math.sqrt(1 / 2)}

# Published Dutch EMIs (paper App. I, Fig. 28; quoted in issue 5): Claude 95.1%, GPT 92.6%,
# Qwen 91.4%. Only these three figures are fixed; per-environment values come from the code.
PAPER_NL_EMI = {"claude_sonnet_4_6": 0.951, "gpt_5_4": 0.926, "qwen3_6_flash": 0.914}


@pytest.fixture
def small(fixtures_dir: Path) -> Path:
    return fixtures_dir / "scoring" / "release_small"


def test_small_release_scores_by_hand(small):
    release = load_release(small)
    assert release.variant is Variant.FULL
    adherence = adherence_indices(release.cells).set_index(["model", "environment"])["adherence"]
    assert adherence.to_dict() == pytest.approx(EXPECTED_ADHERENCE)
    assert emi_scores(release.cells).set_index("model")["emi"].to_dict() == pytest.approx(
        EXPECTED_EMI
    )
    rubrics = rubric_scores(release.cells).set_index(["model", "environment", "rubric"])["score"]
    assert rubrics[("model_a", "baseline", "impartiality")] == pytest.approx(9 / 10)


def test_small_release_reports_its_fallbacks_and_ignored_keys(small):
    release = load_release(small)
    notes = "\n".join(release.notes)
    assert "impartiality: no aggregated_scores.jsonl; scored single-run values" in notes
    assert "1 repeated rows" in notes and "(1 with different values)" in notes
    assert "no outputs.jsonl" in notes
    assert release.sources["impartiality"].name == "item_scores.jsonl"
    assert release.sources["faithfulness"].name == "aggregated_scores.jsonl"
    assert release.ignored == {
        "mystery_key (not an App. F sub-question)": 1,
        "adherence_rate (per-item summary)": 12,
    }
    assert "mystery_key" not in set(release.cells["sub_question"])


def test_small_release_metadata(small):
    cells = load_release(small).cells
    names = cells.drop_duplicates("party_id").set_index("party_id")["party_name"].to_dict()
    assert names == {"xx_alpha": "Alpha", "xx_beta": "Beta"}
    assert set(cells["election_id"]) == {"xx_test2025"} and set(cells["country"]) == {"XX"}
    assert cells["language"].isna().all()  # no outputs.jsonl
    assert set(cells.loc[cells["environment"] == "ie_availability_absent", "rubric"]) == {
        "epistemic_calibration"
    }


def test_ablation_subfolder(small):
    assert variant_folders(small) == {Variant.FULL: small, Variant.ANONYMIZED: small / "anon_v1"}
    anon = load_release(small / "anon_v1")
    assert anon.variant is Variant.ANONYMIZED
    assert set(anon.cells["variant"]) == {"anon"} and set(anon.cells["language"]) == {"Testish"}
    assert "1 api_error" in "\n".join(anon.notes)
    assert emi_scores(anon.cells).set_index("model")["emi"].to_dict() == pytest.approx(
        {"model_a": 3 / 4, "model_b": 1.0}
    )


def test_write_then_read_round_trips(small, tmp_path):
    cells = load_release(small).cells.assign(
        sample_index=lambda t: (t["observation_id"].str.contains("beta")).astype("int64")
    )
    written = write_release_scores(cells, tmp_path, k_runs=1, panel=("j1", "j2", "j3"))
    assert sorted(p.parent.name for p in written) == [
        "epistemic_calibration",
        "faithfulness",
        "impartiality",
    ]
    first = json.loads(
        (tmp_path / "scores" / "faithfulness" / "aggregated_scores.jsonl")
        .read_text()
        .splitlines()[0]
    )
    assert list(first) == [
        "observation_id",
        "party_id",
        "statement_id",
        "model_id",
        "prompt_variation",
        "temperature",
        "metric_name",
        "scores",
        "k_runs",
        "aggregation_method",
        "ie_name",
    ]
    assert first["aggregation_method"] == "majority_vote" and first["k_runs"] == 1
    assert first["statement_id"] == "xx_test2025__s001"
    assert list(first["scores"]) == [
        "position_representation",
        "information_fabrication",
        "adherence_rate",
    ]
    back = load_release(tmp_path, variant=Variant.FULL).cells
    columns = [
        "model",
        "environment",
        "variant",
        "observation_id",
        "sample_index",
        "party_id",
        "election_id",
        "rubric",
        "sub_question",
        "passed",
    ]
    key = ["model", "environment", "observation_id", "sample_index", "rubric", "sub_question"]
    pd.testing.assert_frame_equal(
        back[columns].sort_values(key, ignore_index=True),
        cells[columns].sort_values(key, ignore_index=True),
    )


def test_write_refuses_mixed_variants(small, tmp_path):
    cells = load_release(small).cells
    mixed = pd.concat([cells, cells.assign(variant="anon")])
    with pytest.raises(ValueError, match="variant"):
        write_release_scores(mixed, tmp_path)


def broken_copy(
    small: Path, tmp_path: Path, line: dict | str, rubric: str = "faithfulness"
) -> Path:
    folder = tmp_path / "release"
    shutil.copytree(small, folder, ignore=shutil.ignore_patterns("anon_v1"))
    path = folder / "scores" / rubric / "aggregated_scores.jsonl"
    text = line if isinstance(line, str) else json.dumps(line)
    with path.open("a") as handle:
        handle.write(text + "\n")
    return folder


def row(**changes) -> dict:
    base = {
        "observation_id": "xx_test2025__xx_alpha__s002",
        "party_id": "xx_alpha",
        "model_id": "model_a",
        "metric_name": "faithfulness",
        "ie_name": "baseline",
        "scores": {"position_representation": 1.0, "information_fabrication": 1.0},
    }
    return base | changes


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"line 5: invalid JSON"),
        (
            row(scores={"position_representation": 0.5}),
            r"line 5: field 'scores.position_representation'",
        ),
        (row(metric_name="impartiality"), r"line 5: field 'metric_name'"),
        (row(ie_name="ie_sunny"), r"line 5: field 'ie_name': unknown environment"),
        (
            row(observation_id="xx_test2025__xx_alpha__s001"),
            r"line 5: duplicate row .* \(first at line 1\)",
        ),
        (
            row(scores={"sanitization": 1.0}),
            r"line 5: field 'scores.sanitization': sub-question of impartiality",
        ),
        ({k: v for k, v in row().items() if k != "model_id"}, r"line 5: field 'model_id': missing"),
    ],
)
def test_bad_rows_stop_with_file_line_and_field(small, tmp_path, line, message):
    folder = broken_copy(small, tmp_path, line)
    with pytest.raises(ReleaseFormatError, match=message):
        load_release(folder)


def test_not_a_release_and_unknown_rubric_folder(small, tmp_path):
    assert not is_release_folder(tmp_path)
    with pytest.raises(ReleaseFormatError, match="not a release folder"):
        load_release(tmp_path)
    folder = tmp_path / "release"
    shutil.copytree(small, folder)
    (folder / "scores" / "honesty").mkdir()
    with pytest.raises(ReleaseFormatError, match="unknown rubric folder"):
        load_release(folder)


def test_variant_from_folder_name(tmp_path):
    for name, variant in (
        ("en_v1", Variant.ENGLISH),
        ("anon", Variant.ANONYMIZED),
        ("enquete", Variant.FULL),
    ):
        (tmp_path / name).mkdir()
        assert detect_variant(tmp_path / name) is variant


@pytest.mark.shared
def test_dutch_release_reproduces_the_paper_emi(release_dir):
    release = load_release(release_dir)
    emi = emi_scores(release.cells).set_index("model")["emi"]
    assert set(emi.index) == set(PAPER_NL_EMI)
    for model, paper in PAPER_NL_EMI.items():
        assert abs(emi[model] - paper) <= 0.0005, (model, emi[model])
    absent = release.cells[release.cells["environment"] == "ie_availability_absent"]
    assert set(absent["rubric"]) == {"epistemic_calibration"}
    assert release.ignored["structural_balance (not an App. F sub-question)"] == 3
    assert set(release.cells["language"]) == {"Dutch"}
    assert release.cells["party_name"].notna().all()


@pytest.mark.shared
@pytest.mark.parametrize(
    ("sub", "variant", "environments", "language"),
    [
        ("anon_v1", Variant.ANONYMIZED, {"baseline", "ie_clarity_vague"}, "Dutch"),
        ("en_v1", Variant.ENGLISH, {"baseline"}, "English"),
    ],
)
def test_dutch_ablation_folders(release_dir, sub, variant, environments, language):
    release = load_release(release_dir / sub)
    assert release.variant is variant
    assert set(release.cells["environment"]) == environments
    assert set(release.cells["language"]) == {language}
    assert set(emi_scores(release.cells)["model"]) == set(PAPER_NL_EMI)
    assert variant_folders(release_dir)[variant] == release_dir / sub


def test_written_rows_are_sorted_by_item_whatever_the_cell_order(small, tmp_path):
    cells = load_release(small).cells.assign(
        sample_index=lambda t: (t["observation_id"].str.contains("beta")).astype("int64")
    )
    write_release_scores(cells, tmp_path / "ordered")
    write_release_scores(cells.sample(frac=1, random_state=3), tmp_path / "shuffled")
    for rubric in ("faithfulness", "impartiality", "epistemic_calibration"):
        path = Path("scores") / rubric / "aggregated_scores.jsonl"
        ordered = (tmp_path / "ordered" / path).read_text(encoding="utf-8")
        assert (tmp_path / "shuffled" / path).read_text(encoding="utf-8") == ordered
        rows = [json.loads(line) for line in ordered.splitlines()]
        keys = [
            (r["model_id"], r["ie_name"], r["observation_id"], r.get("run_index", 0)) for r in rows
        ]
        assert keys == sorted(keys) and len(set(keys)) == len(keys) > 1
