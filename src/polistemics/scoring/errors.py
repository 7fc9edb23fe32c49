"""The exceptions the scoring package raises on bad input."""

from __future__ import annotations

from polistemics.errors import LocatedError


class ScoringError(LocatedError):
    """Bad scoring input: the message names the file (if any), the record and the field."""


class VerdictError(ScoringError):
    """Judge verdicts that cannot be combined (duplicates, panel too large, wrong rubric)."""


class CellsError(ScoringError):
    """A scored-cells table that lacks columns or holds values outside the schema."""


class ReleaseFormatError(ScoringError):
    """A release folder (outputs, ground truth, score files) that cannot be read."""
