"""Exchange environments with the authors' release (``ground_truth.jsonl``, one row per item).

Reading: rows become ``EnvironmentItem`` objects. The release records no chunk provenance, so it is
recovered from the file's own Baseline rows: every chunk of the release is some party's Baseline
evidence with a label filled in (the target's for Contradictory and Counterfactual, the source
party's anonymised label for other parties' Noisy distractors). ``[PARTY]`` is restored in
Baseline texts by replacing the party's label where it stands as a whole word.

Writing: the release's keys, in its order and compact JSON, plus keys the release does not use:
``conflict_party_id`` (Contradictory and Counterfactual rows), ``vague_mode`` (Vague rows),
``variant``, ``language``, ``output_language`` and ``chunk_sources`` (role, party, statement and
stance of every chunk). Rows carrying these keys are read back without any text matching.

The release keeps variants in separate folders (``anon_v1/``, ``en_v1/``) with identical row
keys, so the variant of a release file is taken from its folder name unless given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import ValidationError

from polistemics.conditions import Environment, Variant
from polistemics.jsonl import json_objects
from polistemics.paths import replacing
from polistemics.records import (
    LANGUAGE_NAMES,
    PARTY_PLACEHOLDER,
    Evidence,
    Party,
    Position,
    Stance,
    Statement,
)
from polistemics.runlog.items import ENGLISH, Chunk, EnvironmentItem

RELEASE_KEYS = (
    "observation_id",
    "election_id",
    "party_id",
    "party_name",
    "party_anonymized",
    "statement_id",
    "statement_number",
    "statement_text",
    "statement_category",
    "stance_label",
    "rationale_text",
    "has_rationale",
    "ie_name",
    "ie_chunks",
    "evidence_index",
    "expected_stance",
)
_REQUIRED = (
    "observation_id",
    "election_id",
    "party_id",
    "party_name",
    "party_anonymized",
    "statement_id",
    "statement_text",
    "stance_label",
    "ie_name",
    "ie_chunks",
)
_STATEMENT_NUMBER = re.compile(r"__s(\d+)$")


class ReleaseFormatError(ValueError):
    """A release row cannot be read; the message names the file, line and field."""

    def __init__(self, path: Path | str, line: int, field: str, problem: str):
        super().__init__(f"{path}, line {line}, field '{field}': {problem}")


def variant_from_folder(path: Path | str) -> Variant:
    """``anon_v1/`` -> anonymised labels, ``en_v1/`` -> English output, anything else -> full."""
    folder = Path(path).parent.name.lower()
    if folder.startswith("anon"):
        return Variant.ANONYMIZED
    if folder.startswith("en_") or folder == "en":
        return Variant.ENGLISH
    return Variant.FULL


def restore_placeholder(text: str, label: str) -> str:
    """Put ``[PARTY]`` back where ``label`` stands as a whole word."""
    return re.sub(rf"(?<!\w){re.escape(label)}(?!\w)", PARTY_PLACEHOLDER, text)


def _read_rows(path: Path) -> list[tuple[int, dict]]:
    if not Path(path).is_file():
        raise ReleaseFormatError(path, 0, "-", "file not found")
    rows = []
    for number, row in json_objects(
        path, lambda number, problem: ReleaseFormatError(path, number, "-", problem)
    ):
        for key in _REQUIRED:
            if row.get(key) is None:
                raise ReleaseFormatError(path, number, key, "missing")
        if not isinstance(row["ie_chunks"], list) or not all(
            isinstance(c, str) for c in row["ie_chunks"]
        ):
            raise ReleaseFormatError(path, number, "ie_chunks", "expected a list of strings")
        rows.append((number, row))
    return rows


class _Row:
    """One release row with its location, for typed access and precise errors."""

    def __init__(self, path: Path, line: int, data: dict):
        self.path, self.line, self.data = path, line, data

    def error(self, field: str, problem: str) -> ReleaseFormatError:
        return ReleaseFormatError(self.path, self.line, field, problem)

    def environment(self) -> Environment:
        try:
            return Environment(self.data["ie_name"])
        except ValueError:
            raise self.error("ie_name", f"unknown environment '{self.data['ie_name']}'") from None

    def stance(self, key: str) -> Stance | None:
        value = self.data.get(key)
        if value is None:
            return None
        try:
            return Stance(value)
        except ValueError:
            raise self.error(key, f"expected Agree, Neutral or Disagree, got {value!r}") from None

    def statement_number(self) -> int | None:
        value = self.data.get("statement_number")
        if isinstance(value, int):
            return value
        found = _STATEMENT_NUMBER.search(self.data["statement_id"])
        return int(found.group(1)) if found else None

    def language(self, override: str | None) -> str:
        if self.data.get("language"):
            return self.data["language"]
        if override:
            return override
        code = self.data["party_id"].split("_", 1)[0].lower()
        if code not in LANGUAGE_NAMES:
            raise self.error(
                "party_id", f"cannot tell the language from '{code}_': pass language=..."
            )
        return LANGUAGE_NAMES[code]

    def label(self, variant: Variant) -> str:
        key = "party_anonymized" if variant is Variant.ANONYMIZED else "party_name"
        return self.data[key]


def _evidence_from_baseline(row: _Row, variant: Variant, language: str | None) -> Evidence:
    chunks = row.data["ie_chunks"]
    if len(chunks) != 1:
        raise row.error("ie_chunks", f"a Baseline row has one chunk, found {len(chunks)}")
    d = row.data
    stance = row.stance("stance_label")
    assert stance is not None  # required key
    try:
        position = Position(
            election_id=d["election_id"],
            country=d["party_id"].split("_", 1)[0].lower(),
            language=row.language(language),
            party=Party(
                id=d["party_id"], name=d["party_name"], anonymized_label=d["party_anonymized"]
            ),
            statement=Statement(
                id=d["statement_id"],
                number=row.statement_number() or 0,
                text=d["statement_text"],
                theme=d.get("statement_category"),
            ),
            stance=stance,
            rationale=d.get("rationale_text"),
        )
    except ValidationError as exc:
        raise row.error("-", f"not a valid position ({exc.errors()[0]['msg']})") from None
    return Evidence(position=position, text=restore_placeholder(chunks[0], row.label(variant)))


def read_release_evidence(
    path: Path | str, *, variant: Variant | None = None, language: str | None = None
) -> list[Evidence]:
    """The standardised evidence (``[PARTY]`` restored) of a release file's Baseline rows."""
    path = Path(path)
    variant = variant or variant_from_folder(path)
    evidence, seen = [], set()
    for line, data in _read_rows(path):
        row = _Row(path, line, data)
        if row.environment() is not Environment.BASELINE:
            continue
        if data["observation_id"] in seen:
            raise row.error("observation_id", f"second Baseline row for {data['observation_id']}")
        seen.add(data["observation_id"])
        evidence.append(_evidence_from_baseline(row, variant, language))
    return evidence


