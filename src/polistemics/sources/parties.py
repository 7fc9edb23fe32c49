"""Building a source's parties: one display name, one stable id, no two parties sharing an id."""

from __future__ import annotations

from pathlib import Path

from polistemics.records import Party, party_id
from polistemics.sources.errors import SourceError


def new_party(
    name: str,
    long_name: str | None,
    *,
    country: str,
    taken: dict[str, str],
    path: Path,
    record: str,
) -> Party:
    """A Party from a source record; ``taken`` maps ids already given to their display names."""
    name = name.strip()
    if not name:
        raise SourceError("empty party name", path=path, record=record, field="name")
    pid = party_id(country, name)
    if pid in taken:
        raise SourceError(
            f"party id {pid!r} also belongs to {taken[pid]!r}",
            path=path,
            record=record,
            field="name",
        )
    taken[pid] = name
    return Party(id=pid, name=name, long_name=(long_name or "").strip() or None)
