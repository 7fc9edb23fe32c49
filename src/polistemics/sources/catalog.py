"""Every election the sources can load here: the bundled demo and what the data directory holds.

``election_specs`` finds the source specs (``wahlomat:bundestagswahl2025``, ``demo:de``) without
reading the elections; ``list_elections`` loads each and counts it. A folder that does not load
is listed with its error instead of stopping the listing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from polistemics.records import Election
from polistemics.sources.datadir import STEMWIJZER_INDEX_FILES, data_dir
from polistemics.sources.demo import DEMO_LANGUAGES
from polistemics.sources.errors import SourceError
from polistemics.sources.load import load_election


@dataclass(frozen=True)
class ElectionCounts:
    """What one election holds: statements, parties, positions and observations (positions
    with a rationale; the benchmark asks only about those)."""

    statements: int
    parties: int
    positions: int
    observations: int

    @classmethod
    def of(cls, election: Election) -> ElectionCounts:
        return cls(
            statements=len({p.statement.id for p in election.positions}),
            parties=len({p.party.id for p in election.positions}),
            positions=len(election.positions),
            observations=sum(1 for p in election.positions if p.has_rationale),
        )


@dataclass(frozen=True)
class ListedElection:
    spec: str
    election_id: str | None = None
    title: str = ""
    language_code: str = ""
    counts: ElectionCounts | None = None
    error: str | None = None


def election_specs(root: Path | None = None) -> list[str]:
    """The demo's specs, then every election folder or file under ``root`` (the data directory)."""
    root = root if root is not None else data_dir()
    specs = [f"demo:{language}" for language in DEMO_LANGUAGES]
    specs += [f"wahlomat:{ref}" for ref in _wahlomat_refs(root / "wahlomat")]
    specs += [f"stemwijzer:{ref}" for ref in _stemwijzer_refs(root / "stemwijzer")]
    specs += [f"generic:{ref}" for ref in _generic_refs(root / "generic")]
    return specs


def list_elections(root: Path | None = None) -> list[ListedElection]:
    """Each election of ``election_specs`` loaded and counted (or with the reason it did not load)."""
    listed = []
    for spec in election_specs(root):
        try:
            election = load_election(spec)
        except SourceError as exc:
            listed.append(ListedElection(spec=spec, error=str(exc)))
            continue
        listed.append(
            ListedElection(
                spec=spec,
                election_id=election.id,
                title=election.title,
                language_code=election.language_code,
                counts=ElectionCounts.of(election),
            )
        )
    return listed


def _visible_dirs(folder: Path) -> list[Path]:
    """Sub-folders, sorted, without hidden ones (``data fetch`` stages downloads in ``.fetch-*``)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def _wahlomat_refs(folder: Path) -> list[str]:
    """Fetched folders (``<slug>/overview.json``) and qual-o-mat-data's ``<year>/<region>/``."""
    refs = []
    for entry in _visible_dirs(folder):
        if (entry / "overview.json").is_file():
            refs.append(entry.name)
        elif entry.name.isdigit():
            refs += [
                f"{entry.name}/{region.name}"
                for region in _visible_dirs(entry)
                if (region / "overview.json").is_file()
            ]
    return refs


def _stemwijzer_refs(folder: Path) -> list[str]:
    """Folders holding election JSON, and JSON files lying directly in the folder."""
    refs = [entry.name for entry in _visible_dirs(folder) if _election_files(entry)]
    if folder.is_dir():
        refs += [p.name for p in _election_files(folder)]
    return refs


def _election_files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.glob("*.json") if p.is_file() and p.name not in STEMWIJZER_INDEX_FILES
    )


def _generic_refs(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(
        p.name for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".csv", ".jsonl")
    )