class _SourceIndex:
    """Finds which party's Baseline evidence, under which label, a release chunk is."""

    def __init__(self, evidence: Sequence[Evidence]):
        self.by_key = {(ev.position.party.id, ev.position.statement.id): ev for ev in evidence}
        self.by_statement: dict[str, list[Evidence]] = {}
        self.own_label_texts: dict[str, list[Evidence]] = {}
        for ev in evidence:
            self.by_statement.setdefault(ev.position.statement.id, []).append(ev)
            labels = {ev.position.party.name, ev.position.party.anonymized_label} - {""}
            for label in labels:
                self.own_label_texts.setdefault(ev.filled(label), []).append(ev)

    def written_as(self, text: str, statement_id: str, label: str) -> list[Evidence]:
        """Evidence on ``statement_id`` that reads ``text`` when filled with ``label``."""
        return [ev for ev in self.by_statement.get(statement_id, []) if ev.filled(label) == text]

    def under_own_label(self, text: str) -> list[Evidence]:
        return self.own_label_texts.get(text, [])


def _unique(row: _Row, field: str, found: Iterable[Evidence]) -> Evidence:
    matches = {(ev.position.party.id, ev.position.statement.id): ev for ev in found}
    if len(matches) != 1:
        problem = (
            "matches no Baseline evidence" if not matches else f"is ambiguous: {sorted(matches)}"
        )
        raise row.error(field, f"cannot tell whose evidence this chunk is: it {problem}")
    return next(iter(matches.values()))


