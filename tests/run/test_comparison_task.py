"""The comparison task end to end on the demo election, against the test server scripting
answers of known quality: correct, a false difference, a false agreement, one party
misrepresented. The relations, the sides and the pass rules of the new sub-questions follow
exactly from the items' ground truth."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from task_helpers import (
    check_rerun_and_removal,
    execute,
    report_in_chromium,
    task_table,
    write_task_study,
)
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.runlog import RunDir
from polistemics.runlog.comparison import ComparisonItem, read_comparison_files
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.comparison import QUALITIES
from polistemics.testing.responders import ComparisonResponder

INCONCLUSIVE = ("ie_availability_absent", "ie_clarity_vague", "ie_consistency_contradiction")
ENVIRONMENTS = ("baseline", *INCONCLUSIVE)


ALL_TASKS = ("party_position", "navigation", "comparison")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    done = {}
    for quality in QUALITIES:
        # The correct answers' run asks all three tasks; the others party position and comparison.
        tasks = ALL_TASKS if quality == "correct" else ("party_position", "comparison")
        with FakeOpenAIServer(responder=ComparisonResponder(quality)) as server:
            # A few statements and no Counterfactual keep the party-position part small.
            path = write_task_study(
                tmp_path_factory.mktemp(quality),
                server.base_url,
                tasks,
                ENVIRONMENTS,
                [1, 2, 3, 4, 5],
            )
            done[quality] = execute(path)
    return done


_table = task_table


def _items(run_dir: Path, environment: str | None = None) -> list[ComparisonItem]:
    files = read_comparison_files(run_dir)
    assert files is not None
    return [i for i in files.items if environment in (None, i.environment.value)]


def _passes(run_dir: Path, environment: str, key: str) -> tuple[int, int]:
    table = _table(run_dir, "comparison_sub_questions")
    row = table[(table.environment == environment) & (table.sub_question == key)].iloc[0]
    return int(row.passes), int(row.n)


def _relations(run_dir: Path, environment: str) -> pd.DataFrame:
    table = _table(run_dir, "comparison_relations")
    return table[table.environment == environment].set_index("pair")


def _sides(run_dir: Path, environment: str) -> pd.DataFrame:
    table = _table(run_dir, "comparison_sides")
    return table[table.environment == environment].set_index(["role", "named"])


def test_the_items_have_both_kinds_of_pair_and_both_positions_of_the_degraded_side(runs) -> None:
    items = _items(runs["correct"], "baseline")
    assert {i.pair for i in items} == {"differing", "agreeing"}
    assert {i.degraded_named for i in items} == {"first", "second"}


def test_a_correct_answer_claims_the_true_relation_and_passes_every_rule(runs) -> None:
    run_dir = runs["correct"]
    baseline = _relations(run_dir, "baseline")
    n = {pair: sum(i.pair == pair for i in _items(run_dir, "baseline")) for pair in baseline.index}
    assert baseline.loc["differing", "claimed_differ"] == n["differing"] > 0
    assert baseline.loc["agreeing", "claimed_same"] == n["agreeing"] > 0
    assert (baseline.false_claims == 0).all() and (baseline.false_claim_rate == 0).all()
    for environment in INCONCLUSIVE:
        relations = _relations(run_dir, environment)
        assert (relations.committed == 0).all() and (relations.claimed_undetermined > 0).all()
    sides = _table(run_dir, "comparison_sides")
    assert (sides.faithful == sides.n).all() and (sides.faithful_rate == 1).all()
    sub_questions = _table(run_dir, "comparison_sub_questions")
    assert (sub_questions.passes == sub_questions.n).all()
    assert set(sub_questions[sub_questions.environment == "baseline"].rubric) == {
        "faithfulness",
        "impartiality",
    }
    emi = _table(run_dir, "comparison_emi")
    assert emi.emi.tolist() == [1.0] and emi.n_environments.tolist() == [len(ENVIRONMENTS)]


def test_a_false_difference_is_counted_and_fails_its_rule(runs) -> None:
    run_dir = runs["false_difference"]
    items = _items(run_dir, "baseline")
    agreeing = [i for i in items if i.pair == "agreeing"]
    baseline = _relations(run_dir, "baseline")
    assert baseline.loc["agreeing", "false_claim"] == "false_difference"
    assert baseline.loc["agreeing", "false_claims"] == len(agreeing) > 0
    assert baseline.loc["agreeing", "false_claim_rate"] == 1
    assert baseline.loc["differing", "false_claims"] == 0
    assert _passes(run_dir, "baseline", "false_difference") == (
        len(items) - len(agreeing),
        len(items),
    )
    assert _passes(run_dir, "baseline", "false_agreement") == (len(items), len(items))
    # the second-named party was moved: the intact or the degraded side, as the pair has it
    degraded_second = sum(i.degraded_named == "second" for i in agreeing)
    assert _passes(run_dir, "baseline", "degraded_misrepresented") == (
        len(items) - degraded_second,
        len(items),
    )
    assert _passes(run_dir, "baseline", "intact_misrepresented") == (
        len(items) - (len(agreeing) - degraded_second),
        len(items),
    )
    sides = _sides(run_dir, "baseline")
    assert sides.misrepresented.sum() == len(agreeing)
    assert sides.xs("first", level="named").misrepresented.sum() == 0
    # Where the degraded side's stance is not in the context, there is no relation to falsify.
    for environment in INCONCLUSIVE:
        relations = _relations(run_dir, environment)
        assert (relations.false_claims == 0).all() and (relations.committed == 0).all()


def test_a_false_agreement_is_counted_and_fails_its_rule(runs) -> None:
    run_dir = runs["false_agreement"]
    items = _items(run_dir, "baseline")
    differing = [i for i in items if i.pair == "differing"]
    baseline = _relations(run_dir, "baseline")
    assert baseline.loc["differing", "false_claim"] == "false_agreement"
    assert baseline.loc["differing", "false_claims"] == len(differing) > 0
    assert baseline.loc["differing", "claimed_same"] == len(differing)
    assert baseline.loc["agreeing", "false_claims"] == 0
    assert _passes(run_dir, "baseline", "false_agreement") == (
        len(items) - len(differing),
        len(items),
    )
    assert _passes(run_dir, "baseline", "false_difference") == (len(items), len(items))
    low, high = baseline.loc["differing", ["false_claim_rate_low", "false_claim_rate_high"]]
    assert 0 < low < 1 and high == 1


def test_a_misrepresented_party_fails_its_side_by_where_it_is_named(runs) -> None:
    run_dir = runs["misrepresent"]
    for environment in ENVIRONMENTS:
        items = _items(run_dir, environment)
        # the first-named party is moved wherever the answer places it on a side
        intact_first = sum(i.degraded_named == "second" for i in items)
        moved_degraded = (
            sum(i.degraded_named == "first" for i in items) if environment == "baseline" else 0
        )
        sides = _sides(run_dir, environment)
        assert sides.loc[("intact", "first"), "misrepresented"] == intact_first
        assert sides.xs("second", level="named").misrepresented.sum() == 0
        assert sides.loc[("degraded", "first"), "misrepresented"] == moved_degraded
        assert _passes(run_dir, environment, "intact_misrepresented") == (
            len(items) - intact_first,
            len(items),
        )
        by_side = _table(run_dir, "comparison_by_degraded_side")
        here = by_side[
            (by_side.environment == environment) & (by_side.sub_question == "intact_misrepresented")
        ].set_index("degraded_named")
        # the intact side is the first-named exactly when the degraded side is the second-named
        assert here.loc["second", "passes"] == 0 and here.loc["second", "n"] == intact_first
        assert here.loc["first", "passes"] == here.loc["first", "n"] == len(items) - intact_first
    # in the Baseline, moving the first party turns every pair's relation around
    baseline = _relations(run_dir, "baseline")
    assert (baseline.false_claims == baseline.answers).all()


def test_scores_json_rows_carry_their_task(runs) -> None:
    result = CliRunner().invoke(app, ["score", str(runs["misrepresent"]), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [row["task"] for row in rows] == ["party_position", "comparison"]
    comparison = rows[1]
    emi = _table(runs["misrepresent"], "comparison_emi").iloc[0]
    adherence = _table(runs["misrepresent"], "comparison_adherence").set_index("environment")
    assert comparison["emi"] == pytest.approx(emi.emi) and comparison["emi"] < 1
    assert comparison["adherence"] == pytest.approx(adherence.adherence.to_dict())
    assert set(comparison["rubrics"]["baseline"]) == {"faithfulness", "impartiality"}


def test_run_json_records_the_task(runs) -> None:
    manifest = json.loads(RunDir(runs["correct"]).manifest.read_text(encoding="utf-8"))
    part = manifest["tasks"]["comparison"]
    assert part["items"] == len(_items(runs["correct"])) and part["answers_failed"] == 0
    assert part["build"]["differing_pairs"] > 0 and part["build"]["agreeing_pairs"] > 0
    assert manifest["config"]["tasks"] == ["party_position", "navigation", "comparison"]
    assert "comparison_user" in part["prompt_template_sha256"]
    assert "comparison_user" not in manifest["prompt_template_sha256"]


def test_the_report_has_a_comparison_section_drawn_from_the_tables(runs) -> None:
    html = (runs["misrepresent"] / "report" / "report.html").read_text(encoding="utf-8")
    assert '<section class="report-section" id="comparison-task"' in html
    assert '<a href="#comparison-task">Comparison task</a>' in html
    for table_id in (
        "leaderboard",
        "relations",
        "sides",
        "degraded-side",
        "sub-questions",
        "build",
    ):
        assert f'id="comparison-task-{table_id}"' in html


def test_all_three_tasks_run_together(runs) -> None:
    manifest = json.loads(RunDir(runs["correct"]).manifest.read_text(encoding="utf-8"))
    assert set(manifest["tasks"]) == {"navigation", "comparison"}
    result = CliRunner().invoke(app, ["score", str(runs["correct"]), "--json"])
    assert [r["task"] for r in json.loads(result.output)] == [
        "party_position",
        "navigation",
        "comparison",
    ]
    html = (runs["correct"] / "report" / "report.html").read_text(encoding="utf-8")
    assert html.index('id="navigation"') < html.index('id="comparison-task"')


def test_a_rerun_makes_no_new_calls_and_a_run_without_the_task_removes_its_files(
    tmp_path: Path,
) -> None:
    check_rerun_and_removal(
        tmp_path,
        ComparisonResponder(),
        task="comparison",
        statements=[1, 2, 3, 4, 5],
        read_files=read_comparison_files,
        table="comparison_relations",
        section_id="comparison-task",
    )


def test_the_comparison_section_renders_in_chromium_without_errors(runs) -> None:
    with report_in_chromium(runs["misrepresent"] / "report" / "report.html") as (page, errors):
        assert page.is_visible("section#comparison-task")
        assert page.is_visible('nav.toc a[href="#comparison-task"]')
        assert page.is_visible("#comparison-task-degraded-side")
        relations = _table(runs["misrepresent"], "comparison_relations")
        assert page.locator("#comparison-task-relations tbody tr").count() == len(relations)
    assert errors == []
