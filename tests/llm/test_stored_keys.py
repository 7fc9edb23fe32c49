"""The stored calls' keys as the client knows them: by 8-byte prefixes, read from the store a page
at a time. A key the store holds is always found; a key it does not hold is found only when its
prefix is another key's (then the store lookup decides)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polistemics.llm import stored_keys
from polistemics.llm.store import RunStore, key_prefix
from polistemics.llm.stored_keys import StoredKeys


def sha(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()


def store_with(path: Path, keys: list[str]) -> RunStore:
    """A store holding a (minimal) call under each key."""
    store = RunStore(path)
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO calls (key, endpoint, model, stage, messages_hash, params, "
            "sample_index, status, created_at) VALUES (?, 'e', 'm', 's', 'h', '{}', 0, 'ok', 0)",
            [(key,) for key in keys],
        )
    return store


# Keys no client makes, each a way the first 16 characters can fail to be 16 hex digits.
ODD = [
    "k1",
    "",
    "ABCDEF0123456789" + "0" * 48,  # upper case: a prefix, out of order among the others
    "0x0123456789abcd" + "0" * 48,  # int() reads a 0x prefix
    "0123 4567 89ab c" + "0" * 48,  # bytes.fromhex skips spaces
    "01234567_89abcde" + "0" * 48,  # int() skips underscores
    "-123456789abcdef" + "0" * 48,
    "é" * 64,
    "0123456789abcdeg" + "0" * 48,
]


def test_every_stored_key_is_found_and_no_other_whatever_the_pages(tmp_path: Path) -> None:
    keys = [sha(i) for i in range(50)] + ODD
    store = store_with(tmp_path / "store.sqlite", keys)
    expected = sorted(p for p in map(key_prefix, keys) if p is not None)
    for page_size in (1, 3, 7, 64, 10_000):  # pages with odd keys are read key by key
        pages = list(store.key_prefixes(page_size))
        assert len(pages) == -(-(len(keys) - 1) // page_size)  # "" is not read: no prefix
        read = np.frombuffer(b"".join(pages), ">u8")
        assert sorted(int(p) for p in read) == expected
    known = StoredKeys.read(store)
    assert all(key in known for key in keys)
    assert not any(sha(i) in known for i in range(50, 2000))
    store.close()


def test_an_empty_store_holds_nothing(tmp_path: Path) -> None:
    known = StoredKeys.read(store_with(tmp_path / "store.sqlite", []))
    assert len(known) == 0 and sha(1) not in known
    assert "k1" in known  # a key without a prefix may always be held


def test_prefixes_are_compared_as_whole_64_bit_numbers() -> None:
    """Near 2**64 a float cannot tell neighbours apart; the top range has an end too."""
    top = ["f" * 64, "fffffffffffffffe" + "0" * 48, "0" * 64, "0000000000000001" + "f" * 48]
    known = StoredKeys(np.array(sorted(key_prefix(k) for k in top[::2]), np.uint64))
    assert top[0] in known and top[2] in known
    assert top[1] not in known and top[3] not in known
    # A key sharing a stored key's prefix may be held: the store lookup decides.
    assert "f" * 16 + "0" * 48 in known


def test_keys_stored_since_are_found_before_and_after_merges(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stored_keys, "MERGE_EVERY", 5)
    known = StoredKeys(np.array(sorted(key_prefix(sha(i)) for i in range(100)), np.uint64))
    added = [sha(i) for i in range(100, 123)] + ["k1", "f" * 64, "0" * 64]
    for number, key in enumerate(added):
        assert key == "k1" or key not in known
        known.add(key)
        assert all(k in known for k in added[: number + 1])
    assert all(sha(i) in known for i in range(123))
    assert not any(sha(i) in known for i in range(123, 1000))
    merged = np.asarray(known._sorted)
    assert len(merged) >= 120 and bool(np.all(merged[:-1] <= merged[1:]))


@settings(max_examples=40, deadline=None)
@given(
    stored=st.sets(st.integers(0, 2**64 - 1), max_size=60),
    added=st.sets(st.integers(0, 2**64 - 1), max_size=30),
    asked=st.sets(st.integers(0, 2**64 - 1), max_size=30),
    merge_every=st.integers(1, 8),
)
def test_membership_is_that_of_a_set_of_the_prefixes(
    stored: set[int], added: set[int], asked: set[int], merge_every: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stored_keys, "MERGE_EVERY", merge_every)
        known = StoredKeys(np.array(sorted(stored), np.uint64))
        for prefix in added:
            known.add(f"{prefix:016x}" + "0" * 48)
        for prefix in stored | added | asked:
            key = f"{prefix:016x}" + "9" * 48
            assert (key in known) == (prefix in stored | added)
