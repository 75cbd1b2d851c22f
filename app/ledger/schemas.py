from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.inputs import SafeStr
from app.domain.vocabulary import Direction, Layer, NodeState, Origin, Timescale
from app.ledger.rules import decayed_confidence
from app.models import Node
from app.models.base import utcnow


class NodeOut(BaseModel):
    id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: Direction
    scope: str
    timescale: Timescale
    layer: Layer
    state: NodeState
    origin: Origin
    c0: float
    authenticity: float
    confidence_now: float
    last_corroborated_at: datetime
    quarantined_at: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    retired_at: datetime | None
    influence: float | None
    retrieval_count: int
    version: int

    @classmethod
    def of(cls, node: Node, at: datetime | None = None) -> NodeOut:
        return cls(
            id=node.id,
            claim=node.claim,
            subject=node.subject,
            value=node.value,
            direction=node.direction,
            scope=node.scope,
            timescale=node.timescale,
            layer=node.layer,
            state=node.state,
            origin=node.origin,
            c0=node.c0,
            authenticity=node.authenticity,
            confidence_now=round(decayed_confidence(node, at or utcnow()), 6),
            last_corroborated_at=node.last_corroborated_at,
            quarantined_at=node.quarantined_at,
            valid_from=node.valid_from,
            valid_to=node.valid_to,
            recorded_at=node.recorded_at,
            retired_at=node.retired_at,
            influence=node.influence,
            retrieval_count=node.retrieval_count,
            version=node.version,
        )


class NodePage(BaseModel):
    nodes: list[NodeOut]
    total: int
    limit: int
    offset: int


class NodePatch(BaseModel):
    """A user's correction. `state: active` confirms a quarantined claim (or restores a
    retired one); `state: evicted` rejects it. `direction` turns a claim the extractor read
    backwards ("I tend to steer clear of X" stored as a preference for X); it is applied
    after a new `claim` is read."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"claim": "Prefers short answers at work", "scope": "work"}]
        },
    )

    claim: SafeStr | None = Field(default=None, min_length=1, max_length=512)
    direction: Literal["prefer", "avoid"] | None = None
    scope: str | None = Field(default=None, max_length=64, pattern=r"^[a-z0-9_\-]+$")
    layer: Literal["stable", "contextual", "transient"] | None = None
    state: Literal["active", "evicted"] | None = None


class ErasureReceipt(BaseModel):
    node_id: uuid.UUID
    erased_at: datetime
    events_erased: int
    hypotheses_erased: int


class EventErasureReceipt(BaseModel):
    event_id: uuid.UUID
    erased_at: datetime
    nodes_erased: int
    hypotheses_erased: int
