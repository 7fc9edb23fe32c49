"""``polistemics new SOURCE``, then ``polistemics run FILE --dry-run``, through the real CLI app.

Every fixture election (Wahl-O-Mat, StemWijzer in both layouts, the generic format, the demo)
is written as a study and planned offline: the OpenRouter list is unreachable, so the plan's
costs come from the price snapshot shipped with the package.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.run.config import load_config
from polistemics.run.study_file import DEFAULT_MIN_RATIONALE_SHARE
from polistemics.sources.catalog import election_specs
from polistemics.sources.datadir import ENV_VAR
from polistemics.sources.load import load_election

runner = CliRunner()


@pytest.fixture
def offline(fixtures_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ENV_VAR, str(fixtures_dir / "sources" / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # port 9 (discard): nothing answers, as when offline
    monkeypatch.setenv("POLISTEMICS_OPENROUTER_BASE_URL", "http://127.0.0.1:9/api/v1")
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def new(*args: str):
    return runner.invoke(app, ["new", *args])


def dry_run(config: Path) -> dict:
    result = runner.invoke(app, ["run", str(config), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


FIXTURE_SPECS = [
    "wahlomat:teststadt2099",
    "wahlomat:2099/teststadt",  # qual-o-mat-data's name for the fetched folder teststadt2099
    "stemwijzer:gm9999",  # StemWijzer's own JSON
    "stemwijzer:tk2099",  # the scraped list
    "generic:mini.csv",
    "demo:de",
]


@pytest.mark.parametrize("spec", FIXTURE_SPECS)
def test_new_then_dry_run_works_for_every_source(offline: Path, spec: str) -> None:
    target = offline / "study.toml"
    result = new(spec, "--out", str(target))
    assert result.exit_code == 0, result.output
    assert f"next: polistemics run {target} --dry-run" in result.stdout

    election = load_election(spec)
    statements = len(election.statements())
    kept = {
        party.name
        for party in election.parties()
        if sum(1 for p in election.positions if p.party.id == party.id and p.has_rationale)
        >= DEFAULT_MIN_RATIONALE_SHARE * statements
    }
    config = load_config(target)
    assert config.name == election.id
    assert set(config.elections[0].parties) == kept
    # the plan asks about the kept parties' observations only
    plan = dry_run(target)
    observations = sum(1 for p in election.positions if p.party.name in kept and p.has_rationale)
    assert plan["details"]["elections"][election.id]["observations"] == observations
    # offline, every paper model is priced from the packaged snapshot
    rows = plan["stages"]
    assert rows and all(row["price_source"].startswith("price snapshot of ") for row in rows)
    assert all(row["cost"] is not None and row["cost"] > 0 for row in rows)
    assert "days old" in plan["prices_note"]


def test_every_fixture_election_of_the_data_directory_is_covered(offline: Path) -> None:
    listed = {spec for spec in election_specs() if not spec.startswith("demo:")}
    assert listed - {"generic:mini.jsonl"} <= set(FIXTURE_SPECS)


def test_the_file_lists_every_party_with_its_counts_and_comments_out_the_rest(
    offline: Path,
) -> None:
    assert new("wahlomat:teststadt2099").exit_code == 0
    text = (offline / "teststadt2099.toml").read_text(encoding="utf-8")  # the default name
    election = load_election("wahlomat:teststadt2099")
    parties = tomllib.loads(text)["elections"][0]["parties"]
    for party in election.parties():
        own = [p for p in election.positions if p.party.id == party.id]
        observed = sum(1 for p in own if p.has_rationale)
        line = next(line for line in text.splitlines() if f'"{party.name}",' in line)
        assert f"# {observed} observations ({len(own)} answers" in line
        assert line.lstrip().startswith("#") == (party.name not in parties)
    assert len(parties) < len(election.parties())  # the fixture has a party with few rationales
    # every key set in the file has a comment line right above it
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if "=" in line and not line.startswith(("#", " ")):
            assert lines[index - 1].startswith("#"), line


def test_min_rationales_zero_keeps_every_party_with_a_rationale(offline: Path) -> None:
    assert new("wahlomat:teststadt2099", "--min-rationales", "0").exit_code == 0
    config = load_config(offline / "teststadt2099.toml")
    election = load_election("wahlomat:teststadt2099")
    assert set(config.elections[0].parties) == {p.name for p in election.parties()}


def test_local_models_and_overrides(offline: Path) -> None:
    result = new(
        "demo:en",
        "--models",
        "local",
        "--name",
        "trial",
        "--election-id",
        "veltria",
        "-o",
        "t.toml",
    )
    assert result.exit_code == 0, result.output
    config = load_config(offline / "t.toml")
    demo = load_config("demo")
    assert (config.name, config.elections[0].id) == ("trial", "veltria")
    assert (config.targets, config.judges) == (demo.targets, demo.judges)
    assert config.ablations == [] and config.overlap_judging is False
    assert new("demo:en", "--models", "cloud").exit_code == 2


def test_refuses_to_overwrite_without_force(offline: Path) -> None:
    target = offline / "study.toml"
    target.write_text("keep me", encoding="utf-8")
    result = new("demo", "--out", str(target))
    assert result.exit_code == 2 and "exists; pass --force" in result.stderr
    assert target.read_text(encoding="utf-8") == "keep me"
    assert new("demo", "--out", str(target), "--force").exit_code == 0
    assert load_config(target).name == "demo_en"
    folder = offline / "folder.toml"
    folder.mkdir()
    assert new("demo", "--out", str(folder), "--force").exit_code == 2


def test_a_symlink_is_replaced_not_written_through(offline: Path) -> None:
    victim = offline / "victim.txt"
    victim.write_text("untouched", encoding="utf-8")
    link = offline / "study.toml"
    link.symlink_to(victim)
    assert new("demo", "--out", str(link)).exit_code == 2
    assert new("demo", "--out", str(link), "--force").exit_code == 0
    assert victim.read_text(encoding="utf-8") == "untouched"
    assert not link.is_symlink() and load_config(link).name == "demo_en"


def test_a_relative_path_source_is_written_as_an_absolute_one(
    offline: Path, fixtures_dir: Path
) -> None:
    folder = offline / "mine"
    folder.mkdir()
    csv = folder / "mini.csv"
    csv.write_bytes((fixtures_dir / "sources" / "data" / "generic" / "mini.csv").read_bytes())
    assert new("generic:mine/mini.csv", "-o", "s.toml").exit_code == 0
    config = load_config(offline / "s.toml")
    assert config.elections[0].source == f"generic:{csv.resolve()}"


def test_hostile_names_stay_inside_their_strings(offline: Path) -> None:
    """A party name with quotes, brackets, a '#' and a line break cannot add TOML keys."""
    name = 'Evil "] \\ # name\nnew_key = 1'
    rows = [
        {
            "election_id": "evil2099",
            "country": "xx",
            "language": "English",
            "party_name": party,
            "statement_number": number,
            "statement_text": f"Statement {number}",
            "stance": "agree",
            "rationale": "Because.",
        }
        for party in (name, "Plain")
        for number in (1, 2)
    ]
    source = offline / "evil.jsonl"
    source.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    assert new(f"generic:{source}", "-o", "evil.toml").exit_code == 0
    data = tomllib.loads((offline / "evil.toml").read_text(encoding="utf-8"))
    assert "new_key" not in data and "new_key" not in data["elections"][0]
    assert set(data["elections"][0]["parties"]) == {
        p.name for p in load_election(f"generic:{source}").parties()
    }
    assert dry_run(offline / "evil.toml")["details"]["elections"]["evil2099"]["observations"] == 4


def test_a_missing_election_names_the_fetch_command(offline: Path) -> None:
    result = new("wahlomat:2024/europa")
    assert result.exit_code == 2
    assert "`polistemics data fetch wahlomat 2024/europa`" in result.stderr


def test_dry_run_of_a_preset_without_data_names_the_fetch_command(
    offline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "empty"))
    result = runner.invoke(app, ["run", "paper-de", "--dry-run"])
    assert result.exit_code == 2
    assert "`polistemics data fetch wahlomat 2025/deutschland`" in result.stderr


def test_a_name_cannot_lead_the_default_file_out_of_the_folder(offline: Path) -> None:
    result = new("demo", "--name", "../escape")
    assert result.exit_code == 2 and "not usable as a folder name" in result.stderr
    assert not (offline.parent / "escape.toml").exists()
    assert sorted(p.name for p in offline.iterdir() if p.suffix == ".toml") == []


@pytest.mark.parametrize("spec", ["wahlomat:bundestagswahl2025", "stemwijzer:tweedekamer2025"])
def test_new_then_dry_run_on_the_real_elections(
    offline: Path, shared_dir: Path, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    monkeypatch.setenv(ENV_VAR, str(shared_dir / "data"))
    assert new(spec, "-o", "real.toml").exit_code == 0
    election = load_election(spec)
    config = load_config(offline / "real.toml")
    kept = set(config.elections[0].parties)
    plan = dry_run(offline / "real.toml")
    observations = sum(1 for p in election.positions if p.party.name in kept and p.has_rationale)
    assert plan["details"]["elections"][election.id]["observations"] == observations > 0
    assert all(row["cost"] is not None for row in plan["stages"])
