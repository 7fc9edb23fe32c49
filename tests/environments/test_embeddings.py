import numpy as np
import pytest

from polistemics.environments.embeddings import (
    CACHE_FILE,
    CachedEmbedder,
    TfidfEmbedder,
    UseEmbedder,
    make_embedder,
)

TEXTS = [
    "[PARTY] unterstützt ein Tempolimit auf Autobahnen, weil es Leben rettet.",
    "[PARTY] lehnt ein Tempolimit auf Autobahnen ab, weil es die Bürger bevormundet.",
    "[PARTY] will den Mindestlohn auf 15 Euro anheben.",
]


class CountingEmbedder:
    name = "counting-v1"
    corpus_dependent = False

    def __init__(self):
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32) / 100


def test_tfidf_rows_are_unit_length_and_related_texts_are_closer():
    vectors = TfidfEmbedder().embed(TEXTS)
    assert vectors.shape[0] == 3
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    sim = vectors @ vectors.T
    assert sim[0, 1] > sim[0, 2]


def test_cache_stores_each_text_once_and_returns_the_same_bytes(tmp_path):
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path)
    first = cached.embed(["x", "yy", "x"])
    assert sorted(inner.seen) == ["x", "yy"]
    again = CachedEmbedder(CountingEmbedder(), tmp_path)
    second = again.embed(["yy", "x"])
    assert again.inner.seen == []
    assert second.tobytes() == first[[1, 0]].tobytes()
    assert (tmp_path / CACHE_FILE).exists()


def test_corpus_dependent_embedders_are_not_cached(tmp_path):
    with pytest.raises(ValueError, match="cannot be cached"):
        CachedEmbedder(TfidfEmbedder(), tmp_path)


def test_make_embedder_kinds(tmp_path):
    assert isinstance(make_embedder("tfidf"), TfidfEmbedder)
    with pytest.raises(ValueError, match="unknown embeddings"):
        make_embedder("bert")  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def use_model() -> UseEmbedder:
    return UseEmbedder()


def test_use_model_separates_related_from_unrelated_passages(use_model):
    vectors = use_model.embed(TEXTS)
    assert vectors.shape == (3, 512)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sim = vectors @ vectors.T
    assert sim[0, 1] > sim[0, 2] and sim[0, 1] > sim[1, 2]
    assert use_model.name.startswith("use-multilingual-v3/")


def test_use_vector_depends_on_the_text_alone(use_model):
    alone = use_model.embed([TEXTS[2]])[0]
    in_batch = use_model.embed(TEXTS)[2]
    assert alone.tobytes() == in_batch.tobytes()
