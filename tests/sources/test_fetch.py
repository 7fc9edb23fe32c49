"""Fetching Wahl-O-Mat folders, against a local HTTP server (the tests have no internet)."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from polistemics.sources.datadir import ENV_VAR
from polistemics.sources.errors import FetchError
from polistemics.sources.fetch import QOM_URL_ENV, fetch_wahlomat, qom_base_url
from polistemics.sources.wahlomat import WAHLOMAT_FILES, load_wahlomat


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def served(fixtures_dir: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A qual-o-mat-data-like tree (<year>/<region>/*.json) served on 127.0.0.1."""
    tree = tmp_path / "served"
    shutil.copytree(
        fixtures_dir / "sources" / "data" / "wahlomat" / "teststadt2099",
        tree / "2099" / "teststadt",
    )
    handler = functools.partial(_QuietHandler, directory=str(tree))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", tree
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "data"


def test_fetch_writes_the_election_under_its_slug(served: tuple[str, Path], root: Path) -> None:
    url, tree = served
    result = fetch_wahlomat("2099/teststadt", base_url=url, root=root)
    assert result.election_id == "teststadt2099"
    assert result.path == root / "wahlomat" / "teststadt2099"
    assert not result.replaced
    assert sorted(p.name for p in result.path.iterdir()) == sorted(
        f"{n}.json" for n in WAHLOMAT_FILES
    )
    assert (
        load_wahlomat(result.path).positions == load_wahlomat(tree / "2099" / "teststadt").positions
    )
    assert result.positions == 9
    assert [p.name for p in (root / "wahlomat").iterdir()] == ["teststadt2099"]  # no temp leftovers


def test_refetch_replaces(served: tuple[str, Path], root: Path) -> None:
    url, tree = served
    fetch_wahlomat("2099/teststadt", base_url=url, root=root)
    opinions = tree / "2099" / "teststadt" / "opinion.json"
    data = json.loads(opinions.read_text(encoding="utf-8"))
    opinions.write_text(json.dumps(data[:3]), encoding="utf-8")
    result = fetch_wahlomat("2099/teststadt", base_url=url, root=root)
    assert result.replaced and result.positions == 3
    assert [p.name for p in (root / "wahlomat").iterdir()] == ["teststadt2099"]


def test_404_is_a_clear_error_and_writes_nothing(served: tuple[str, Path], root: Path) -> None:
    url, _ = served
    with pytest.raises(FetchError) as info:
        fetch_wahlomat("2099/nirgendwo", base_url=url, root=root)
    message = str(info.value)
    assert "HTTP 404" in message and f"{url}/2099/nirgendwo/overview.json" in message
    assert list((root / "wahlomat").iterdir()) == []


def test_invalid_download_is_rejected(served: tuple[str, Path], root: Path) -> None:
    url, tree = served
    (tree / "2099" / "teststadt" / "answer.json").write_text(
        '[{"id": 0, "message": "Vielleicht"}, {"id": 1, "message": "Stimme zu"}, '
        '{"id": 2, "message": "Neutral"}]',
        encoding="utf-8",
    )
    with pytest.raises(FetchError, match="do not load: .*answer.json.*Vielleicht"):
        fetch_wahlomat("2099/teststadt", base_url=url, root=root)
    assert list((root / "wahlomat").iterdir()) == []


def test_base_url_and_data_dir_from_environment(
    served: tuple[str, Path], root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = served
    monkeypatch.setenv(QOM_URL_ENV, url + "/")
    monkeypatch.setenv(ENV_VAR, str(root))
    assert qom_base_url() == url
    assert fetch_wahlomat("2099/teststadt").path == root / "wahlomat" / "teststadt2099"
    monkeypatch.delenv(QOM_URL_ENV)
    assert qom_base_url().startswith(
        "https://raw.githubusercontent.com/gockelhahn/qual-o-mat-data/"
    )


@pytest.mark.parametrize("election", ["2099", "teststadt/2099", "2099/../etc", "2099/Test Stadt"])
def test_election_must_be_year_and_region(election: str, root: Path) -> None:
    with pytest.raises(FetchError, match="<year>/<region>"):
        fetch_wahlomat(election, base_url="http://127.0.0.1:9", root=root)


def test_connection_failure(root: Path) -> None:
    # nothing listens on the discard port of localhost
    with pytest.raises(
        FetchError, match="could not download http://127.0.0.1:9/2099/x/overview.json"
    ):
        fetch_wahlomat("2099/x", base_url="http://127.0.0.1:9", root=root, timeout=2)
