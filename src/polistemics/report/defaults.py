"""The report's default settings, in a module without pandas or matplotlib: the command line
shows them in ``--help`` (``polistemics report``) without loading those."""

from __future__ import annotations

DEFAULT_MAX_ANSWERS = 20_000  # answers embedded in the item browser (a seeded sample beyond)
