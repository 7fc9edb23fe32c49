"""StemWijzer (ProDemos) elections, from either of two JSON layouts, detected automatically.

(a) *scraped list*: a JSON list of statements, each with ``theme``, ``title``, ``info`` and
    ``positions`` ``[{position: Eens|Oneens|Geen van beide, party, explanation}]``.
(b) *StemWijzer's own JSON*, as written by the ``nl-voting-data-scraper`` tool: an object with
    ``parties`` (``id``, ``name``, ``fullName``, ``statements [{id, position:
    agree|disagree|neither, explanation}]``), ``statements`` (``id``, ``theme``, ``index``,
    ``title`` as a string or a list of strings and ``{text, ...}`` annotations) and ``votematch``.
    Shoot-out (tie-break) statements are not part of the election.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from polistemics.records import Election, Party, Position, Stance, Statement, party_id, statement_id
from polistemics.sources.errors import SourceError
from polistemics.sources.files import (
    checked_election_id,
    expect_list,
    read_json,
    validate_record,
    validate_records,
)
from polistemics.sources.languages import resolve_language
from polistemics.sources.parties import new_party
from polistemics.sources.text import clean_statement, collapse_whitespace, rationale_or_none

COUNTRY = "nl"
DEFAULT_LANGUAGE_CODE = "nl"
SOURCE = "StemWijzer (ProDemos)"

SCRAPED_STANCES = {
    "eens": Stance.AGREE,
    "oneens": Stance.DISAGREE,
    "geen van beide": Stance.NEUTRAL,
}
NATIVE_STANCES = {"agree": Stance.AGREE, "disagree": Stance.DISAGREE, "neither": Stance.NEUTRAL}


class _Record(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class _ScrapedPosition(_Record):
    position: str
    party: str
    explanation: str | None = None


class _ScrapedStatement(_Record):
    theme: str | None = None
    title: str
    positions: list[dict[str, Any]]


class _NativePosition(_Record):
    id: int
    position: str
    explanation: Any = None  # a string, or false / missing when the party gave none


class _NativeParty(_Record):
    id: int
    name: str
    fullName: str | None = None  # noqa: N815 (the source's key)
    statements: list[dict[str, Any]] = []


class _NativeStatement(_Record):
    id: int
    title: Any  # a string, or a list of strings and {text, ...} annotations
    theme: str | None = None
    index: int | None = None


class _Votematch(_Record):
    name: str = ""
    context: str = ""
    langcode: str = DEFAULT_LANGUAGE_CODE


def load_stemwijzer(path: Path, *, election_id: str | None = None) -> Election:
    """Read a StemWijzer JSON file of either layout; the id defaults to the file stem."""
    path = Path(path)
    data = read_json(path)
    eid = checked_election_id(election_id or path.stem, path=path)
    if isinstance(data, list):
        return _load_scraped(data, path, eid)
    if isinstance(data, dict) and "parties" in data and "statements" in data:
        return _load_native(data, path, eid)
    raise SourceError(
        "unrecognised StemWijzer layout: expected a list of statements (scraped) or an object "
        "with 'parties', 'statements' and 'votematch' (StemWijzer JSON)",
        path=path,
    )


def _load_scraped(data: list[Any], path: Path, eid: str) -> Election:
    language = resolve_language(DEFAULT_LANGUAGE_CODE)[0]
    statements = validate_records(_ScrapedStatement, data, path=path, describe=_statement_label)
    parties: dict[str, Party] = {}
    seen_titles: dict[str, int] = {}
    positions: list[Position] = []
    for index, item in enumerate(statements):
        record = _statement_label(index, data[index])
        text = clean_statement(item.title)
        if not text:
            raise SourceError("empty statement text", path=path, record=record, field="title")
        if text in seen_titles:
            raise SourceError(
                f"duplicate statement (same title as statement {seen_titles[text] + 1})",
                path=path,
                record=record,
                field="title",
            )
        seen_titles[text] = index
        number = index + 1
        statement = Statement(
            id=statement_id(eid, number),
            number=number,
            text=text,
            theme=(item.theme or "").strip() or None,
        )
        answered: set[str] = set()
        for p_index, raw_position in enumerate(item.positions):
            field = f"positions[{p_index}]"
            entry = validate_record(
                _ScrapedPosition, raw_position, path=path, record=record, field_prefix=field
            )
            party = _party_by_name(parties, entry.party, path, record, f"{field}.party")
            if party.id in answered:
                raise SourceError(
                    f"party {party.name!r} answers this statement twice",
                    path=path,
                    record=record,
                    field=f"{field}.party",
                )
            answered.add(party.id)
            stance = _stance(SCRAPED_STANCES, entry.position, path, record, f"{field}.position")
            positions.append(
                Position(
                    election_id=eid,
                    country=COUNTRY,
                    language=language,
                    party=party,
                    statement=statement,
                    stance=stance,
                    rationale=rationale_or_none(entry.explanation),
                )
            )
    return Election(
        id=eid,
        country=COUNTRY,
        language=language,
        language_code=DEFAULT_LANGUAGE_CODE,
        title=eid,
        source=SOURCE,
        positions=positions,
    )


def _load_native(data: dict[str, Any], path: Path, eid: str) -> Election:
    meta_raw = data.get("votematch") or {}
    meta = validate_record(_Votematch, meta_raw, path=path, record="votematch")
    language, language_code = resolve_language(
        meta.langcode, path=path, record="votematch", field="langcode"
    )
    statements = _native_statements(data["statements"], path, eid)

    raw_parties = expect_list(data["parties"], path=path)
    positions: list[Position] = []
    party_ids: dict[int, str] = {}
    names: dict[str, str] = {}
    for p_index, raw_party in enumerate(raw_parties):
        record = f"parties[{p_index}]" + (
            f" (id {raw_party['id']!r})"
            if isinstance(raw_party, dict) and "id" in raw_party
            else ""
        )
        item = validate_record(_NativeParty, raw_party, path=path, record=record)
        if item.id in party_ids:
            raise SourceError(f"duplicate party id {item.id}", path=path, record=record, field="id")
        party = new_party(
            item.name, item.fullName, country=COUNTRY, taken=names, path=path, record=record
        )
        party_ids[item.id] = party.name

        answered: set[int] = set()
        for s_index, raw_position in enumerate(item.statements):
            field = f"statements[{s_index}]"
            entry = validate_record(
                _NativePosition, raw_position, path=path, record=record, field_prefix=field
            )
            if entry.id not in statements:
                raise SourceError(
                    f"refers to unknown statement id {entry.id}",
                    path=path,
                    record=record,
                    field=f"{field}.id",
                )
            if entry.id in answered:
                raise SourceError(
                    f"party {party.name!r} answers statement id {entry.id} twice",
                    path=path,
                    record=record,
                    field=f"{field}.id",
                )
            answered.add(entry.id)
            positions.append(
                Position(
                    election_id=eid,
                    country=COUNTRY,
                    language=language,
                    party=party,
                    statement=statements[entry.id],
                    stance=_stance(
                        NATIVE_STANCES, entry.position, path, record, f"{field}.position"
                    ),
                    rationale=_native_explanation(entry.explanation, path, record, field),
                )
            )
    title = " ".join(part for part in (meta.name, meta.context) if part) or eid
    return Election(
        id=eid,
        country=COUNTRY,
        language=language,
        language_code=language_code,
        title=title,
        source=SOURCE,
        positions=positions,
    )


def _native_statements(raw: Any, path: Path, eid: str) -> dict[int, Statement]:
    items = expect_list(raw, path=path)
    parsed: list[tuple[int, _NativeStatement, str]] = []
    for index, raw_statement in enumerate(items):
        record = f"statements[{index}]" + (
            f" (id {raw_statement['id']!r})"
            if isinstance(raw_statement, dict) and "id" in raw_statement
            else ""
        )
        item = validate_record(_NativeStatement, raw_statement, path=path, record=record)
        text = clean_statement(_title_text(item.title, path, record))
        if not text:
            raise SourceError("empty statement text", path=path, record=record, field="title")
        if any(other.id == item.id for _, other, _ in parsed):
            raise SourceError(
                f"duplicate statement id {item.id}", path=path, record=record, field="id"
            )
        parsed.append((index, item, text))
    # StemWijzer orders statements by 'index'; list order breaks ties and fills gaps
    parsed.sort(
        key=lambda entry: (entry[1].index if entry[1].index is not None else entry[0], entry[0])
    )
    statements: dict[int, Statement] = {}
    for number, (_, item, text) in enumerate(parsed, start=1):
        statements[item.id] = Statement(
            id=statement_id(eid, number),
            number=number,
            text=text,
            theme=(item.theme or "").strip() or None,
        )
    return statements


def _title_text(title: Any, path: Path, record: str) -> str:
    if isinstance(title, str):
        return title
    if isinstance(title, list):
        parts: list[str] = []
        for index, part in enumerate(title):
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                raise SourceError(
                    "expected a string or an object with a string 'text'",
                    path=path,
                    record=record,
                    field=f"title[{index}]",
                )
        return "".join(parts)
    raise SourceError(
        f"expected a string or a list, got {type(title).__name__}",
        path=path,
        record=record,
        field="title",
    )


def _native_explanation(value: Any, path: Path, record: str, field: str) -> str | None:
    if value is None or value is False:
        return None
    if not isinstance(value, str):
        raise SourceError(
            f"expected a string or false, got {value!r}",
            path=path,
            record=record,
            field=f"{field}.explanation",
        )
    return rationale_or_none(collapse_whitespace(value))


def _party_by_name(
    parties: dict[str, Party], name: str, path: Path, record: str, field: str
) -> Party:
    name = name.strip()
    if not name:
        raise SourceError("empty party name", path=path, record=record, field=field)
    pid = party_id(COUNTRY, name)
    known = parties.get(pid)
    if known is None:
        known = parties[pid] = Party(id=pid, name=name)
    elif known.name != name:
        raise SourceError(
            f"party id {pid!r} also belongs to {known.name!r}",
            path=path,
            record=record,
            field=field,
        )
    return known


def _stance(
    vocabulary: dict[str, Stance], value: str, path: Path, record: str, field: str
) -> Stance:
    stance = vocabulary.get(" ".join(value.split()).lower())
    if stance is None:
        known = ", ".join(repr(v) for v in vocabulary)
        raise SourceError(
            f"unknown stance {value!r} (known: {known})", path=path, record=record, field=field
        )
    return stance


def _statement_label(index: int, _raw: Any) -> str:
    return f"statement {index + 1}"
