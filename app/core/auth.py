"""API keys: `cap_<prefix>_<secret>`, stored as an HMAC-SHA256 keyed by the service secret.

Every authenticated request carries a Principal: its tenant and role. Roles nest:
admin ⊇ auditor-only endpoints and agent endpoints; an auditor key reads provenance and
nodes but cannot write; an agent key cannot read provenance.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.core import ratelimit, repository
from app.core.config import get_settings
from app.core.db import get_db
from app.core.errors import Forbidden, Unauthenticated
from app.models import ApiKey, Tenant
from app.models.base import utcnow
from app.models.enums import Role

KEY_PREFIX = "cap"
# `last_used_at` is written at most this often per key, so reads stay (nearly) write-free.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class Principal:
    tenant_id: uuid.UUID
    key_id: uuid.UUID
    role: Role


def hash_key(raw_key: str, secret: str | None = None) -> str:
    key = (secret if secret is not None else get_settings().secret_key).encode()
    return hmac.new(key, raw_key.encode(), hashlib.sha256).hexdigest()


def find_key(db: Session, raw_key: str) -> ApiKey | None:
    """The key's row under the current secret, or under the previous one during a rotation
    (then its stored hash moves to the current secret)."""
    settings = get_settings()
    current = hash_key(raw_key)
    key = repository.key_by_hash(db, current)
    if key is not None or not settings.previous_secret_key:
        return key
    key = repository.key_by_hash(db, hash_key(raw_key, settings.previous_secret_key))
    if key is not None:
        key.key_hash = current
    return key


def touch_last_used(db: Session, key: ApiKey) -> None:
    """Record the key's use, once per LAST_USED_RESOLUTION: the conditional UPDATE lets
    concurrent requests through without each writing."""
    now = utcnow()
    if key.last_used_at is not None and now - key.last_used_at < LAST_USED_RESOLUTION:
        return
    repository.touch_key(db, key.id, now, now - LAST_USED_RESOLUTION)


def create_api_key(db: Session, tenant: Tenant, role: Role, name: str) -> tuple[ApiKey, str]:
    """A new key row and the raw key (shown once; only its hash is stored)."""
    prefix = secrets.token_hex(4)
    raw = f"{KEY_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}"
    key = ApiKey(tenant_id=tenant.id, name=name, prefix=prefix, key_hash=hash_key(raw), role=role)
    db.add(key)
    db.flush()
    return key, raw


def get_or_create_tenant(db: Session, name: str) -> Tenant:
    tenant = repository.tenant_named(db, name)
    if tenant is None:
        tenant = Tenant(name=name)
        db.add(tenant)
        db.flush()
    return tenant


def _bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        token = request.headers.get("x-api-key", "")
    if not token:
        raise Unauthenticated("missing API key (Authorization: Bearer <key>)")
    return token.strip()


def authenticate(request: Request, db: Session = Depends(get_db, scope="function")) -> Principal:
    raw = _bearer(request)
    if not raw.startswith(f"{KEY_PREFIX}_") or len(raw) > 256:
        raise Unauthenticated("invalid API key")
    key = find_key(db, raw)
    if key is None or key.revoked_at is not None:
        raise Unauthenticated("invalid API key")
    touch_last_used(db, key)
    if ratelimit.redis_url() is not None:
        tenant = db.get(Tenant, key.tenant_id)
        ratelimit.check(key.id, tenant.rate_limit_per_minute if tenant else None)
    principal = Principal(tenant_id=key.tenant_id, key_id=key.id, role=Role(key.role))
    request.state.principal = principal
    return principal


def require(*roles: Role) -> Any:
    """Dependency factory: the caller's key must hold one of `roles` (admin always passes)."""
    allowed = {*roles, Role.admin}

    def _dep(principal: Principal = Depends(authenticate)) -> Principal:
        if principal.role not in allowed:
            raise Forbidden(f"this endpoint needs one of: {', '.join(sorted(allowed))}")
        return principal

    return Depends(_dep)


AgentPrincipal = require(Role.agent)
AuditorPrincipal = require(Role.auditor)
ReaderPrincipal = require(Role.agent, Role.auditor)
AdminPrincipal = require()
