"""`capture` command line: serve, worker, beat, migrate, erase-compact, keys, tenants,
import, export-openapi, mcp, gateway, train, bench."""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path
from typing import Annotated

import typer

from app.core.config import REPO_ROOT

app = typer.Typer(help="Capture: memory governance for LLM agents.", no_args_is_help=True)
keys_app = typer.Typer(help="Manage API keys.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")
tenants_app = typer.Typer(help="Manage tenants.", no_args_is_help=True)
app.add_typer(tenants_app, name="tenants")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default from settings).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default from settings).")] = None,
) -> None:
    """Migrate, print an admin key on first start, and serve the API."""
    import uvicorn

    from app.core.bootstrap import ensure_admin_key, migrate
    from app.core.config import get_settings

    settings = get_settings()
    migrate()
    raw = ensure_admin_key()
    if raw:
        print("Created the first API key (role admin, tenant 'default'). It is shown once:")
        print(f"  {raw}")
    mode = "in-process tasks" if settings.eager_tasks else "Celery broker"
    db = "embedded Postgres under var/" if settings.embedded_database else "CAPTURE_DATABASE_URL"
    print(f"Capture on http://{host or settings.host}:{port or settings.port} ({db}, {mode})")
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host or settings.host,
        port=port or settings.port,
        log_level="info",
    )


@app.command()
def migrate() -> None:
    """Apply database migrations."""
    from app.core.bootstrap import migrate as run

    run()
    print("migrated to head")


@app.command()
def worker(
    concurrency: Annotated[int, typer.Option(help="Worker processes.")] = 2,
    queues: Annotated[str | None, typer.Option(help="Comma-separated queues.")] = None,
) -> None:
    """Run a Celery worker (needs CAPTURE_BROKER_URL). With CAPTURE_WORKER_METRICS_PORT set it
    serves the pool's Prometheus metrics on that port."""
    from app.core.config import get_settings

    settings = get_settings()
    if settings.broker_url is None:
        raise typer.BadParameter("set CAPTURE_BROKER_URL to run a worker")
    if settings.worker_metrics_port is not None:
        from workers.metrics import prepare_multiprocess_dir

        # Before workers.celery_app imports the app (and with it prometheus_client).
        prepare_multiprocess_dir(settings.var_dir)
    from workers.celery_app import celery_app
    celery_app.worker_main(
        [
            "worker",
            "--loglevel=INFO",
            f"--concurrency={concurrency}",
            f"--queues={queues or settings.task_queue}",
        ]
    )


@app.command()
def beat() -> None:
    """Run Celery beat (periodic quarantine eviction)."""
    from workers.celery_app import celery_app

    celery_app.start(["beat", "--loglevel=INFO"])


@app.command("erase-compact")
def erase_compact(
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
    lock_timeout_s: Annotated[float, typer.Option(
        help="Longest wait for each table's lock; a table not granted it is skipped.")] = 5.0,
) -> None:
    """Rewrite the tables that held erased text (VACUUM FULL, then CHECKPOINT), so the text
    leaves the table files. Each table is locked ACCESS EXCLUSIVE while it is rewritten:
    reads and writes of it wait. Run it in a quiet period."""
    from app.core.compaction import ERASED_TEXT_TABLES, compact
    from app.core.db import get_engine

    print("erase-compact rewrites " + ", ".join(ERASED_TEXT_TABLES) + " one at a time; each "
          "is locked ACCESS EXCLUSIVE (no reads or writes) while it is rewritten, and needs "
          "free disk for a copy of itself.", file=sys.stderr)
    if not yes and not typer.confirm("Go on?"):
        raise typer.Exit(1)
    skipped = False
    for row in compact(get_engine(), lock_timeout_ms=int(lock_timeout_s * 1000)):
        skipped = skipped or row.skipped is not None
        print(json.dumps({"table": row.table, "bytes_before": row.bytes_before,
                          "bytes_after": row.bytes_after, "skipped": row.skipped}))
    if skipped:
        raise typer.Exit(2)


@keys_app.command("create")
def keys_create(
    role: Annotated[str, typer.Option(help="agent, auditor or admin")],
    tenant: Annotated[str, typer.Option(help="Tenant name (created if missing).")] = "default",
    name: Annotated[str, typer.Option(help="A label for the key.")] = "",
) -> None:
    """Create an API key; the raw key is printed once."""
    from app.core.auth import create_api_key, get_or_create_tenant
    from app.core.bootstrap import migrate as run_migrations
    from app.core.db import session_scope
    from app.models.enums import Role

    try:
        role_value = Role(role)
    except ValueError:
        raise typer.BadParameter("role must be agent, auditor or admin") from None
    run_migrations()
    with session_scope() as db:
        key, raw = create_api_key(
            db, get_or_create_tenant(db, tenant), role_value, name or f"{role} key"
        )
        print(
            json.dumps(
                {
                    "id": str(key.id),
                    "prefix": key.prefix,
                    "role": key.role,
                    "tenant": tenant,
                    "key": raw,
                }
            )
        )


