"""The finding sections' views. The failure co-occurrence section draws the analysis table the
report wrote to tables/ (``analyses.failure_cooccurrence``), and only that."""

from __future__ import annotations

import re

from polistemics.analyses.failure_cooccurrence import FAILURE_COOCCURRENCE
from polistemics.analyses.tables import AnalysisTables
from polistemics.report.content import ReportOptions, build_content
from polistemics.report.finding_sections import failure_cooccurrence_view
from polistemics.report.formatting import count, number, percent
from polistemics.report.labels import environment_label, order_rows
from polistemics.report.run_inputs import load_run_inputs


def _expected_rows(table) -> list[list[str]]:
    return [
        [
            environment_label(r.environment),
            *(count(v) for v in (r.n_answers, r.both_fail, r.faithfulness_only)),
            *(count(v) for v in (r.calibration_only, r.neither)),
            percent(r.faithfulness_failure_rate),
            percent(r.calibration_failure_rate),
            number(r.phi),
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
