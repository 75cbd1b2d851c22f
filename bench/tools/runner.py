"""Drive generated sessions through the service as its client: `create_app()` over in-process
HTTP (`bench.common.service.BenchTenant`) on a dedicated database of the embedded server, tasks
in-process. Events go through `POST /v1/events?wait=true`, retrievals through
`POST /v1/retrieve`, tool declarations through `PUT /v1/tools/{name}` (the tenant's admin key)
and calls through `POST /v1/check-call`, whose answer is the outcome scored. The check-call
policy in force is the operator's file (`bench_policy`), loaded in the process as a
deployment loads its own."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from app.checkcall.policy import (
    DEFAULT_POLICY_PATH,
    Allowlist,
    ToolPolicy,
    load_policy,
    override_policy,
)
from app.core.config import get_settings
from bench.common.policies import EventContext
from bench.common.service import (
    BenchTenant,
    attached,
    bench_database,
    embedded_server_uri,
    require_in_process_tasks,
)
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


@contextmanager
def bench_service(server_uri: str | None = None) -> Iterator[tuple[BenchTenant, Engine]]:
    """The bench tenant (`bench-tools`, the deployment's admission policy) on a fresh,
    migrated database the service's session scope points at (dropped after), and that
    database's engine for the latency run's setup. Its commits wait for the disk: the
    latency run times them."""
    require_in_process_tasks()
    server = server_uri or os.environ.get("CAPTURE_TEST_DATABASE_URL") or embedded_server_uri()
    with bench_database(server, f"capture_bench_tools_{os.getpid()}", durable=True) as url, \
            attached(url) as engine:
        yield BenchTenant(get_settings().admission_policy, engine, name=TENANT), engine


def outcome_of(response: dict[str, Any], ms: float) -> CheckOutcome:
    """A check-call answer (`CheckCallResponse`, as JSON) and its time as the bench's
    outcome."""
    return CheckOutcome(
        decision=response["decision"],
        codes=[r["code"] for r in response["reasons"]],
        features=response["features"],
        triage_score=response["triage_score"],
        ms=ms,
        tool_source=response["tool_source"],
    )


def check(
    tenant: BenchTenant,
    user: str,
    session: str,
    tool: str,
    args: dict[str, Any],
    declaration: dict[str, Any] | None = None,
) -> CheckOutcome:
    """POST /v1/check-call, timed (the HTTP layer included)."""
    t0 = time.perf_counter()
    response = tenant.check_call_response(user, session, tool, args, declaration)
    return outcome_of(response, (time.perf_counter() - t0) * 1000)


def run_scenario(tenant: BenchTenant, scenario: Scenario) -> ScenarioOutcome:
    clock = START
    scored: CheckOutcome | None = None
    tool = ""
    for step in scenario.steps:
        clock += timedelta(minutes=step.gap_minutes)
        if step.kind == "event":
            tenant.write(scenario.user_id, step.session, step.origin, step.text, clock,
                         EventContext(session=step.session), tool_name=step.tool_name)
        elif step.kind == "retrieve":
            tenant.recall(scenario.user_id, step.session, step.query, None, clock,
                          mode="context" if step.mode == "context" else "tool")
        elif step.kind == "register":
            tenant.register_tool(step.declaration or {})
        elif step.kind == "check":
            outcome = check(
                tenant, scenario.user_id, step.session, step.tool, step.args, step.declaration
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


def run_all(tenant: BenchTenant, scenarios: list[Scenario]) -> list[ScenarioOutcome]:
    with override_policy(bench_policy()):
        return [run_scenario(tenant, s) for s in scenarios]
