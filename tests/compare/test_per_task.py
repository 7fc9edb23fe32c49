"""Per-task comparisons (issue 29): two runs that asked the navigation task are compared on its
EMI, Adherence Index and sub-questions (with intervals and tests) and on its checks against the
stance matrix; a task one run asked alone is named, not compared; runs of the paper's task
alone get no ``tasks`` part at all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.compare import CompareOptions, compare_pair, load_side
from polistemics.compare.judged import SMALL_SAMPLE_UNITS
from polistemics.compare.task_metrics import metric_deltas
from polistemics.runlog.navigation import read_navigation_files
from task_runs import navigation_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    correct = navigation_run(tmp_path_factory.mktemp("correct"))
    drop = navigation_run(tmp_path_factory.mktemp("drop"), drop=True)
    without = tmp_path_factory.mktemp("without") / correct.name
    shutil.copytree(correct, without)
    shutil.rmtree(without / "tasks" / "navigation")  # the same run, without the task's files
    return {"correct": correct, "drop": drop, "without": without}


def _compare(a: Path, b: Path):
    return compare_pair(load_side(str(a)), load_side(str(b)), CompareOptions(resamples=200))


def test_a_dropped_party_shows_as_the_omission_difference_exactly(runs) -> None:
    comparison = _compare(runs["correct"], runs["drop"])
    assert [t.task for t in comparison.tasks] == ["navigation"] and not comparison.task_notes
    task = comparison.tasks[0]
    assert task.paired  # the same items, models and samples: the answers pair
    items = read_navigation_files(runs["drop"]).items
    omitted = task.metrics[task.metrics.metric == "omitted"].set_index("environment")
    for environment, row in omitted.iterrows():
        here = [i for i in items if i.environment.value == environment]
        # the scripted answer leaves out the first party of every item
        assert row.value_a == 0
        assert row.value_b == pytest.approx(len(here) / sum(len(i.parties) for i in here))
        assert row.delta == pytest.approx(row.value_b)
        assert row.n_b == sum(len(i.parties) for i in here)
        assert row.n_observations_a == row.n_observations_b == len(here)
        assert bool(row.small_sample) == (len(here) < SMALL_SAMPLE_UNITS)
    rates = task.deltas.sub_questions.set_index(["environment", "sub_question"])
    for environment in omitted.index:
        row = rates.loc[(environment, "party_omission")]
        assert (row.value_a, row.value_b) == (1.0, 0.0)  # NF1 passes on A, fails on B
        assert row.only_a_passed == omitted.loc[environment, "n_observations_a"]
        assert row.only_b_passed == 0
    assert set(task.deltas.emi.model) == {"target"}
    assert task.deltas.emi.iloc[0].delta < 0


def test_the_json_the_tables_and_the_page_show_the_task(runs, tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    result = CliRunner().invoke(
        app,
        ["compare", str(runs["correct"]), str(runs["drop"]), "--json", "--resamples", "100"]
        + ["--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout[: result.stdout.rindex("}") + 1])
    part = document["tasks"]["compared"]["navigation"]
    assert part["mode"] == "paired" and part["label"] == "Navigation"
    assert {row["metric"] for row in part["metrics"]} >= {"omitted", "recall_agree"}
    assert set(part["deltas"]) == {
        "emi",
        "adherence",
        "rubrics",
        "sub_questions",
        "sub_questions_pooled",
        "parties",
    }
    written = pd.read_csv(out / "tables" / "navigation_delta_metrics.csv")
    assert len(written) == len(part["metrics"])
    html = (out / "compare.html").read_text(encoding="utf-8")
    assert 'id="tasks"' in html and '<a href="#tasks">Tasks</a>' in html
    for table in ("emi", "adherence", "rubrics", "sub-questions", "metrics"):
        assert f'id="navigation-compare-{table}"' in html
    assert '<h3 id="task-navigation"><bdi>Navigation</bdi></h3>' in html
    assert "<bdi>omitted</bdi>" in html


def test_a_task_in_one_run_only_is_named_and_not_compared(runs) -> None:
    # both runs' folders share a name: the sides are labelled apart ("... #2")
    for a, b in ((runs["correct"], runs["without"]), (runs["without"], runs["correct"])):
        side_a, side_b = load_side(str(a)), load_side(str(b), label="other")
        comparison = compare_pair(side_a, side_b, CompareOptions(resamples=50))
        asked = side_a.label if a == runs["correct"] else side_b.label
        assert comparison.tasks == []
        assert comparison.task_notes == [
            f"task navigation (Navigation) was asked only in {asked}: not compared"
        ]
    result = CliRunner().invoke(app, ["compare", str(runs["correct"]), str(runs["without"])])
    assert result.exit_code == 0, result.output
    assert "task: task navigation (Navigation) was asked only in" in result.output


def test_runs_of_the_paper_task_alone_get_no_tasks_part(runs, tmp_path: Path) -> None:
    comparison = _compare(runs["without"], runs["without"])
    assert comparison.tasks == [] and comparison.task_notes == []
    assert "tasks" not in comparison.to_json()
    assert not any("navigation" in name for name in comparison.csv_tables())


def _frame(rng: np.random.Generator, answers: int, p: float) -> pd.DataFrame:
    rows = []
    for i in range(answers):
        parties = int(rng.integers(2, 6))
        rows.append(("m", "baseline", "omitted", f"a{i}", int(rng.binomial(parties, p)), parties))
    return pd.DataFrame(
        rows, columns=["model", "environment", "metric", "answer_id", "numerator", "denominator"]
    )


def test_a_paired_metric_interval_agrees_with_scipys_percentile_bootstrap() -> None:
    rng = np.random.default_rng(5)
    a, b = _frame(rng, 150, 0.1), _frame(rng, 150, 0.3)
    b["denominator"] = a["denominator"]
    b["numerator"] = np.minimum(b["numerator"], b["denominator"])
    row = metric_deltas(a, b, ["omitted"], CompareOptions(resamples=4000), "t").iloc[0]
    assert row.paired
    data = np.stack([a.numerator, a.denominator, b.numerator, b.denominator], axis=1).astype(float)

    def delta(indices, axis=-1):
        sums = data[np.asarray(indices, dtype=int)].sum(axis=-2)
        return sums[..., 2] / sums[..., 3] - sums[..., 0] / sums[..., 1]

    theirs = scipy_stats.bootstrap(
        (np.arange(len(a)),),
        delta,
        method="percentile",
        n_resamples=4000,
        random_state=np.random.default_rng(0),
        vectorized=True,
    ).confidence_interval
    expected = b.numerator.sum() / b.denominator.sum() - a.numerator.sum() / a.denominator.sum()
    assert row.delta == pytest.approx(expected)
    assert row.ci_low == pytest.approx(theirs.low, abs=0.01)
    assert row.ci_high == pytest.approx(theirs.high, abs=0.01)
    assert row.significant and row.p_holm < 0.05
