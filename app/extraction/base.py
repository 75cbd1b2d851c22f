"""The extractor interface every backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from app.extraction.schemas import Extraction, Origin


@dataclass(frozen=True, slots=True)
class EventInput:
    """What an extractor may read of an event (no ids, no ledger)."""

    text: str
    origin: Origin
    occurred_at: datetime
    domain: str | None = None
    tool_name: str | None = None


class Extractor(Protocol):
    name: str
    version: str

    def extract(self, event: EventInput) -> Extraction:
        """Hypotheses read from the event, or an abstention. Never raises on odd text."""
        ...
