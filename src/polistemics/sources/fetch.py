"""Download a Wahl-O-Mat election folder from the qual-o-mat-data repository into the data directory."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import httpx

from polistemics.sources.datadir import data_dir
from polistemics.sources.errors import FetchError, SourceError
from polistemics.sources.wahlomat import (
    SAFE_ID,
    WAHLOMAT_FILES,
    election_slug,
    file_path,
    load_wahlomat,
)

DEFAULT_QOM_URL = "https://raw.githubusercontent.com/gockelhahn/qual-o-mat-data/master/data"
QOM_URL_ENV = "POLISTEMICS_QOM_URL"
_ELECTION = re.compile(r"^(?P<year>\d{4})/(?P<region>[a-z0-9][a-z0-9_-]*)$")


@dataclass(frozen=True)
class FetchResult:
    election_id: str
    path: Path
    positions: int
    replaced: bool


def qom_base_url(base_url: str | None = None) -> str:
    """``base_url``, else ``$POLISTEMICS_QOM_URL``, else the GitHub raw files of qual-o-mat-data."""
    chosen = base_url or os.environ.get(QOM_URL_ENV, "").strip() or DEFAULT_QOM_URL
    return chosen.rstrip("/")


def fetch_wahlomat(
    election: str,
    *,
    base_url: str | None = None,
    root: Path | None = None,
    timeout: float = 30.0,
    transport: httpx.BaseTransport | None = None,
) -> FetchResult:
    """Fetch ``<year>/<region>`` (e.g. ``2025/deutschland``) into ``<root>/wahlomat/<slug>/``.

    The six files land in a temporary folder first, must load as an election, and only then
    replace any earlier copy in one rename.
    """
    match = _ELECTION.match(election.strip().strip("/"))
    if match is None:
        raise FetchError(
            f"expected an election as <year>/<region> (e.g. 2025/deutschland), got {election!r}"
        )
    year, region = match["year"], match["region"]
    base = qom_base_url(base_url)
    target_root = (root or data_dir()) / "wahlomat"
    target_root.mkdir(parents=True, exist_ok=True)

    staging = Path(tempfile.mkdtemp(prefix=".fetch-", dir=target_root))
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True, transport=transport) as client:
            for name in WAHLOMAT_FILES:
                url = f"{base}/{year}/{region}/{name}.json"
                file_path(staging, name).write_bytes(_download(client, url))
        slug = election_slug(staging) or f"{region}{year}"
        if not SAFE_ID.match(slug):
            raise FetchError(f"downloaded overview.json has an unusable slug {slug!r}")
        try:
            election_data = load_wahlomat(staging, election_id=slug)
        except SourceError as exc:
            raise FetchError(
                f"downloaded files from {base}/{year}/{region}/ do not load: {exc}"
            ) from None
        target = target_root / slug
        replaced = target.exists()
        _replace_dir(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return FetchResult(
        election_id=slug, path=target, positions=len(election_data.positions), replaced=replaced
    )


def _download(client: httpx.Client, url: str) -> bytes:
    try:
        response = client.get(url)
    except httpx.HTTPError as exc:
        raise FetchError(f"could not download {url}: {exc}") from None
    if response.status_code == 404:
        raise FetchError(
            f"not found (HTTP 404): {url}; check <year>/<region> against the "
            "qual-o-mat-data repository's data folder"
        )
    if response.status_code != 200:
        raise FetchError(f"HTTP {response.status_code} for {url}")
    return response.content


def _replace_dir(source: Path, target: Path) -> None:
    """Move ``source`` to ``target``; an existing ``target`` is swapped out, then removed."""
    if not target.exists():
        source.rename(target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".old-{target.name}-", dir=target.parent))
    old.rmdir()
    target.rename(old)
    try:
        source.rename(target)
    except OSError:
        old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)
