"""The navigation task end to end on the demo election, against the test server scripting
answers of known quality: correct, one party dropped, one party invented. The set metrics and
the pass rules of the new sub-questions follow exactly from the items' ground truth."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

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
from polistemics.runlog.navigation import read_navigation_files
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import NavigationResponder

INVENTED = "Phantom <b>Party</b>"  # hostile text: the report must show it as text
QUALITIES = {"correct": {}, "drop": {"drop": True}, "invent": {"invent": INVENTED}}
INCONCLUSIVE = ("ie_availability_absent", "ie_clarity_vague", "ie_consistency_contradiction")
ENVIRONMENTS = ("baseline", *INCONCLUSIVE, "ie_noise")
TASKS = ("party_position", "navigation")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    done = {}
    for quality, options in QUALITIES.items():
        tmp_path = tmp_path_factory.mktemp(quality)
        with FakeOpenAIServer(responder=NavigationResponder(**options)) as server:
            # Five statements and no Counterfactual keep the party-position part small.
            config_path = write_task_study(
                tmp_path, server.base_url, TASKS, ENVIRONMENTS, [1, 2, 3, 4, 5]
            )
            done[quality] = execute(config_path)
    return done


_table = task_table


def _items(run_dir: Path):
    files = read_navigation_files(run_dir)
    assert files is not None
    return files.items


def _passes(run_dir: Path, environment: str, key: str) -> tuple[int, int]:
    table = _table(run_dir, "navigation_sub_questions")
    row = table[(table.environment == environment) & (table.sub_question == key)].iloc[0]
    return int(row.passes), int(row.n)


def test_a_correct_answer_places_every_party_and_passes_every_rule(runs) -> None:
    run_dir = runs["correct"]
    metrics = _table(run_dir, "navigation_set_metrics")
    baseline = metrics[metrics.environment == "baseline"]
    assert (baseline.fp == 0).all() and (baseline.fn == 0).all()
    truth = Counter(
        p.stance.value.lower()
        for i in _items(run_dir)
        if i.environment.value == "baseline"
        for p in i.parties
    )
    assert dict(zip(baseline.stance, baseline.tp, strict=True)) == {
        s: truth[s] for s in baseline.stance
    }
    assert (baseline.precision == 1).all() and (baseline.recall == 1).all()
    parties = _table(run_dir, "navigation_parties")
    assert (parties.omitted == 0).all() and (parties.answers_inventing == 0).all()
    focus = _table(run_dir, "navigation_focus").set_index("environment")
    for environment in ("baseline", *INCONCLUSIVE):
        assert focus.loc[environment, "handled"] == focus.loc[environment, "n"] > 0
        table = _table(run_dir, "navigation_sub_questions")
        rows = table[table.environment == environment]
        assert (rows.passes == rows.n).all(), rows
    assert set(
        focus.loc[["ie_availability_absent", "ie_clarity_vague"], "flagged_undetermined"]
    ) == {focus.loc["ie_availability_absent", "n"], focus.loc["ie_clarity_vague", "n"]}
    assert (
        focus.loc["ie_consistency_contradiction", "flagged_conflict"]
        == focus.loc["ie_consistency_contradiction", "n"]
    )


def test_a_dropped_party_is_omitted_and_fails_the_omission_rule(runs) -> None:
    run_dir = runs["drop"]
    items = _items(run_dir)
    parties = _table(run_dir, "navigation_parties").set_index("environment")
    for environment, row in parties.iterrows():
        assert row.omitted == row.answers == sum(i.environment.value == environment for i in items)
        assert _passes(run_dir, environment, "party_omission") == (0, row.answers)
        assert _passes(run_dir, environment, "party_fabrication") == (row.answers, row.answers)
    baseline = [i for i in items if i.environment.value == "baseline"]
    dropped = Counter(i.parties[0].stance.value.lower() for i in baseline)
    truth = Counter(p.stance.value.lower() for i in baseline for p in i.parties)
    metrics = _table(run_dir, "navigation_set_metrics")
    for _, row in metrics[metrics.environment == "baseline"].iterrows():
        assert row.fn == dropped[row.stance] and row.fp == 0
        assert row.tp == truth[row.stance] - dropped[row.stance]
        assert row.recall == pytest.approx(row.tp / truth[row.stance])
    # When the dropped party is the degraded one, the answer says nothing about its evidence.
    for environment in INCONCLUSIVE:
        here = [i for i in items if i.environment.value == environment]
        kept_focus = sum(i.parties[0].party_id != i.focus_party_id for i in here)
        assert _passes(run_dir, environment, "focus_transparency") == (kept_focus, len(here))
        focus = _table(run_dir, "navigation_focus").set_index("environment")
        assert focus.loc[environment, "omitted"] == len(here) - kept_focus


def test_an_invented_party_is_counted_and_fails_the_fabrication_rule(runs) -> None:
    run_dir = runs["invent"]
    parties = _table(run_dir, "navigation_parties").set_index("environment")
    assert (parties.omitted == 0).all()
    assert (parties.answers_inventing == parties.answers).all()
    assert set(parties.invented_names) == {INVENTED}
    assert (parties.invented_rate == 1).all()
    for environment, row in parties.iterrows():
        assert _passes(run_dir, environment, "party_fabrication") == (0, row.answers)
        assert _passes(run_dir, environment, "party_omission") == (row.answers, row.answers)
    metrics = _table(run_dir, "navigation_set_metrics")
    agree = metrics[(metrics.environment == "baseline") & (metrics.stance == "agree")].iloc[0]
    assert agree.fp == parties.loc["baseline", "answers"] and agree.fn == 0
    assert agree.precision == pytest.approx(agree.tp / (agree.tp + agree.fp))


def test_scores_json_rows_carry_their_task(runs) -> None:
    result = CliRunner().invoke(app, ["score", str(runs["correct"]), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [row["task"] for row in rows] == ["party_position", "navigation"]
    navigation = rows[1]
    emi = _table(runs["correct"], "navigation_emi").iloc[0]
    assert navigation["emi"] == pytest.approx(emi.emi)
    assert set(navigation["adherence"]) == {"baseline", "ie_noise", *INCONCLUSIVE}


def test_run_json_records_the_task_and_a_run_without_it_keeps_no_files(runs, tmp_path) -> None:
    manifest = json.loads(RunDir(runs["correct"]).manifest.read_text(encoding="utf-8"))
    part = manifest["tasks"]["navigation"]
    assert part["items"] == len(_items(runs["correct"])) and part["answers_failed"] == 0
    assert manifest["config"]["tasks"] == ["party_position", "navigation"]
    assert "navigation_user" in part["prompt_template_sha256"]
    assert "navigation_user" not in manifest["prompt_template_sha256"]


def test_the_report_has_a_navigation_section_drawn_from_the_tables(runs) -> None:
    html = (runs["invent"] / "report" / "report.html").read_text(encoding="utf-8")
    assert '<section class="report-section" id="navigation"' in html
    assert '<a href="#navigation">Navigation task</a>' in html
    for table_id in ("leaderboard", "sets", "parties", "focus", "sub-questions", "build"):
        assert f'id="navigation-{table_id}"' in html
    assert "Phantom &lt;b&gt;Party&lt;/b&gt;" in html
    assert "<b>Party</b>" not in html


def test_a_rerun_makes_no_new_calls_and_a_run_without_the_task_removes_its_files(
    tmp_path: Path,
) -> None:
    check_rerun_and_removal(
        tmp_path,
        NavigationResponder(),
        task="navigation",
        statements=[1, 2],
        read_files=read_navigation_files,
        table="navigation_set_metrics",
        section_id="navigation",
    )


def test_the_navigation_section_renders_in_chromium_without_errors(runs) -> None:
    with report_in_chromium(runs["invent"] / "report" / "report.html") as (page, errors):
        assert page.is_visible("section#navigation")
        assert page.is_visible('nav.toc a[href="#navigation"]')
        metrics = _table(runs["invent"], "navigation_set_metrics")
        assert page.locator("#navigation-sets tbody tr").count() == len(metrics)
        assert "Phantom <b>Party</b>" in page.inner_text("#navigation-parties")
    assert errors == []
