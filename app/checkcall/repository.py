"""SQL for check-call. One read per call, in one statement: the session's context (the
tenant name, the user and session ids, the session's events, retrievals and earlier checks)
and the ledger evidence for the call's values (the user's other events and nodes that
contain a value's literal, found through the GIN index on their match_keys, with the
retrievals of this session that returned each node and the events that wrote them). Then
the decision row is written."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

import psycopg
from sqlalchemy import Insert, Table, TextClause, bindparam, delete, func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from app.checkcall.provenance import EventRecord, NodeRecord
from app.core.pagination import Key, after
from app.models import SpanRow, ToolCheck, ToolDeclarationRow, User
from app.models.base import Base, utcnow
from app.text.normalize import CONFUSABLES, INVISIBLE_CHARS

# Ledger-wide candidates per call (most recent first); the value matcher verifies each.
LEDGER_EVENT_LIMIT = 200
LEDGER_NODE_LIMIT = 200
# The prefilter folds lookalikes to Latin and drops invisible characters in non-ASCII text
# (SQL translate() deletes the characters of `from` past the end of `to`), as the matcher
# does; ASCII text is matched as it is.
FOLD_FROM = "".join(CONFUSABLES) + INVISIBLE_CHARS
FOLD_TO = "".join(CONFUSABLES.values())
# Trigrams of a needle the GIN lookup asks for, spread over it. A row the LIKE matches holds
# every trigram of the needle, so asking for a few finds the same rows; with all of them
# (two dozen for an address) the planner prices the lookup above a scan of the user's rows
# and each row's recheck compares every key.
LOOKUP_KEYS = 4


@dataclass(frozen=True, slots=True)
class RetrievalOp:
    id: uuid.UUID
    mode: str
    at: datetime
    trace_id: str


@dataclass(frozen=True, slots=True)
class PriorCheck:
    id: str  # as the read returns it: only a confirmation names it, parsed there
    tool_name: str
    side_effect: str | None
    decision: str
    call_id: str | None
    args_sha256: str
    at: datetime


@dataclass(slots=True)
class CallContext:
    tenant_name: str | None
    user_id: uuid.UUID | None
    session_id: uuid.UUID | None
    events: list[EventRecord] = field(default_factory=list)
    retrievals: list[RetrievalOp] = field(default_factory=list)
    checks: list[PriorCheck] = field(default_factory=list)
    # Which of the notification types asked about the tenant's enabled webhooks take.
    subscribed: frozenset[str] = frozenset()
    # The declaration the tenant registered for the tool asked about, if any.
    registered: dict[str, Any] | None = None


@dataclass(slots=True)
class LedgerEvidence:
    events: list[EventRecord] = field(default_factory=list)  # other sessions
    nodes: list[NodeRecord] = field(default_factory=list)
    node_events: list[EventRecord] = field(default_factory=list)  # writers of those nodes


# One statement per call: the session's context and the ledger evidence for its values.
_EVIDENCE = """
WITH u AS (
    SELECT id FROM users WHERE tenant_id = :tenant AND external_id = :user
), s AS (
    SELECT id FROM sessions WHERE user_id = (SELECT id FROM u) AND external_id = :session
), ev AS (
    SELECT e.id, e.seq, e.origin, e.text, e.text_sha256, e.received_at
    FROM events e
    WHERE CAST(:search AS boolean) AND e.user_id = (SELECT id FROM u) AND e.text IS NOT NULL
      AND e.session_id IS DISTINCT FROM (SELECT id FROM s)
      AND ({event_match} OR e.id = ANY (CAST(:event_ids AS uuid[])))
    ORDER BY e.seq DESC LIMIT :event_limit
), n AS (
    SELECT n.id, n.claim, n.claim_sha256, n.value, n.origin, n.state, n.quarantined_at,
           n.created_by_event_id
    FROM nodes n
    WHERE CAST(:search AS boolean) AND n.user_id = (SELECT id FROM u) AND n.erased_at IS NULL
      AND ({node_match} OR n.id = ANY (CAST(:node_ids AS uuid[])))
    ORDER BY n.recorded_at DESC LIMIT :node_limit
)
SELECT
    (SELECT name FROM tenants WHERE id = :tenant) AS tenant_name,
    (SELECT id FROM u) AS user_id,
    (SELECT id FROM s) AS session_id,
    (SELECT coalesce(json_agg(json_build_object(
        'id', e.id, 'seq', e.seq, 'origin', e.origin,
        'text', e.text, 'text_sha256', e.text_sha256, 'received_at', e.received_at,
        'wrote_node', EXISTS (SELECT 1 FROM node_lineage nl WHERE nl.event_id = e.id)
     ) ORDER BY e.seq), '[]'::json)
     FROM events e WHERE e.session_id = (SELECT id FROM s)) AS events,
    (SELECT coalesce(json_agg(json_build_object(
        'id', r.id, 'mode', r.mode, 'at', r.created_at, 'trace_id', r.trace_id
     ) ORDER BY r.created_at), '[]'::json)
     FROM retrievals r WHERE r.session_id = (SELECT id FROM s)) AS retrievals,
    (SELECT coalesce(json_agg(json_build_object(
        'id', c.id, 'tool_name', c.tool_name, 'side_effect', c.side_effect,
        'decision', c.decision, 'call_id', c.call_id, 'args_sha256', c.args_sha256,
        'at', c.created_at
     ) ORDER BY c.created_at), '[]'::json)
     FROM tool_checks c WHERE c.session_id = (SELECT id FROM s)) AS checks,
    (SELECT coalesce(json_agg(ev), '[]'::json) FROM ev) AS ledger_events,
    (SELECT coalesce(json_agg(json_build_object(
        'id', n.id, 'claim', n.claim, 'claim_sha256', n.claim_sha256, 'value', n.value,
        'origin', n.origin, 'state', n.state, 'quarantined_at', n.quarantined_at,
        'created_by_event_id', n.created_by_event_id,
        'corrected', EXISTS (SELECT 1 FROM node_versions v
                             WHERE v.node_id = n.id AND v.change = 'corrected'),
        'retrieval_ids', (
            SELECT coalesce(json_agg(rr.retrieval_id ORDER BY r.created_at), '[]'::json)
            FROM retrieval_results rr JOIN retrievals r ON r.id = rr.retrieval_id
            WHERE rr.node_id = n.id AND r.session_id = (SELECT id FROM s))
     )), '[]'::json) FROM n) AS ledger_nodes,
    (SELECT coalesce(json_agg(json_build_object(
        'id', w.id, 'seq', w.seq, 'origin', w.origin,
        'text', w.text, 'text_sha256', w.text_sha256, 'received_at', w.received_at
     )), '[]'::json)
     FROM events w
     WHERE w.id IN (SELECT created_by_event_id FROM n)
       AND w.id NOT IN (SELECT id FROM ev)
       AND w.session_id IS DISTINCT FROM (SELECT id FROM s)) AS node_events,
    (SELECT coalesce(array_agg(DISTINCT t.event_type), '{{}}')
     FROM webhook_endpoints h, unnest(h.event_types) AS t(event_type)
     WHERE h.tenant_id = :tenant AND h.disabled_at IS NULL
       AND t.event_type = ANY (CAST(:notify_types AS text[]))) AS subscribed,
    (SELECT declaration FROM tool_declarations
     WHERE tenant_id = :tenant AND name = :registered_tool) AS registered
