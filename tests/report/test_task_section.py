"""What the report's task sections share (``report.task_section`` and
``templates/task-section.html``): the leaderboard with a column per environment, the pass-rate
and build tables, the section's lead, notes (text, escaped) and tables in order."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from polistemics.html_templates import page_environment
from polistemics.report.task_section import (
    build_table,
    environment_label,
    leaderboard_by_environment,
    run_tables,
    sub_question_table,
    task_section_view,
)


def _tables() -> dict[str, pd.DataFrame]:
    return {
        "toy_emi": pd.DataFrame({"model": ["m1", "m2"], "emi": [0.5, 0.25]}),
        "toy_adherence": pd.DataFrame(
            {
                "model": ["m1", "m1", "m2"],
                "environment": ["baseline", "ie_noise", "baseline"],
                "adherence": [0.5, 0.75, 0.25],
            }
        ),
    }


def test_an_unknown_environment_is_shown_as_it_is() -> None:
    assert environment_label("baseline") == "Baseline"
    assert environment_label("<b>made up</b>") == "<b>made up</b>"


def test_the_leaderboard_has_the_emi_then_a_column_per_environment() -> None:
    view = leaderboard_by_environment(_tables(), "toy", caption="c", table_id="toy-leaderboard")
    assert [h.text for h in view.headers] == ["Model", "EMI", "Baseline", "Noisy"]
    assert [[c.text for c in row] for row in view.rows] == [
        ["m1", "50.0%", "50.0%", "75.0%"],
        ["m2", "25.0%", "25.0%", "–"],
    ]
    empty = _tables() | {"toy_adherence": _tables()["toy_adherence"].iloc[0:0]}
    view = leaderboard_by_environment(empty, "toy", caption="c", table_id="t")
    assert [h.text for h in view.headers] == ["Model", "EMI"] and view.rows == []


def test_pass_rates_with_or_without_their_interval_and_the_build_counts() -> None:
    rates = pd.DataFrame(
        {
            "model": ["m1"],
            "environment": ["baseline"],
            "rubric": ["faithfulness"],
            "code": ["F1"],
            "title": ["Omission"],
            "n": [4],
            "pass_rate": [0.5],
            "pass_rate_low": [0.15],
            "pass_rate_high": [0.85],
        }
    )
    plain = sub_question_table(rates, "c", "t")
    with_ci = sub_question_table(rates, "c", "t", interval=True)
    assert [h.text for h in plain.headers][-1] == "Pass rate"
    assert [h.text for h in with_ci.headers][-1] == "Pass rate [95% CI]"
    assert plain.rows[0][-1].text == "50.0%" and with_ci.rows[0][-1].text.startswith("50.0%")
    assert with_ci.rows[0][-1].text != plain.rows[0][-1].text
    built = build_table(pd.DataFrame({"what": ["items"], "count": [1200]}), "c", "b")
    assert [[c.text for c in row] for row in built.rows] == [["items", "1,200"]]


def test_no_run_no_section(tmp_path: Path) -> None:
    def no_content(run_dir):
        return SimpleNamespace(inputs=SimpleNamespace(run_dir=run_dir))

    assert run_tables(no_content(None), lambda folder: {}) is None  # type: ignore[arg-type]
    assert run_tables(no_content(tmp_path), lambda folder: None) is None  # type: ignore[arg-type]
    found = run_tables(no_content(tmp_path), lambda folder: {"x": folder})  # type: ignore[arg-type]
    assert found is not None and found[1] == {"x": tmp_path / "tables"}


def test_the_template_draws_the_lead_notes_and_tables_in_order_as_text() -> None:
    tables = [build_table(pd.DataFrame({"what": [w], "count": [1]}), w, w) for w in "ab"]
    html = (
        page_environment("polistemics.report")
        .get_template("task-section.html")
        .render(v=task_section_view("Lead <i>", tables, notes=["<script>x</script>"]))
    )
    assert html.startswith('<p class="lead">Lead &lt;i&gt;</p>\n<ul class="task-notes">')
    assert "&lt;script&gt;x&lt;/script&gt;" in html and "<script>" not in html
    assert html.index('id="a"') < html.index('id="b"') and not html.endswith("\n")
    without = (
        page_environment("polistemics.report")
        .get_template("task-section.html")
        .render(v=task_section_view("Lead", tables))
    )
    assert "task-notes" not in without
