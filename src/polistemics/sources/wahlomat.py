"""Wahl-O-Mat elections in the qual-o-mat-data folder layout.

A folder holds six JSON files joined by integer ids: ``overview.json`` (title, date, slug),
``party.json``, ``statement.json``, ``answer.json`` (the stance vocabulary), ``opinion.json``
(one record per party and statement) and ``comment.json`` (the rationales, wrapped in literal
double quotes; ``""`` means the party gave none). Federal and state elections share the layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from polistemics.records import (
    LANGUAGE_NAMES,
    Election,
    Party,
    Position,
    Stance,
    Statement,
    statement_id,
)
from polistemics.sources.errors import SourceError
from polistemics.sources.files import (
    checked_election_id,
    expect_list,
    read_json,
    record_label,
    validate_records,
)
from polistemics.sources.parties import new_party
from polistemics.sources.text import rationale_or_none

WAHLOMAT_FILES = ("overview", "party", "statement", "answer", "opinion", "comment")
COUNTRY = "de"
LANGUAGE_CODE = "de"
SOURCE = "Wahl-O-Mat (bpb), qual-o-mat-data layout"

# answer.json messages, compared case-insensitively; ids differ between elections
STANCE_MESSAGES = {
    "stimme zu": Stance.AGREE,
    "stimme nicht zu": Stance.DISAGREE,
    "neutral": Stance.NEUTRAL,
}


class _Record(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class _Overview(_Record):
    title: str = ""
    date: str | None = None
    slug: str | None = None


class _Party(_Record):
    id: int
    name: str
    longname: str | None = None


class _Statement(_Record):
    id: int
    text: str
    label: str | None = None


class _Answer(_Record):
    id: int
    message: str


class _Comment(_Record):
    id: int
    text: str | None = None


class _Opinion(_Record):
    id: int
    party: int
    statement: int
    answer: int
    comment: int | None = None


def file_path(folder: Path, name: str) -> Path:
    return folder / f"{name}.json"


def read_overview(folder: Path) -> dict[str, Any]:
    """overview.json as a dict (title, date, slug...)."""
    path = file_path(folder, "overview")
    data = read_json(path)
    if not isinstance(data, dict):
        raise SourceError(f"expected a JSON object, got {type(data).__name__}", path=path)
    return data


def election_slug(folder: Path, overview: dict[str, Any] | None = None) -> str | None:
    """The overview's ``slug`` (e.g. 'bundestagswahl2025'); None when the file has none."""
    path = file_path(folder, "overview")
    raw = overview if overview is not None else read_overview(folder)
    parsed = _parse_overview(raw, path)
    if parsed.slug is None:
        return None
    return checked_election_id(parsed.slug, path=path, field="slug")


