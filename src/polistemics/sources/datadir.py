"""Where downloaded voting-advice data lives, and how short names resolve inside it.

Layout (the same as the project's shared data folder)::

    <data dir>/wahlomat/<election>/{overview,party,statement,answer,opinion,comment}.json
    <data dir>/stemwijzer/<election>/<file>.json
    <data dir>/generic/<file>.csv | .jsonl
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

from polistemics.sources.errors import SourceError
from polistemics.sources.wahlomat_names import fetch_argument, slug_candidates, year_region

ENV_VAR = "POLISTEMICS_DATA"
# files nl-voting-data-scraper writes next to the election files
STEMWIJZER_INDEX_FILES = frozenset(("index.json", "combined.json"))


def data_dir() -> Path:
    """``$POLISTEMICS_DATA`` if set, else ``<user data dir>/polistemics/data``."""
    override = os.environ.get(ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(user_data_dir("polistemics")) / "data"


def resolve(kind: str, ref: str) -> Path:
    """An existing path as given; otherwise ``ref`` looked up under ``<data dir>/<kind>/``.

    A Wahl-O-Mat ``<year>/<region>`` (``2024/europa``) is found as laid out in qual-o-mat-data,
    or under the slug ``data fetch`` saved it as (``europawahl2024``).
    """
    given = Path(ref).expanduser()
    candidate = given if given.exists() else data_dir() / kind / ref
    if not candidate.exists() and kind == "wahlomat" and (parts := year_region(ref)):
        fetched = (data_dir() / kind / slug for slug in slug_candidates(*parts))
        candidate = next((path for path in fetched if path.is_dir()), candidate)
    if not candidate.exists():
        raise SourceError(
            f"no such file or folder; not found as a path nor in the data directory "
            f"({data_dir() / kind}; set {ENV_VAR} to use another data directory)"
            + missing_data_hint(kind, ref),
            path=ref,
        )
    if kind == "stemwijzer" and candidate.is_dir():
        return single_json(candidate)
    return candidate


def missing_data_hint(kind: str, ref: str) -> str:
    """The next command to run when an election is not in the data directory."""
    listing = "; `polistemics data list` shows the elections it holds"
    if kind == "wahlomat":
        election = fetch_argument(ref) or "<year>/<region>"
        return f"; download it with `polistemics data fetch wahlomat {election}`" + listing
    if kind == "stemwijzer":
        return (
            f"; save the JSON that nl-voting-data-scraper writes as "
            f"{data_dir() / kind / '<election>' / '<election>.json'}" + listing
        )
    return listing


def single_json(folder: Path) -> Path:
    """The one election .json file in a StemWijzer folder."""
    files = sorted(
        p for p in folder.glob("*.json") if p.is_file() and p.name not in STEMWIJZER_INDEX_FILES
    )
    if len(files) != 1:
        found = ", ".join(p.name for p in files) or "none"
        raise SourceError(
            f"expected exactly one election .json file in this folder, found {found}; "
            "name the file instead",
            path=folder,
        )
    return files[0]
