"""Any voting-advice application as a flat table: one row per party and statement.

CSV (with a header row) or JSON Lines (one object per line); the columns are documented in
``docs/data-formats.md`` and listed in ``REQUIRED_COLUMNS`` / ``OPTIONAL_COLUMNS``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from polistemics.jsonl import lines_of
from polistemics.records import Election, Party, Position, Stance, Statement, party_id, statement_id
from polistemics.sources.errors import SourceError
from polistemics.sources.files import (
    checked_election_id,
    parse_json,
    read_text,
    validate_record,
)
from polistemics.sources.languages import resolve_language
from polistemics.sources.text import rationale_or_none

REQUIRED_COLUMNS = (
    "election_id",
    "country",
    "language",
    "party_name",
    "statement_number",
    "statement_text",
    "stance",
    "rationale",
)
OPTIONAL_COLUMNS = ("party_id", "party_long_name", "theme", "election_title")
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}

_NULLABLE = frozenset(("rationale", *OPTIONAL_COLUMNS))
_NON_EMPTY = ("election_id", "country", "language", "party_name", "statement_text", "stance")
_COUNTRY = re.compile(r"^[a-z]{2}$")
_TEXT_INTEGER = re.compile(r"^\s*[+-]?\d{1,9}\s*$")


class GenericRow(BaseModel):
    """One row of the generic format (types checked; meaning checked by ``load_generic``).

    Strict: a JSON ``true`` is not statement 1, nor a number a party name. A statement number
    may be written as digits in text ("2"): every CSV cell is text."""

    model_config = ConfigDict(extra="forbid", strict=True)

    election_id: str
    country: str
    language: str
    party_name: str
    party_id: str | None = None
    party_long_name: str | None = None
    statement_number: int
    statement_text: str
    theme: str | None = None
    stance: str
    rationale: str | None
    election_title: str | None = None

    @field_validator("statement_number", mode="before")
    @classmethod
    def _digits_as_number(cls, value: Any) -> Any:
        if isinstance(value, str) and _TEXT_INTEGER.match(value):
            return int(value)
        return value


def load_generic(path: Path, *, election_id: str | None = None) -> Election:
    """Read a generic CSV / JSONL file; ``election_id`` overrides the file's column."""
    path = Path(path)
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise SourceError(
            f"unknown file type {path.suffix!r}; the generic format is .csv or .jsonl", path=path
        )
    text = read_text(path)
    rows = _csv_rows(text, path) if kind == "csv" else _jsonl_rows(text, path)
    return _ElectionBuilder(path, election_id).build(rows)


