"""Reading a finished run directory back for the report."""

from __future__ import annotations

import json
from pathlib import Path

from polistemics.report.run_inputs import load_run_inputs

ODD = "one\u2028two\u2029three\x85four\x0b\x0c\x1c\x1d\x1e five"


def test_line_separators_inside_answers_do_not_split_a_record(demo_run_copy: Path) -> None:
    path = demo_run_copy / "answers.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
    chosen = next(i for i, row in enumerate(rows) if row["status"] == "ok")
    rows[chosen]["text"] = ODD
    # json.dumps leaves U+2028, U+2029 and U+0085 raw; "\r\n" ends are tolerated.
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in rows), "utf-8")
    assert "\u2028" in path.read_text(encoding="utf-8")

    inputs = load_run_inputs(demo_run_copy)

    assert len(inputs.answers) == len(rows)
    assert [view.text for view in inputs.answers].count(ODD) == 1


def test_an_edited_run_json_still_gives_a_report(demo_run_copy: Path) -> None:
    """Every part the report reads replaced by something else: the page is built, the parts
    that cannot be read are shown as not available, and the run keeps its folder's name."""
    from polistemics.report.build import build_report
    from polistemics.report.content import ReportOptions

    path = demo_run_copy / "run.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest |= {
        "config": "x",
        "models": [1],
        "elections": {"demo_en": 3},
        "calls": "x",
        "totals": 5,
        "judging": [1],
        "judge_parsing": {"by_judge": ["<b>row</b>"]},
        "judge_repeats": {"overall": "x"},
        "invocations": "junk",
        "started": None,
    }
    path.write_text(json.dumps(manifest), encoding="utf-8")
    inputs = load_run_inputs(demo_run_copy)
    assert inputs.title == demo_run_copy.name and inputs.manifest.config is None
    page = build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20))
    text = page.read_text(encoding="utf-8")
    assert "judge_repeats could not be read." in text
    assert "<b>row</b>" not in text
