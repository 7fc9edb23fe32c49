"""The exception the statistics package raises on inputs it cannot compute with."""

from __future__ import annotations

from polistemics.errors import LocatedError


class StatisticsError(LocatedError):
    """A table, count or setting a statistic is undefined for (a ``ValueError``)."""
