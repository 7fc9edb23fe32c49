"""One entry point for every source: ``load_election("KIND:PATH")``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from polistemics.records import Election
from polistemics.sources.datadir import resolve, single_json
from polistemics.sources.demo import load_demo
from polistemics.sources.errors import SourceError
from polistemics.sources.generic import load_generic
from polistemics.sources.stemwijzer import load_stemwijzer
from polistemics.sources.wahlomat import load_wahlomat

Loader = Callable[..., Election]

LOADERS: dict[str, Loader] = {
    "wahlomat": load_wahlomat,
    "stemwijzer": load_stemwijzer,
    "generic": load_generic,
}
SPEC_HELP = (
    "wahlomat:PATH, stemwijzer:PATH, generic:PATH, demo, demo:en or demo:de "
    "(PATH: a file or folder, or a name inside the data directory)"
)


def parse_spec(spec: str) -> tuple[str, str]:
    """('wahlomat', 'bundestagswahl2025') from 'wahlomat:bundestagswahl2025'."""
    kind, _, ref = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind == "demo":
        return kind, ref.strip() or "en"
    if kind not in LOADERS:
        if suggestion := _suggested_spec(spec.strip()):
            raise SourceError(
                f"a source names its kind: did you mean {suggestion!r}? (expected {SPEC_HELP})",
                path=spec,
            )
        raise SourceError(f"unknown source kind {kind!r}; expected {SPEC_HELP}", path=spec)
    if not ref.strip():
        raise SourceError(f"missing PATH after '{kind}:'; expected {SPEC_HELP}", path=spec)
    return kind, ref.strip()


def _suggested_spec(spec: str) -> str | None:
    """``wahlomat:PATH``, ``stemwijzer:PATH`` or ``generic:PATH`` for a plain path that exists
    and looks like one (a Wahl-O-Mat folder has ``overview.json``; StemWijzer is one .json)."""
    path = Path(spec).expanduser()
    try:
        if path.is_dir():
            if (path / "overview.json").is_file() and (path / "opinion.json").is_file():
                return f"wahlomat:{spec}"
            single_json(path)  # a StemWijzer folder holds one election file
            return f"stemwijzer:{spec}"
        elif path.is_file():
            suffix = path.suffix.lower()
            if suffix == ".json":
                return f"stemwijzer:{spec}"
            if suffix in (".csv", ".jsonl"):
                return f"generic:{spec}"
    except (OSError, SourceError):
        return None
    return None


def load_election(spec: str, *, election_id: str | None = None) -> Election:
    """Load an election from a source spec such as ``wahlomat:bundestagswahl2025`` or ``demo:de``."""
    kind, ref = parse_spec(spec)
    if kind == "demo":
        return load_demo(ref.lower(), election_id=election_id)
    path: Path = resolve(kind, ref)
    return LOADERS[kind](path, election_id=election_id)
