"""The providers `bench.perf.mem0_driver` registers in Mem0's factories. Imported only inside the
Mem0 virtualenv (var/peers/mem0), where `mem0ai` is installed; the service's environment
never imports this module.

- `CaptureMiniLMEmbedding`: Mem0's embedder interface over the service's own embedder
  (`app.core.embeddings.MiniLMOnnxEmbedder`: all-MiniLM-L6-v2, int8 ONNX, the tokenizer under
  app/core/minilm), so Mem0 and Capture embed every text identically and nothing is fetched
  from a model hub. Uncached, as Mem0's own embedders are.
- `OfflineLLM`: the LLM Mem0 requires at construction. No model is reachable offline, so the
  benchmark uses `Memory.add(..., infer=False)`, which never calls it; a call raises.
"""

from __future__ import annotations

from typing import Any

from mem0.configs.embeddings.base import BaseEmbedderConfig
from mem0.embeddings.base import EmbeddingBase
from mem0.llms.base import LLMBase


class CaptureMiniLMEmbedding(EmbeddingBase):  # type: ignore[misc]
    def __init__(self, config: BaseEmbedderConfig | None = None) -> None:
        from app.core.embeddings import MiniLMOnnxEmbedder

        super().__init__(config)
        self.embedder = MiniLMOnnxEmbedder()

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        vector: list[float] = self.embedder.embed([text])[0].tolist()
        return vector

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        vectors: list[list[float]] = self.embedder.embed(list(texts)).tolist()
        return vectors


class OfflineLLM(LLMBase):  # type: ignore[misc]
    def __init__(self, config: Any = None) -> None:
        super().__init__(config)

    def generate_response(self, messages: list[dict[str, str]], **kwargs: Any) -> str:
        raise RuntimeError("no LLM is reachable offline: the benchmark adds with infer=False")
