"""Embeddings load offline from the installed packages and carry meaning."""

from __future__ import annotations

import numpy as np

from app.core.embeddings import CachedEmbedder, HashingEmbedder, get_embedder


class TestMiniLM:
    def test_unit_norm_and_semantics(self) -> None:
        vectors = get_embedder().embed(
            ["I prefer short answers", "Please keep responses brief", "I love hiking"])
        assert vectors.shape == (3, 384)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
        similarity = vectors @ vectors.T
        assert similarity[0, 1] > similarity[0, 2] + 0.2


class TestCache:
    def test_cached_rows_equal_fresh_ones(self) -> None:
        inner = HashingEmbedder()
        cached = CachedEmbedder(inner, capacity=2)
        texts = ["a b", "c d", "a b", "e f"]
        assert np.allclose(cached.embed(texts), inner.embed(texts))
        assert len(cached._cache) == 2
        assert cached.embed([]).shape == (0, 384)