"""

# A literal matched in the lowercased text, or in its fold where the text is not ASCII.
_EVENT_LIKE = """(lower(e.text) LIKE {p}
    OR (octet_length(e.text) <> char_length(e.text)
        AND lower(translate(e.text, :fold_from, :fold_to)) LIKE {p}))"""
_NODE_LIKE = """(lower(n.claim) LIKE {p} OR lower(n.value) LIKE {p}
    OR (octet_length(n.claim) <> char_length(n.claim)
        AND lower(translate(n.claim, :fold_from, :fold_to)) LIKE {p}))"""
_ANY = "ANY (CAST(:patterns AS text[]))"


@lru_cache(maxsize=64)
def _evidence_sql(indexed: int) -> TextClause:
    """The evidence read for `indexed` needles looked up by their trigrams (GIN on
    match_keys, the LIKE rechecking each row), or, for -1, every needle by a scan of the
    user's rows (a needle under three characters has no trigram)."""
    if indexed < 0:
        event_match, node_match = _EVENT_LIKE.format(p=_ANY), _NODE_LIKE.format(p=_ANY)
    elif indexed == 0:
        event_match = node_match = "false"
    else:
        event_match = " OR ".join(
            f"(e.match_keys @> CAST(:k{i} AS bigint[]) AND {_EVENT_LIKE.format(p=f':p{i}')})"
            for i in range(indexed)
        )
        node_match = " OR ".join(
            f"(n.match_keys @> CAST(:k{i} AS bigint[]) AND {_NODE_LIKE.format(p=f':p{i}')})"
            for i in range(indexed)
        )
    sql = _EVIDENCE.format(event_match=event_match, node_match=node_match)
    # Sent with its whitespace collapsed (no literal in it holds a space): psycopg keeps the
    # parse of a statement of up to 4 KB (MAX_CACHED_STATEMENT_LENGTH) instead of redoing it
    # on every call, and with up to two needles this one fits.
    return text(" ".join(sql.split()))


