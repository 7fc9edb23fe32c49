"""The finding sections' views. The failure co-occurrence section draws the analysis table the
report wrote to tables/ (``analyses.failure_cooccurrence``), and only that."""

from __future__ import annotations

import re

from polistemics.analyses.failure_cooccurrence import FAILURE_COOCCURRENCE
from polistemics.analyses.tables import AnalysisTables
from polistemics.report.content import ReportOptions, build_content
from polistemics.report.finding_sections import failure_cooccurrence_view
from polistemics.report.formatting import count, interval, number, percent
from polistemics.report.labels import environment_label, order_rows
from polistemics.report.run_inputs import load_run_inputs


def _expected_rows(table) -> list[list[str]]:
    return [
        [
            environment_label(r.environment),
            *(count(v) for v in (r.n_answers, r.both_fail, r.faithfulness_only)),
            *(count(v) for v in (r.calibration_only, r.neither)),
            percent(r.faithfulness_failure_rate),
            interval(r.faithfulness_failure_ci_low, r.faithfulness_failure_ci_high),
            percent(r.calibration_failure_rate),
            interval(r.calibration_failure_ci_low, r.calibration_failure_ci_high),
            number(r.phi),
            f"[{number(r.phi_ci_low)}, {number(r.phi_ci_high)}]",
            number(r.phi_any_ec),
        ]
        for r in order_rows(table.drop(columns=["election_id"])).itertuples()
    ]


def test_the_page_shows_the_table_file(finished_demo_run) -> None:
    _, paths = finished_demo_run
    table = FAILURE_COOCCURRENCE.read(paths["report"].parent / "tables")
    assert not table.empty
    html = paths["report"].read_text(encoding="utf-8")
    section = html.split('id="failure-cooccurrence"', 1)[1].split("</section>", 1)[0]
    body = section.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    shown = [
        re.findall(r"<bdi[^>]*>(.*?)</bdi>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]
    assert shown == _expected_rows(table)


def test_the_view_reads_the_tables_it_is_given(finished_demo_run) -> None:
    run_dir, paths = finished_demo_run
    table = FAILURE_COOCCURRENCE.read(paths["report"].parent / "tables")
    doctored = table.assign(phi=0.5, n_answers=table["n_answers"] + 1000)
    inputs = load_run_inputs(run_dir)
    options = ReportOptions(bootstrap_resamples=20, figure_formats=("svg",))
    content = build_content(inputs, options, analyses=AnalysisTables(doctored))
    (election,) = failure_cooccurrence_view(content)["elections"]
    assert [[c.text for c in row] for row in election["phi"].rows] == _expected_rows(doctored)
    nothing = build_content(inputs, options, analyses=AnalysisTables(FAILURE_COOCCURRENCE.empty()))
    (election,) = failure_cooccurrence_view(nothing)["elections"]
    assert election["phi"] is None


def _expansion_section(html: str) -> str:
    return html.split('id="expansion-i4"', 1)[1].split("</section>", 1)[0]


def test_the_expansion_section_draws_its_tables_as_read_back(demo_run_copy, tmp_path) -> None:
    """App. D.4 is an analysis table of the run's tables/: a value or a reason changed in the
    file shows on the page (read, not computed while rendering)."""
    from polistemics.analyses.expansion import EXPANSION_UNAVAILABLE, EXPANSION_VS_I4
    from polistemics.report.build import build_report
    from polistemics.runlog import RunDir

    options = ReportOptions(bootstrap_resamples=20, figure_formats=("svg",))
    run = RunDir(demo_run_copy)
    first = build_report(demo_run_copy, tmp_path / "a", options)  # the run's tables/ current
    table = EXPANSION_VS_I4.read(run.tables)
    assert not table.empty and "9.87×" not in _expansion_section(first.read_text("utf-8"))
    doctored = table.assign(median_expansion=9.87, spearman_rho=0.5, rho_ci_low=0.25)
    EXPANSION_VS_I4.write(doctored.assign(rho_ci_high=0.6875), run.tables)
    page = build_report(demo_run_copy, tmp_path / "b", options).read_text("utf-8")
    assert "9.87×" in _expansion_section(page)
    # rho with its interval and n, as text
    n_items = f"{int(table['n_items'].iloc[0]):,}"
    assert f"0.50 [0.25, 0.69] (n = {n_items})" in _expansion_section(page)
    # no rows, a reason instead: the reason is shown, as written
    EXPANSION_VS_I4.path(run.tables).unlink()
    reason = table[["election_id"]].drop_duplicates().assign(reason="doctored <b>reason</b>")
    EXPANSION_UNAVAILABLE.write(reason, run.tables)
    section = _expansion_section(build_report(demo_run_copy, tmp_path / "c", options).read_text())
    assert "doctored &lt;b&gt;reason&lt;/b&gt;" in section and "<table" not in section
