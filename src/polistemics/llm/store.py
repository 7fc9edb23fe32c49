"""The run store: one SQLite database per run directory.

Every finished model call is committed as it completes (``CallWriter`` groups the commits of
calls that finish together), so a run killed at any point resumes without repeating it. Stage
outputs are not stored here: every stage recomputes them from the cached calls, and a finished run
writes them to JSONL files beside the store (``runlog.RunDir``).
WAL mode lets readers (``cache stats``, reports) work while a run writes; a busy timeout lets
several processes share one store without corrupting it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from polistemics.llm.keys import MEMO_TEXT_LIMIT
from polistemics.llm.types import CallResult
from polistemics.sqlite_files import wal_connection

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    model TEXT NOT NULL,
    stage TEXT NOT NULL,
    messages_hash TEXT NOT NULL,
    params TEXT NOT NULL,
    sample_index INTEGER NOT NULL,
    status TEXT NOT NULL,
    response_text TEXT,
    finish_reason TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    latency_ms REAL NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    messages BLOB,
    created_at REAL NOT NULL,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS calls_stage ON calls(stage, status);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

INSERT_CALL = (
    "INSERT OR REPLACE INTO calls (key, endpoint, model, stage, messages_hash, params, "
    "sample_index, status, response_text, finish_reason, input_tokens, output_tokens, "
    "reasoning_tokens, cost, latency_ms, attempts, error, messages, created_at, "
    "cached_input_tokens) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)

_RESULT_COLUMNS = (
    "key, endpoint, model, status, response_text, finish_reason, error, input_tokens, "
    "output_tokens, reasoning_tokens, cost, latency_ms, attempts, cached_input_tokens"
)
LOOKUP_CHUNK = 500  # keys a ``get_calls`` query asks for (SQLite's limit is 32,766 parameters)
KEY_PAGE = 65_536  # keys a ``key_prefixes`` query reads (larger pages read no faster)
# A page of keys in the order of the key's index, from the key after ``?``: their first 16
# characters one after another, how many keys, the last key.
_KEY_PAGE_SQL = (
    "SELECT group_concat(substr(key, 1, 16), ''), count(*), max(key) "
    "FROM (SELECT key FROM calls WHERE key > ? ORDER BY key LIMIT ?)"
)
# Columns added after the first release of the store, with their definitions: a store made
# before them gets them on opening (``add_missing_columns``), old rows the default.
ADDED_COLUMNS = {"cached_input_tokens": "INTEGER NOT NULL DEFAULT 0"}


def connect(path: Path) -> sqlite3.Connection:
    """A connection in WAL mode: readers never block the writer, nor the writer readers."""
    # NORMAL is durable against process crashes (SIGKILL), which is what resuming needs.
    return wal_connection(path, synchronous="NORMAL")


@dataclass(frozen=True)
class FinishedCall:
    """One finished call as stored: its result, where it came from, its prompt and parameters.

    ``params_json`` and ``messages_json`` are canonical JSON (the prompt is stored compressed, for
    ``RunStore.call_messages``). ``messages_hash`` None: the SHA-256 of ``messages_json``, made
    by the writer (``call_row`` runs on the writer's thread, off the event loop).
    """

    result: CallResult
    stage: str
    messages_hash: str | None
    params_json: str
    sample_index: int
    messages_json: str | None = None


class _StoredPrompts:
    """The SHA-256 and compressed bytes of recent prompts' JSON, by the text object itself.

    A panel's judges send one prompt, whose JSON is one string (``keys.CallIdentity``): it is
    hashed and compressed once for all of them, not once a call. The text is kept with its
    entry, so its ``id`` names no other meanwhile. Texts longer than ``keys.MEMO_TEXT_LIMIT``
    are not kept (a batch's calls must not hold long prompts)."""

    SIZE = 128  # about the calls in flight: the judges' calls on a prompt finish together

    def __init__(self) -> None:
        self._known: dict[int, tuple[str, str, bytes]] = {}
        self._lock = threading.Lock()  # the call writer's thread, and ``RunStore.add_calls``

    def of(self, text: str) -> tuple[str, bytes]:
        """(hex SHA-256, zlib level 1) of ``text`` in UTF-8."""
        with self._lock:
            known = self._known.get(id(text))
            if known is not None and known[0] is text:
                return known[1], known[2]
        data = text.encode("utf-8")
        digest, compressed = hashlib.sha256(data).hexdigest(), zlib.compress(data, 1)
        if len(text) > MEMO_TEXT_LIMIT:
            return digest, compressed
        with self._lock:
            if len(self._known) >= self.SIZE:
                del self._known[next(iter(self._known))]  # the oldest
            self._known[id(text)] = (text, digest, compressed)
        return digest, compressed


_stored_prompts = _StoredPrompts()


def call_row(call: FinishedCall) -> tuple:
    """The ``INSERT_CALL`` parameters for one finished call."""
    result = call.result
    compressed = None
    messages_hash = call.messages_hash
    if call.messages_json:
        digest, compressed = _stored_prompts.of(call.messages_json)
        messages_hash = digest if messages_hash is None else messages_hash
    elif messages_hash is None:
        if call.messages_json is None:
            raise ValueError(f"call {result.key}: neither its messages nor their hash")
        messages_hash = hashlib.sha256(b"").hexdigest()
    return (
        result.key,
        result.endpoint,
        result.model,
        call.stage,
        messages_hash,
        call.params_json,
        call.sample_index,
        result.status,
        result.text,
        result.finish_reason,
        result.input_tokens,
        result.output_tokens,
        result.reasoning_tokens,
        result.cost,
        result.latency_ms,
        result.attempts,
        result.error,
        compressed,
        time.time(),
        result.cached_input_tokens,
    )


def key_prefix(key: str) -> int | None:
    """A key's first 16 characters read as a hex number below 2**64 (a key the client makes is a
    SHA-256 in hex), or None. Anything ``int`` reads counts: ``RunStore.key_prefixes`` reads a
    key that is not plain hex through this function, so both sides agree on every key."""
    try:
        number = int(key[:16], 16)
    except ValueError:
        return None
    return number if 0 <= number < 1 << 64 else None


def add_missing_columns(db: sqlite3.Connection) -> None:
    """Give a store made by an older version the columns added since (``ADDED_COLUMNS``)."""
    present = {row[1] for row in db.execute("PRAGMA table_info(calls)")}
    for name, definition in ADDED_COLUMNS.items():
        if name not in present:
            db.execute(f"ALTER TABLE calls ADD COLUMN {name} {definition}")


class RunStore:
    """Thread-safe access to one run's SQLite database."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = connect(self.path)
        self._db.executescript(SCHEMA)
        add_missing_columns(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls -------------------------------------------------------------------------------

    def get_call(self, key: str) -> CallResult | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_RESULT_COLUMNS} FROM calls WHERE key = ?", (key,)
            ).fetchone()
        return _row_to_result(row, cached=True) if row else None

    def get_calls(self, keys: list[str]) -> dict[str, CallResult]:
        """The stored results of ``keys`` (those found), read ``LOOKUP_CHUNK`` keys a query."""
        found: dict[str, CallResult] = {}
        for start in range(0, len(keys), LOOKUP_CHUNK):
            chunk = keys[start : start + LOOKUP_CHUNK]
            sql = f"SELECT {_RESULT_COLUMNS} FROM calls WHERE key IN ({','.join('?' * len(chunk))})"
            with self._lock:
                rows = self._db.execute(sql, chunk).fetchall()
            for row in rows:
                found[row[0]] = _row_to_result(row, cached=True)
        return found

    def call_keys(self) -> set[str]:
        with self._lock:
            return {row[0] for row in self._db.execute("SELECT key FROM calls")}

    def key_prefixes(self, page_size: int = KEY_PAGE) -> Iterator[bytes]:
        """The prefix (``key_prefix``) of every stored key that has one, as 8 bytes (big-endian):
        a page of keys at a time, each page's one after another. Read from the key's index as
        one text a page, not a string a key (``llm.stored_keys``)."""
        last = ""
        while True:
            with self._lock:
                text, count, top = self._db.execute(_KEY_PAGE_SQL, (last, page_size)).fetchone()
            if top is None:
                return
            try:
                prefixes = bytes.fromhex(text)
            except ValueError:  # a key with another character among its first 16
                prefixes = b""
            # 8 bytes a key only when every key gave 16 hex digits (``fromhex`` skips spaces).
            if len(prefixes) != 8 * count:
                with self._lock:
                    keys = self._db.execute(
                        "SELECT key FROM calls WHERE key > ? ORDER BY key LIMIT ?",
                        (last, page_size),
                    ).fetchall()
                numbers = (key_prefix(key) for (key,) in keys if isinstance(key, str))
                prefixes = b"".join(
                    number.to_bytes(8, "big") for number in numbers if number is not None
                )
            yield prefixes
            last = top

    def call_messages(self, key: str) -> list[dict] | None:
        with self._lock:
            row = self._db.execute("SELECT messages FROM calls WHERE key = ?", (key,)).fetchone()
        if not row or row[0] is None:
            return None
        return json.loads(zlib.decompress(row[0]))

    def error_keys(self, stage: str | None = None) -> list[str]:
        sql = "SELECT key FROM calls WHERE status != 'ok'"
        args: tuple = ()
        if stage:
            sql += " AND stage = ?"
            args = (stage,)
        with self._lock:
            return [r[0] for r in self._db.execute(sql, args)]

    def forget_errors(self, stage: str | None = None) -> int:
        """Delete recorded failures so the next run calls them again; returns how many."""
        sql = "DELETE FROM calls WHERE status != 'ok'"
        args: tuple = ()
        if stage:
            sql += " AND stage = ?"
            args = (stage,)
        with self._lock:
            return self._db.execute(sql, args).rowcount

    def call_stats(self) -> list[dict]:
        """Per stage and model: calls, errors, tokens (input tokens also split into those the
        provider served from its prompt cache and the rest), cost, mean latency."""
        sql = (
            "SELECT stage, endpoint, model, COUNT(*), SUM(status != 'ok'), SUM(input_tokens), "
            "SUM(output_tokens), SUM(reasoning_tokens), SUM(cost), AVG(latency_ms), SUM(attempts), "
            "SUM(cached_input_tokens), SUM(input_tokens - cached_input_tokens) "
            "FROM calls GROUP BY stage, endpoint, model ORDER BY stage, endpoint, model"
        )
        names = (
            "stage",
            "endpoint",
            "model",
            "calls",
            "errors",
            "input_tokens",
            "output_tokens",
            "reasoning_tokens",
            "cost",
            "mean_latency_ms",
            "attempts",
            "cached_input_tokens",
            "uncached_input_tokens",
        )
        with self._lock:
            rows = self._db.execute(sql).fetchall()
        return [dict(zip(names, row, strict=True)) for row in rows]

    def add_calls(self, calls: list[FinishedCall]) -> None:
        """Commit finished calls that came by another road than the client (an offline batch's
        results), all in one transaction."""
        rows = [call_row(call) for call in calls]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(INSERT_CALL, rows)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def total_cost(self) -> float:
        with self._lock:
            (value,) = self._db.execute("SELECT COALESCE(SUM(cost), 0) FROM calls").fetchone()
        return float(value)

    def count_calls(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]

    # -- meta --------------------------------------------------------------------------------

    def set_meta(self, key: str, value: object) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value))
            )

    def get_meta(self, key: str, default: object = None) -> object:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def integrity_check(self) -> str:
        with self._lock:
            return self._db.execute("PRAGMA integrity_check").fetchone()[0]


def _row_to_result(row: tuple, *, cached: bool) -> CallResult:
    (
        key,
        endpoint,
        model,
        status,
        text,
        finish,
        error,
        tin,
        tout,
        treason,
        cost,
        latency,
        attempts,
        cached_input,
    ) = row
    return CallResult(
        key=key,
        endpoint=endpoint,
        model=model,
        status=status,
        text=text,
        finish_reason=finish,
        error=error,
        input_tokens=tin,
        output_tokens=tout,
        reasoning_tokens=treason,
        cached_input_tokens=cached_input,
        cost=cost,
        latency_ms=latency,
        attempts=attempts,
        cached=cached,
    )


def result_as_dict(result: CallResult) -> dict:
    return asdict(result)
