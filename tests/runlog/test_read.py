"""A run directory's files written and read back through ``runlog.RunDir``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from polistemics.runlog import (
    CELLS_FILE,
    PRIOR_PROBE_FILE,
    STANCE_CODES_FILE,
    CodedStance,
    ProbeAnswer,
    RunDir,
    RunFileError,
    StanceCodeRecord,
    write_jsonl,
)

HOSTILE_NAMES = [
    '=HYPERLINK("http://x","y")',
    "+1",
    "-2+3",
    "@SUM(A1)",
    "\tTabbed",
    "\rReturn",
    "'Quoted",
    "''=already",
    "Plain Party",
]


def cells(names: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "observation_id": [f"0{i}" for i in range(len(names))],
            "party_id": [f"p{i}" for i in range(len(names))],
            "election_id": ["e1"] * len(names),
            "party_name": names,
            "rate": [-0.5 + i for i in range(len(names))],
            "passed": [i % 2 == 0 for i in range(len(names))],
        }
    )


def test_cells_round_trip_exactly_and_no_text_cell_is_a_formula(tmp_path: Path) -> None:
    written = cells(HOSTILE_NAMES)
    RunDir(tmp_path).write_cells(written)
    raw = pd.read_csv(tmp_path / CELLS_FILE, dtype=str, keep_default_na=False)
    assert not raw["party_name"].str.match(r"[=+\-@\t\r]").any()
    assert raw["rate"].iloc[0] == "-0.5"  # numbers stay numbers
    pd.testing.assert_frame_equal(RunDir(tmp_path).read_cells(), written)


def test_stance_codes_and_probe_answers_read_back_and_absent_files_mean_not_measured(
    tmp_path: Path,
) -> None:
    assert (
        RunDir(tmp_path).read_stance_codes() is None and RunDir(tmp_path).read_prior_probe() is None
    )
    code = StanceCodeRecord(
        kind="answer",
        subject_key="o|ie_availability_absent|full",
        model="m",
        sample_index=0,
        coder="c",
        panel_position=0,
        stance=CodedStance.BOTH,
        outside_knowledge=None,
        raw_output='{"stance": "both"}',
    )
    probe = ProbeAnswer(
        election_id="e",
        party_id="p",
        statement_id="e__s001",
        model="m",
        language="German",
        status="ok",
        text="</script><b>x</b>",
    )
    write_jsonl(tmp_path / STANCE_CODES_FILE, [code.model_dump(mode="json")])
    write_jsonl(tmp_path / PRIOR_PROBE_FILE, [probe.model_dump(mode="json")])
    assert RunDir(tmp_path).read_stance_codes() == [code]
    assert RunDir(tmp_path).read_prior_probe() == [probe]
    (tmp_path / STANCE_CODES_FILE).write_text('{"kind": "answer", "stance": "maybe"}\n')
    with pytest.raises(RunFileError, match="stance_codes.jsonl, record 1"):
        RunDir(tmp_path).read_stance_codes()


def test_answers_are_read_again_at_the_offsets_of_their_lines(tmp_path: Path) -> None:
    """``record_offsets`` gives each record's line as ``read_chunks`` reads them (blank lines
    skipped, "\\r\\n" ends, line separators inside a text), and ``read_answers_at`` reads the
    answer there; a place that is no answer's line is named."""
    from polistemics.runlog import Answer
    from polistemics.runlog.read import read_answer_chunks, read_answers_at, record_offsets

    texts = ["one\u2028two", "é" * 3, None]
    answers = [
        Answer(item_key=f"k{i}", model="m", status="ok", text=text) for i, text in enumerate(texts)
    ]
    lines = [answer.model_dump_json() for answer in answers]
    path = tmp_path / "answers.jsonl"
    path.write_text(f"{lines[0]}\r\n\n   \n{lines[1]}\n{lines[2]}\n", encoding="utf-8")
    offsets = list(record_offsets(path))
    read = [a for part in read_answer_chunks(path, 2) or [] for a in part]
    assert read == answers and len(offsets) == 3
    assert list(read_answers_at(path, reversed(offsets))) == answers[::-1]
    with pytest.raises(RunFileError, match=f"at byte {offsets[1] + 1}"):
        list(read_answers_at(path, [offsets[1] + 1]))
