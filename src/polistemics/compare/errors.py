"""The one error a comparison raises: what cannot be compared, said in one line."""

from __future__ import annotations


class CompareError(ValueError):
    """Sides that cannot be compared, or a path that is not a run; the message says which."""