def _csv_rows(text: str, path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    # strict: an unterminated quote is an error at the end of the file, not a row that silently
    # swallowed the rest of the file into one cell.
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    rows = _csv_records(reader, path)
    header = _csv_header(reader, path)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise SourceError(f"missing column(s) {', '.join(missing)}", path=path, record="header")
    unknown = [c for c in header if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    if unknown:
        raise SourceError(f"unknown column(s) {', '.join(unknown)}", path=path, record="header")
    for number, row in enumerate(rows, start=1):
        record = f"row {number}"
        if None in row:
            raise SourceError("more cells than header columns", path=path, record=record)
        if any(value is None for value in row.values()):
            raise SourceError(
                f"fewer cells than the {len(header)} header columns", path=path, record=record
            )
        yield record, _blank_optional_to_none(row)


def _csv_header(reader: csv.DictReader, path: Path) -> list[str]:
    try:
        return list(reader.fieldnames or [])
    except csv.Error as exc:
        raise SourceError(f"unreadable CSV: {exc}", path=path, record="header") from None


def _csv_records(reader: csv.DictReader, path: Path) -> Iterator[dict[str, Any]]:
    """The reader's rows; a CSV syntax error names the row it stopped in."""
    number = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise SourceError(
                f"unreadable CSV: {_csv_problem(exc)}",
                path=path,
                record=f"row {number + 1}",
            ) from None
        number += 1
        yield row


def _csv_problem(error: csv.Error) -> str:
    message = str(error)
    if "field larger than field limit" in message:
        return f"a cell is longer than {csv.field_size_limit():,} characters"
    if "unexpected end of data" in message:
        return "the file ends inside a quoted cell (a quote is not closed)"
    return message


def _jsonl_rows(text: str, path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for number, line in lines_of(text):
        record = f"line {number}"
        data = parse_json(line, path=path, record=record)
        if not isinstance(data, dict):
            raise SourceError(
                f"expected a JSON object, got {type(data).__name__}", path=path, record=record
            )
        yield record, _blank_optional_to_none(data)


def _blank_optional_to_none(row: dict[str, Any]) -> dict[str, Any]:
    """Empty optional cells (and an empty rationale) mean 'missing'."""
    return {
        key: None if key in _NULLABLE and isinstance(value, str) and not value.strip() else value
        for key, value in row.items()
    }


class _ElectionBuilder:
    """Collects rows, checking that election, party and statement facts agree across rows."""

    def __init__(self, path: Path, election_id: str | None) -> None:
        self.path = path
        self.election_id_override = (
            None if election_id is None else checked_election_id(election_id, path=path)
        )
        self.first: GenericRow | None = None
        self.parties_by_name: dict[str, Party] = {}
        self.names_by_party_id: dict[str, str] = {}
        self.statements: dict[int, tuple[Statement, str]] = {}
        self.answered: dict[tuple[str, int], str] = {}
        self.positions: list[Position] = []

    def build(self, rows: Iterator[tuple[str, dict[str, Any]]]) -> Election:
        language = ("", "")
        for record, raw in rows:
            row = validate_record(GenericRow, raw, path=self.path, record=record)
            for column in _NON_EMPTY:
                if not getattr(row, column).strip():
                    raise SourceError("empty", path=self.path, record=record, field=column)
            if self.first is None:
                self.first = row
                self._check_election(row, record)
                language = resolve_language(
                    row.language, path=self.path, record=record, field="language"
                )
            self._check_same(row, record)
            self._add(row, record, language[0])
        if self.first is None:
            raise SourceError("no rows", path=self.path)
        return Election(
            id=self.election_id,
            country=self.first.country.strip().lower(),
            language=language[0],
            language_code=language[1],
            title=(self.first.election_title or "").strip() or self.election_id,
            source=f"generic table ({self.path.name})",
            positions=self.positions,
        )

    @property
    def election_id(self) -> str:
        assert self.first is not None
        return self.election_id_override or self.first.election_id.strip()

    def _check_election(self, row: GenericRow, record: str) -> None:
        checked_election_id(
            row.election_id.strip(), path=self.path, record=record, field="election_id"
        )
        if not _COUNTRY.match(row.country.strip().lower()):
            raise SourceError(
                f"expected a two-letter ISO 3166 country code, got {row.country!r}",
                path=self.path,
                record=record,
                field="country",
            )

    def _check_same(self, row: GenericRow, record: str) -> None:
        assert self.first is not None
        for column in ("election_id", "country", "language"):
            expected = getattr(self.first, column).strip().lower()
            if getattr(row, column).strip().lower() != expected:
                raise SourceError(
                    f"differs from the first row ({getattr(self.first, column)!r}); "
                    "one file holds one election",
                    path=self.path,
                    record=record,
                    field=column,
                )

    def _add(self, row: GenericRow, record: str, language: str) -> None:
        party = self._party(row, record)
        statement = self._statement(row, record)
        key = (party.id, statement.number)
        if key in self.answered:
            raise SourceError(
                f"party {party.name!r} answers statement {statement.number} twice "
                f"(also in {self.answered[key]})",
                path=self.path,
                record=record,
                field="statement_number",
            )
        self.answered[key] = record
        stance = _stance(row.stance, self.path, record)
        self.positions.append(
            Position(
                election_id=self.election_id,
                country=row.country.strip().lower(),
                language=language,
                party=party,
                statement=statement,
                stance=stance,
                rationale=rationale_or_none(row.rationale),
            )
        )

    def _party(self, row: GenericRow, record: str) -> Party:
        name = row.party_name.strip()
        pid = (row.party_id or "").strip() or party_id(row.country.strip(), name)
        known = self.parties_by_name.get(name)
        if known is not None:
            if known.id != pid:
                raise SourceError(
                    f"party {name!r} had id {known.id!r} in an earlier row",
                    path=self.path,
                    record=record,
                    field="party_id",
                )
            return known
        if pid in self.names_by_party_id:
            raise SourceError(
                f"duplicate party id {pid!r}: already used by {self.names_by_party_id[pid]!r}",
                path=self.path,
                record=record,
                field="party_id",
            )
        party = Party(id=pid, name=name, long_name=(row.party_long_name or "").strip() or None)
        self.parties_by_name[name] = party
        self.names_by_party_id[pid] = name
        return party

    def _statement(self, row: GenericRow, record: str) -> Statement:
        number = row.statement_number
        if number < 1:
            raise SourceError(
                f"statement numbers start at 1, got {number}",
                path=self.path,
                record=record,
                field="statement_number",
            )
        text = row.statement_text.strip()
        theme = (row.theme or "").strip() or None
        known = self.statements.get(number)
        if known is None:
            statement = Statement(
                id=statement_id(self.election_id, number), number=number, text=text, theme=theme
            )
            self.statements[number] = (statement, record)
            return statement
        statement, first_record = known
        for column, value, expected in (
            ("statement_text", text, statement.text),
            ("theme", theme, statement.theme),
        ):
            if value != expected:
                raise SourceError(
                    f"statement {number} reads {expected!r} in {first_record}; "
                    "one number, one statement",
                    path=self.path,
                    record=record,
                    field=column,
                )
        return statement


def _stance(value: str, path: Path, record: str) -> Stance:
    key = value.strip().lower()
    for stance in Stance:
        if stance.value.lower() == key:
            return stance
    raise SourceError(
        f"unknown stance {value!r} (expected Agree, Neutral or Disagree)",
        path=path,
        record=record,
        field="stance",
    )
