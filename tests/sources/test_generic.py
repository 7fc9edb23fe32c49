"""The generic CSV / JSONL format: both encodings, every column rule, bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from polistemics.records import Stance
from polistemics.sources.errors import SourceError
from polistemics.sources.generic import OPTIONAL_COLUMNS, REQUIRED_COLUMNS, load_generic


@pytest.fixture
def generic_dir(fixtures_dir: Path) -> Path:
    return fixtures_dir / "sources" / "data" / "generic"


def _rows(generic_dir: Path) -> list[dict[str, str]]:
    with (generic_dir / "mini.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def _error(path: Path) -> str:
    with pytest.raises(SourceError) as info:
        load_generic(path)
    return str(info.value)


def test_csv_and_jsonl_give_the_same_election(generic_dir: Path) -> None:
    from_csv = load_generic(generic_dir / "mini.csv")
    from_jsonl = load_generic(generic_dir / "mini.jsonl")
    assert from_csv.positions == from_jsonl.positions
    assert (from_csv.id, from_csv.country, from_csv.language, from_csv.language_code) == (
        "mini2099",
        "fr",
        "French",
        "fr",
    )
    assert from_jsonl.language == "French"  # given as the code 'fr' there


def test_columns(generic_dir: Path) -> None:
    election = load_generic(generic_dir / "mini.csv")
    assert [p.id for p in election.parties()] == ["fr_parti_du_lac", "fr_collines"]
    assert [(s.id, s.theme) for s in election.statements()] == [
        ("mini2099__s001", "Vélo"),
        ("mini2099__s002", None),
    ]
    assert [p.stance for p in election.positions] == [
        Stance.AGREE,
        Stance.DISAGREE,
        Stance.NEUTRAL,
        Stance.AGREE,
    ]
    assert election.positions[1].rationale is None
    assert election.positions[0].rationale == "Nous voulons des pistes sûres, partout."


def test_election_id_override(generic_dir: Path) -> None:
    election = load_generic(generic_dir / "mini.jsonl", election_id="fr_mini")
    assert {p.election_id for p in election.positions} == {"fr_mini"}
    assert election.statements()[0].id == "fr_mini__s001"


def test_header_rules(generic_dir: Path, tmp_path: Path) -> None:
    rows = _rows(generic_dir)
    for row in rows:
        row["rationel"] = row.pop("rationale")
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "header" in message and "missing column(s) rationale" in message

    rows = _rows(generic_dir)
    for row in rows:
        row["colour"] = "red"
    assert "unknown column(s) colour" in _error(_write_csv(tmp_path / "x.csv", rows))


def test_documented_columns_match_the_docs() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "data-formats.md").read_text()
    for column in REQUIRED_COLUMNS + OPTIONAL_COLUMNS:
        assert f"`{column}`" in docs


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("stance", "Maybe", "unknown stance 'Maybe'"),
        ("statement_text", "", "empty"),
        ("party_name", " ", "empty"),
        ("statement_number", "two", "statement_number"),
        ("statement_number", "0", "start at 1"),
        ("language", "Klingon", "unknown language 'Klingon'"),
        ("country", "France", "two-letter"),
    ],
)
def test_bad_cells(
    generic_dir: Path, tmp_path: Path, column: str, value: str, expected: str
) -> None:
    rows = _rows(generic_dir)
    rows[0][column] = value
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "x.csv: row 1" in message and f"field '{column}'" in message and expected in message


def test_rows_must_agree(generic_dir: Path, tmp_path: Path) -> None:
    rows = _rows(generic_dir)
    rows[2]["election_id"] = "other"
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "row 3" in message and "field 'election_id'" in message

    rows = _rows(generic_dir)
    rows[3]["statement_text"] = "Autre chose."
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "row 4" in message and "field 'statement_text'" in message and "row 2" in message

    rows = _rows(generic_dir)
    rows[1]["party_id"] = "fr_lac"
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "row 2" in message and "field 'party_id'" in message


def test_party_answering_twice_and_duplicate_party_ids(generic_dir: Path, tmp_path: Path) -> None:
    rows = _rows(generic_dir)
    rows.append(dict(rows[0]))
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "row 5" in message and "answers statement 1 twice" in message and "row 1" in message

    rows = _rows(generic_dir)
    rows[2]["party_id"] = rows[3]["party_id"] = "fr_parti_du_lac"
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "row 3" in message and "duplicate party id 'fr_parti_du_lac'" in message


def test_jsonl_specific_errors(generic_dir: Path, tmp_path: Path) -> None:
    lines = (generic_dir / "mini.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "x.jsonl"

    path.write_text("\n".join([lines[0], "{oops", *lines[2:]]), encoding="utf-8")
    assert "x.jsonl: line 2: invalid JSON" in _error(path)

    row = json.loads(lines[1])
    del row["rationale"]
    path.write_text("\n".join([lines[0], json.dumps(row)]), encoding="utf-8")
    message = _error(path)
    assert "line 2" in message and "field 'rationale'" in message and "missing" in message

    row = json.loads(lines[1]) | {"statement_number": "2"}
    path.write_text(json.dumps(row), encoding="utf-8")
    assert load_generic(path).positions[0].statement.number == 2

    path.write_text("[1, 2]\n", encoding="utf-8")
    assert "expected a JSON object" in _error(path)


def test_file_level_errors(tmp_path: Path) -> None:
    assert "file not found" in _error(tmp_path / "none.csv")
    weird = tmp_path / "x.xlsx"
    weird.write_text("", encoding="utf-8")
    assert "unknown file type '.xlsx'" in _error(weird)
    empty = tmp_path / "x.jsonl"
    empty.write_text("\n", encoding="utf-8")
    assert "no rows" in _error(empty)
    latin = tmp_path / "x.csv"
    latin.write_bytes(
        ",".join(REQUIRED_COLUMNS).encode() + "\nd,de,German,Grün\xe9".encode("latin-1")
    )
    assert "not valid UTF-8" in _error(latin)


# -- hostile input (issue 14, defect 7) ------------------------------------------------------


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b"])
def test_a_control_character_is_rejected_naming_the_row_and_field(
    generic_dir: Path, tmp_path: Path, char: str
) -> None:
    rows = _rows(generic_dir)
    rows[2]["rationale"] = f"Nous voulons{char} des bus."
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "x.csv: row 3: field 'rationale'" in message
    assert f"U+{ord(char):04X}" in message


def test_a_nul_in_jsonl_is_rejected(generic_dir: Path, tmp_path: Path) -> None:
    lines = (generic_dir / "mini.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[1])
    row["statement_text"] = "Le bus\u0000 de nuit."
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(row)]), encoding="utf-8")
    message = _error(path)
    assert "line 2" in message and "field 'statement_text'" in message and "U+0000" in message


@pytest.mark.parametrize("escape", ["\\ud800", "\\uffff", "\\u000b"])
def test_lone_surrogates_and_non_characters_in_jsonl_are_rejected(
    generic_dir: Path, tmp_path: Path, escape: str
) -> None:
    lines = (generic_dir / "mini.jsonl").read_text(encoding="utf-8").splitlines()
    line = lines[1].replace("Le bus de nuit", f"Le bus{escape} de nuit")
    assert line != lines[1]
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join([lines[0], line]), encoding="utf-8")
    message = _error(path)
    assert "line 2" in message and "field 'statement_text'" in message
    assert f"U+{escape[2:].upper()}" in message


def test_tabs_and_line_breaks_inside_cells_are_kept(generic_dir: Path, tmp_path: Path) -> None:
    rows = _rows(generic_dir)
    rows[0]["rationale"] = "Nous voulons\tdes pistes.\r\nPartout."
    election = load_generic(_write_csv(tmp_path / "x.csv", rows))
    assert election.positions[0].rationale == "Nous voulons\tdes pistes.\r\nPartout."


def test_an_over_long_csv_cell_names_the_row(generic_dir: Path, tmp_path: Path) -> None:
    rows = _rows(generic_dir)
    rows[1]["rationale"] = "x" * 200_000
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "x.csv: row 2: unreadable CSV" in message
    assert "longer than 131,072 characters" in message


def test_an_unterminated_quote_is_named_as_such(generic_dir: Path, tmp_path: Path) -> None:
    text = (generic_dir / "mini.csv").read_text(encoding="utf-8").splitlines()
    text[2] = text[2].replace(",disagree,", ',disagree,"Pas de bus la nuit.')
    path = tmp_path / "x.csv"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    message = _error(path)
    assert "row 2" in message and "quote is not closed" in message
    assert "statement_number" not in message


def test_a_short_csv_row_is_named_as_such(generic_dir: Path, tmp_path: Path) -> None:
    text = (generic_dir / "mini.csv").read_text(encoding="utf-8").splitlines()
    text[2] = "mini2099,fr,French,Parti du Lac"
    path = tmp_path / "x.csv"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    assert "row 2: fewer cells than the 10 header columns" in _error(path)


@pytest.mark.parametrize(
    ("column", "value"),
    [("statement_number", True), ("statement_number", 1.0), ("party_name", 7)],
)
def test_jsonl_types_are_strict(
    generic_dir: Path, tmp_path: Path, column: str, value: object
) -> None:
    lines = (generic_dir / "mini.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row[column] = value
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join([json.dumps(row), *lines[1:]]), encoding="utf-8")
    message = _error(path)
    assert "line 1" in message and f"field '{column}'" in message


def test_statement_numbers_written_as_digits_still_load(generic_dir: Path, tmp_path: Path) -> None:
    lines = (generic_dir / "mini.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["statement_number"] = "1"
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join([json.dumps(row), *lines[1:]]), encoding="utf-8")
    assert load_generic(path).positions == load_generic(generic_dir / "mini.jsonl").positions


@pytest.mark.parametrize("bad", ["..", "../../x", "a/b", "x" * 65, ".hidden", "C:x"])
def test_unsafe_election_ids_are_rejected(generic_dir: Path, tmp_path: Path, bad: str) -> None:
    rows = _rows(generic_dir)
    for row in rows:
        row["election_id"] = bad
    message = _error(_write_csv(tmp_path / "x.csv", rows))
    assert "row 1: field 'election_id'" in message and "not usable as an election id" in message
    with pytest.raises(SourceError, match="not usable as an election id"):
        load_generic(generic_dir / "mini.csv", election_id=bad)


def test_jsonl_records_split_on_newlines_only(generic_dir: Path, tmp_path: Path) -> None:
    """U+2028, U+2029 and U+0085 inside a string are text, not line breaks (C0 controls such as
    U+000B are refused by the source's control-character check instead)."""
    text = (generic_dir / "mini.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.split("\n") if line.strip()]
    rows[0]["rationale"] = "First\u2028second\u2029third\x85fourth end."
    path = tmp_path / "odd.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    assert "\u2028" in path.read_text(encoding="utf-8")
    election = load_generic(path)
    assert any("second\u2029third\x85fourth" in (p.rationale or "") for p in election.positions)
