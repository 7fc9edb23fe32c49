"""A batch's files on disk, so that no batch is ever held in memory whole.

Each request's input line is appended to the batch's file as the call is made
(``<stem>.part``); when the batch is sent the file is closed and renamed to
``<stem>.jsonl`` (a file by that name is always complete) and uploaded from disk. Results are
downloaded into a file the same way and read back a line at a time (``lines``), with each line's
place in the file, so that a reader can pick lines out again without keeping them.

OpenAI's batch input is JSONL as it is. Anthropic's Message Batches take one JSON body, so its
file is written as that body, one request a line inside ``{"requests": [...]}``: the upload is
the file as it stands.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from polistemics.runlog.layout import BATCH_FOLDER

__all__ = ["BATCH_FOLDER", "MAX_LINE_BYTES", "SpoolFile", "clear", "lines"]

MAX_LINE_BYTES = 64 * 2**20  # one result line: far longer is not one of ours


class SpoolFile:
    """One batch's input file being written (see the module doc)."""

    def __init__(self, stem: Path, *, anthropic: bool = False):
        self.final = stem.with_name(f"{stem.name}.jsonl")
        self._part = stem.with_name(f"{stem.name}.part")
        self._anthropic = anthropic
        self._handle: BinaryIO | None = self._part.open("wb")
        self.lines = 0
        self.size = 0  # bytes of the lines (the limits count these)
        if anthropic:
            self._handle.write(b'{"requests": [\n')

    def add(self, line: bytes) -> None:
        assert self._handle is not None, "the file is finished"
        if self._anthropic:
            self._handle.write((b",\n" if self.lines else b"") + line.rstrip(b"\n"))
        else:
            self._handle.write(line)
        self.lines += 1
        self.size += len(line)

    def finish(self) -> Path:
        """Close the file and give it its final name."""
        if self._handle is not None:
            if self._anthropic:
                self._handle.write(b"\n]}\n")
            self._handle.close()
            self._handle = None
            os.replace(self._part, self.final)
        return self.final

    def discard(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        for path in (self._part, self.final):
            path.unlink(missing_ok=True)


def lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of each non-empty line of ``path``; a line over ``MAX_LINE_BYTES`` is
    given cut at that length (it cannot parse, so it is refused as malformed)."""
    with path.open("rb") as handle:
        offset = 0
        while raw := handle.readline(MAX_LINE_BYTES):
            start = offset
            offset += len(raw)
            if not raw.endswith(b"\n") and len(raw) == MAX_LINE_BYTES:
                # the rest of an overlong line is skipped, not read as further lines
                while (rest := handle.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                    offset += len(rest)
                offset += len(rest)
            if raw.strip():
                yield start, raw


def clear(folder: Path) -> None:
    """Remove the files a killed run left in ``folder`` (their batches, if created, are in the
    ledger; if not, their requests are sent again)."""
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if path.suffix in (".part", ".jsonl") and path.is_file():
            with contextlib.suppress(OSError):
                path.unlink()
