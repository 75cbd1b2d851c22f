"""`openai_compatible`: re-decode on an OpenAI-compatible chat-completions server (vLLM,
Ollama, llama.cpp server, …) with the memories in the system prompt, greedy."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from app.core.config import get_settings
from app.domain.audit import Decoded
from app.selection.memory import Memory
from workers.audit.local_lm import system_prompt


class DecoderUnavailable(RuntimeError):
    pass


class OpenAICompatibleDecoder:
    name = "openai_compatible"

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 max_new_tokens: int = 48, timeout_s: float = 60.0,
                 client: httpx.Client | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.max_new_tokens = max_new_tokens
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(timeout=timeout_s)

    @classmethod
    def from_settings(cls) -> OpenAICompatibleDecoder:
        settings = get_settings()
        if not settings.audit_llm_url:
            raise DecoderUnavailable("CAPTURE_AUDIT_LLM_URL is not set")
        return cls(settings.audit_llm_url, settings.audit_llm_model,
                   api_key=settings.audit_llm_api_key,
                   max_new_tokens=settings.audit_max_new_tokens,
                   timeout_s=settings.audit_llm_timeout_s)

    def generate(self, prompt: str, memories: Sequence[Memory]) -> str:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system_prompt(memories)},
                         {"role": "user", "content": prompt}],
            "max_tokens": self.max_new_tokens,
            "temperature": 0,
        }
        try:
            response = self._client.post(f"{self.base_url}/v1/chat/completions", json=body,
                                         headers=self._headers)
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
            raise DecoderUnavailable("the decoder server did not answer") from exc
        return str(content or "").strip()

    def decode_many(self, prompt: str, memory_sets: Sequence[Sequence[Memory]],
                    candidates: Sequence[str]) -> list[Decoded]:
        return [Decoded(self.generate(prompt, memories)) for memories in memory_sets]
