"""The one exception every source reader raises on bad input."""

from __future__ import annotations

from pathlib import Path


class SourceError(ValueError):
    """Bad voting-advice input: the message names the file, the record and the field."""

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


class FetchError(ValueError):
    """A download failed (network, HTTP status) or delivered unusable files."""
