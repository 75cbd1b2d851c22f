from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, new_id, utcnow


class Clarification(Base):
    """A question to the user about a claim held in quarantine until they answer. Its text is
    rendered when read, from the live claims of `node_id` and `contradicted_node_id`
    (app/clarifications/service.py), so no copy of a claim is kept here to outlive its
    erasure."""

    __tablename__ = "clarifications"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    event_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("events.id"))
    decision_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("decisions.id"))
    node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("nodes.id"))
    # The active claim the held one would replace, quoted by the question while it exists.
    contradicted_node_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("nodes.id"))
    # Where the held claim came from (an Origin), as the question names it.
    source: Mapped[str | None] = mapped_column(String(32))
    # pending (asked, waiting) | answered | erased | deferred (the user's question budget was
    # spent: asked at a later event of theirs) | withdrawn (its claim left quarantine first)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    # The event at which the user was asked (the raising event, or a later one when deferred);
    # None while deferred. The question budget counts questions by this event.
    asked_event_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("events.id"),
                                                             index=True)
    answer: Mapped[str | None] = mapped_column(String(16))
    answer_scope: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    answered_at: Mapped[datetime | None]
