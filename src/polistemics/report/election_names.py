"""Elections by their sources' titles: for each run among the report's paths, the elections its
``run.json`` names are loaded from their source specs (``wahlomat:...``, ``demo:de``) and give
``election id -> title``. A source whose data is not on this machine, a release (no run.json)
or an unreadable manifest gives nothing: the figures then name the election from its id
(``labels.humanised_election``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from polistemics.runlog import RunDir
from polistemics.sources.errors import SourceError
from polistemics.sources.load import load_election


def source_titles(paths: Sequence[Path]) -> dict[str, str]:
    titles: dict[str, str] = {}
    for path in paths:
        for spec in _source_specs(path):
            try:
                election = load_election(spec)
            except (SourceError, OSError, ValueError):
                continue  # its data is not here: named from its id
            title = " ".join(election.title.split())
            if title:
                titles.setdefault(election.id, title)
    return titles


def _source_specs(path: Path) -> list[str]:
    if not path.is_dir():
        return []
    try:
        manifest = RunDir(path).read_manifest()
    except (OSError, ValueError):
        return []
    config = manifest.config if manifest is not None else None
    elections = getattr(config, "elections", None) or []
    return [s for s in (getattr(e, "source", None) for e in elections) if isinstance(s, str) and s]
