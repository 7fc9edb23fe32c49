"""Fetching Wahl-O-Mat folders, against a local HTTP server (the tests have no internet)."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
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
    with pytest.raises(FetchError, match="do not load: .*answer.json.*Vielleicht") as info:
        fetch_wahlomat("2099/teststadt", base_url=url, root=root)
    assert list((root / "wahlomat").iterdir()) == []
    # names the file the user can look at, not the temporary folder that is gone
    assert f"do not load: {url}/2099/teststadt/answer.json: " in str(info.value)
    assert ".fetch-" not in str(info.value)


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


@pytest.mark.parametrize("region", ["a" * 60, "a" * 300])
def test_an_over_long_region_is_refused_before_any_download(region: str, root: Path) -> None:
    with pytest.raises(FetchError, match="at most 59 characters"):
        fetch_wahlomat(f"2099/{region}", base_url="http://127.0.0.1:9", root=root)


def test_the_longest_region_makes_a_usable_folder(served: tuple[str, Path], root: Path) -> None:
    url, tree = served
    region = "r" * 59
    shutil.copytree(tree / "2099" / "teststadt", tree / "2099" / region)
    _edit_overview(tree / "2099" / region, slug=None)
    result = fetch_wahlomat(f"2099/{region}", base_url=url, root=root)
    assert result.path == root / "wahlomat" / f"{region}2099"


def _edit_overview(folder: Path, **changes: object) -> None:
    path = folder / "overview.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data), encoding="utf-8")


def test_a_file_over_the_size_limit_stops_the_download(
    served: tuple[str, Path], root: Path
) -> None:
    url, tree = served
    (tree / "2099" / "teststadt" / "opinion.json").write_bytes(b" " * 5000)
    with pytest.raises(FetchError, match=r"opinion.json is larger than 4,096 bytes"):
        fetch_wahlomat("2099/teststadt", base_url=url, root=root, max_file_bytes=4096)
    assert list((root / "wahlomat").iterdir()) == []


class _EndlessHandler(BaseHTTPRequestHandler):
    """Answers every GET with a body that never ends and declares no length."""

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.end_headers()
        chunk = b" " * 65536
        try:
            while True:
                self.wfile.write(chunk)
        except OSError:
            pass

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def test_an_endless_body_without_a_length_is_cut_off(root: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EndlessHandler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        with pytest.raises(FetchError, match="larger than 1,048,576 bytes"):
            fetch_wahlomat("2099/x", base_url=url, root=root, max_file_bytes=1 << 20)
    finally:
        server.shutdown()
        server.server_close()
    assert list((root / "wahlomat").iterdir()) == []
