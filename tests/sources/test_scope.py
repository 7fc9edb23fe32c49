"""Party scopes: presets, aliases, anonymised labels, the missing-rationale split, paper Table 5."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.records import Election, Party, Position, Stance, Statement
from polistemics.sources.errors import SourceError
from polistemics.sources.load import load_election
from polistemics.sources.scope import (
    Scope,
    ScopeParty,
    apply_scope,
    letters,
    load_scope,
    preset_names,
)
from polistemics.sources.stemwijzer import load_stemwijzer
from polistemics.sources.wahlomat import load_wahlomat


@pytest.fixture
def teststadt(fixtures_dir: Path) -> Election:
    return load_wahlomat(fixtures_dir / "sources" / "data" / "wahlomat" / "teststadt2099")


def _election(names: list[str], country: str = "de") -> Election:
    """One position per party name, each with a rationale."""
    statement = Statement(id="e__s001", number=1, text="A statement.")
    positions = [
        Position(
            election_id="e",
            country=country,
            language="German",
            party=Party(id=f"{country}_{i}", name=name),
            statement=statement,
            stance=Stance.AGREE,
            rationale="We agree.",
        )
        for i, name in enumerate(names)
    ]
    return Election(
        id="e", country=country, language="German", language_code="de", positions=positions
    )


def test_presets_exist_and_load() -> None:
    assert {"de-btw2025", "nl-tk2025", "demo"} <= set(preset_names())
    assert len(load_scope("de-btw2025").parties) == 7
    assert len(load_scope("nl-tk2025").parties) == 8
    assert len(load_scope("demo").parties) == 4


def test_scope_file_with_alias(teststadt: Election, fixtures_dir: Path) -> None:
    scope = load_scope(str(fixtures_dir / "sources" / "scopes" / "teststadt.toml"))
    scoped = apply_scope(teststadt, scope)
    # "Nord/Sued" reaches "Nord / Süd" only through its alias; "Blaue Liste" is BLAU's long name
    assert [p.name for p in scoped.parties] == ["BLAU", "Nord / Süd"]
    assert [p.anonymized_label for p in scoped.parties] == ["Party A", "Party B"]
    assert scoped.counts == {
        "positions": 9,
        "in_scope_positions": 6,
        "excluded_missing_rationale": 2,
        "observations": 4,
    }
    assert {p.party.name for p in scoped.excluded_missing_rationale} == {"BLAU"}
    assert scoped.observations_per_party() == {"BLAU": 1, "Nord / Süd": 3}
    # labels travel with the positions, also inside the returned election
    assert {p.party.anonymized_label for p in scoped.observations} == {"Party A", "Party B"}
    labels = {p.party.name: p.party.anonymized_label for p in scoped.election.positions}
    assert labels == {"Nord / Süd": "Party B", "BLAU": "Party A", "Rote Runde": ""}


def test_no_scope_means_every_party(teststadt: Election) -> None:
    scoped = apply_scope(teststadt, None)
    assert scoped.scope_name is None
    assert [(p.name, p.anonymized_label) for p in scoped.parties] == [
        ("BLAU", "Party A"),
        ("Nord / Süd", "Party B"),
        ("Rote Runde", "Party C"),
    ]
    assert scoped.counts["in_scope_positions"] == 9
    assert len(scoped.observations) + len(scoped.excluded_missing_rationale) == 9


def test_german_preset_matches_wahlomat_spellings() -> None:
    names = ["SPD", "CDU / CSU", "GRÜNE", "FDP", "AfD", "Die Linke", "BSW", "Volt", "WerteUnion"]
    scoped = apply_scope(_election(names), load_scope("de-btw2025"))
    assert sorted(p.name for p in scoped.parties) == sorted(names[:7])


def test_dutch_preset_matches_stemwijzer_spellings() -> None:
    names = ["GroenLinks-PvdA", "D66", "CDA", "SP", "PVV", "VVD", "BBB", "JA21", "SGP", "NSC"]
    scoped = apply_scope(_election(names, "nl"), load_scope("nl-tk2025"))
    assert sorted(p.name for p in scoped.parties) == sorted(names[:8])


def test_unknown_scope_party_is_named() -> None:
    election = _election(["SPD", "CDU / CSU", "GRÜNE", "FDP", "AfD", "Die Linke"])
    with pytest.raises(SourceError) as info:
        apply_scope(election, load_scope("de-btw2025"))
    assert "scope party 'BSW'" in str(info.value) and "matches no party" in str(info.value)


def test_ambiguous_and_doubly_claimed_matches() -> None:
    election = _election(["Blau", "Rot"])
    two_hits = Scope(name="x", parties=(ScopeParty(name="Blau", aliases=("Rot",)),))
    with pytest.raises(SourceError, match="matches several parties"):
        apply_scope(election, two_hits)
    same_party = Scope(name="x", parties=(ScopeParty(name="Blau"), ScopeParty(name="BLAU")))
    with pytest.raises(SourceError, match="both match party 'Blau'"):
        apply_scope(election, same_party)


def test_labels_sorted_by_display_name_and_beyond_z() -> None:
    scoped = apply_scope(_election(["zeta", "Alpha", "beta"]), None)
    assert [(p.name, p.anonymized_label) for p in scoped.parties] == [
        ("Alpha", "Party A"),
        ("beta", "Party B"),
        ("zeta", "Party C"),
    ]
    assert [letters(i) for i in (0, 25, 26, 27, 51, 52, 701, 702)] == [
        "A", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA",
    ]  # fmt: skip


def test_bad_scope_references(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="unknown scope 'de-btw2021'.*presets: "):
        load_scope("de-btw2021")
    with pytest.raises(SourceError, match="scope file not found"):
        load_scope(str(tmp_path / "missing.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[[parties]]\nnaam = "SPD"\n', encoding="utf-8")
    with pytest.raises(SourceError) as info:
        load_scope(str(bad))
    assert "bad.toml" in str(info.value) and "parties[0]" in str(info.value)
    bad.write_text("name = ", encoding="utf-8")
    with pytest.raises(SourceError, match="invalid TOML"):
        load_scope(str(bad))
    bad.write_text('name = "x"\nparties = []\n', encoding="utf-8")
    with pytest.raises(SourceError, match="field 'parties'"):
        load_scope(str(bad))


def test_demo_scope_fits_both_demo_languages() -> None:
    for spec in ("demo:en", "demo:de"):
        scoped = apply_scope(load_election(spec), load_scope("demo"))
        assert len(scoped.parties) == 4 and scoped.counts["observations"] == 30


def test_paper_table_5(shared_dir: Path) -> None:
    """App. D, Table 5: 506 candidates, 21 excluded (all German BSW), 245 DE / 240 NL observations."""
    de = apply_scope(
        load_wahlomat(shared_dir / "data" / "wahlomat" / "bundestagswahl2025"),
        load_scope("de-btw2025"),
    )
    nl = apply_scope(
        load_stemwijzer(
            shared_dir / "data" / "stemwijzer" / "tweedekamer2025" / "tweedekamer2025.json",
            election_id="nl_tk2025",
        ),
        load_scope("nl-tk2025"),
    )
    assert len(de.in_scope_positions) == 266
    assert len(de.excluded_missing_rationale) == 21
    assert {p.party.name for p in de.excluded_missing_rationale} == {"BSW"}
    assert len(de.observations) == 245
    assert len(nl.observations) == 240 and not nl.excluded_missing_rationale
    assert len(de.in_scope_positions) + len(nl.in_scope_positions) == 506
    assert de.observations_per_party()["BSW"] == 17  # paper footnote 5: 17 of 38 statements
