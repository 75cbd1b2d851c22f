"""The audit decoders by name (CAPTURE_AUDIT_DECODER)."""

from __future__ import annotations

from app.domain.audit import AuditDecoder
from app.selection.memory import Memory

DECODERS = ("reselect", "local_lm", "openai_compatible")


def get_decoder(name: str) -> AuditDecoder[Memory]:
    if name == "reselect":
        from workers.audit.reselect import ReselectDecoder

        return ReselectDecoder()
    if name == "local_lm":
        from workers.audit.local_lm import LocalLMDecoder

        return LocalLMDecoder()
    if name == "openai_compatible":
        from workers.audit.openai_compatible import OpenAICompatibleDecoder

        return OpenAICompatibleDecoder.from_settings()
    raise ValueError(f"unknown audit decoder {name!r}; one of {DECODERS}")