@keys_app.command("list")
def keys_list(tenant: Annotated[str | None, typer.Option()] = None) -> None:
    """List keys (never the keys themselves)."""
    from app.core import repository
    from app.core.db import session_scope

    with session_scope() as db:
        for key, tenant_name in repository.keys_with_tenants(db, tenant):
            print(
                json.dumps(
                    {
                        "id": str(key.id),
                        "prefix": key.prefix,
                        "role": key.role,
                        "tenant": tenant_name,
                        "name": key.name,
                        "revoked": key.revoked_at is not None,
                    }
                )
            )


@keys_app.command("revoke")
def keys_revoke(key_id: str) -> None:
    """Revoke a key by id."""
    from app.core.db import session_scope
    from app.models import ApiKey
    from app.models.base import utcnow

    with session_scope() as db:
        key = db.get(ApiKey, uuid.UUID(key_id))
        if key is None:
            print("no such key", file=sys.stderr)
            raise typer.Exit(1)
        key.revoked_at = key.revoked_at or utcnow()
    print(f"revoked {key_id}")


@tenants_app.command("policy")
def tenants_policy(
    tenant: Annotated[str, typer.Argument(help="Tenant name (created if missing).")],
    policy: Annotated[str, typer.Argument(help="Admission policy, or 'default' to follow "
                                          "CAPTURE_ADMISSION_POLICY.")],
) -> None:
    """Set a tenant's admission policy."""
    from app.core.auth import get_or_create_tenant
    from app.core.bootstrap import migrate as run_migrations
    from app.core.db import session_scope
    from app.gate.policies import POLICIES

    if policy != "default" and policy not in POLICIES:
        raise typer.BadParameter(f"policy must be one of {sorted(POLICIES)} or 'default'")
    run_migrations()
    with session_scope() as db:
        get_or_create_tenant(db, tenant).admission_policy = None if policy == "default" else policy
    print(f"tenant {tenant}: admission policy {policy}")


@tenants_app.command("rate-limit")
def tenants_rate_limit(
    tenant: Annotated[str, typer.Argument(help="Tenant name (created if missing).")],
    per_minute: Annotated[str, typer.Argument(
        help="Requests per minute per API key, or 'default' to follow "
             "CAPTURE_RATE_LIMIT_PER_MINUTE.")],
) -> None:
    """Set a tenant's request limit per API key (counted in Redis; see docs/operations.md)."""
    from app.core.auth import get_or_create_tenant
    from app.core.bootstrap import migrate as run_migrations
    from app.core.db import session_scope

    if per_minute != "default" and not (per_minute.isdigit() and int(per_minute) >= 1):
        raise typer.BadParameter("a positive number of requests, or 'default'")
    run_migrations()
    with session_scope() as db:
        row = get_or_create_tenant(db, tenant)
        row.rate_limit_per_minute = None if per_minute == "default" else int(per_minute)
    print(f"tenant {tenant}: rate limit {per_minute} per minute per key")


@tenants_app.command("trust-source")
def tenants_trust_source(
    tenant: Annotated[str, typer.Argument(help="Tenant name (created if missing).")],
    source: Annotated[str, typer.Argument(
        help="A tool name (matched against an event's tool_name), or a source URI prefix "
             "holding '://' (matched against its source_uri).", min=1)],
    remove: Annotated[bool, typer.Option("--remove", help="Stop trusting the source.")] = False,
) -> None:
    """Mark a non-user source as speaking for the tenant's users: its claims may become
    memories without the user's confirmation (decisions say `trusted_source`)."""
    from app.core.auth import get_or_create_tenant
    from app.core.bootstrap import migrate as run_migrations
    from app.core.db import session_scope

    if not source.strip() or len(source) > 256:
        raise typer.BadParameter("a source is 1 to 256 characters")
    run_migrations()
    with session_scope() as db:
        row = get_or_create_tenant(db, tenant)
        kept = [s for s in row.trusted_sources if s != source]
        row.trusted_sources = kept if remove else [*kept, source]
        listed = row.trusted_sources
    print(f"tenant {tenant}: trusted sources {listed or 'none'}")


