import pytest

from polistemics.environments.evidence_file import EvidenceFileError, read_evidence_jsonl

from .helpers import evidence


def test_reads_evidence_rows(tmp_path):
    ev = [evidence("a", 1, "Agree"), evidence("b", 2, "Neutral")]
    path = tmp_path / "evidence.jsonl"
    path.write_text("".join(e.model_dump_json() + "\n" for e in ev) + "\n", encoding="utf-8")
    assert read_evidence_jsonl(path) == ev


def test_bad_row_names_file_line_and_field(tmp_path):
    good = evidence("a", 1, "Agree").model_dump_json()
    bad = good.replace('"Agree"', '"Maybe"')
    path = tmp_path / "evidence.jsonl"
    path.write_text(f"{good}\n{bad}\n", encoding="utf-8")
    with pytest.raises(EvidenceFileError, match=r"evidence.jsonl, line 2, field 'position.stance'"):
        read_evidence_jsonl(path)
    with pytest.raises(EvidenceFileError, match="not found"):
        read_evidence_jsonl(tmp_path / "missing.jsonl")


def test_line_separators_inside_strings_do_not_split_a_record(tmp_path):
    # U+2028, U+2029 and U+0085 stay raw in JSON; str.splitlines() would cut the record there.
    text = "Line\u2028separator, paragraph\u2029separator, next\x85line, \x0b\x0c\x1c\x1d\x1e."
    ev = [evidence("a", 1, "Agree", text=text), evidence("b", 2, "Neutral")]
    path = tmp_path / "evidence.jsonl"
    path.write_bytes("".join(e.model_dump_json() + "\r\n" for e in ev).encode("utf-8"))
    assert "\u2028" in path.read_text(encoding="utf-8")
    assert read_evidence_jsonl(path) == ev