def load_wahlomat(folder: Path, *, election_id: str | None = None) -> Election:
    """Read one election folder. The id is ``election_id``, else the overview slug, else the folder name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SourceError("not a folder (expected a qual-o-mat-data election folder)", path=folder)

    overview_raw = read_overview(folder)
    overview = _parse_overview(overview_raw, file_path(folder, "overview"))
    eid = checked_election_id(
        election_id or election_slug(folder, overview_raw) or folder.name, path=folder
    )

    parties = _read_parties(folder)
    statements = _read_statements(folder, eid)
    stances = _read_answers(folder)
    comments = _read_comments(folder)
    language = LANGUAGE_NAMES[LANGUAGE_CODE]

    path = file_path(folder, "opinion")
    raw = expect_list(read_json(path), path=path)
    opinions = validate_records(_Opinion, raw, path=path)
    seen: dict[tuple[int, int], str] = {}
    positions: list[Position] = []
    for index, opinion in enumerate(opinions):
        record = record_label(index, raw[index])
        party = _lookup(parties, opinion.party, path, record, "party")
        statement = _lookup(statements, opinion.statement, path, record, "statement")
        stance = _lookup(stances, opinion.answer, path, record, "answer")
        key = (opinion.party, opinion.statement)
        if key in seen:
            raise SourceError(
                f"party {party.name!r} answers statement {statement.number} twice "
                f"(also in {seen[key]})",
                path=path,
                record=record,
                field="statement",
            )
        seen[key] = record
        rationale = None
        if opinion.comment is not None:
            rationale = _lookup(comments, opinion.comment, path, record, "comment")
        positions.append(
            Position(
                election_id=eid,
                country=COUNTRY,
                language=language,
                party=party,
                statement=statement,
                stance=stance,
                rationale=rationale,
            )
        )

    title = overview.title + (f" {overview.date[:10]}" if overview.date else "")
    return Election(
        id=eid,
        country=COUNTRY,
        language=language,
        language_code=LANGUAGE_CODE,
        title=title.strip(),
        source=SOURCE,
        positions=positions,
    )


def unquote(text: str) -> str:
    """Strip the one pair of literal double quotes qual-o-mat-data wraps rationales in."""
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    return text


def _parse_overview(raw: dict[str, Any], path: Path) -> _Overview:
    return validate_records(_Overview, [raw], path=path, describe=lambda _i, _r: "overview")[0]


def _read_parties(folder: Path) -> dict[int, Party]:
    path = file_path(folder, "party")
    raw = expect_list(read_json(path), path=path)
    parties: dict[int, Party] = {}
    ids: dict[str, str] = {}
    for index, item in enumerate(validate_records(_Party, raw, path=path)):
        record = record_label(index, raw[index])
        _check_unique(parties, item.id, path, record)
        parties[item.id] = new_party(
            item.name, item.longname, country=COUNTRY, taken=ids, path=path, record=record
        )
    return parties


def _read_statements(folder: Path, eid: str) -> dict[int, Statement]:
    path = file_path(folder, "statement")
    raw = expect_list(read_json(path), path=path)
    statements: dict[int, Statement] = {}
    for index, item in enumerate(validate_records(_Statement, raw, path=path)):
        record = record_label(index, raw[index])
        _check_unique(statements, item.id, path, record)
        text = item.text.strip()
        if not text:
            raise SourceError("empty statement text", path=path, record=record, field="text")
        number = index + 1
        statements[item.id] = Statement(
            id=statement_id(eid, number),
            number=number,
            text=text,
            theme=(item.label or "").strip() or None,
        )
    return statements


def _read_answers(folder: Path) -> dict[int, Stance]:
    path = file_path(folder, "answer")
    raw = expect_list(read_json(path), path=path)
    stances: dict[int, Stance] = {}
    for index, item in enumerate(validate_records(_Answer, raw, path=path)):
        record = record_label(index, raw[index])
        _check_unique(stances, item.id, path, record)
        stance = STANCE_MESSAGES.get(" ".join(item.message.split()).lower())
        if stance is None:
            known = ", ".join(repr(m) for m in STANCE_MESSAGES)
            raise SourceError(
                f"unknown stance message {item.message!r} (known: {known})",
                path=path,
                record=record,
                field="message",
            )
        stances[item.id] = stance
    return stances


def _read_comments(folder: Path) -> dict[int, str | None]:
    path = file_path(folder, "comment")
    raw = expect_list(read_json(path), path=path)
    comments: dict[int, str | None] = {}
    for index, item in enumerate(validate_records(_Comment, raw, path=path)):
        _check_unique(comments, item.id, path, record_label(index, raw[index]))
        comments[item.id] = (
            None if item.text is None else rationale_or_none(unquote(item.text.strip()))
        )
    return comments


def _check_unique(seen: dict[int, Any], key: int, path: Path, record: str) -> None:
    if key in seen:
        raise SourceError(f"duplicate id {key}", path=path, record=record, field="id")


def _lookup(table: dict[int, Any], key: int, path: Path, record: str, field: str) -> Any:
    if key not in table:
        raise SourceError(
            f"refers to unknown {field} id {key}", path=path, record=record, field=field
        )
    return table[key]
