"""The batches of a run, kept in its store (``store.sqlite``) from the moment each is created.

Two tables beside the store's ``calls`` (made on first use, so an older store opens as it was):
``batches`` (one row per batch: its id, endpoint, status, and what its files held) and
``batch_requests`` (the store keys, i.e. the ``custom_id``s, each batch was sent with). A batch
is *open* until every request in it has its result stored, or is known to need sending again; a
killed run resumes by polling its open batches instead of sending their requests twice.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from polistemics.llm.store import connect

SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    batch_id TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    input_file_id TEXT NOT NULL,
    requests INTEGER NOT NULL,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    closed_at REAL,
    refused_unknown INTEGER NOT NULL DEFAULT 0,
    refused_duplicate INTEGER NOT NULL DEFAULT 0,
    refused_malformed INTEGER NOT NULL DEFAULT 0,
    missing INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS batch_requests (
    key TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    PRIMARY KEY (key, batch_id)
);
CREATE INDEX IF NOT EXISTS batch_requests_batch ON batch_requests(batch_id);
"""
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})


@dataclass(frozen=True)
class BatchRow:
    batch_id: str
    endpoint: str
    base_url: str
    model: str
    requests: int
    status: str
    created_at: float
    closed: bool


class Ledger:
    """Reads and writes the batch tables of one run store (thread-safe, its own connection)."""

    def __init__(self, store_path: Path | str):
        self.path = Path(store_path)
        self._lock = threading.Lock()
        self._db = connect(self.path)
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def record(
        self,
        batch_id: str,
        *,
        endpoint: str,
        base_url: str,
        model: str,
        input_file_id: str,
        status: str,
        keys: list[str],
    ) -> None:
        """A batch just created, with the keys it carries, in one transaction."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO batches (batch_id, endpoint, base_url, model, "
                    "input_file_id, requests, status, created_at) VALUES (?,?,?,?,?,?,?,?)",
                    (
                        batch_id,
                        endpoint,
                        base_url,
                        model,
                        input_file_id,
                        len(keys),
                        status,
                        time.time(),
                    ),
                )
                self._db.executemany(
                    "INSERT OR IGNORE INTO batch_requests (key, batch_id) VALUES (?, ?)",
                    [(key, batch_id) for key in keys],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def set_status(self, batch_id: str, status: str) -> None:
        with self._lock:
            self._db.execute("UPDATE batches SET status = ? WHERE batch_id = ?", (status, batch_id))

    def record_read(self, batch_id: str, refused: Counter[str], missing: int) -> None:
        """What reading the batch's files found: refused lines by kind, requests missing."""
        with self._lock:
            self._db.execute(
                "UPDATE batches SET refused_unknown = ?, refused_duplicate = ?, "
                "refused_malformed = ?, missing = ? WHERE batch_id = ?",
                (refused["unknown"], refused["duplicate"], refused["malformed"], missing, batch_id),
            )

    def close_batch(self, batch_id: str) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE batches SET closed_at = ? WHERE batch_id = ? AND closed_at IS NULL",
                (time.time(), batch_id),
            )

    def close_stored(self) -> int:
        """Close every open batch whose requests all have a stored result; how many."""
        with self._lock:
            return self._db.execute(
                "UPDATE batches SET closed_at = ? WHERE closed_at IS NULL AND NOT EXISTS ("
                " SELECT 1 FROM batch_requests r WHERE r.batch_id = batches.batch_id"
                " AND r.key NOT IN (SELECT key FROM calls))",
                (time.time(),),
            ).rowcount

    def open_requests(self) -> dict[str, str]:
        """Key -> the open batch it was sent in (a key in two open batches: the later one)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT r.key, b.batch_id FROM batch_requests r JOIN batches b "
                "ON r.batch_id = b.batch_id WHERE b.closed_at IS NULL ORDER BY b.created_at"
            ).fetchall()
        return dict(rows)

    def sent_keys(self) -> set[str]:
        """Every key ever sent in a batch of this store."""
        with self._lock:
            return {row[0] for row in self._db.execute("SELECT DISTINCT key FROM batch_requests")}

    def batch(self, batch_id: str) -> BatchRow | None:
        rows = self._rows("WHERE batch_id = ?", (batch_id,))
        return rows[0] if rows else None

    def batches(self, *, open_only: bool = False) -> list[BatchRow]:
        return self._rows("WHERE closed_at IS NULL" if open_only else "", ())

    def _rows(self, where: str, args: tuple) -> list[BatchRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT batch_id, endpoint, base_url, model, requests, status, created_at, "
                f"closed_at IS NOT NULL FROM batches {where} ORDER BY created_at, batch_id",
                args,
            ).fetchall()
        return [BatchRow(*row[:7], closed=bool(row[7])) for row in rows]

    def keys_of(self, batch_id: str) -> list[str]:
        with self._lock:
            return [
                row[0]
                for row in self._db.execute(
                    "SELECT key FROM batch_requests WHERE batch_id = ?", (batch_id,)
                )
            ]

    def unstored_keys_of(self, batch_id: str) -> set[str]:
        """The keys of a batch without a stored result."""
        with self._lock:
            return {
                row[0]
                for row in self._db.execute(
                    "SELECT key FROM batch_requests WHERE batch_id = ? "
                    "AND key NOT IN (SELECT key FROM calls)",
                    (batch_id,),
                )
            }

    def report(self) -> dict:
        """What run.json records: the cost and calls of each execution mode (a stored call sent
        in a batch counts as batch), and the batches' requests, resubmissions and refusals."""
        with self._lock:
            db = self._db
            (batches, requests, distinct) = db.execute(
                "SELECT (SELECT COUNT(*) FROM batches), COUNT(*), COUNT(DISTINCT key) "
                "FROM batch_requests"
            ).fetchone()
            refused = db.execute(
                "SELECT COALESCE(SUM(refused_unknown), 0), COALESCE(SUM(refused_duplicate), 0), "
                "COALESCE(SUM(refused_malformed), 0), COALESCE(SUM(missing), 0), "
                "COALESCE(SUM(closed_at IS NULL), 0) FROM batches"
            ).fetchone()
            modes = db.execute(
                "SELECT key IN (SELECT key FROM batch_requests) AS batched, COUNT(*), "
                "COALESCE(SUM(cost), 0), COALESCE(SUM(input_tokens), 0), "
                "COALESCE(SUM(output_tokens), 0) FROM calls GROUP BY batched"
            ).fetchall()
        by_mode = {
            ("batch" if batched else "online"): {
                "calls": calls,
                "cost_usd": round(cost, 6),
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
            }
            for batched, calls, cost, tokens_in, tokens_out in modes
        }
        return {
            "execution": by_mode,
            "batches": {
                "created": batches,
                "requests_sent": requests,
                "resubmitted": requests - distinct,
                "refused_lines": dict(
                    zip(("unknown", "duplicate", "malformed"), refused[:3], strict=True)
                ),
                "missing_results": refused[3],
                "open": refused[4],
            },
        }


def ledger_report(store_path: Path | str) -> dict:
    """``Ledger.report`` of a store that has batch tables, else {} (a run without batches)."""
    if not Path(store_path).is_file():
        return {}
    db = sqlite3.connect(f"file:{Path(store_path)}?mode=ro", uri=True, timeout=60)
    try:
        has = db.execute(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'batches'"
        ).fetchone()[0]
        used = has and db.execute("SELECT COUNT(*) FROM batches").fetchone()[0]
    finally:
        db.close()
    if not used:
        return {}
    with Ledger(store_path) as ledger:
        return ledger.report()
