"""How a Wahl-O-Mat election is named in qual-o-mat-data (``<year>/<region>``) and once fetched
(its overview slug, e.g. ``bundestagswahl2025``), so that either name finds the other.

The slug is ``<region><year>`` for most elections; a few regions use another prefix (the federal
election is ``bundestagswahl``, Baden-Württemberg ``bw``). The table below holds those, as seen
in the overview files of the 71 elections of 2002-2025.
"""

from __future__ import annotations

import re

# region folder -> the slug prefixes its elections have used, most recent first
REGION_SLUG_PREFIXES: dict[str, tuple[str, ...]] = {
    "deutschland": ("bundestagswahl",),
    "europa": ("europawahl", "europa"),
    "badenwuerttemberg": ("bw",),
    "nordrheinwestfalen": ("nordrheinwestfalen", "nrw"),
    "rheinlandpfalz": ("rlp",),
}
_YEAR_REGION = re.compile(r"^(?P<year>\d{4})/(?P<region>[a-z0-9][a-z0-9_-]*)$")
_SLUG = re.compile(r"^(?P<prefix>[a-z][a-z0-9_-]*?)(?P<year>\d{4})$")


def year_region(ref: str) -> tuple[str, str] | None:
    """('2024', 'europa') for '2024/europa'; None for anything else."""
    match = _YEAR_REGION.match(ref.strip().strip("/"))
    return (match["year"], match["region"]) if match else None


def slug_candidates(year: str, region: str) -> list[str]:
    """The folder names ``data fetch wahlomat <year>/<region>`` may have saved the election as."""
    prefixes = REGION_SLUG_PREFIXES.get(region, ())
    return list(dict.fromkeys([*(p + year for p in prefixes), region + year]))


def fetch_argument(ref: str) -> str | None:
    """The ``<year>/<region>`` to fetch for a reference to a Wahl-O-Mat election: the reference
    itself when it has that form, else derived from a slug (``bundestagswahl2025`` ->
    ``2025/deutschland``); None when neither fits."""
    if year_region(ref):
        return ref.strip().strip("/")
    match = _SLUG.match(ref.strip())
    if match is None:
        return None
    prefix, year = match["prefix"], match["year"]
    for region, prefixes in REGION_SLUG_PREFIXES.items():
        if prefix in prefixes:
            return f"{year}/{region}"
    return f"{year}/{prefix}"
