"""`GET /v1/keys/me`: the caller's own key, so a front end (the MCP server, a gateway) can
verify a key it was handed before acting with it."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from app.core.auth import Principal, authenticate
from app.core.errors import responses
from app.models.enums import Role

router = APIRouter(prefix="/v1/keys", tags=["keys"])


class KeyIdentity(BaseModel):
    tenant_id: uuid.UUID
    key_id: uuid.UUID
    role: Role


@router.get("/me", response_model=KeyIdentity, responses=responses())
def get_current_key(principal: Principal = Depends(authenticate)) -> KeyIdentity:
    """The tenant and role of the key that made the request."""
    return KeyIdentity(
        tenant_id=principal.tenant_id, key_id=principal.key_id, role=principal.role
    )
