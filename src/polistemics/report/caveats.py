"""What a reader who is not technical must be told before trusting the page's numbers.

From the run's ``run.json`` (a release has none, so no caveat): that the run is the demo (the
bundled fictional election, tiny local models), and which judge seats are one endpoint, whose
agreement is then guaranteed rather than measured. The manifest is read defensively
(``runlog.RunManifest``): it is a file anyone may have edited.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from polistemics.runlog import ManifestConfig, ModelRecord, RunManifest

DEMO_SOURCE_KIND = "demo"
LOCAL_PROVIDER = "local"


def _config(manifest: RunManifest | None) -> ManifestConfig:
    config = manifest.config if manifest is not None else None
    return config if config is not None else ManifestConfig()


def _models(manifest: RunManifest | None) -> dict[str, ModelRecord]:
    return (manifest.models if manifest is not None else None) or {}


def demo_banner(manifest: RunManifest | None) -> str | None:
    """A sentence saying why this run's numbers are not a measurement, or None."""
    config = _config(manifest)
    sources = [election.source or "" for election in config.elections or []]
    fictional = any(s.partition(":")[0].strip().lower() == DEMO_SOURCE_KIND for s in sources)
    models = _models(manifest)
    targets = config.targets or []
    local = sorted(
        {
            models[name].model or name
            for name in targets
            if name in models and models[name].provider == LOCAL_PROVIDER
        }
    )
    all_local = bool(targets) and all(
        name in models and models[name].provider == LOCAL_PROVIDER for name in targets
    )
    if not fictional and not all_local:
        return None
    what = []
    if fictional:
        what.append("the bundled fictional demo election")
    if all_local:
        what.append(
            f"the small local model{'s' if len(local) > 1 else ''} {', '.join(local)}, "
            "run on this machine"
        )
    return (
        f"This is a demonstration run: it uses {' and '.join(what)}. Its numbers show that the "
        "pipeline works end to end; they are not a measurement of any model or election."
    )


@dataclass(frozen=True)
class SharedSeats:
    """Judge seats (1-based, in panel order) served by one endpoint with the same parameters."""

    seats: list[int]
    names: list[str]


def shared_judge_seats(manifest: RunManifest | None) -> list[SharedSeats]:
    """Groups of two or more panel seats that are the same endpoint: same base URL, model and
    parameters. Such seats make identical calls, which are cached and shared, so they agree by
    construction."""
    config = _config(manifest)
    models = _models(manifest)
    groups: dict[str, SharedSeats] = {}
    for seat, name in enumerate(config.judges or [], 1):
        record = models.get(name)
        if record is None:
            continue
        identity = json.dumps(
            [record.base_url, record.model, record.params],
            sort_keys=True,
            default=str,
        )
        group = groups.setdefault(identity, SharedSeats([], []))
        group.seats.append(seat)
        if name not in group.names:
            group.names.append(name)
    return [g for g in groups.values() if len(g.seats) > 1]


def shared_seats_note(manifest: RunManifest | None) -> str | None:
    groups = shared_judge_seats(manifest)
    if not groups:
        return None
    panel = len(_config(manifest).judges or [])
    parts = []
    whole_panel = len(groups) == 1 and len(groups[0].seats) == panel
    for group in groups:
        seats = ", ".join(str(s) for s in group.seats)
        every = "All " if len(group.seats) == panel else ""
        parts.append(
            f"{every}seats {seats} of the {panel}-judge panel ({', '.join(group.names)}) are one "
            "endpoint: same base URL, model and parameters"
        )
    consequence = (
        "so the panel agrees by construction: κ = AC1 = 1.000 here says nothing about judge "
        "reliability."
        if whole_panel
        else "so those seats always agree with each other, which inflates the panel's agreement."
    )
    return (
        "; ".join(parts)
        + ". Such seats send identical requests and share the cached answers, "
        + consequence
    )
