"""The scoring's default settings, in a module without numpy or pandas: the command line shows
them in ``--help`` (``polistemics report``) without loading those."""

from __future__ import annotations

LOO_MIN_ITEMS = 20  # the optional minimum-items gate's usual value (not in the paper)
