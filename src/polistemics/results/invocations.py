"""The invocation history of a run directory, as ``run.json`` records it.

``polistemics run`` appends one ``Invocation`` per finished invocation (``run/manifest.py``); the
report reads them back here. ``run.json`` may have been edited by anyone, so what cannot be read
is left out rather than trusted.
"""

from __future__ import annotations

from pydantic import BaseModel, ValidationError


class Invocation(BaseModel):
    """One ``polistemics run`` of a run directory that finished and wrote ``run.json``."""

    started: str
    finished: str
    polistemics_version: str | None = None
    git_revision: str | None = None
    calls_made: int = 0
    stage_seconds: dict[str, float] = {}


def invocations_of(manifest: object) -> list[Invocation]:
    """The invocations a manifest records, oldest first. A manifest written before the list
    existed counts as one invocation (its top-level fields)."""
    if not isinstance(manifest, dict):
        return []
    entries = manifest.get("invocations")
    if not isinstance(entries, list):
        entries = [
            {
                "started": manifest.get("started"),
                "finished": manifest.get("finished"),
                "polistemics_version": manifest.get("polistemics_version"),
                "git_revision": manifest.get("git_revision"),
                "calls_made": manifest.get("calls_made_this_run", 0),
                "stage_seconds": manifest.get("stage_seconds") or {},
            }
        ]
    kept = []
    for entry in entries:
        try:
            kept.append(Invocation.model_validate(entry))
        except ValidationError:
            continue
    return kept


def calling_invocation(invocations: list[Invocation]) -> tuple[int, Invocation] | None:
    """The latest invocation that made model calls (its index), else the latest: the one whose
    stage times describe the work, not a rerun served from the cache in seconds."""
    if not invocations:
        return None
    for index in range(len(invocations) - 1, -1, -1):
        if invocations[index].calls_made > 0:
            return index, invocations[index]
    return len(invocations) - 1, invocations[-1]