@contextmanager
def _unprepared(db: Session) -> Iterator[None]:
    """Statements in the block go unprepared, each planned for its own parameters: a generic
    plan of a prepared statement cannot tell a rare needle (the GIN lookup) from a common
    one. Unprepared, they need no plan_cache_mode setting, which would cost a round trip."""
    driver = db.connection().connection.driver_connection
    if not isinstance(driver, psycopg.Connection):
        yield
        return
    threshold = driver.prepare_threshold
    driver.prepare_threshold = None
    try:
        yield
    finally:
        driver.prepare_threshold = threshold


def _uuid(value: str) -> uuid.UUID:
    return uuid.UUID(value)


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _json(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        parsed: list[dict[str, Any]] = json.loads(value)
        return parsed
    return list(value or [])


def _event(m: dict[str, Any], in_session: bool) -> EventRecord:
    return EventRecord(
        id=_uuid(m["id"]),
        seq=m["seq"],
        origin=m["origin"],
        text=m["text"],
        text_sha256=m["text_sha256"],
        received_at=_time(m["received_at"]),
        in_session=in_session,
        wrote_node=m.get("wrote_node", False),
    )


def _trigrams(lowered: str) -> Iterator[int]:
    """The key of each run of three characters, in order: three 21-bit code points in one
    integer."""
    for i in range(len(lowered) - 2):
        yield (ord(lowered[i]) << 42) | (ord(lowered[i + 1]) << 21) | ord(lowered[i + 2])


def trigram_keys(lowered: str) -> list[int]:
    """The keys of a text's trigrams: what the database's text_trigrams (migration 0013)
    stores for it."""
    return sorted(set(_trigrams(lowered)))


def lookup_keys(lowered: str) -> list[int]:
    """Up to LOOKUP_KEYS of the needle's trigram keys, the first, the last and others evenly
    between them in the order they occur."""
    keys = list(dict.fromkeys(_trigrams(lowered)))
    if len(keys) > LOOKUP_KEYS:
        last = len(keys) - 1
        keys = [keys[round(j * last / (LOOKUP_KEYS - 1))] for j in range(LOOKUP_KEYS)]
    return sorted(keys)


def like_pattern(needle: str) -> str:
    """A LIKE pattern matching `needle` anywhere in lowercased text."""
    escaped = needle.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def call_evidence(
    db: Session,
    tenant_id: uuid.UUID,
    external_user_id: str,
    external_session_id: str,
    needles: Iterable[str],
    event_ids: Iterable[uuid.UUID] = (),
    node_ids: Iterable[uuid.UUID] = (),
    notify_types: Iterable[str] = (),
    registered_tool: str | None = None,
) -> tuple[CallContext, LedgerEvidence]:
    """The session's context, and the user's events in other sessions and nodes (any state,
    not erased) whose text holds one of the needles (a literal every occurrence of a value
    contains) or that the call declared, each node with this session's retrievals of it and
    the event that wrote it; which of `notify_types` an enabled webhook of the tenant
    takes; and the declaration the tenant registered for `registered_tool`."""
    lowered = sorted({n.lower() for n in needles if n})
    patterns = [like_pattern(n) for n in lowered]
    events, nodes = list(set(event_ids)), list(set(node_ids))
    params: dict[str, Any] = {
        "tenant": tenant_id,
        "user": external_user_id,
        "session": external_session_id,
        # Nothing to trace (a read-only tool): no ledger scan at all.
        "search": bool(patterns or events or nodes),
        "patterns": patterns,
        "event_ids": events,
        "node_ids": nodes,
        "notify_types": list(notify_types),
        "registered_tool": registered_tool,
        "fold_from": FOLD_FROM,
        "fold_to": FOLD_TO,
        "event_limit": LEDGER_EVENT_LIMIT,
        "node_limit": LEDGER_NODE_LIMIT,
    }
    # Every occurrence of a needle holds all its trigrams, so the keys lose no match.
    indexed = all(len(n) >= 3 for n in lowered)
    if indexed:
        for i, needle in enumerate(lowered):
            params[f"p{i}"], params[f"k{i}"] = patterns[i], lookup_keys(needle)
    statement = _evidence_sql(len(lowered) if indexed else -1)
    with _unprepared(db):
        m = db.execute(statement, params).one()._mapping
    retrievals = [
        RetrievalOp(id=_uuid(r["id"]), mode=r["mode"], at=_time(r["at"]), trace_id=r["trace_id"])
        for r in _json(m["retrievals"])
    ]
    # A node's retrievals are among the session's: each id is parsed once.
    retrieval_ids = {str(r.id): r.id for r in retrievals}
    context = CallContext(
        tenant_name=m["tenant_name"],
        user_id=m["user_id"],
        session_id=m["session_id"],
        # The session's events; the ledger's and the nodes' writers are of other sessions.
        events=[_event(e, True) for e in _json(m["events"])],
        retrievals=retrievals,
        checks=[
            PriorCheck(
                id=c["id"],
                tool_name=c["tool_name"],
                side_effect=c["side_effect"],
                decision=c["decision"],
                call_id=c["call_id"],
                args_sha256=c["args_sha256"],
                at=_time(c["at"]),
            )
            for c in _json(m["checks"])
        ],
        subscribed=frozenset(m["subscribed"]),
        registered=m["registered"],
    )
    ledger = LedgerEvidence(
        events=[_event(e, False) for e in _json(m["ledger_events"])],
        nodes=[
            NodeRecord(
                id=_uuid(n["id"]),
                claim=n["claim"],
                claim_sha256=n["claim_sha256"],
                value=n["value"],
                origin=n["origin"],
                state=n["state"],
                quarantined_at=_time(n["quarantined_at"]) if n["quarantined_at"] else None,
                created_by_event_id=(
                    _uuid(n["created_by_event_id"]) if n["created_by_event_id"] else None
                ),
                retrieval_ids=tuple(retrieval_ids.get(r) or _uuid(r) for r in n["retrieval_ids"]),
                corrected=bool(n.get("corrected", False)),
            )
            for n in _json(m["ledger_nodes"])
        ],
        node_events=[_event(e, False) for e in _json(m["node_events"])],
    )
    return context, ledger


_EARLIER_USER_TURNS = text("""
SELECT e.id, e.seq, e.origin, e.text, e.text_sha256, e.received_at
FROM events e
WHERE e.user_id = :user AND e.origin = 'user' AND e.text IS NOT NULL
  AND e.session_id IS DISTINCT FROM :session AND e.received_at >= :since
ORDER BY e.seq DESC LIMIT :limit
""")


def earlier_user_turns(
    db: Session, user_id: uuid.UUID, session_id: uuid.UUID | None, since: datetime, limit: int
) -> list[EventRecord]:
    """The user's own latest turns in other sessions since `since`, newest first."""
    rows = db.execute(
        _EARLIER_USER_TURNS,
        {"user": user_id, "session": session_id, "since": since, "limit": limit},
    ).mappings()
    return [
        EventRecord(
            id=r["id"], seq=r["seq"], origin=r["origin"], text=r["text"],
            text_sha256=r["text_sha256"], received_at=r["received_at"], in_session=False,
        )
        for r in rows
    ]


def add_check(db: Session, check: dict[str, Any], span_rows: list[dict[str, Any]]) -> None:
    """The decision row and its span in one statement (one round trip), any further span rows
    in a second. The two rows give every column: the statement binds each by name."""
    checks, spans = _table(ToolCheck), _table(SpanRow)
    params = {f"check_{c.key}": check[c.key] for c in checks.columns}
    if span_rows:
        params.update({f"span_{c.key}": span_rows[0][c.key] for c in spans.columns})
    db.execute(_check_insert(bool(span_rows)), params)
    if span_rows[1:]:
        db.execute(insert(spans), span_rows[1:])


def _table(model: type[Base]) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


@lru_cache(maxsize=2)
def _check_insert(with_span: bool) -> Insert:
    """INSERT INTO spans with the tool_checks INSERT as a data-modifying CTE, every column
    bound by name (`check_<column>`, `span_<column>`): one statement object, which
    SQLAlchemy compiles once. It fills no column default of the outer INSERT of such a
    statement, so every column is given."""
    checks, spans = _table(ToolCheck), _table(SpanRow)

    def bound(table: Table, prefix: str) -> dict[str, Any]:
        return {c.key: bindparam(f"{prefix}{c.key}", type_=c.type) for c in table.columns}

    row = insert(checks).values(bound(checks, "check_"))
    if not with_span:
        return row
    return insert(spans).values(bound(spans, "span_")).add_cte(row.cte("tool_check"))


def list_checks(
    db: Session,
    tenant_id: uuid.UUID,
    after_key: Key | None,
    limit: int,
    *,
    decision: str | None,
    user_id: uuid.UUID | None,
    tool_name: str | None,
) -> Sequence[tuple[ToolCheck, str]]:
    """The tenant's tool-call checks, newest first, with their user's external id."""
    query = (
        select(ToolCheck, User.external_id)
        .join(User, User.id == ToolCheck.user_id)
        .where(ToolCheck.tenant_id == tenant_id)
    )
    if decision is not None:
        query = query.where(ToolCheck.decision == decision)
    if user_id is not None:
        query = query.where(ToolCheck.user_id == user_id)
    if tool_name is not None:
        query = query.where(ToolCheck.tool_name == tool_name)
    condition = after(ToolCheck.created_at, ToolCheck.id, after_key, descending=True)
    if condition is not None:
        query = query.where(condition)
    rows = db.execute(
        query.order_by(ToolCheck.created_at.desc(), ToolCheck.id.desc()).limit(limit + 1)
    ).all()
    return [(c, u) for c, u in rows]


# ── declared tools ─────────────────────────────────────────────────────────────────


def put_declaration(
    db: Session,
    tenant_id: uuid.UUID,
    name: str,
    declaration: dict[str, Any],
    key_id: uuid.UUID,
) -> ToolDeclarationRow:
    """Insert or replace the tenant's declaration of `name` (one statement, so two admins
    writing at once do not collide on the unique name)."""
    now = utcnow()
    statement = (
        insert(ToolDeclarationRow)
        .values(
            id=uuid.uuid4(),
            tenant_id=tenant_id,
            name=name,
            declaration=declaration,
            updated_by_key_id=key_id,
            created_at=now,
            updated_at=now,
        )
        .on_conflict_do_update(
            constraint="uq_tool_declarations_tenant_name",
            set_={"declaration": declaration, "updated_by_key_id": key_id, "updated_at": now},
        )
        .returning(ToolDeclarationRow)
    )
    row: ToolDeclarationRow = db.execute(
        select(ToolDeclarationRow).from_statement(statement)
    ).scalar_one()
    db.flush()
    return row


def list_declarations(
    db: Session, tenant_id: uuid.UUID, limit: int, offset: int
) -> tuple[list[ToolDeclarationRow], int]:
    rows = db.execute(
        select(ToolDeclarationRow)
        .where(ToolDeclarationRow.tenant_id == tenant_id)
        .order_by(ToolDeclarationRow.name)
        .limit(limit)
        .offset(offset)
    ).scalars()
    total = db.execute(
        select(func.count())
        .select_from(ToolDeclarationRow)
        .where(ToolDeclarationRow.tenant_id == tenant_id)
    ).scalar_one()
    return list(rows), int(total)


def delete_declaration(db: Session, tenant_id: uuid.UUID, name: str) -> bool:
    result = db.execute(
        delete(ToolDeclarationRow)
        .where(ToolDeclarationRow.tenant_id == tenant_id, ToolDeclarationRow.name == name)
        .returning(ToolDeclarationRow.id)
    )
    return result.first() is not None
