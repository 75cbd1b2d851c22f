"""The extractor interface every backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from app.domain.claims import Extraction
from app.domain.vocabulary import Origin


@dataclass(frozen=True, slots=True)
class EventInput:
    """What an extractor may read of an event: its fields (no ids), and of the ledger only
    which values the user holds."""

    text: str
    origin: Origin
    occurred_at: datetime
    domain: str | None = None
    tool_name: str | None = None
    # (subject, value) of the user's active `prefer` claims, for user-channel events: a
    # revision names the value it leaves and the one it takes, and the one the user holds is
    # the one left (`workers/extraction/infer.py`, `contrast_claim`). Empty: the event alone.
    held: frozenset[tuple[str, str]] = frozenset()
    # The caller's admission policy asks the user questions: where a revision does not say
    # which of two values it leaves, the extractor may emit the one not held, flagged
    # `side_unclear`, for the gate to ask about, rather than guess.
    asks: bool = False


class Extractor(Protocol):
    name: str
    version: str

    def extract(self, event: EventInput) -> Extraction:
        """Hypotheses read from the event, or an abstention. Never raises on odd text."""
        ...
