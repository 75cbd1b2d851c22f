"""MiniLM embeddings of training texts, computed once and cached under var/ (never committed).

The vectors come from the service's own embedder (`app.core.embeddings.get_embedder`), so a
model trained on them sees exactly what the write path feeds it.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from app.core.embeddings import Embedder, get_embedder
from app.models.base import EMBEDDING_DIM

log = logging.getLogger(__name__)

Matrix = npt.NDArray[np.float32]
BATCH = 16  # texts of similar length per batch: little padding, near the batched optimum


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


class EmbeddingCache:
    """A file-backed map text → 384-d unit vector; `embed` fills in what is missing."""

    name = "embedding-cache"

    def __init__(self, path: Path, embedder: Embedder | None = None) -> None:
        self.path = path
        self._embedder = embedder
        self._rows: dict[str, Matrix] = {}
        if path.exists():
            with np.load(path, allow_pickle=False) as data:
                keys = [str(k) for k in data["keys"]]
                vectors = data["vectors"].astype(np.float32)
            self._rows = {k: vectors[i] for i, k in enumerate(keys)}

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    def embed(self, texts: Sequence[str]) -> Matrix:
        """(len(texts), 384) float32."""
        keys = [text_key(t) for t in texts]
        pending = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._rows}
        missing = list(pending.items())
        if missing:
            self._compute(missing)
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        return np.stack([self._rows[k] for k in keys]).astype(np.float32)

    def _compute(self, missing: list[tuple[str, str]]) -> None:
        missing.sort(key=lambda kt: len(kt[1]))
        started = time.monotonic()
        log.info("embedding %d texts (cache %s)", len(missing), self.path)
        for start in range(0, len(missing), BATCH):
            chunk = missing[start : start + BATCH]
            vectors = self.embedder.embed([t for _, t in chunk])
            for (key, _), vector in zip(chunk, vectors, strict=True):
                self._rows[key] = vector.astype(np.float32)
            done = start + len(chunk)
            if done % (BATCH * 200) < BATCH or done == len(missing):
                elapsed = time.monotonic() - started
                log.info("  embedded %d/%d (%.0f s)", done, len(missing), elapsed)
        self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self._rows), dtype="U40")
        vectors = (
            np.stack(list(self._rows.values())) if self._rows
            else np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        )
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vectors=vectors.astype(np.float32))
        tmp.replace(self.path)
