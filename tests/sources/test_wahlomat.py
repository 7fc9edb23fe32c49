"""Wahl-O-Mat folders (qual-o-mat-data layout): a small fictional fixture, bad input, the real data."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from polistemics.records import Stance
from polistemics.sources.errors import SourceError
from polistemics.sources.wahlomat import WAHLOMAT_FILES, load_wahlomat, unquote


@pytest.fixture
def folder(fixtures_dir: Path) -> Path:
    return fixtures_dir / "sources" / "data" / "wahlomat" / "teststadt2099"


@pytest.fixture
def copy(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "teststadt2099"
    shutil.copytree(folder, target)
    return target


def _edit(folder: Path, name: str, change: Any) -> None:
    path = folder / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    result = change(data)
    path.write_text(json.dumps(data if result is None else result), encoding="utf-8")


def test_reads_the_fixture_folder(folder: Path) -> None:
    election = load_wahlomat(folder)
    assert (election.id, election.country, election.language, election.language_code) == (
        "teststadt2099",
        "de",
        "German",
        "de",
    )
    assert len(election.positions) == 9
    assert [p.id for p in election.parties()] == ["de_nord___süd", "de_blau", "de_rote_runde"]
    assert election.parties()[1].long_name == "Blaue Liste"
    statements = election.statements()
    assert [(s.number, s.id, s.theme) for s in statements] == [
        (1, "teststadt2099__s001", "Radwege"),
        (2, "teststadt2099__s002", "Nachtbus"),
        (3, "teststadt2099__s003", "Stadtbad"),
    ]
    first = election.positions[0]
    assert first.observation_id == "teststadt2099__de_nord___süd__s001"
    assert first.rationale == "Wir wollen sichere Radwege in jedem Viertel."


def test_stances_come_from_answer_json_not_fixed_ids(folder: Path, copy: Path) -> None:
    # the fixture numbers its answers 0=Neutral, 1=Disagree, 2=Agree (not the usual order)
    stances = [p.stance for p in load_wahlomat(folder).positions[:3]]
    assert stances == [Stance.AGREE, Stance.DISAGREE, Stance.NEUTRAL]

    _edit(copy, "answer", lambda answers: [{**a, "id": a["id"] + 10} for a in answers])
    _edit(copy, "opinion", lambda ops: [{**o, "answer": o["answer"] + 10} for o in ops])
    assert [p.stance for p in load_wahlomat(copy).positions[:3]] == stances


def test_rationales_unquoted_and_missing_ones_none(folder: Path) -> None:
    by_key = {(p.party.name, p.statement.number): p for p in load_wahlomat(folder).positions}
    assert by_key[("BLAU", 1)].rationale is None  # comment text '""'
    assert by_key[("BLAU", 3)].rationale is None  # comment id null
    assert by_key[("BLAU", 2)].rationale == 'Wir wollen, dass "Nachtschwärmer" sicher heimkommen.'
    assert sum(1 for p in by_key.values() if not p.has_rationale) == 2


def test_unquote_strips_one_pair_only() -> None:
    assert unquote('"a"') == "a"
    assert unquote('""') == ""
    assert unquote('"a "b""') == 'a "b"'
    assert unquote("plain") == "plain"


def test_election_id_override_and_fallback_to_folder_name(copy: Path) -> None:
    assert load_wahlomat(copy, election_id="x2099").positions[0].statement.id == "x2099__s001"
    _edit(copy, "overview", lambda o: o.__delitem__("slug"))
    assert load_wahlomat(copy).id == "teststadt2099"


def test_older_comment_records_with_plain_empty_text(copy: Path) -> None:
    # early elections in qual-o-mat-data store unquoted empty comments
    _edit(copy, "comment", lambda cs: [{**c, "text": ""} for c in cs])
    assert not any(p.has_rationale for p in load_wahlomat(copy).positions)


def _error(copy: Path) -> str:
    with pytest.raises(SourceError) as info:
        load_wahlomat(copy)
    return str(info.value)


@pytest.mark.parametrize("name", WAHLOMAT_FILES)
def test_missing_file(copy: Path, name: str) -> None:
    (copy / f"{name}.json").unlink()
    message = _error(copy)
    assert f"{name}.json" in message and "file not found" in message


def test_invalid_json(copy: Path) -> None:
    (copy / "opinion.json").write_text('[{"id": 0,', encoding="utf-8")
    message = _error(copy)
    assert "opinion.json" in message and "invalid JSON at line 1" in message


def test_undecodable_encoding(copy: Path) -> None:
    (copy / "comment.json").write_bytes('[{"id":0, "text":"\\"Straße\\""}]'.encode("latin-1"))
    message = _error(copy)
    assert "comment.json" in message and "not valid UTF-8" in message


def test_wrong_schema_names_record_and_field(copy: Path) -> None:
    _edit(copy, "party", lambda ps: ps[1].update(id="1"))
    message = _error(copy)
    assert "party.json" in message and "record 2" in message and "field 'id'" in message


def test_not_a_list(copy: Path) -> None:
    _edit(copy, "statement", lambda _: {"id": 0})
    assert "expected a JSON list" in _error(copy)


def test_unknown_stance_message(copy: Path) -> None:
    _edit(copy, "answer", lambda answers: answers[2].update(message="Stimme eher zu"))
    message = _error(copy)
    assert "answer.json" in message and "record 3 (id 2)" in message
    assert "field 'message'" in message and "Stimme eher zu" in message


@pytest.mark.parametrize("name", ["party", "statement", "answer", "comment"])
def test_duplicate_ids(copy: Path, name: str) -> None:
    _edit(copy, name, lambda items: items.append({**items[0]}))
    message = _error(copy)
    assert f"{name}.json" in message and "duplicate id 0" in message


def test_duplicate_party_names_give_duplicate_party_ids(copy: Path) -> None:
    _edit(copy, "party", lambda ps: ps[2].update(name="Blau"))
    message = _error(copy)
    assert "party.json" in message and "de_blau" in message


def test_party_answering_a_statement_twice(copy: Path) -> None:
    _edit(copy, "opinion", lambda ops: ops.append({**ops[4], "id": 99}))
    message = _error(copy)
    assert "opinion.json" in message and "record 10 (id 99)" in message
    assert "answers statement 2 twice" in message and "BLAU" in message


def test_unknown_reference(copy: Path) -> None:
    _edit(copy, "opinion", lambda ops: ops[0].update(party=7))
    message = _error(copy)
    assert (
        "opinion.json" in message and "field 'party'" in message and "unknown party id 7" in message
    )


def test_empty_statement_text(copy: Path) -> None:
    _edit(copy, "statement", lambda sts: sts[1].update(text="  "))
    message = _error(copy)
    assert "statement.json" in message and "record 2 (id 1)" in message
    assert "field 'text'" in message and "empty statement text" in message


def test_real_bundestagswahl_2025(shared_dir: Path) -> None:
    folder = shared_dir / "data" / "wahlomat" / "bundestagswahl2025"
    raw = {name: json.loads((folder / f"{name}.json").read_text()) for name in WAHLOMAT_FILES}
    election = load_wahlomat(folder)
    assert election.id == raw["overview"]["slug"] == "bundestagswahl2025"
    assert len(election.positions) == len(raw["opinion"])
    assert len(election.parties()) == len(raw["party"])
    assert len(election.statements()) == len(raw["statement"])
    # the release's party ids
    ids = {p.name: p.id for p in election.parties()}
    assert ids["CDU / CSU"] == "de_cdu___csu" and ids["GRÜNE"] == "de_grüne"
    # stance counts agree with the raw answer ids mapped through answer.json
    messages = {a["id"]: a["message"] for a in raw["answer"]}
    expected = Counter(messages[o["answer"]] for o in raw["opinion"])
    got = Counter(p.stance for p in election.positions)
    assert got[Stance.AGREE] == expected["Stimme zu"]
    assert got[Stance.DISAGREE] == expected["Stimme nicht zu"]
    assert got[Stance.NEUTRAL] == expected["Neutral"]
    # rationales are the comment texts without their wrapping quotes; '""' is missing
    comments = {c["id"]: c["text"] for c in raw["comment"]}
    expected_rationales = [comments[o["comment"]][1:-1].strip() or None for o in raw["opinion"]]
    assert [p.rationale for p in election.positions] == expected_rationales


def test_a_control_character_in_a_comment_names_the_record(copy: Path) -> None:
    _edit(copy, "comment", lambda data: data[0].update(text='"Radwege\u0000 sofort."'))
    with pytest.raises(SourceError, match=r"comment.json: .*'text'.*U\+0000"):
        load_wahlomat(copy)


@pytest.mark.parametrize("slug", ["../../x", "x" * 65])
def test_an_unsafe_slug_is_rejected(copy: Path, slug: str) -> None:
    _edit(copy, "overview", lambda data: data.update(slug=slug))
    with pytest.raises(SourceError, match="slug.*not usable as an election id"):
        load_wahlomat(copy)


def test_an_unsafe_folder_name_is_rejected(folder: Path, tmp_path: Path) -> None:
    target = tmp_path / ("y" * 80)
    shutil.copytree(folder, target)
    _edit(target, "overview", lambda data: data.pop("slug") and None)
    with pytest.raises(SourceError, match="not usable as an election id"):
        load_wahlomat(target)
