"""The exceptions the scoring package raises on bad input."""

from __future__ import annotations

from pathlib import Path


class ScoringError(ValueError):
    """Bad scoring input: the message names the file (if any), the record and the field."""

    def __init__(
        self,
        problem: str,
        *,
        path: Path | str | None = None,
        record: str | None = None,
        field: str | None = None,
    ) -> None:
        self.problem = problem
        self.path = str(path) if path is not None else None
        self.record = record
        self.field = field
        super().__init__(self._format())

    def _format(self) -> str:
        where = [part for part in (self.path, self.record) if part]
        if self.field:
            where.append(f"field '{self.field}'")
        return ": ".join([*where, self.problem])


class VerdictError(ScoringError):
    """Judge verdicts that cannot be combined (duplicates, panel too large, wrong rubric)."""


class CellsError(ScoringError):
    """A scored-cells table that lacks columns or holds values outside the schema."""


class ReleaseFormatError(ScoringError):
    """A release folder (outputs, ground truth, score files) that cannot be read."""
