"""StemWijzer: both JSON layouts from small fictional fixtures, bad input, the real data and release."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from polistemics.records import Stance
from polistemics.sources.errors import SourceError
from polistemics.sources.stemwijzer import load_stemwijzer


@pytest.fixture
def scraped(fixtures_dir: Path) -> Path:
    return fixtures_dir / "sources" / "data" / "stemwijzer" / "tk2099" / "tk2099.json"


@pytest.fixture
def native(fixtures_dir: Path) -> Path:
    return fixtures_dir / "sources" / "data" / "stemwijzer" / "gm9999" / "gm9999.json"


def _variant(source: Path, tmp_path: Path, change: Any) -> Path:
    data = json.loads(source.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / source.name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _error(path: Path) -> str:
    with pytest.raises(SourceError) as info:
        load_stemwijzer(path)
    return str(info.value)


# --- layout (a): the scraped list ---------------------------------------------------------


def test_scraped_layout(scraped: Path) -> None:
    election = load_stemwijzer(scraped)
    assert (election.id, election.country, election.language, election.language_code) == (
        "tk2099",
        "nl",
        "Dutch",
        "nl",
    )
    assert [p.id for p in election.parties()] == ["nl_groen-blauw", "nl_partij_noord", "nl_zuid21"]
    assert [(s.id, s.text, s.theme) for s in election.statements()] == [
        ("tk2099__s001", "Er moeten meer fietspaden komen.", "Fietspaden"),
        ("tk2099__s002", "De nachtbus moet elk uur rijden, ook in het weekend!", "Nachtbus"),
    ]
    stances = [(p.party.name, p.statement.number, p.stance) for p in election.positions]
    assert stances == [
        ("Groen-Blauw", 1, Stance.AGREE),
        ("Partij Noord", 1, Stance.DISAGREE),
        ("Zuid21", 1, Stance.NEUTRAL),
        ("Groen-Blauw", 2, Stance.DISAGREE),  # 'oneens' in lower case
        ("Partij Noord", 2, Stance.AGREE),  # 'EENS'
        ("Zuid21", 2, Stance.AGREE),
    ]
    assert election.positions[2].rationale is None  # empty explanation
    assert sum(p.has_rationale for p in election.positions) == 5


def test_election_id_parameter(scraped: Path) -> None:
    election = load_stemwijzer(scraped, election_id="nl_tk2099")
    assert election.id == "nl_tk2099"
    assert election.positions[0].observation_id == "nl_tk2099__nl_groen-blauw__s001"


def test_scraped_unknown_stance(scraped: Path, tmp_path: Path) -> None:
    path = _variant(scraped, tmp_path, lambda d: d[1]["positions"][2].update(position="Weet niet"))
    message = _error(path)
    assert "statement 2" in message and "field 'positions[2].position'" in message
    assert "Weet niet" in message


def test_scraped_party_answering_twice(scraped: Path, tmp_path: Path) -> None:
    path = _variant(scraped, tmp_path, lambda d: d[0]["positions"].append(d[0]["positions"][0]))
    message = _error(path)
    assert "statement 1" in message and "positions[3].party" in message and "twice" in message


def test_scraped_duplicate_statement(scraped: Path, tmp_path: Path) -> None:
    path = _variant(scraped, tmp_path, lambda d: d.append(d[0]))
    message = _error(path)
    assert "statement 3" in message and "duplicate statement" in message


def test_scraped_empty_title(scraped: Path, tmp_path: Path) -> None:
    path = _variant(scraped, tmp_path, lambda d: d[0].update(title=" "))
    message = _error(path)
    assert "statement 1" in message and "field 'title'" in message and "empty" in message


def test_scraped_wrong_schema(scraped: Path, tmp_path: Path) -> None:
    path = _variant(scraped, tmp_path, lambda d: d[1]["positions"][0].pop("party"))
    message = _error(path)
    assert (
        "statement 2" in message
        and "field 'positions[0].party'" in message
        and "missing" in message
    )


# --- layout (b): StemWijzer's own JSON ----------------------------------------------------


def test_native_layout(native: Path) -> None:
    election = load_stemwijzer(native)
    assert election.id == "gm9999"
    assert election.title == "Testdorp 2099GR"
    # ordered by 'index', not by list order; annotated titles joined; spaces before '.' dropped
    assert [(s.number, s.text, s.theme) for s in election.statements()] == [
        (1, "Er moet meer groen komen in het dorp.", "Groen"),
        (2, "Inwoners moeten hun mening kunnen geven via een referendum.", "Referendum"),
        (3, "Er moeten meer parkeerplaatsen komen bij de winkels.", "Parkeren"),
    ]
    parties = election.parties()
    assert [(p.id, p.long_name) for p in parties] == [
        ("nl_lokaal_belang", "Lokaal Belang Testdorp"),
        ("nl_dorpspartij", "Dorpspartij Testdorp"),
    ]
    by_key = {(p.party.name, p.statement.number): p for p in election.positions}
    assert len(by_key) == 6  # the shoot-out statement is not part of the election
    assert by_key[("Lokaal Belang", 2)].rationale == "Wij willen een referendum over grote plannen."
    assert by_key[("Lokaal Belang", 1)].rationale is None  # explanation: false
    assert by_key[("Lokaal Belang", 3)].rationale is None  # no explanation key
    assert by_key[("Lokaal Belang", 3)].stance is Stance.NEUTRAL
    assert by_key[("Dorpspartij", 1)].stance is Stance.AGREE  # 'Agree'


def test_native_unknown_stance(native: Path, tmp_path: Path) -> None:
    path = _variant(
        native, tmp_path, lambda d: d["parties"][1]["statements"][0].update(position="yes")
    )
    message = _error(path)
    assert "parties[1] (id 502)" in message and "field 'statements[0].position'" in message


def test_native_party_answering_twice(native: Path, tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["parties"][0]["statements"][2]["id"] = 12

    message = _error(_variant(native, tmp_path, change))
    assert "parties[0] (id 501)" in message and "statements[2].id" in message
    assert "answers statement id 12 twice" in message


def test_native_duplicate_ids(native: Path, tmp_path: Path) -> None:
    path = _variant(native, tmp_path, lambda d: d["parties"][1].update(id=501))
    assert "duplicate party id 501" in _error(path)
    path = _variant(native, tmp_path, lambda d: d["statements"][1].update(id=12))
    message = _error(path)
    assert "statements[1]" in message and "duplicate statement id 12" in message


def test_native_unknown_statement_reference(native: Path, tmp_path: Path) -> None:
    path = _variant(native, tmp_path, lambda d: d["parties"][0]["statements"][0].update(id=77))
    assert "unknown statement id 77" in _error(path)


def test_native_bad_title_and_explanation(native: Path, tmp_path: Path) -> None:
    path = _variant(native, tmp_path, lambda d: d["statements"][0]["title"].append(5))
    message = _error(path)
    assert "statements[0] (id 12)" in message and "field 'title[3]'" in message
    path = _variant(native, tmp_path, lambda d: d["statements"][1].update(title=["", " "]))
    assert "empty statement text" in _error(path)
    path = _variant(
        native, tmp_path, lambda d: d["parties"][1]["statements"][0].update(explanation=3)
    )
    assert "statements[0].explanation" in _error(path)


def test_unrecognised_layout_and_invalid_json(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"questions": []}', encoding="utf-8")
    assert "unrecognised StemWijzer layout" in _error(path)
    path.write_text("[", encoding="utf-8")
    assert "invalid JSON" in _error(path)
    path.write_bytes(b'[{"title": "caf\xe9"}]')
    assert "not valid UTF-8" in _error(path)
    assert "file not found" in _error(tmp_path / "missing.json")


# --- real data ----------------------------------------------------------------------------


def test_real_tweede_kamer_2025(shared_dir: Path, release_dir: Path) -> None:
    path = shared_dir / "data" / "stemwijzer" / "tweedekamer2025" / "tweedekamer2025.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    election = load_stemwijzer(path, election_id="nl_tk2025")
    assert len(election.positions) == sum(len(s["positions"]) for s in raw)
    assert not any(re.search(r"\s[.,;:?!]", s.text) for s in election.statements())

    # the authors' release uses the same observation ids and (up to spacing) statement texts
    release = [json.loads(line) for line in (release_dir / "ground_truth.jsonl").open()]
    release_ids = {row["observation_id"] for row in release}
    ours = {p.observation_id: p for p in election.positions}
    assert release_ids <= ours.keys()
    release_texts = {row["statement_id"]: row["statement_text"] for row in release}
    for statement in election.statements():
        assert " ".join(release_texts[statement.id].split()) == statement.text


def test_an_unsafe_file_stem_or_override_is_rejected(scraped: Path, tmp_path: Path) -> None:
    odd = tmp_path / "with space.json"
    odd.write_bytes(scraped.read_bytes())
    with pytest.raises(SourceError, match="'with space' is not usable as an election id"):
        load_stemwijzer(odd)
    with pytest.raises(SourceError, match="not usable as an election id"):
        load_stemwijzer(scraped, election_id="../x")
