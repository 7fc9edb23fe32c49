"""The statistics' default settings, in a module without numpy, pandas or scipy: the command
line shows them in ``--help`` (``polistemics compare``, ``report``) without loading those."""

from __future__ import annotations

DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_ALPHA = 0.05
