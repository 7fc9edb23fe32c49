"""``JudgeRecords``: a study's judge records held column by column (issue 32).

A paper-scale run has about 100,000 judge records; as ``JudgeVerdictRecord`` objects they took
about 1.7 KB each (174 MB traced at 1x, most of what a finished run's report held), so memory
grew with the study by that much per record. Here each field is one list entry, and what
repeats (item keys, models, judges, environments, rubrics, verdict dicts) is stored once: about
a sixth of that. A record is made again, unvalidated (its values were validated when it was
first made or read), only while it is looked at; iterating yields each in turn, none kept.

Readers that need whole columns (``scoring.verdict_table``) read them with ``column``.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

from polistemics.runlog.verdicts import JudgeVerdictRecord

FIELDS = tuple(JudgeVerdictRecord.model_fields)
# A record's fields as a read-only row (``JudgeRecords.rows``): attribute access like the record,
# made from the columns in a fraction of the time a record takes.
JudgeRecordRow = namedtuple("JudgeRecordRow", FIELDS)  # type: ignore[misc]
# Fields whose few distinct values are stored once (``says_yes`` by its items).
_SHARED = ("item_key", "environment", "model", "rubric", "judge", "says_yes")


class JudgeRecords(Sequence[JudgeVerdictRecord]):
    """Judge records in columns; a ``Sequence`` of ``JudgeVerdictRecord`` to its readers."""

    def __init__(self, records: Iterable[JudgeVerdictRecord] = ()) -> None:
        self._columns: dict[str, list] = {name: [] for name in FIELDS}
        self._shared: dict[str, dict] = {name: {} for name in _SHARED}
        self.extend(records)

    def append(self, record: JudgeVerdictRecord) -> None:
        if type(record) is not JudgeVerdictRecord:  # a subclass has fields not kept here
            raise TypeError(f"JudgeRecords holds JudgeVerdictRecord, not {type(record).__name__}")
        columns, shared = self._columns, self._shared
        for name in FIELDS:
            value = getattr(record, name)
            if name in shared:
                key = tuple(value.items()) if name == "says_yes" else value
                value = shared[name].setdefault(key, value)
            columns[name].append(value)

    def extend(self, records: Iterable[JudgeVerdictRecord]) -> None:
        for record in records:
            self.append(record)

    def __len__(self) -> int:
        return len(self._columns["item_key"])

    @overload
    def __getitem__(self, index: int) -> JudgeVerdictRecord: ...

    @overload
    def __getitem__(self, index: slice) -> JudgeRecords: ...

    def __getitem__(self, index: int | slice) -> JudgeVerdictRecord | JudgeRecords:
        if isinstance(index, slice):
            return self.reordered(range(len(self))[index])
        return self._record(range(len(self))[index])  # negative and out-of-range as a list

    def __iter__(self) -> Iterator[JudgeVerdictRecord]:
        for index in range(len(self)):
            yield self._record(index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"JudgeRecords({len(self)} records)"

    def rows(self) -> Iterator[Any]:
        """Each record as a ``JudgeRecordRow`` (its fields as attributes; ``says_yes`` is the
        shared dict: do not change it), for readers that only read fields: a fifth of the time
        of making each record (a paper-scale finish reads 100,000 several times)."""
        return map(JudgeRecordRow._make, zip(*self._columns.values(), strict=True))

    def column(self, name: str) -> list:
        """One field's values in record order (the list held: do not change it)."""
        return self._columns[name]

    def reordered(self, order: Iterable[int]) -> JudgeRecords:
        """The records at these indexes, in this order."""
        picked = JudgeRecords()
        picked._shared = self._shared
        order = list(order)
        for name, values in self._columns.items():
            picked._columns[name] = [values[i] for i in order]
        return picked

    def with_says_yes(self, change: Callable[[dict], dict]) -> JudgeRecords:
        """The records with each ``says_yes`` replaced by ``change(says_yes)``, called once per
        distinct ``says_yes`` (a study has a few hundred), not per record."""
        changed = JudgeRecords()
        changed._shared = {name: dict(values) for name, values in self._shared.items()}
        changed._columns = dict(self._columns)
        by_id: dict[int, dict] = {}
        for old in self._shared["says_yes"].values():
            new = change(old)
            by_id[id(old)] = changed._shared["says_yes"].setdefault(tuple(new.items()), new)
        changed._columns["says_yes"] = [by_id[id(value)] for value in self._columns["says_yes"]]
        return changed

    def sorted_by(self, *names: str, key: Callable[[str, object], object] | None = None):
        """The records sorted by these fields (``key(name, value)`` maps a value to what is
        compared), without making a record."""
        columns = [self._columns[name] for name in names]
        if key is None:
            rows = list(zip(*columns, strict=True))
        else:
            rows = [
                tuple(key(name, value) for name, value in zip(names, row, strict=True))
                for row in zip(*columns, strict=True)
            ]
        return self.reordered(sorted(range(len(self)), key=rows.__getitem__))

    def _record(self, index: int) -> JudgeVerdictRecord:
        values = {name: column[index] for name, column in self._columns.items()}
        values["says_yes"] = dict(values["says_yes"])  # its own copy: the stored one is shared
        return JudgeVerdictRecord.model_construct(**values)


def fields_of(records: Iterable[JudgeVerdictRecord]) -> Iterable[Any]:
    """Records to read fields from: a ``JudgeRecords``' rows, any other iterable as it is."""
    return records.rows() if isinstance(records, JudgeRecords) else records
