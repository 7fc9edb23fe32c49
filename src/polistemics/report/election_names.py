"""Names the runs among the report's paths record or imply: the models' display names and the
elections' titles that ``run.json`` holds (``recorded_names``), and for runs written before it
held titles, the titles of the elections its config names, loaded from their source specs
(``wahlomat:...``, ``demo:de``; ``source_titles``). A source whose data is not on this machine,
a release (no run.json) or an unreadable manifest gives nothing: the figures then name the
model or election from its id (``labels.humanised_model``, ``labels.humanised_election``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from polistemics.runlog import RunDir, RunManifest
from polistemics.sources.errors import SourceError
from polistemics.sources.load import load_election


@dataclass(frozen=True)
class RecordedNames:
    display_names: dict[str, str] = field(default_factory=dict)  # model -> display name
    election_titles: dict[str, str] = field(default_factory=dict)  # election id -> title


def recorded_names(paths: Sequence[Path]) -> RecordedNames:
    """The display names and titles the runs' ``run.json`` files record (the first path's
    name wins where two runs name one model differently)."""
    names = RecordedNames()
    for manifest in filter(None, map(_manifest, paths)):
        for model, name in manifest.display_names.items():
            names.display_names.setdefault(model, name)
        for election_id, title in manifest.election_titles.items():
            names.election_titles.setdefault(election_id, title)
    return names


def source_titles(paths: Sequence[Path]) -> dict[str, str]:
    titles: dict[str, str] = {}
    for path in paths:
        manifest = _manifest(path)
        if manifest is not None and manifest.election_titles:
            continue  # its run.json has them (recorded_names): no source to load
        for spec in _source_specs(manifest):
            try:
                election = load_election(spec)
            except (SourceError, OSError, ValueError):
                continue  # its data is not here: named from its id
            title = " ".join(election.title.split())
            if title:
                titles.setdefault(election.id, title)
    return titles


def _manifest(path: Path) -> RunManifest | None:
    if not path.is_dir():
        return None
    try:
        return RunDir(path).read_manifest()
    except (OSError, ValueError):
        return None


def _source_specs(manifest: RunManifest | None) -> list[str]:
    config = manifest.config if manifest is not None else None
    elections = getattr(config, "elections", None) or []
    return [s for s in (getattr(e, "source", None) for e in elections) if isinstance(s, str) and s]
