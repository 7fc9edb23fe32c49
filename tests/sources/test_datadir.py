"""The data directory: platformdirs default, POLISTEMICS_DATA override, StemWijzer folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from platformdirs import user_data_dir

from polistemics.sources.datadir import ENV_VAR, data_dir, resolve, single_json
from polistemics.sources.errors import SourceError


def test_default_and_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert data_dir() == Path(user_data_dir("polistemics")) / "data"
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert data_dir() == tmp_path


def test_resolve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    election = tmp_path / "wahlomat" / "x2099"
    election.mkdir(parents=True)
    assert resolve("wahlomat", "x2099") == election
    folder = tmp_path / "stemwijzer" / "y2099"
    folder.mkdir(parents=True)
    (folder / "y2099.json").write_text("[]", encoding="utf-8")
    (folder / "index.json").write_text("[]", encoding="utf-8")
    assert resolve("stemwijzer", "y2099") == folder / "y2099.json"
    assert resolve("stemwijzer", "y2099/y2099.json") == folder / "y2099.json"
    with pytest.raises(SourceError, match="not found as a path nor in the data directory"):
        resolve("generic", "none.csv")


def test_single_json_needs_exactly_one(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="found none"):
        single_json(tmp_path)


def test_year_region_finds_the_folder_data_fetch_saved_under_its_slug(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    fetched = tmp_path / "wahlomat" / "bundestagswahl2099"
    fetched.mkdir(parents=True)
    assert resolve("wahlomat", "2099/deutschland") == fetched
    # qual-o-mat-data's own layout is found first when both exist
    checkout = tmp_path / "wahlomat" / "2099" / "deutschland"
    checkout.mkdir(parents=True)
    assert resolve("wahlomat", "2099/deutschland") == checkout


def test_a_missing_election_names_the_command_that_gets_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    with pytest.raises(SourceError) as slug:
        resolve("wahlomat", "bundestagswahl2025")
    assert "`polistemics data fetch wahlomat 2025/deutschland`" in str(slug.value)
    assert "`polistemics data list`" in str(slug.value)
    with pytest.raises(SourceError) as year_region:
        resolve("wahlomat", "2024/europa")
    assert "`polistemics data fetch wahlomat 2024/europa`" in str(year_region.value)
    with pytest.raises(SourceError) as unknown:
        resolve("wahlomat", "mine")
    assert "`polistemics data fetch wahlomat <year>/<region>`" in str(unknown.value)
    with pytest.raises(SourceError) as stemwijzer:
        resolve("stemwijzer", "tweedekamer2025")
    assert "nl-voting-data-scraper" in str(stemwijzer.value)
    assert str(tmp_path / "stemwijzer") in str(stemwijzer.value)
