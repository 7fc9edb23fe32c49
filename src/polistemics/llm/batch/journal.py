"""What a call waiting for its batch needs when its result comes, kept on disk.

A call of a batch endpoint is handed over as data (``LLMClient.defer``): its state (endpoint,
stage, sample index, attempts so far, output constraint), its prompt's JSON and what its caller
needs to go on from the result (a small JSON ``context``) are written here as one record, and
the process keeps only the record's place (an ``int``). When the batch's line for it arrives,
the record is read back, the result is stored, and the caller's work goes on from it.

Records go to anonymous temporary files (``tempfile.TemporaryFile``, in the batches' folder):
no other process needs them (a resumed run makes its calls again and finds their results in the
store or their open batches in the ledger), and they vanish with the process, even a killed one.
A file of records (a *segment*) is dropped once every record in it has been read for good, so
the disk holds about the records of the calls still waiting.

A record is a JSON header line and its prompt's JSON as a second line (made by
``json.dumps``, which writes no raw line breaks), so a long prompt is not escaped twice.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import IO

SEGMENT_BYTES = 64 * 2**20  # a segment takes records until it holds this much
_OFFSET_BITS = 40  # a record's place: its segment's number above these bits, its offset below


class _Segment:
    __slots__ = ("file", "live", "size")

    def __init__(self, folder: Path | None):
        self.file: IO[bytes] = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115 (kept open)
        self.live = 0  # records written and not yet released
        self.size = 0


class Journal:
    """The records of waiting calls (see the module doc)."""

    def __init__(self, folder: Path | None = None):
        self._folder = folder
        self._segments: dict[int, _Segment] = {}
        self._current = -1

    def write(self, header: dict, messages_json: str) -> int:
        """Write one record; its place, for ``read`` and ``release``."""
        segment = self._segments.get(self._current)
        if segment is None or segment.size >= SEGMENT_BYTES:
            if segment is not None and segment.live <= 0:  # full, and every record read
                segment.file.close()
                del self._segments[self._current]
            if self._folder is not None:
                self._folder.mkdir(parents=True, exist_ok=True)
            self._current += 1
            segment = self._segments[self._current] = _Segment(self._folder)
        data = b"%s\n%s\n" % (
            json.dumps(header, ensure_ascii=False).encode(),
            messages_json.encode(),
        )
        segment.file.seek(segment.size)
        segment.file.write(data)
        place = (self._current << _OFFSET_BITS) | segment.size
        segment.size += len(data)
        segment.live += 1
        return place

    def read(self, place: int) -> tuple[dict, str]:
        """The header and the prompt's JSON of the record at ``place``."""
        segment = self._segments[place >> _OFFSET_BITS]
        segment.file.seek(place & ((1 << _OFFSET_BITS) - 1))
        header = json.loads(segment.file.readline())
        return header, segment.file.readline()[:-1].decode()

    def release(self, place: int) -> None:
        """The record at ``place`` is not needed any more (its segment goes with its last)."""
        number = place >> _OFFSET_BITS
        segment = self._segments.get(number)
        if segment is None:
            return
        segment.live -= 1
        if segment.live <= 0 and number != self._current:
            segment.file.close()
            del self._segments[number]

    @property
    def waiting(self) -> int:
        """Records written and not released."""
        return sum(segment.live for segment in self._segments.values())

    @property
    def disk_bytes(self) -> int:
        return sum(segment.size for segment in self._segments.values())

    def close(self) -> None:
        for segment in self._segments.values():
            segment.file.close()
        self._segments.clear()
