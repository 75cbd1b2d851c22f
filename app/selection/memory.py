"""What the selector and the audit read of a memory: a claim and, when the taxonomy knows
it, its structured fields. Plain data, so the benchmark can build memories by hand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.claims import GLOBAL_SCOPE
from app.domain.vocabulary import Direction, Timescale
from app.extraction.deterministic import claim_text
from app.extraction.taxonomy import DIMENSIONS_BY_NAME, SCOPE_DOMAINS_BY_NAME


@dataclass(frozen=True, slots=True)
class Memory:
    """One retrieved memory. `claim` may be omitted when `subject`/`value` are known: it is
    then written the way the extractor writes it ("Prefers short answers in standups")."""

    node_id: str
    claim: str | None = None
    subject: str | None = None
    value: str | None = None
    direction: str = Direction.prefer.value
    scope: str = GLOBAL_SCOPE
    score: float = 1.0

    @property
    def text(self) -> str:
        if self.claim:
            return self.claim
        canonical = canonical_claim(self.subject, self.value, self.direction, self.scope)
        return canonical or f"{self.subject or ''} {self.value or ''}".strip()

    @property
    def known(self) -> bool:
        """Whether the taxonomy knows this memory's dimension and value."""
        dim = DIMENSIONS_BY_NAME.get(self.subject or "")
        return dim is not None and any(v.name == self.value for v in dim.values)


def canonical_claim(
    subject: str | None, value: str | None, direction: str = "prefer", scope: str = GLOBAL_SCOPE
) -> str | None:
    dim = DIMENSIONS_BY_NAME.get(subject or "")
    if dim is None or value is None or not any(v.name == value for v in dim.values):
        return None
    return claim_text(dim, value, Direction(direction), scope, Timescale.permanent)


def scope_label(scope: str) -> str:
    domain = SCOPE_DOMAINS_BY_NAME.get(scope)
    return domain.label if domain is not None else scope.replace("_", " ")


def without(memories: Sequence[Memory], node_id: str) -> list[Memory]:
    return [m for m in memories if m.node_id != node_id]
