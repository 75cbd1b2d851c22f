"""Lineage queries auditors run: a node's history, a session's graph, a trace's spans."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from app.audit import service as audit_service
from app.core.auth import Principal
from app.core.errors import NotFound
from app.events import repository as events_repository
from app.events.schemas import DecisionOut, HypothesisOut
from app.ledger.schemas import NodeOut
from app.models import Event, Retrieval, ToolCheck
from app.provenance import repository
from app.provenance.schemas import (
    EdgeOut,
    GraphEdge,
    GraphVertex,
    LineageEvent,
    NodeLineageOut,
    RetrievalHit,
    SessionGraph,
    SpanOut,
    ToolCheckRef,
    TraceOut,
    VersionOut,
)


def node_lineage(db: Session, principal: Principal, node_id: uuid.UUID) -> NodeLineageOut:
    node = repository.tenant_node(db, principal.tenant_id, node_id)
    if node is None:
        raise NotFound("node not found")
    lineage = repository.lineage_of(db, node.id)
    events = repository.events_by_id(db, [row.event_id for row in lineage])
    sessions = repository.session_names(db, [e.session_id for e in events.values()])
    hypothesis_ids = [row.hypothesis_id for row in lineage if row.hypothesis_id]
    decision_ids = [row.decision_id for row in lineage if row.decision_id]
    versions = repository.versions_of(db, node.id)
    decision_ids += [v.decision_id for v in versions if v.decision_id]
    edges = repository.edges_of(db, node.id)
    hits = repository.retrieval_hits(db, node.id)
    hit_sessions = repository.session_names(db, [r.session_id for _, r in hits])
    checks = repository.checks_citing(db, principal.tenant_id, node.id)
    return NodeLineageOut(
        node=NodeOut.of(node),
        events=[
            LineageEvent(
                event_id=row.event_id,
                relation=row.relation,
                origin=events[row.event_id].origin,
                session_id=sessions.get(events[row.event_id].session_id, ""),
                occurred_at=events[row.event_id].occurred_at,
                text_sha256=events[row.event_id].text_sha256,
                erased=events[row.event_id].erased_at is not None,
                hypothesis_id=row.hypothesis_id,
                decision_id=row.decision_id,
                trace_id=events[row.event_id].trace_id,
            )
            for row in lineage
        ],
        hypotheses=[HypothesisOut.of(h) for h in repository.hypotheses_by_id(db, hypothesis_ids)],
        decisions=[DecisionOut.of(d) for d in repository.decisions_by_id(db, decision_ids)],
        versions=[
            VersionOut(
                version=v.version,
                change=v.change,
                state=v.state,
                layer=v.layer,
                scope=v.scope,
                claim=v.claim,
                changed_at=v.changed_at,
                event_id=v.event_id,
                decision_id=v.decision_id,
                actor_key_id=v.actor_key_id,
                actor_role=v.actor_role,
            )
            for v in versions
        ],
        edges=[
            EdgeOut(
                relation=e.relation,
                src_node_id=e.src_node_id,
                dst_node_id=e.dst_node_id,
                probability=e.probability,
                decision_id=e.decision_id,
            )
            for e in edges
        ],
        retrievals=[
            RetrievalHit(
                retrieval_id=r.id,
                session_id=hit_sessions.get(r.session_id, ""),
                mode=r.mode,
                rank=res.rank,
                score=res.score,
                at=r.created_at,
                trace_id=r.trace_id,
            )
            for res, r in hits
        ],
        tool_checks=[
            ToolCheckRef(
                check_id=c.id,
                tool_name=c.tool_name,
                decision=c.decision,
                at=c.created_at,
                trace_id=c.trace_id,
            )
            for c in checks
        ],
        audits=audit_service.lineage_refs(db, principal.tenant_id, node.id),
    )


def session_graph(
    db: Session, principal: Principal, external_user_id: str, external_session_id: str
) -> SessionGraph:
    """Write, processing, retrieval and action vertices of one session, with the
    data-dependency edges the record establishes by ids (never by order alone)."""
    user = events_repository.find_user(db, principal.tenant_id, external_user_id)
    session = events_repository.find_session(db, user, external_session_id) if user else None
    if user is None or session is None:
        raise NotFound("session not found")
    vertices: dict[str, GraphVertex] = {}
    edges: list[GraphEdge] = []

    events = repository.session_events(db, session.id)
    for e in events:
        vertices[f"event:{e.id}"] = _event_vertex(e, "observed", {})
    decisions = repository.decisions_on(db, [e.id for e in events]) if events else []
    for d in decisions:
        vid = f"decision:{d.id}"
        vertices[vid] = GraphVertex(
            id=vid,
            kind="processing",
            operation=f"gate.{d.action}",
            at=d.created_at,
            observability="observed",
            attributes={"policy": d.policy_name, "entropy": round(d.entropy, 6)},
        )
        edges.append(
            GraphEdge(src=f"event:{d.event_id}", dst=vid, relation="decided_on", verified=True)
        )
    if decisions:
        for v in repository.versions_by_decision(db, [d.id for d in decisions]):
            _memory_vertex(vertices, v.node_id, "observed")
            edges.append(
                GraphEdge(
                    src=f"decision:{v.decision_id}",
                    dst=f"node:{v.node_id}",
                    relation=f"ledger.{v.change}",
                    verified=True,
                )
            )

    retrievals = repository.session_retrievals(db, session.id)
    for r in retrievals:
        vid = f"retrieval:{r.id}"
        vertices[vid] = GraphVertex(
            id=vid,
            kind="retrieval",
            operation="search_memory",
            at=r.created_at,
            observability="observed",
            attributes={"mode": r.mode, "k": r.k},
        )
    if retrievals:
        for res in repository.results_of(db, [r.id for r in retrievals]):
            _memory_vertex(vertices, res.node_id, "cross_session")
            edges.append(
                GraphEdge(
                    src=f"node:{res.node_id}",
                    dst=f"retrieval:{res.retrieval_id}",
                    relation="returned",
                    verified=True,
                )
            )

    checks = repository.session_checks(db, session.id)
    _cross_session_events(db, session.id, checks, vertices)
    for c in checks:
        _action(c, retrievals, vertices, edges)
    return SessionGraph(
        session_id=external_session_id,
        user_id=external_user_id,
        vertices=list(vertices.values()),
        edges=edges,
    )


def _cross_session_events(
    db: Session,
    session_id: uuid.UUID,
    checks: Sequence[ToolCheck],
    vertices: dict[str, GraphVertex],
) -> None:
    """Write vertices for events of other sessions that fed an argument in this session."""
    ids = {
        uuid.UUID(source["event_id"])
        for c in checks
        for values in c.arg_provenance.values()
        for value in values
        for source in value["sources"]
        if source.get("event_id") and f"event:{source['event_id']}" not in vertices
    }
    if not ids:
        return
    events = repository.events_outside(db, ids, session_id)
    names = repository.session_names(db, [e.session_id for e in events])
    for e in events:
        vertices[f"event:{e.id}"] = _event_vertex(
            e,
            "cross_session",
            {"session_id": names.get(e.session_id), "erased": e.erased_at is not None},
        )


def _event_vertex(e: Event, observability: str, extra: dict[str, Any]) -> GraphVertex:
    """The write vertex of an event (its origin and status, plus `extra`)."""
    return GraphVertex(
        id=f"event:{e.id}",
        kind="write",
        operation="create_memory",
        at=e.occurred_at,
        observability=observability,
        attributes={"origin": e.origin, "status": e.status, **extra},
    )


def _action(
    check: ToolCheck,
    retrievals: Sequence[Retrieval],
    vertices: dict[str, GraphVertex],
    edges: list[GraphEdge],
) -> None:
    """An action vertex, its verified data-dependency edges (argument values matched in node
    or event content by check-call) and, for contrast, order-only edges from the retrievals
    that merely preceded it (the paper's recall_before_send proxy)."""
    vid = f"action:{check.id}"
    vertices[vid] = GraphVertex(
        id=vid,
        kind="action",
        operation="check_tool_call",
        at=check.created_at,
        observability="observed",
        attributes={
            "gen_ai.tool.name": check.tool_name,
            "gen_ai.tool.call.id": check.call_id,
            "decision": check.decision,
            "decision_id": str(check.id),
            "side_effect": check.side_effect,
            "policy_version": check.policy_version,
            "triage_score": check.triage_score,
            "reasons": [
                {"code": r.get("code"), "effect": r.get("effect"), "argument": r.get("argument")}
                for r in check.reasons
            ],
            "trace_id": check.trace_id,
        },
    )
    seen: set[tuple[str, str, str, str | None, str | None]] = set()

    def edge(src: str, relation: str, argument: str | None, source: str | None) -> None:
        key = (src, vid, relation, argument, source)
        if key not in seen:
            seen.add(key)
            edges.append(
                GraphEdge(
                    src=src,
                    dst=vid,
                    relation=relation,
                    verified=True,
                    argument=argument,
                    source=source,
                )
            )

    fed_retrievals: set[str] = set()
    wrote: set[tuple[str, str]] = set()
    for argument, values in check.arg_provenance.items():
        for value in values:
            relation = "fed_content" if value.get("in_content") else "fed_argument"
            for source in value["sources"]:
                kind = source["kind"]
                if source.get("node_id"):
                    observability = "observed" if source.get("retrieval_ids") else "cross_session"
                    _memory_vertex(vertices, uuid.UUID(source["node_id"]), observability)
                    edge(f"node:{source['node_id']}", relation, argument, kind)
                    writer = f"event:{source.get('event_id')}"
                    cross = writer in vertices and vertices[writer].observability != "observed"
                    if cross and (writer, source["node_id"]) not in wrote:
                        wrote.add((writer, source["node_id"]))
                        edges.append(
                            GraphEdge(
                                src=writer,
                                dst=f"node:{source['node_id']}",
                                relation="wrote",
                                verified=True,
                            )
                        )
                    for rid in source.get("retrieval_ids", []):
                        fed_retrievals.add(rid)
                        edge(f"retrieval:{rid}", relation, argument, kind)
                elif source.get("event_id") and f"event:{source['event_id']}" in vertices:
                    edge(f"event:{source['event_id']}", relation, argument, kind)
    for reason in check.reasons:
        if reason.get("code") in ("value_user_confirmed", "user_declined"):
            for ref in reason.get("evidence", []):
                if ref.get("kind") == "event" and f"event:{ref['id']}" in vertices:
                    edge(f"event:{ref['id']}", "answered", None, reason["code"])
    if not check.arg_provenance:  # rows written before argument provenance was recorded
        for node_id in check.evidence_node_ids:
            _memory_vertex(vertices, uuid.UUID(node_id), "cross_session")
            edge(f"node:{node_id}", "fed_argument", None, None)
        for event_id in check.evidence_event_ids:
            if f"event:{event_id}" in vertices:
                edge(f"event:{event_id}", "fed_argument", None, None)
    for r in retrievals:
        if r.created_at <= check.created_at and str(r.id) not in fed_retrievals:
            edges.append(
                GraphEdge(src=f"retrieval:{r.id}", dst=vid, relation="preceded", verified=False)
            )


def _memory_vertex(
    vertices: dict[str, GraphVertex], node_id: uuid.UUID, observability: str
) -> None:
    vid = f"node:{node_id}"
    if vid not in vertices:
        vertices[vid] = GraphVertex(
            id=vid,
            kind="memory",
            operation="memory_record",
            at=None,
            observability=observability,
            attributes={"gen_ai.memory.record.id": str(node_id)},
        )


def trace(db: Session, principal: Principal, trace_id: str) -> TraceOut:
    rows = repository.trace_spans(db, principal.tenant_id, trace_id)
    if not rows:
        raise NotFound("trace not found")
    return TraceOut(
        trace_id=trace_id,
        spans=[
            SpanOut(
                span_id=s.span_id,
                parent_span_id=s.parent_span_id,
                name=s.name,
                kind=s.kind,
                started_at=s.started_at,
                ended_at=s.ended_at,
                status=s.status,
                attributes=s.attributes,
            )
            for s in rows
        ],
    )