@app.command("import")
def import_events(
    file: Annotated[Path, typer.Argument(help="A JSONL file: one POST /v1/events body a line.",
                                         exists=True, dir_okay=False, readable=True)],
    url: Annotated[str, typer.Option(envvar="CAPTURE_URL", help="The service's base URL.")]
    = "http://127.0.0.1:8000",
    key: Annotated[str, typer.Option(envvar="CAPTURE_API_KEY", help="An agent or admin key.")]
    = "",
    batch_size: Annotated[int, typer.Option(min=1, max=1000, help="Events per request.")] = 500,
    restart: Annotated[bool, typer.Option("--restart", help="Ignore the checkpoint.")] = False,
) -> None:
    """Import events from a JSONL file through POST /v1/events:batch, with a progress bar.
    Resumable: run it again after an interruption; nothing is written twice."""
    import httpx

    from app.events.importer import checkpoint_path, count_lines, import_file

    if not key:
        raise typer.BadParameter("give --key or set CAPTURE_API_KEY")
    if restart:
        checkpoint_path(file).unlink(missing_ok=True)
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=url, headers=headers, timeout=300) as client, \
            typer.progressbar(length=count_lines(file), label="importing") as bar:
        try:
            report = import_file(file, client, batch_size=batch_size, progress=bar.update)
        except (httpx.HTTPError, ValueError) as error:
            print(f"\nimport stopped: {error}; run again to resume", file=sys.stderr)
            raise typer.Exit(1) from None
    print(json.dumps({"lines": report.lines, "accepted": report.accepted,
                      "duplicates": report.duplicates, "resumed_from": report.resumed_from,
                      "errors": [{"line": n, "code": c} for n, c in report.errors]}))
    if report.errors:
        raise typer.Exit(2)


@app.command("export-openapi")
def export_openapi(
    out: Annotated[Path, typer.Option(help="Where to write the spec.")] = REPO_ROOT
    / "openapi"
    / "openapi.json",
) -> None:
    """Write the OpenAPI spec generated from the app."""
    from app.main import create_app
    from app.openapi import render_openapi

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_openapi(create_app()))
    print(f"wrote {os.path.relpath(out)}")


@app.command("mcp")
def mcp_server(
    transport: Annotated[str, typer.Option(help="stdio, or http (streamable HTTP).")] = "stdio",
    host: Annotated[str, typer.Option(help="Bind address over http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port over http.")] = 8765,
    url: Annotated[str | None, typer.Option(help="Capture's URL (CAPTURE_URL).")] = None,
    user_id: Annotated[str | None, typer.Option(help="Default user (CAPTURE_USER_ID).")] = None,
    session_id: Annotated[
        str | None, typer.Option(help="Default session (CAPTURE_SESSION_ID).")
    ] = None,
) -> None:
    """Serve Capture's memory tools over MCP (a client of the Capture API at --url). Over
    stdio the key is CAPTURE_API_KEY; over http each request brings its own bearer key."""
    from capture_client.mcp.cli import main

    argv = ["server", "--transport", transport, "--host", host, "--port", str(port)]
    argv += _mcp_ids(url, user_id, session_id)
    main(argv)


@app.command(
    "gateway", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
)
def mcp_gateway(
    ctx: typer.Context,
    upstream_url: Annotated[
        str | None, typer.Option(help="The tool server's streamable HTTP URL.")
    ] = None,
    url: Annotated[str | None, typer.Option(help="Capture's URL (CAPTURE_URL).")] = None,
    user_id: Annotated[str | None, typer.Option(help="The user (CAPTURE_USER_ID).")] = None,
    session_id: Annotated[
        str | None, typer.Option(help="The session (CAPTURE_SESSION_ID).")
    ] = None,
) -> None:
    """Stand in for an MCP tool server over stdio: check every tool call with check-call and
    record every result. The upstream is --upstream-url, or its command after `--`."""
    from capture_client.mcp.cli import main

    argv = ["gateway", *_mcp_ids(url, user_id, session_id)]
    if upstream_url:
        argv += ["--upstream-url", upstream_url]
    main([*argv, "--", *ctx.args])


def _mcp_ids(url: str | None, user_id: str | None, session_id: str | None) -> list[str]:
    argv: list[str] = []
    for flag, value in (("--url", url), ("--user-id", user_id), ("--session-id", session_id)):
        if value:
            argv += [flag, value]
    return argv


def _mount_train() -> None:
    from workers.cli import app as train_app  # imports torch only when a command runs

    try:
        from bench.selection.train_cli import register as register_selection
    except ImportError:  # the benchmark package is optional in slim deployments
        pass
    else:
        register_selection(train_app)
    app.add_typer(train_app, name="train")


_mount_train()


def _mount_bench() -> None:
    try:
        from bench.cli import app as bench_app
    except ImportError:  # the benchmark package is optional in slim deployments
        return
    app.add_typer(bench_app, name="bench")


_mount_bench()
