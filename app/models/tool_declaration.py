from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, new_id, utcnow


class ToolDeclarationRow(Base):
    """A tool a tenant's admin declared (`PUT /v1/tools/{name}`) in the MCP `Tool` shape:
    check-call classifies the tool from it where the operator's policy file does not name
    it."""

    __tablename__ = "tool_declarations"
    __table_args__ = (
        UniqueConstraint("tenant_id", "name", name="uq_tool_declarations_tenant_name"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    name: Mapped[str] = mapped_column(String(128))
    declaration: Mapped[dict[str, Any]] = mapped_column(JSONB)
    # The admin key that last wrote it.
    updated_by_key_id: Mapped[uuid.UUID | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
