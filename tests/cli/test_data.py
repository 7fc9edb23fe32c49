"""``polistemics data inspect`` and ``polistemics data fetch`` through the real CLI app."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.sources.datadir import ENV_VAR

runner = CliRunner()


def _inspect_json(*args: str) -> dict:
    result = runner.invoke(app, ["data", "inspect", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def fixture_data(fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = fixtures_dir / "sources" / "data"
    monkeypatch.setenv(ENV_VAR, str(root))
    return root


def test_inspect_demo_json() -> None:
    summary = _inspect_json("demo")
    assert summary == {
        "election": "demo_en",
        "scope": None,
        "positions": 32,
        "in_scope_positions": 32,
        "excluded_missing_rationale": 2,
        "observations": 30,
        "per_party": {
            "Harbour Party": 7,
            "Highland Alliance": 7,
            "Lantern Movement": 8,
            "Riverside Union": 8,
        },
    }


def test_inspect_with_scope_file_and_election_id(fixture_data: Path, fixtures_dir: Path) -> None:
    scope = fixtures_dir / "sources" / "scopes" / "teststadt.toml"
    summary = _inspect_json("wahlomat:teststadt2099", "--scope", str(scope), "--election-id", "t99")
    assert summary["election"] == "t99" and summary["scope"] == "teststadt"
    assert (summary["positions"], summary["in_scope_positions"]) == (9, 6)
    assert (summary["excluded_missing_rationale"], summary["observations"]) == (2, 4)
    assert summary["per_party"] == {"BLAU": 1, "Nord / Süd": 3}


def test_inspect_table(fixture_data: Path) -> None:
    result = runner.invoke(app, ["data", "inspect", "stemwijzer:gm9999"])
    assert result.exit_code == 0, result.output
    for text in ("Party A", "Party B", "Dorpspartij", "Lokaal Belang", "in scope", "Dutch (nl)"):
        assert text in result.stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["vote:x"], "unknown source kind 'vote'"),
        (["wahlomat:nowhere2099"], "nowhere2099"),
        (["demo", "--scope", "de-btw2021"], "unknown scope 'de-btw2021'"),
        (["demo", "--scope", "de-btw2025"], "scope party 'CDU/CSU'"),
    ],
)
def test_inspect_errors(fixture_data: Path, args: list[str], expected: str) -> None:
    result = runner.invoke(app, ["data", "inspect", *args])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and expected in result.stderr
    assert result.stderr.count("\n") == 1 and not result.stdout


def test_paper_table_5(shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(shared_dir / "data"))
    de = _inspect_json("wahlomat:bundestagswahl2025", "--scope", "de-btw2025")
    nl = _inspect_json("stemwijzer:tweedekamer2025", "--scope", "nl-tk2025")
    assert (de["in_scope_positions"], de["excluded_missing_rationale"], de["observations"]) == (
        266,
        21,
        245,
    )
    assert de["per_party"]["BSW"] == 17 and len(de["per_party"]) == 7
    assert (nl["in_scope_positions"], nl["excluded_missing_rationale"], nl["observations"]) == (
        240,
        0,
        240,
    )
    assert len(nl["per_party"]) == 8


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def qom_server(fixtures_dir: Path, tmp_path: Path) -> Iterator[str]:
    tree = tmp_path / "served"
    shutil.copytree(
        fixtures_dir / "sources" / "data" / "wahlomat" / "teststadt2099",
        tree / "2099" / "teststadt",
    )
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(tree))
    )
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_fetch_then_inspect(
    qom_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "data"))
    result = runner.invoke(
        app, ["data", "fetch", "wahlomat", "2099/teststadt", "--base-url", qom_server]
    )
    assert result.exit_code == 0, result.output
    target = tmp_path / "data" / "wahlomat" / "teststadt2099"
    assert str(target) in result.stdout and "wahlomat:teststadt2099" in result.stdout
    assert _inspect_json("wahlomat:teststadt2099")["positions"] == 9


def test_fetch_errors(qom_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "data"))
    result = runner.invoke(
        app, ["data", "fetch", "wahlomat", "2099/nirgendwo", "--base-url", qom_server]
    )
    assert result.exit_code == 2 and "error: not found (HTTP 404)" in result.stderr
    result = runner.invoke(app, ["data", "fetch", "stemwijzer", "2025/tk"])
    assert result.exit_code == 2 and "only 'wahlomat' can be fetched" in result.stderr


def test_fetch_an_over_long_region_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "data"))
    result = runner.invoke(
        app, ["data", "fetch", "wahlomat", "2099/" + "a" * 300, "--base-url", "http://127.0.0.1:9"]
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "at most 59 characters" in result.stderr
    assert result.stderr.count("\n") == 1


def test_fetch_an_undecodable_download_names_the_url(
    qom_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = tmp_path / "served" / "2099" / "teststadt" / "comment.json"
    served.write_text('[{"id": 0, "text": "\\"Rad\\u0000wege\\""}]', encoding="utf-8")
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "data"))
    result = runner.invoke(
        app, ["data", "fetch", "wahlomat", "2099/teststadt", "--base-url", qom_server]
    )
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert f"{qom_server}/2099/teststadt/comment.json" in result.stderr
    assert "U+0000" in result.stderr and ".fetch-" not in result.stderr


def test_inspect_a_nul_byte_is_one_line(tmp_path: Path, fixtures_dir: Path) -> None:
    source = fixtures_dir / "sources" / "data" / "generic" / "mini.csv"
    lines = source.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace("pistes sûres", "pistes\x00 sûres")
    path = tmp_path / "nul.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["data", "inspect", f"generic:{path}"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "nul.csv: row 1: field 'rationale'" in result.stderr and "U+0000" in result.stderr


def test_inspect_an_unsafe_election_id_is_one_line() -> None:
    result = runner.invoke(app, ["data", "inspect", "demo", "--election-id", "../../x"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "'../../x' is not usable as an election id" in result.stderr


def test_list_shows_every_election_with_its_counts(fixture_data: Path) -> None:
    result = runner.invoke(app, ["data", "list", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["data_dir"] == str(fixture_data)
    rows = {row["source"]: row for row in payload["elections"]}
    assert {"demo:en", "demo:de", "wahlomat:teststadt2099", "stemwijzer:gm9999"} <= set(rows)
    row = rows["wahlomat:teststadt2099"]
    inspected = _inspect_json("wahlomat:teststadt2099")
    assert row["election"] == inspected["election"] == "teststadt2099"
    assert row["positions"] == inspected["positions"]
    assert row["observations"] == inspected["observations"]
    assert row["parties"] == len(inspected["per_party"])


def test_list_as_a_table_names_the_next_command(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "empty"))
    result = runner.invoke(app, ["data", "list"])
    assert result.exit_code == 0, result.output
    assert "demo:en" in result.stdout and "demo_de" in result.stdout
    assert "polistemics data fetch wahlomat <year>/<region>" in result.stdout
    assert "polistemics new SOURCE" in result.stdout
