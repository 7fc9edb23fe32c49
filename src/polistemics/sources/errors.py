"""The one exception every source reader raises on bad input."""

from __future__ import annotations

from polistemics.errors import LocatedError


class SourceError(LocatedError):
    """Bad voting-advice input: the message names the file, the record and the field."""


class FetchError(ValueError):
    """A download failed (network, HTTP status) or delivered unusable files."""
