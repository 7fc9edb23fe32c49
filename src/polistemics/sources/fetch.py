"""Download a Wahl-O-Mat election folder from the qual-o-mat-data repository into the data directory.

Each file streams to disk and stops at ``MAX_FILE_BYTES`` (the real files are under 1 MB), so a
huge or endless body costs neither memory nor the disk. Errors name what the user can act on:
the URL of the file at fault, never the temporary folder it was checked in.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import httpx

from polistemics.paths import is_safe_name
from polistemics.sources.datadir import data_dir
from polistemics.sources.errors import FetchError, SourceError
from polistemics.sources.wahlomat import (
    WAHLOMAT_FILES,
    election_slug,
    file_path,
    load_wahlomat,
)

DEFAULT_QOM_URL = "https://raw.githubusercontent.com/gockelhahn/qual-o-mat-data/master/data"
QOM_URL_ENV = "POLISTEMICS_QOM_URL"
# The region is at most 59 characters so that the fallback slug <region><year> is a safe name.
_ELECTION = re.compile(r"^(?P<year>\d{4})/(?P<region>[a-z0-9][a-z0-9_-]{0,58})$")
MAX_FILE_BYTES = 32 * 1024 * 1024
_CHUNK = 64 * 1024


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
    max_file_bytes: int = MAX_FILE_BYTES,
) -> FetchResult:
    """Fetch ``<year>/<region>`` (e.g. ``2025/deutschland``) into ``<root>/wahlomat/<slug>/``.

    The six files land in a temporary folder first, must load as an election, and only then
    replace any earlier copy in one rename.
    """
    match = _ELECTION.match(election.strip().strip("/"))
    if match is None:
        raise FetchError(
            "expected an election as <year>/<region> (e.g. 2025/deutschland; the region in "
            f"lowercase letters, digits, '_' and '-', at most 59 characters), got {election!r}"
        )
    year, region = match["year"], match["region"]
    base = qom_base_url(base_url)
    target_root = (root or data_dir()) / "wahlomat"
    target_root.mkdir(parents=True, exist_ok=True)

    source = f"{base}/{year}/{region}"
    staging = Path(tempfile.mkdtemp(prefix=".fetch-", dir=target_root))
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True, transport=transport) as client:
            for name in WAHLOMAT_FILES:
                url = f"{source}/{name}.json"
                _download(client, url, file_path(staging, name), max_file_bytes)
        try:
            slug = election_slug(staging) or f"{region}{year}"
            election_data = load_wahlomat(staging, election_id=slug)
        except SourceError as exc:
            raise FetchError(
                f"downloaded files do not load: {_located_at(exc, staging, source)}"
            ) from None
        if not is_safe_name(slug):  # the fallback; the overview's slug was checked on load
            raise FetchError(f"{source}: {slug!r} is not usable as an election id")
        target = target_root / slug
        replaced = target.exists()
        _replace_dir(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return FetchResult(
        election_id=slug, path=target, positions=len(election_data.positions), replaced=replaced
    )


def _download(client: httpx.Client, url: str, target: Path, limit: int = MAX_FILE_BYTES) -> None:
    """Stream ``url`` into ``target``; more than ``limit`` bytes stop the download."""
    too_big = FetchError(
        f"{url} is larger than {limit:,} bytes; a Wahl-O-Mat file is far smaller, "
        "so this is not the file expected (check --base-url)"
    )
    try:
        with client.stream("GET", url) as response:
            if response.status_code == 404:
                raise FetchError(
                    f"not found (HTTP 404): {url}; check <year>/<region> against the "
                    "qual-o-mat-data repository's data folder"
                )
            if response.status_code != 200:
                raise FetchError(f"HTTP {response.status_code} for {url}")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise too_big
            written = 0
            with target.open("wb") as out:
                for chunk in response.iter_bytes(_CHUNK):
                    written += len(chunk)
                    if written > limit:
                        raise too_big
                    out.write(chunk)
    except httpx.HTTPError as exc:
        raise FetchError(f"could not download {url}: {exc}") from None


def _located_at(error: SourceError, staging: Path, source: str) -> str:
    """The error's message with the (deleted) staging folder replaced by the source URL."""
    if error.path is None:
        return str(error)
    where = Path(error.path)
    shown = f"{source}/{where.relative_to(staging)}" if where.is_relative_to(staging) else source
    return str(SourceError(error.problem, path=shown, record=error.record, field=error.field))


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
