"""Every election at hand: the demo and the data directory, counted, broken folders listed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from polistemics.sources.catalog import ElectionCounts, election_specs, list_elections
from polistemics.sources.datadir import ENV_VAR
from polistemics.sources.load import load_election


@pytest.fixture
def data(fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture data directory, plus qual-o-mat-data's <year>/<region> layout, a broken
    folder, and a staging folder of an unfinished fetch."""
    root = tmp_path / "data"
    shutil.copytree(fixtures_dir / "sources" / "data", root)
    shutil.copytree(root / "wahlomat" / "teststadt2099", root / "wahlomat" / "2098" / "teststadt")
    broken = root / "wahlomat" / "broken2099"
    broken.mkdir()
    (broken / "overview.json").write_text("{", encoding="utf-8")
    shutil.copytree(root / "wahlomat" / "teststadt2099", root / "wahlomat" / ".fetch-abc")
    monkeypatch.setenv(ENV_VAR, str(root))
    return root


def test_specs_cover_the_demo_and_every_layout(data: Path) -> None:
    assert election_specs() == [
        "demo:en",
        "demo:de",
        "wahlomat:2098/teststadt",
        "wahlomat:broken2099",
        "wahlomat:teststadt2099",
        "stemwijzer:gm9999",
        "stemwijzer:tk2099",
        "generic:mini.csv",
        "generic:mini.jsonl",
    ]


def test_an_empty_data_directory_lists_the_demo(tmp_path: Path) -> None:
    assert election_specs(tmp_path / "absent") == ["demo:en", "demo:de"]


def test_counts_match_the_loaded_elections_and_errors_are_listed(data: Path) -> None:
    listed = {entry.spec: entry for entry in list_elections()}
    broken = listed.pop("wahlomat:broken2099")
    assert broken.counts is None and "invalid JSON" in broken.error
    for spec, entry in listed.items():
        election = load_election(spec)
        positions = election.positions
        assert entry.error is None and entry.election_id == election.id
        assert entry.counts == ElectionCounts(
            statements=len(election.statements()),
            parties=len(election.parties()),
            positions=len(positions),
            observations=len([p for p in positions if p.rationale]),
        )
    # the fixtures have answers without a rationale: observations are fewer than positions
    assert listed["wahlomat:teststadt2099"].counts.observations < len(
        load_election("wahlomat:teststadt2099").positions
    )
