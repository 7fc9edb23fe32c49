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

ENV_VAR = "POLISTEMICS_DATA"
# files nl-voting-data-scraper writes next to the election files
_STEMWIJZER_INDEX_FILES = frozenset(("index.json", "combined.json"))


def data_dir() -> Path:
    """``$POLISTEMICS_DATA`` if set, else ``<user data dir>/polistemics/data``."""
    override = os.environ.get(ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(user_data_dir("polistemics")) / "data"


def resolve(kind: str, ref: str) -> Path:
    """An existing path as given; otherwise ``ref`` looked up under ``<data dir>/<kind>/``."""
    given = Path(ref).expanduser()
    candidate = given if given.exists() else data_dir() / kind / ref
    if not candidate.exists():
        raise SourceError(
            f"no such file or folder; not found as a path nor in the data directory "
            f"({data_dir() / kind}; set {ENV_VAR} to use another data directory)",
            path=ref,
        )
    if kind == "stemwijzer" and candidate.is_dir():
        return single_json(candidate)
    return candidate


def single_json(folder: Path) -> Path:
    """The one election .json file in a StemWijzer folder."""
    files = sorted(
        p for p in folder.glob("*.json") if p.is_file() and p.name not in _STEMWIJZER_INDEX_FILES
    )
    if len(files) != 1:
        found = ", ".join(p.name for p in files) or "none"
        raise SourceError(
            f"expected exactly one election .json file in this folder, found {found}; "
            "name the file instead",
            path=folder,
        )
    return files[0]