def _chunk(text: str, ev: Evidence, role: str, stance: Stance | None) -> Chunk:
    return Chunk(
        text=text,
        role=role,  # type: ignore[arg-type]
        party_id=ev.position.party.id,
        statement_id=ev.position.statement.id,
        stance=stance,
    )


def _recovered_chunks(
    row: _Row, environment: Environment, variant: Variant, index: _SourceIndex
) -> tuple[list[Chunk], str | None]:
    """Chunks with provenance recovered by text matching, and the conflict party if any."""
    d = row.data
    texts: list[str] = d["ie_chunks"]
    statement_id, label = d["statement_id"], row.label(variant)
    own = index.by_key.get((d["party_id"], statement_id))
    if environment in (Environment.BASELINE, Environment.VAGUE):
        stance = row.stance("stance_label") if environment is Environment.BASELINE else None
        return [
            Chunk(
                text=t,
                role="target",
                party_id=d["party_id"],
                statement_id=statement_id,
                stance=stance,
            )
            for t in texts
        ], None
    if environment is Environment.ABSENT:
        return [], None
    if environment is Environment.NOISY:
        target_at = d.get("evidence_index")
        if not isinstance(target_at, int) or not 0 <= target_at < len(texts):
            raise row.error("evidence_index", f"expected a chunk index, got {target_at!r}")
        chunks = []
        for i, text in enumerate(texts):
            field = f"ie_chunks[{i}]"
            if i == target_at:
                chunks.append(
                    Chunk(
                        text=text,
                        role="target",
                        party_id=d["party_id"],
                        statement_id=statement_id,
                        stance=row.stance("stance_label"),
                    )
                )
            else:
                source = _unique(row, field, index.under_own_label(text))
                chunks.append(_chunk(text, source, "distractor", source.position.stance))
        return chunks, None
    # Contradictory and Counterfactual: every chunk is written about the target party.
    chunks, conflict = [], None
    for i, text in enumerate(texts):
        source = _unique(row, f"ie_chunks[{i}]", index.written_as(text, statement_id, label))
        chunks.append(_chunk(text, source, "target", source.position.stance))
        if own is None or source is not own:
            conflict = source.position.party.id
    return chunks, conflict


def _chunks_from_sources(row: _Row) -> list[Chunk]:
    sources = row.data["chunk_sources"]
    texts = row.data["ie_chunks"]
    if not isinstance(sources, list) or len(sources) != len(texts):
        raise row.error("chunk_sources", "expected one entry per chunk")
    try:
        return [Chunk(text=t, **s) for t, s in zip(texts, sources, strict=True)]
    except (TypeError, ValidationError) as exc:
        raise row.error("chunk_sources", f"not valid chunk provenance ({exc})") from None


