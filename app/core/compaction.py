"""`capture erase-compact`: rewrite the tables that held erased text, so the text leaves the
database's files and not only its rows.

Erasure sets columns to NULL; Postgres keeps the old row versions in the table's pages (and
its TOAST table) until they are vacuumed and overwritten, which may be never. VACUUM FULL
writes each table into new files without them and drops the old ones.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from app.core import repository

log = logging.getLogger(__name__)

# Every table erasure clears columns of or deletes rows from, whose pages may hold the user's
# text or ids once cleared: events, hypotheses, nodes (claims, embeddings), node_versions,
# clarifications (a dropped column's values stay in the pages until the table is rewritten),
# audits (inputs, held until the audit has run); and, deleted by a whole user's erasure,
# users and sessions (the caller's ids), spans (session ids) and webhook_deliveries (the
# user's id in the payload). user_erasures holds no text: it is not rewritten.
ERASED_TEXT_TABLES = ("events", "hypotheses", "nodes", "node_versions", "clarifications",
                      "audits", "users", "sessions", "spans", "webhook_deliveries")


@dataclass(frozen=True, slots=True)
class Compacted:
    table: str
    bytes_before: int
    bytes_after: int
    skipped: str | None  # why the table was not rewritten (its lock was not granted in time)


def compact(engine: Engine, *, lock_timeout_ms: int = 5000,
            tables: tuple[str, ...] = ERASED_TEXT_TABLES) -> list[Compacted]:
    """VACUUM FULL each table in turn, then CHECKPOINT. A table whose lock is not granted
    within `lock_timeout_ms` (a long transaction holds it) is skipped, not waited for: while
    VACUUM FULL waits, every other query on the table queues behind it."""
    unknown = set(tables) - set(ERASED_TEXT_TABLES)
    if unknown:
        raise ValueError(f"not a table erasure writes to: {sorted(unknown)}")
    results = []
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        for table in tables:
            before = repository.relation_bytes(conn, table)
            try:
                repository.vacuum_full(conn, table, lock_timeout_ms)
            except OperationalError as exc:
                log.warning("erase-compact skipped %s (%s)", table, type(exc.orig).__name__)
                results.append(Compacted(table, before, before, "lock_not_available"))
                continue
            results.append(Compacted(table, before, repository.relation_bytes(conn, table), None))
        repository.checkpoint(conn)
    return results
