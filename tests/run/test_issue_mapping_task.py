"""The issue-mapping task end to end (issue 29, item 4) against the test server, on the demo
election given themes that group its statements (the generic format's ``theme`` column), with
answers of known quality: correct, the first party of every conflict dropped, a party invented.
Coverage, faithfulness, conflicts covered and the new sub-questions' pass rules follow exactly
from the items' ground truth. The demo itself (one theme per statement, as Wahl-O-Mat's labels)
skips the task with a note, counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from task_helpers import execute, task_table, write_task_study
from typer.testing import CliRunner

from polistemics.annotate.sample import SampleOptions, draw_task_samples
from polistemics.cli import app
from polistemics.compare import CompareOptions, compare_pair, load_side
from polistemics.records import Stance
from polistemics.runlog import RunDir
from polistemics.runlog.issue_mapping import read_issue_mapping_files
from polistemics.sources.demo import demo_path
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import NavigationResponder
from report.test_page_in_chromium import Opened, browser  # noqa: F401 (the Chromium fixture)

INVENTED = "Phantom Party"
QUALITIES = {"correct": {}, "drop": {"drop": True}, "invent": {"invent": INVENTED}}
THEMES = {1: "Economy", 4: "Economy", 3: "Environment", 8: "Environment"}


def themed_source(folder: Path) -> Path:
    """The English demo in the generic format, statements 1 and 4 under one theme, 3 and 8
    under another (2 keeps its own)."""
    rows = []
    for line in demo_path("en").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row["theme"] = THEMES.get(row["statement_number"], row["theme"])
        rows.append(json.dumps(row, ensure_ascii=False))
    path = folder / "themed.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _run(folder: Path, responder: NavigationResponder, themed: bool) -> Path:
    with FakeOpenAIServer(responder=responder) as server:
        config_path = write_task_study(
            folder,
            server.base_url,
            ("party_position", "issue_mapping"),
            ("baseline",),
            [1, 2, 3, 4, 8],
            source=themed_source(folder) if themed else None,
        )
        return execute(config_path, resamples=50)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    done = {
        quality: _run(tmp_path_factory.mktemp(quality), NavigationResponder(**options), True)
        for quality, options in QUALITIES.items()
    }
    done["no_themes"] = _run(tmp_path_factory.mktemp("plain"), NavigationResponder(), False)
    return done


_table = task_table


def _items(run_dir: Path):
    files = read_issue_mapping_files(run_dir)
    assert files is not None
    return files.items


def _passes(run_dir: Path, key: str) -> tuple[int, int]:
    table = _table(run_dir, "issue_mapping_sub_questions").set_index("sub_question")
    return int(table.loc[key, "passes"]), int(table.loc[key, "n"])


def test_items_are_the_themes_that_group_statements(runs) -> None:
    items = _items(runs["correct"])
    assert [(i.theme, [s.number for s in i.statements]) for i in items] == [
        ("Economy", [1, 4]),
        ("Environment", [3, 8]),
    ]
    assert all(len(i.conflicts) == 2 and len(i.parties) == 4 for i in items)
    build = _table(runs["correct"], "issue_mapping_build").set_index("what")["count"]
    assert build["items"] == 2 and build["themes"] == 2


def test_a_correct_map_covers_every_conflict_faithfully(runs) -> None:
    checks = _table(runs["correct"], "issue_mapping_checks").iloc[0]
    assert (checks.answers, checks.pairs, checks.conflicts) == (2, 16, 4)
    assert checks.placed == checks.placed_true == 16 and checks.conflicts_covered == 4
    assert checks.coverage == checks.faithfulness == checks.conflicts_covered_rate == 1
    assert checks.coverage_low < 1 and checks.answers_inventing == 0
    table = _table(runs["correct"], "issue_mapping_sub_questions")
    assert (table.passes == table.n).all() and set(table.code) == {
        "IF1",
        "IF2",
        "IF3",
        "II1",
        "IEC1",
    }
    assert _table(runs["correct"], "issue_mapping_emi").iloc[0].emi == 1


def test_a_dropped_party_lowers_coverage_exactly(runs) -> None:
    items = _items(runs["drop"])
    checks = _table(runs["drop"], "issue_mapping_checks").iloc[0]
    assert checks.pairs == 16 and checks.placed == checks.placed_true == 16 - 4
    assert checks.coverage == pytest.approx(12 / 16) and checks.faithfulness == 1
    covered = 0
    for item in items:
        for statement in item.conflicts:
            kept = [statement.stances[p.party_id] for p in item.parties[1:]]
            covered += Stance.AGREE in kept and Stance.DISAGREE in kept
    assert checks.conflicts_covered == covered
    assert _passes(runs["drop"], "conflict_omission") == (2, 2)  # every conflict is named


def test_an_invented_party_is_counted_and_fails_fabrication(runs) -> None:
    checks = _table(runs["invent"], "issue_mapping_checks").iloc[0]
    assert checks.answers_inventing == checks.answers == 2
    assert checks.invented_names == INVENTED and checks.invented_rate == 1
    assert checks.faithfulness == 1  # an invented party is no pair of the stance matrix
    assert _passes(runs["invent"], "conflict_fabrication") == (0, 2)
    assert _passes(runs["invent"], "side_misplacement") == (2, 2)


def test_a_source_without_themes_skips_the_task_with_a_note(runs) -> None:
    run_dir = runs["no_themes"]
    assert _items(run_dir) == []
    build = _table(run_dir, "issue_mapping_build").set_index("what")["count"]
    assert build["elections_without_themes"] == 1 and build["items"] == 0
    manifest = json.loads(RunDir(run_dir).manifest.read_text(encoding="utf-8"))
    part = manifest["tasks"]["issue_mapping"]
    assert part["items"] == 0 and part["build"]["elections_without_themes"] == 1
    assert part["notes"] == [
        "demo_en: issue mapping skipped: the source groups no two statements under one theme "
        "(it has no themes, or one per statement)"
    ]


def test_compare_and_the_annotation_app_read_the_task_through_its_definition(runs) -> None:
    comparison = compare_pair(
        load_side(str(runs["correct"])),
        load_side(str(runs["drop"]), label="drop"),
        CompareOptions(resamples=100),
    )
    assert [t.task for t in comparison.tasks] == ["issue_mapping"]
    metrics = comparison.tasks[0].metrics.set_index("metric")
    assert metrics.loc["coverage", "value_a"] == 1
    assert metrics.loc["coverage", "delta"] == pytest.approx(-4 / 16)
    assert bool(metrics.loc["coverage", "paired"])
    items, _ = draw_task_samples(
        runs["correct"], SampleOptions(n=3, overlap_share=0.0), ["issue_mapping"]
    )
    assert len(items) == 3 and {i.task for i in items} == {"issue_mapping"}
    codes = {sq.code for i in items for sq in i.sub_questions}
    assert codes <= {"IF1", "IF2", "IF3", "II1", "IEC1"}


def test_the_report_and_score_json_show_the_task(runs) -> None:
    html = (runs["invent"] / "report" / "report.html").read_text(encoding="utf-8")
    assert '<section class="report-section" id="issue-mapping"' in html
    assert '<a href="#issue-mapping">Issue-mapping task</a>' in html
    for table_id in ("leaderboard", "checks", "sub-questions", "build"):
        assert f'id="issue-mapping-{table_id}"' in html
    assert INVENTED in html
    skipped = (runs["no_themes"] / "report" / "report.html").read_text(encoding="utf-8")
    assert "demo_en: issue mapping skipped" in skipped
    result = CliRunner().invoke(app, ["score", str(runs["correct"]), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [row["task"] for row in rows] == ["party_position", "issue_mapping"]
    assert rows[1]["emi"] == 1 and set(rows[1]["adherence"]) == {"baseline"}


def test_the_report_section_renders_in_chromium_without_errors(runs, browser) -> None:  # noqa: F811
    opened = Opened(browser, runs["invent"] / "report" / "report.html")
    section = opened.page.locator("section#issue-mapping")
    assert section.count() == 1 and section.is_visible()
    assert opened.page.locator("#issue-mapping-checks tbody tr").count() == 1
    assert INVENTED in section.inner_text()
    assert opened.errors == [] and opened.dialogs == []
    opened.page.close()
