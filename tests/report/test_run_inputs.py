"""Reading a finished run directory back for the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polistemics.report import run_inputs
from polistemics.report.inputs import ReportInputError, StoredText, answer_texts
from polistemics.report.run_inputs import load_run_inputs
from polistemics.report.verdict_source import held, panel_tally_of
from polistemics.runlog import RunDir
from polistemics.runlog.read import read_answer_chunks

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


def test_the_answers_are_read_in_parts_and_only_their_views_kept(
    demo_run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No list of every answer (a 4x study's 51,000 took 186 MB): at most two at a time here,
    and the views are those of the whole file read at once."""
    sizes: list[int] = []

    def two_at_a_time(path: Path, size: int = 0):
        for part in read_answer_chunks(path, 2) or []:
            sizes.append(len(part))
            yield part

    whole = RunDir(demo_run_copy).read_answers()
    monkeypatch.setattr(run_inputs, "read_answer_chunks", two_at_a_time)
    inputs = load_run_inputs(demo_run_copy)
    assert sizes and max(sizes) == 2 and sum(sizes) == len(whole)
    monkeypatch.undo()
    at_once = run_inputs.run_report_inputs(
        demo_run_copy,
        cells=inputs.cells,
        manifest=inputs.manifest,
        items=inputs.items,
        answers=whole,
        judge_records=inputs.judge_records,
        evidence=inputs.evidence,
    )
    assert inputs.answers == at_once.answers


def test_a_finish_reads_the_same_inputs_from_the_files_with_its_own_scores(
    demo_run_copy: Path,
) -> None:
    """``run_file_inputs`` (what a run's finish calls) gives what the report reads, with the
    cells and tally it is handed instead of reading or counting them."""
    read = load_run_inputs(demo_run_copy)
    assert read.judging is None and read.panel_size == 3  # counted when the tables are made
    tally = panel_tally_of(read, held(read.judge_records))
    assert tally is not None
    given = run_inputs.run_file_inputs(demo_run_copy, cells=read.cells, judging=tally)
    assert given.judging is tally and given.cells is read.cells and given.manifest is None
    assert given.answers == read.answers and given.items == read.items
    assert list(given.judge_records or []) == list(read.judge_records or [])
    assert given.evidence == read.evidence and given.notes == []


def test_the_views_leave_the_answer_texts_in_the_file(demo_run_copy: Path) -> None:
    """A run's views hold where each text is in answers.jsonl, not the text (issue 32); the
    texts read back are the answers'; a file changed since is named, not misread."""
    inputs = load_run_inputs(demo_run_copy)
    whole = RunDir(demo_run_copy).read_answers()
    texts = {(a.item_key, a.model, a.sample_index): a.text for a in whole}
    stored = [v for v in inputs.answers if isinstance(v.stored_text, StoredText)]
    assert stored and not any(isinstance(v.stored_text, str) for v in inputs.answers)
    assert answer_texts(inputs.answers) == [
        texts[(v.item.key, v.model, v.sample_index)] for v in inputs.answers
    ]
    assert stored[0].text == texts[(stored[0].item.key, stored[0].model, stored[0].sample_index)]
    path = demo_run_copy / "answers.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    with pytest.raises(ReportInputError, match="answers.jsonl changed"):
        answer_texts(stored)
