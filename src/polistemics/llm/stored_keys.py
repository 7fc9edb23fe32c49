"""Which calls a run's store holds, known in about 8 bytes a call (issue 32).

The client asks before each call whether the store may hold its result, so that a new call
costs no database read. A set of the keys (a SHA-256 in hex each) took about 153 bytes a call,
129 MB at 842,823 calls. Here a key is known by its prefix (``store.key_prefix``: its first 16
hex digits, an unsigned 64-bit number). The prefixes the store held at start sit in a sorted
numpy array, read from the store a page at a time (``RunStore.key_prefixes``), with an index of
where the prefixes of each value of their top bits start (ranges of 2 to 4 prefixes, at most
65,536 ranges), so that a search takes a few steps; those stored since wait in a small set, merged
into the array every ``MERGE_EVERY`` keys.

Two keys may share a prefix (a new call meets one of a million stored calls' prefixes about once
in 10**13 calls), so "held" means "may be held": the store lookup that follows finds the call, or
returns None and the call is made. A key without a prefix (none the client makes) may always be
held.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from polistemics.llm.store import RunStore, key_prefix

MERGE_EVERY = 16_384  # keys stored since the last merge that wait in a set (about 1 MB)
MAX_TOP_BITS = 16  # the index has at most 2**16 ranges (512 KB)


class StoredKeys:
    """The keys of the stored calls, by their prefixes: ``key in stored_keys`` is False only for
    a call the store does not hold."""

    def __init__(self, prefixes: np.ndarray | None = None) -> None:
        """``prefixes``: sorted ``np.uint64`` values (``read`` makes them)."""
        self._recent: set[int] = set()
        self._use(np.empty(0, np.uint64) if prefixes is None else prefixes)

    @classmethod
    def read(cls, store: RunStore) -> StoredKeys:
        """The keys the store holds now."""
        pages = [np.frombuffer(page, ">u8").astype(np.uint64) for page in store.key_prefixes()]
        prefixes = np.concatenate(pages) if pages else np.empty(0, np.uint64)
        del pages
        prefixes.sort(kind="stable")  # read in the keys' order: sorted already but for oddities
        return cls(prefixes)

    def __contains__(self, key: str) -> bool:
        prefix = key_prefix(key)
        if prefix is None or prefix in self._recent:
            return True
        top = prefix >> self._shift
        end = self._starts[top + 1]
        at = bisect_left(self._view, prefix, self._starts[top], end)
        return at < end and self._view[at] == prefix

    def add(self, key: str) -> None:
        """A key just stored."""
        prefix = key_prefix(key)
        if prefix is None:
            return
        self._recent.add(prefix)
        if len(self._recent) >= MERGE_EVERY:
            self._merge()

    def __len__(self) -> int:
        """How many prefixes are known (a prefix stored twice may count twice)."""
        return len(self._sorted) + len(self._recent)

    @property
    def nbytes(self) -> int:
        """The memory of the sorted array and its index (the set beside it holds fewer than
        ``MERGE_EVERY`` keys)."""
        return self._sorted.nbytes + self._starts.nbytes

    def _merge(self) -> None:
        recent = np.fromiter(self._recent, np.uint64, count=len(self._recent))
        recent.sort()
        self._use(np.insert(self._sorted, self._sorted.searchsorted(recent), recent))
        self._recent.clear()

    def _use(self, prefixes: np.ndarray) -> None:
        """Search ``prefixes`` (sorted) from now on, through a new index."""
        bits = min(MAX_TOP_BITS, max(1, (len(prefixes) // 4).bit_length()))
        tops = np.arange(1 << bits, dtype=np.uint64) << np.uint64(64 - bits)
        starts = np.empty(len(tops) + 1, np.int64)
        starts[:-1] = prefixes.searchsorted(tops)
        starts[-1] = len(prefixes)
        self._sorted, self._shift = prefixes, 64 - bits
        # Read through memoryviews: their items are Python ints (a numpy scalar costs more, and
        # numpy 1.x compares a uint64 with a Python int as floats).
        self._view, self._starts = memoryview(prefixes), memoryview(starts)
