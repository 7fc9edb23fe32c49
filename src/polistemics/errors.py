"""The base of the project's input errors: a message that names the file, record and field."""

from __future__ import annotations

from pathlib import Path


class LocatedError(ValueError):
    """Bad input, located: "<file>: <record>: field '<field>': <problem>"."""

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
