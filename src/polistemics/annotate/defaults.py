"""The annotation sample's default settings, in a module without pandas: the command line shows
them in ``--help`` (``polistemics annotate sample``) without loading it."""

from __future__ import annotations

DEFAULT_SPLIT_SHARE = 0.5
DEFAULT_OVERLAP = 2
DEFAULT_OVERLAP_SHARE = 0.2
