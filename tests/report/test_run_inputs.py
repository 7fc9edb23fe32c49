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
