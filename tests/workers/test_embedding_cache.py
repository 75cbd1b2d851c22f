"""The training embedding cache: filled on several ONNX sessions, the vectors are the same bit
for bit as on one, and they survive a reload."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workers.common.embedding_cache import BATCH, EmbeddingCache

# Enough texts of mixed lengths for several batches per worker.
TEXTS = [f"note {i}: I {'really ' * (i % 5)}prefer option {i % 7} for task {i}"
         for i in range(5 * BATCH + 3)]


def test_two_workers_match_one_bit_for_bit(tmp_path: Path) -> None:
    one = EmbeddingCache(tmp_path / "one.npz", workers=1).embed(TEXTS)
    two = EmbeddingCache(tmp_path / "two.npz", workers=2).embed(TEXTS)
    assert one.shape == (len(TEXTS), 384)
    assert np.array_equal(one, two)


def test_reload_returns_the_stored_vectors(tmp_path: Path) -> None:
    path = tmp_path / "cache.npz"
    cache = EmbeddingCache(path, workers=2)
    first = cache.embed(TEXTS[:20])
    cache.flush()
    assert path.exists()
    again = EmbeddingCache(path, workers=2)
    assert np.array_equal(again.embed(TEXTS[:20]), first)
    assert again.embed([]).shape == (0, 384)


def test_small_fills_wait_for_flush(tmp_path: Path) -> None:
    path = tmp_path / "cache.npz"
    cache = EmbeddingCache(path, workers=2)
    cache.embed(TEXTS[:3])  # a reading's few texts: kept in memory
    assert not path.exists()
    cache.flush()
    assert np.array_equal(EmbeddingCache(path).embed(TEXTS[:3]), cache.embed(TEXTS[:3]))
