"""MiniLM embeddings of training texts, computed once and cached under var/ (never committed).

The vectors come from the service's own embedder (`app.core.embeddings.get_embedder`), so a
model trained on them sees exactly what the write path feeds it. A first run on a fresh machine
embeds tens of thousands of texts; with `workers` > 1 the batches run on that many ONNX
sessions at once (one thread each, the service's setting), each batch exactly as one session
would run it, so the vectors are the same bit for bit as with one worker.
"""

from __future__ import annotations

import hashlib
import queue
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

from app.core.embeddings import Embedder, get_embedder, new_embedder
from app.models.base import EMBEDDING_DIM
from workers.common.progress import log

Matrix = npt.NDArray[np.float32]
BATCH = 16  # texts of similar length per batch: little padding, near the batched optimum
# New rows between writes of the file. Writing ~10^5 rows takes seconds, and readers ask for
# a few texts at a time (a revision's mention contexts, an episode's texts); `flush` writes
# the rest when a job ends.
SAVE_EVERY = 2000


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


class EmbeddingCache:
    """A file-backed map text → 384-d unit vector; `embed` fills in what is missing."""

    name = "embedding-cache"

    def __init__(self, path: Path, embedder: Embedder | None = None, *, workers: int = 1) -> None:
        """`embedder`: None for the service's; `workers`: sessions that fill the cache at once
        (the service's embedder only; an explicit one runs alone)."""
        self.path = path
        self._embedder = embedder
        self._workers = max(1, workers) if embedder is None else 1
        self._rows: dict[str, Matrix] = {}
        self._unsaved = 0
        self._sessions: queue.SimpleQueue[Embedder] = queue.SimpleQueue()  # idle, for workers
        self._made = 0
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
        batches = [missing[start : start + BATCH] for start in range(0, len(missing), BATCH)]
        workers = min(self._workers, len(batches))
        started = time.monotonic()
        if len(missing) >= BATCH:  # not for the few texts of one reading
            log.info("embedding %d texts on %d worker(s) (cache %s)", len(missing), workers,
                     self.path)
        if workers == 1:
            self._store((_embed_batch(self.embedder, b) for b in batches), len(missing), started)
        else:
            while self._made < workers:  # sessions are made once and kept for later fills
                self._sessions.put(new_embedder())
                self._made += 1
            with ThreadPoolExecutor(workers) as pool:
                self._store(pool.map(self._embed_on_free_session, batches), len(missing),
                            started)
        self._unsaved += len(missing)
        if self._unsaved >= SAVE_EVERY:
            self.save()

    def _embed_on_free_session(self, batch: list[tuple[str, str]]) -> list[tuple[str, Matrix]]:
        # Each session runs whole batches; a batch's vectors depend on its members only.
        embedder = self._sessions.get()
        try:
            return _embed_batch(embedder, batch)
        finally:
            self._sessions.put(embedder)

    def _store(self, results: Iterable[list[tuple[str, Matrix]]], total: int,
               started: float) -> None:
        done = 0
        for rows in results:
            self._rows.update(rows)
            done += len(rows)
            if done % (BATCH * 200) < BATCH or (done == total and total >= BATCH):
                log.info("  embedded %d/%d (%.0f s)", done, total, time.monotonic() - started)

    def flush(self) -> None:
        """Write what is not on disk yet (call when a job is done with the cache)."""
        if self._unsaved:
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
        self._unsaved = 0


def _embed_batch(embedder: Embedder, batch: list[tuple[str, str]]) -> list[tuple[str, Matrix]]:
    """(key, vector) of each (key, text) in `batch`, embedded in one call."""
    vectors = embedder.embed([text for _, text in batch])
    return [(key, vector.astype(np.float32))
            for (key, _), vector in zip(batch, vectors, strict=True)]


def training_cache(path: Path, embedder: str | None, threads: int) -> EmbeddingCache:
    """The cache a trainer reads through: the named embedder (tests: "hashing"), or the
    service's filled on `threads` sessions. Call `flush` when the job is done."""
    return EmbeddingCache(path, get_embedder(embedder) if embedder else None, workers=threads)
