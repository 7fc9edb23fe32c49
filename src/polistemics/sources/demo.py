"""The bundled fictional demo election (English and German), in the generic format."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from polistemics.records import Election
from polistemics.sources.errors import SourceError
from polistemics.sources.generic import load_generic

DEMO_LANGUAGES = ("en", "de")
DEMO_SOURCE = "polistemics demo election (fictional)"


def demo_path(language: str = "en") -> Path:
    if language not in DEMO_LANGUAGES:
        raise SourceError(
            f"no demo election in {language!r}; available: {', '.join(DEMO_LANGUAGES)}",
            path=f"demo:{language}",
        )
    resource = resources.files("polistemics.data") / "demo" / f"demo-{language}.jsonl"
    return Path(str(resource))


def load_demo(language: str = "en", *, election_id: str | None = None) -> Election:
    """The demo election: election id ``demo_en`` / ``demo_de`` unless overridden."""
    election = load_generic(demo_path(language), election_id=election_id)
    return election.model_copy(update={"source": DEMO_SOURCE})
