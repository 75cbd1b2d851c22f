"""Argument provenance: where each sink value of a tool call came from.

Pure functions over a snapshot of the record (`Evidence`): the session's events, the
user's other events and nodes that contain the value, and the retrievals of this session
that returned those nodes. A source is established only by finding the value in content
(verified provenance), never by order. Erased text (NULL) matches nothing.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from app.checkcall.policy import Allowlist
from app.checkcall.segments import Label, TextAnalysis, analyze_cached, sentence_cue
from app.domain.vocabulary import NodeState, Origin
from app.text.normalize import SinkValue, TextView, view


class SourceKind(StrEnum):
    allowlist = "allowlist"  # the operator's allowlist
    user_utterance = "user_utterance"  # the user's own words in a user turn
    user_mentioned = "user_mentioned"  # the user's words asking about it or warning against it
    user_memory = "user_memory"  # a node the user's own channel wrote
    user_confirmed = "user_confirmed"  # the user confirmed this exact call after an ask
    requested_record = "requested_record"  # a data record returned for the user's request
    untrusted_data = "untrusted_data"  # a non-user channel, not requested in this session
    untrusted_memory = "untrusted_memory"  # a node admitted from a non-user channel
    pasted_content = "pasted_content"  # third-party text the user pasted
    directive = "directive"  # an imperative routing sentence in untrusted text
    agent_correction = "agent_correction"  # a node claim an API key rewrote (PATCH)
    injected_instruction = "injected_instruction"  # an instruction injected for the assistant
    quarantined_memory = "quarantined_memory"  # a node the gate holds in quarantine


TRUSTED = frozenset(
    {
        SourceKind.allowlist,
        SourceKind.user_utterance,
        SourceKind.user_memory,
        SourceKind.user_confirmed,
    }
)
TAINTED = frozenset({SourceKind.injected_instruction, SourceKind.quarantined_memory})

_LABEL_KIND = {
    Label.user: SourceKind.user_utterance,
    Label.mentioned: SourceKind.user_mentioned,
    Label.pasted: SourceKind.pasted_content,
    Label.directive: SourceKind.directive,
    Label.instruction: SourceKind.injected_instruction,
}


@dataclass(frozen=True, slots=True)
class EventRecord:
    id: uuid.UUID
    seq: int
    origin: str
    text: str | None
    text_sha256: str
    received_at: datetime
    in_session: bool  # an event of the session the call is checked in
    wrote_node: bool = False

    def analysis(self) -> TextAnalysis | None:
        if self.text is None:
            return None
        return analyze_cached(self.text, self.origin, self.text_sha256)


@dataclass(frozen=True, slots=True)
class NodeRecord:
    id: uuid.UUID
    claim: str | None
    claim_sha256: str
    value: str | None
    origin: str
    state: str
    quarantined_at: datetime | None
    created_by_event_id: uuid.UUID | None
    # Retrievals of this session that returned the node.
    retrieval_ids: tuple[uuid.UUID, ...] = ()
    # Its claim was rewritten by a correction (PATCH): not the user's words.
    corrected: bool = False


@dataclass(slots=True)
class Evidence:
    """What the record holds that could have supplied a value."""

    session_events: list[EventRecord] = field(default_factory=list)  # by seq
    ledger_events: list[EventRecord] = field(default_factory=list)  # other sessions
    nodes: list[NodeRecord] = field(default_factory=list)
    # Source events of nodes (created_by_event_id), wherever they are.
    node_events: dict[uuid.UUID, EventRecord] = field(default_factory=dict)
    declared_event_ids: frozenset[uuid.UUID] = frozenset()
    declared_node_ids: frozenset[uuid.UUID] = frozenset()
    # Canonical forms of the texts above, built once per call (never kept past it).
    _views: dict[tuple[str, uuid.UUID], TextView] = field(default_factory=dict)

    def view_of(self, kind: str, key: uuid.UUID, text: str) -> TextView:
        found = self._views.get((kind, key))
        if found is None:
            found = self._views[(kind, key)] = view(text)
        return found

    def first_user_seq(self) -> int | None:
        return next((e.seq for e in self.session_events if e.origin == Origin.user.value), None)


@dataclass(frozen=True, slots=True)
class Source:
    kind: SourceKind
    event_id: uuid.UUID | None = None
    node_id: uuid.UUID | None = None
    origin: str | None = None
    in_session: bool | None = None
    node_state: str | None = None
    retrieval_ids: tuple[uuid.UUID, ...] = ()
    declared: bool = False


def trace(value: SinkValue, evidence: Evidence, allowlist: Allowlist) -> list[Source]:
    """Every place the value was found, deduplicated by (kind, event, node)."""
    sources: list[Source] = []
    # A lookalike of an allowlisted address is another address.
    if not value.lookalike and allowlist.covers(value.kind, value.normalized, value.domain):
        sources.append(Source(kind=SourceKind.allowlist))
    first_user = evidence.first_user_seq()
    for event in (*evidence.session_events, *evidence.ledger_events):
        sources.extend(_event_sources(value, event, first_user, evidence))
    for node in evidence.nodes:
        source = _node_source(value, node, evidence)
        if source is not None:
            sources.append(source)
    seen: set[tuple[SourceKind, uuid.UUID | None, uuid.UUID | None]] = set()
    unique = []
    for s in sources:
        key = (s.kind, s.event_id, s.node_id)
        if key not in seen:
            seen.add(key)
            unique.append(s)
    return unique


def _event_sources(
    value: SinkValue, event: EventRecord, first_user_seq: int | None, evidence: Evidence
) -> list[Source]:
    if event.text is None:
        return []
    spans = value.locate(evidence.view_of("event", event.id, event.text))
    if not spans:
        return []
    analysis = event.analysis()
    assert analysis is not None
    kinds: set[SourceKind] = set()
    for start, end, exact in spans:
        label = analysis.label_at(start, end)
        if label == Label.data:
            # A data record returned in this session after the user asked for something.
            requested = (
                event.in_session and first_user_seq is not None and first_user_seq < event.seq
            )
            kinds.add(SourceKind.requested_record if requested else SourceKind.untrusted_data)
        elif label == Label.user and not exact:
            # The user wrote a lookalike of the value, not the value: no source.
            continue
        else:
            kinds.add(_LABEL_KIND[label])
    return [
        Source(
            kind=kind,
            event_id=event.id,
            origin=event.origin,
            in_session=event.in_session,
            declared=event.id in evidence.declared_event_ids,
        )
        for kind in sorted(kinds)
    ]


def _node_source(value: SinkValue, node: NodeRecord, evidence: Evidence) -> Source | None:
    spans = [
        span
        for field_name, text in (("claim", node.claim), ("value", node.value))
        if text
        for span in value.locate(evidence.view_of(field_name, node.id, text))
    ]
    if not spans:
        return None
    kind = _node_kind(value, node, evidence, exact=any(exact for _, _, exact in spans))
    if kind is None:
        return None
    source_event = (
        evidence.node_events.get(node.created_by_event_id) if node.created_by_event_id else None
    )
    return Source(
        kind=kind,
        node_id=node.id,
        event_id=node.created_by_event_id,
        origin=node.origin,
        in_session=source_event.in_session if source_event else None,
        node_state=node.state,
        retrieval_ids=node.retrieval_ids,
        declared=node.id in evidence.declared_node_ids,
    )


def _node_kind(
    value: SinkValue, node: NodeRecord, evidence: Evidence, *, exact: bool
) -> SourceKind | None:
    if node.state == NodeState.quarantined.value or (
        node.state == NodeState.evicted.value and node.quarantined_at is not None
    ):
        return SourceKind.quarantined_memory
    # Where the value sits in the event that wrote the node (lineage), when its text remains.
    event = evidence.node_events.get(node.created_by_event_id) if node.created_by_event_id else None
    labels: list[Label] = []
    if event is not None and event.text is not None:
        analysis = event.analysis()
        assert analysis is not None
        labels = [
            analysis.label_at(s, e)
            for s, e, _ in value.locate(evidence.view_of("event", event.id, event.text))
        ]
    label = max(labels, key=lambda lab: _ORDER[lab]) if labels else None
    if label in (Label.instruction, Label.pasted, Label.directive):
        return _LABEL_KIND[label]
    if node.origin == Origin.user.value:
        if not exact:
            return None  # a lookalike of the user's memory is not the user's value
        if node.corrected and Label.user not in labels:
            # A correction put the value there; the user's own words do not hold it.
            return SourceKind.agent_correction
        return SourceKind.user_memory
    if node.claim is not None and sentence_cue(node.claim) == Label.instruction:
        return SourceKind.injected_instruction
    if node.corrected and not labels:
        return SourceKind.agent_correction
    return SourceKind.untrusted_memory


_ORDER = {Label.user: 0, Label.mentioned: 1, Label.data: 1, Label.pasted: 2, Label.directive: 3,
          Label.instruction: 4}


# ── the user's answer to an ask ──────────────────────────────────────────────────────
_AFFIRMATIVE = re.compile(
    r"^\W*(?:yes|yep|yeah|yup|sure|ok(?:ay)?|confirm(?:ed)?|go\s+ahead|do\s+it|approved?|"
    r"that'?s\s+(?:right|correct|fine|ok)|correct|please\s+do|send\s+it|proceed|looks\s+good)\b",
    re.IGNORECASE,
)
_NEGATIVE = re.compile(
    r"^\W*(?:no|nope|don'?t|do\s+not|cancel|stop|wait|never|deny|denied|abort)\b"
    r"|\b(?:don'?t|do\s+not|never)\s+(?:send|share|do|book|pay|transfer)\b",
    re.IGNORECASE,
)


class Answer(StrEnum):
    confirmed = "confirmed"
    declined = "declined"


# What makes a reply that opens like a yes something else: a negation or a pause anywhere
# in it ("yeah no", "ok wait"), or a question ("okay, whose address is that?").
_HEDGE = re.compile(
    r"\b(?:no(?!\s+(?:problem|worries|doubt|rush))|not|nope|don'?t|doesn'?t|isn'?t|never|"
    r"wait|hold\s+on|hang\s+on|stop|cancel|actually|but|unless|whose)\b|\?",
    re.IGNORECASE,
)


def answer_of(text: str | None) -> Answer | None:
    """A user's reply to a confirmation question: confirmed, declined, or neither. A yes is
    a yes only when nothing in the reply hedges or questions it; such a reply leaves the
    call asked."""
    if not text:
        return None
    first = re.split(r"(?<=[.!?])\s+|\n", text.strip(), maxsplit=1)[0]
    if _NEGATIVE.search(first):
        return Answer.declined
    if _AFFIRMATIVE.search(first) and not _HEDGE.search(text):
        return Answer.confirmed
    return None
