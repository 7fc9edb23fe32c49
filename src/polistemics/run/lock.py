"""One process per run directory: ``polistemics run`` holds ``.run.lock`` while it runs.

The lock is an OS file lock taken through the ``filelock`` package (``flock`` on Unix,
``msvcrt`` on Windows) rather than ``fcntl.flock`` by hand: the same code works on every
platform, and in both cases the operating system drops the lock when its holder dies, so a run
killed with SIGKILL leaves no stale lock to clear before a resume. A lock file that merely
exists means nothing; only a held lock refuses.

Who holds the run is written to ``.run.lock.json`` (pid, host, start time) after the lock is
taken; a refused process reads it to name the holder. That file is not the lock: a leftover one
from a killed run is simply overwritten by the next holder.
"""

from __future__ import annotations

import json
import os
import socket
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from filelock import FileLock, Timeout

LOCK_FILE = ".run.lock"
LOCK_INFO_FILE = ".run.lock.json"


class RunLocked(RuntimeError):
    """Another process is running this run directory."""


class RunLock:
    """The run directory's lock. ``acquire`` refuses at once (no waiting) when it is held;
    nested acquires by the holder count, as in ``filelock``."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self._lock = FileLock(self.run_dir / LOCK_FILE, timeout=0)

    @property
    def held(self) -> bool:
        return self._lock.is_locked

    def acquire(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        first = not self._lock.is_locked
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise RunLocked(
                f"{self.run_dir} is in use by {describe_holder(self.run_dir)}; "
                "wait for it to finish (or stop it), then run again to resume"
            ) from None
        if first:
            _write_info(self.run_dir)

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release()

    def __enter__(self) -> RunLock:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _write_info(run_dir: Path) -> None:
    info = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    temporary = run_dir / f"{LOCK_INFO_FILE}.{os.getpid()}.tmp"
    temporary.write_text(json.dumps(info), encoding="utf-8")
    temporary.replace(run_dir / LOCK_INFO_FILE)


def describe_holder(run_dir: Path) -> str:
    """'process 123 on host h since 2026-...' from the info file; it is written by another
    process, so anything unexpected in it is shown as unknown, never trusted or echoed raw."""
    try:
        info = json.loads((run_dir / LOCK_INFO_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "another process (no holder details yet)"
    if not isinstance(info, dict):
        return "another process (holder details unreadable)"
    pid = info.get("pid")
    host, started = info.get("host"), info.get("started")
    pid_text = str(pid) if isinstance(pid, int) and not isinstance(pid, bool) else "?"
    host_text = _printable(host) if isinstance(host, str) else "?"
    started_text = _printable(started) if isinstance(started, str) else "?"
    return f"process {pid_text} on host {host_text} (started {started_text})"


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text[:100])