def read_release_items(
    path: Path | str,
    *,
    variant: Variant | None = None,
    language: str | None = None,
    evidence: Sequence[Evidence] | None = None,
) -> list[EnvironmentItem]:
    """Every row of a release ``ground_truth.jsonl`` (or of one we wrote) as an item.

    ``evidence`` (default: the file's own Baseline rows) is what chunks are matched against when
    the rows carry no ``chunk_sources``.
    """
    path = Path(path)
    rows = [_Row(path, line, data) for line, data in _read_rows(path)]
    rows.reverse()  # popped from the end: each raw row is let go once it is an item
    default_variant = variant or variant_from_folder(path)
    index: _SourceIndex | None = None
    items = []
    shared = _Shared()
    while rows:
        row = rows.pop()
        d = row.data = shared.texts_of(row.data)
        environment = row.environment()
        row_variant = variant or (Variant(d["variant"]) if d.get("variant") else default_variant)
        if "chunk_sources" in d:
            chunks, conflict = _chunks_from_sources(row), d.get("conflict_party_id")
        else:
            if index is None:
                index = _SourceIndex(
                    evidence
                    if evidence is not None
                    else read_release_evidence(path, variant=default_variant, language=language)
                )
            chunks, conflict = _recovered_chunks(row, environment, row_variant, index)
            conflict = d.get("conflict_party_id") or conflict
        chunks = [shared.chunk(chunk) for chunk in chunks]
        row_language = row.language(language)
        try:
            items.append(
                EnvironmentItem(
                    observation_id=d["observation_id"],
                    election_id=d["election_id"],
                    party_id=d["party_id"],
                    party_name=d["party_name"],
                    party_anonymized=d["party_anonymized"],
                    statement_id=d["statement_id"],
                    statement_number=row.statement_number(),
                    statement_text=d["statement_text"],
                    stance_label=row.stance("stance_label"),
                    rationale_text=d.get("rationale_text"),
                    environment=environment,
                    variant=row_variant,
                    language=row_language,
                    output_language=d.get("output_language")
                    or (ENGLISH if row_variant is Variant.ENGLISH else row_language),
                    chunks=chunks,
                    evidence_index=d.get("evidence_index"),
                    expected_stance=row.stance("expected_stance"),
                    conflict_party_id=conflict,
                    vague_mode=d.get("vague_mode"),
                )
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise row.error(field, err["msg"]) from None
    return items


class _Shared:
    """One object for each distinct text and chunk of a file's items: a statement's text, a
    party's name, an observation's rationale and an evidence passage recur in every environment
    and party of a study, and the items of a 4x study held them once per item (issue 32)."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._chunks: dict[tuple, Chunk] = {}

    def texts_of(self, row: dict) -> dict:
        texts = self._texts
        return {
            key: texts.setdefault(value, value) if isinstance(value, str) else value
            for key, value in row.items()
        }

    def chunk(self, chunk: Chunk) -> Chunk:
        key = (chunk.text, chunk.role, chunk.party_id, chunk.statement_id, chunk.stance)
        return self._chunks.setdefault(key, chunk)


def item_to_row(item: EnvironmentItem) -> dict:
    """The release's row for an item, plus our provenance keys (see the module docstring)."""
    row = {
        "observation_id": item.observation_id,
        "election_id": item.election_id,
        "party_id": item.party_id,
        "party_name": item.party_name,
        "party_anonymized": item.party_anonymized,
        "statement_id": item.statement_id,
        "statement_number": item.statement_number,
        "statement_text": item.statement_text,
        "statement_category": None,
        "stance_label": item.stance_label.value,
        "rationale_text": item.rationale_text,
        "has_rationale": bool(item.rationale_text and item.rationale_text.strip()),
        "ie_name": item.environment.value,
        "ie_chunks": [c.text for c in item.chunks],
        "evidence_index": item.evidence_index,
        "expected_stance": item.expected_stance.value if item.expected_stance else None,
    }
    parts = item.environment.parts
    if Environment.CONTRADICTORY in parts or Environment.COUNTERFACTUAL in parts:
        row["conflict_party_id"] = item.conflict_party_id
    if Environment.VAGUE in parts:
        row["vague_mode"] = item.vague_mode
    row["variant"] = item.variant.value
    row["language"] = item.language
    row["output_language"] = item.output_language
    row["chunk_sources"] = [
        {
            "role": c.role,
            "party_id": c.party_id,
            "statement_id": c.statement_id,
            "stance": c.stance.value if c.stance else None,
        }
        for c in item.chunks
    ]
    return row


def dumps_row(row: dict) -> str:
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def write_items(items: Iterable[EnvironmentItem], path: Path | str) -> int:
    """Write items as JSONL rows in the release format; returns the number of rows. Each row is
    written as it is made: a study's items (their evidence texts) are never held as text twice."""
    count = 0
    with replacing(path) as temporary, temporary.open("w", encoding="utf-8") as handle:
        for item in items:  # never torn; untouched when the same (``replacing``)
            handle.write(dumps_row(item_to_row(item)) + "\n")
            count += 1
    return count
