from __future__ import annotations

import uuid
from datetime import datetime

from pgvector.sqlalchemy import Vector
from sqlalchemy import BigInteger, Computed, ForeignKey, Index, String
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from app.domain.questions import LiveClaim
from app.domain.vocabulary import Direction, EdgeRelation, Layer, NodeState, Origin, Timescale
from app.models.base import EMBEDDING_DIM, Base, new_id, utcnow
from app.models.enums import check_in


class Node(Base):
    """A claim in a user's ledger.

    Bitemporal: valid_from/valid_to are event times over which the claim was held as
    active; recorded_at/retired_at are when the service wrote and retired the row.
    """

    __tablename__ = "nodes"
    __table_args__ = (
        check_in("layer", Layer, "layer"),
        check_in("state", NodeState, "state"),
        check_in("direction", Direction, "direction"),
        check_in("timescale", Timescale, "timescale"),
        check_in("origin", Origin, "origin"),
        Index("ix_nodes_user_state", "user_id", "state"),
        Index("ix_nodes_user_subject", "user_id", "subject"),
        Index(
            "ix_nodes_match_keys",
            "match_keys",
            postgresql_using="gin",
            postgresql_with={"fastupdate": "off"},
        ),
        Index(
            "ix_nodes_embedding_hnsw",
            "embedding",
            postgresql_using="hnsw",
            postgresql_with={"m": 16, "ef_construction": 64},
            postgresql_ops={"embedding": "vector_cosine_ops"},
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"))
    claim: Mapped[str | None] = mapped_column(String(512))
    claim_sha256: Mapped[str] = mapped_column(String(64))
    subject: Mapped[str] = mapped_column(String(64))
    value: Mapped[str | None] = mapped_column(String(128))
    # Trigrams of claim and value for check-call's prefilter (migration 0013), written by
    # Postgres.
    match_keys: Mapped[list[int]] = mapped_column(
        ARRAY(BigInteger),
        Computed(
            "coalesce(text_match_keys(claim), '{}'::bigint[]) "
            "|| coalesce(text_match_keys(value), '{}'::bigint[])",
            persisted=True,
        ),
        deferred=True,
    )
    direction: Mapped[str] = mapped_column(String(16))
    scope: Mapped[str] = mapped_column(String(64))
    timescale: Mapped[str] = mapped_column(String(16))
    embedding: Mapped[list[float] | None] = mapped_column(Vector(EMBEDDING_DIM))
    layer: Mapped[str] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16))
    origin: Mapped[str] = mapped_column(String(32))
    # c0: confidence at write time; authenticity: σ(h) of the decision that admitted it.
    c0: Mapped[float]
    authenticity: Mapped[float]
    last_corroborated_at: Mapped[datetime]
    quarantined_at: Mapped[datetime | None]
    valid_from: Mapped[datetime | None]
    valid_to: Mapped[datetime | None]
    recorded_at: Mapped[datetime] = mapped_column(default=utcnow)
    retired_at: Mapped[datetime | None]
    erased_at: Mapped[datetime | None]
    # Running mean counterfactual influence (audit); NULL until audited.
    influence: Mapped[float | None]
    retrieval_count: Mapped[int] = mapped_column(default=0)
    version: Mapped[int] = mapped_column(default=1)
    created_by_event_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("events.id"))

    def live_claim(self) -> LiveClaim:
        """The claim as a question may quote it: none once erased."""
        return LiveClaim(claim=None if self.erased_at is not None else self.claim,
                         scope=self.scope)


class NodeVersion(Base):
    """Every state of a node, in order: what changed it and what it held."""

    __tablename__ = "node_versions"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("nodes.id"), index=True)
    version: Mapped[int]
    claim: Mapped[str | None] = mapped_column(String(512))
    layer: Mapped[str] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16))
    scope: Mapped[str] = mapped_column(String(64))
    change: Mapped[str] = mapped_column(String(32))
    # Indexed: an event's view lists the ledger changes it caused.
    event_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("events.id"), index=True)
    decision_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("decisions.id"))
    # Who made a change through the API (a correction): the key and its role. NULL for
    # changes the pipeline made from an event.
    actor_key_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("api_keys.id"))
    actor_role: Mapped[str | None] = mapped_column(String(16))
    changed_at: Mapped[datetime]
    recorded_at: Mapped[datetime] = mapped_column(default=utcnow)


class NodeLineage(Base):
    """Which events wrote or corroborated a node (kept as ids after erasure)."""

    __tablename__ = "node_lineage"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("nodes.id"), index=True)
    event_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("events.id"), index=True)
    hypothesis_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("hypotheses.id"))
    decision_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("decisions.id"))
    relation: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Edge(Base):
    __tablename__ = "edges"
    __table_args__ = (check_in("relation", EdgeRelation, "relation"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    src_node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("nodes.id"), index=True)
    dst_node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("nodes.id"), index=True)
    relation: Mapped[str] = mapped_column(String(16))
    probability: Mapped[float]
    decision_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("decisions.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
