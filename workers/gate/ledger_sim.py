"""A ledger in memory for training replay, applying the rules of `app.ledger.rules`.

Training replays each train episode through the learned extractor (out-of-fold predictions)
and this ledger, applying the *target* action of each hypothesis (teacher forcing), so the
gate learns on the ledger context it will see online: `related()` builds the same
`RelatedNode`s `app.gate.service.build_input` builds (live nodes of the hypothesis' subject,
decayed confidence, cosine, `relate()`), and `apply()` follows `apply_decision`: quarantine
and clarify hold the claim (a repeat adds evidence to its quarantined twin), retain
corroborates (and promotes an authentic twin), add / scope write or promote, revise supersedes
unless an *established* stable node is guarded (one confirmed by two authenticated user
events across sessions, or three in one, needs that much evidence again to be overwritten),
quarantined nodes are evicted after ≈14 days (each of these is a function of
`app.ledger.rules`, which the service's ledger calls too), and a question (a clarify target) about a
claim that is not the user's can be answered "no" (`answers`, which the training replay sets
unless `capture train gate --no-answers`), evicting it, as the user's answer does online.
What it leaves out: edges, versions, spans, questions asked or deferred, and a "yes"; the
channel rule only when asked to (`channel_rule`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

from app.domain.claims import GLOBAL_SCOPE, Hypothesis
from app.domain.gate import RelatedNode
from app.domain.relation import ClaimFields
from app.domain.vocabulary import Action, NodeState, Origin
from app.gate.policies import related_node
from app.ledger import channel_guard, rules

_ACTIVE, _QUARANTINED = NodeState.active.value, NodeState.quarantined.value
# Actions that would make a claim an active memory.
_WRITES = frozenset({Action.add, Action.scope, Action.revise})


@dataclass(slots=True)
class SimNode:
    node_id: uuid.UUID
    subject: str
    value: str
    direction: str
    scope: str
    timescale: str
    layer: str
    state: str
    c0: float
    authenticity: float
    recorded_at: datetime
    last_corroborated_at: datetime
    quarantined_at: datetime | None
    embedding: npt.NDArray[np.float32]
    # (session, qualifies for a stable overwrite) of each event that wrote or repeated it.
    evidence: list[tuple[str, bool]] = field(default_factory=list)

    def qualifying_sessions(self) -> list[str]:
        return [session for session, ok in self.evidence if ok]


@dataclass(frozen=True, slots=True)
class SimEvent:
    origin: Origin
    session_id: str
    at: datetime


class SimLedger:
    def __init__(self, layered: bool = True, guard_stable: bool = True,
                 answers: bool = False, channel_rule: bool = False) -> None:
        self.layered = layered
        self.guard_stable = guard_stable
        # Hold a claim not in the user's own words (app/ledger/channel_guard.py), as the
        # service's ledger does after the gate's decision; the training replay leaves it off.
        self.channel_rule = channel_rule
        # Questions (clarify targets) answered as the user would (see _Apply.run);
        # GateTrainConfig.answers (on unless `capture train gate --no-answers`).
        self.answers = answers
        self.nodes: list[SimNode] = []
        self._counter = 0

    def _new_id(self) -> uuid.UUID:
        self._counter += 1
        return uuid.UUID(int=self._counter)

    def evict_expired(self, at: datetime) -> None:
        for node in self.nodes:
            if rules.evicts(node.state, node.quarantined_at, at):
                rules.retire(node, NodeState.evicted)

    def related(
        self, hypothesis: Hypothesis, claim_embedding: npt.NDArray[np.float32], at: datetime
    ) -> list[RelatedNode]:
        new = ClaimFields(hypothesis.subject, hypothesis.value, hypothesis.direction.value)
        out = []
        for node in self.nodes:
            if node.subject != hypothesis.subject or node.state not in (_ACTIVE, _QUARANTINED):
                continue
            cosine = float(np.dot(claim_embedding, node.embedding))
            out.append(related_node(node.node_id, node, new, cosine,
                                    rules.decayed_confidence(node, at)))
        return out

    # --- applying an action -------------------------------------------------------------

    def apply(
        self,
        action: Action,
        hypothesis: Hypothesis,
        claim_embedding: npt.NDArray[np.float32],
        related: list[RelatedNode],
        targets: list[uuid.UUID],
        authenticity: float,
        event: SimEvent,
    ) -> Action:
        ctx = _Apply(self, hypothesis, claim_embedding, related, targets, authenticity, event)
        return ctx.run(action)


class _Apply:
    def __init__(
        self,
        ledger: SimLedger,
        hypothesis: Hypothesis,
        claim_embedding: npt.NDArray[np.float32],
        related: list[RelatedNode],
        targets: list[uuid.UUID],
        authenticity: float,
        event: SimEvent,
    ) -> None:
        self.ledger = ledger
        self.h = hypothesis
        self.embedding = claim_embedding
        self.related = {r.node_id: r for r in related}
        self.by_id = {n.node_id: n for n in ledger.nodes}
        self.targets = [self.by_id[t] for t in targets if t in self.by_id]
        self.authenticity = authenticity
        self.event = event
        self.action = Action.add
        self.needs_user_support = ledger.channel_rule and channel_guard.needs_user_support(
            event.origin, hypothesis.provenance, None
        )

    def run(self, action: Action) -> Action:
        self.action = action
        if action in (Action.clarify, Action.quarantine):
            node = self._quarantine()
            if action == Action.clarify and self.ledger.answers and self.authenticity < 0.5:
                # Online the user answers: "no" to a claim that is not theirs (a hedge, a
                # sarcastic line, a planted one) evicts it, so what the user says next meets
                # no held twin. Without this the replay kept it quarantined, a state the
                # online gate never sees after an answer. (A "yes" is left as held: its
                # repeat promotes it, as confirmation would.)
                rules.retire(node, NodeState.evicted)
            return action
        if action in _WRITES and self.needs_user_support:
            self._quarantine()
            return Action.quarantine
        if action == Action.revise:
            return self._revise()
        if action == Action.retain:
            for target in self.targets:
                if self._corroborates(target):
                    self._corroborate(target)
            return action
        if action == Action.scope and self.h.scope != GLOBAL_SCOPE:
            self._write_or_promote()
            return action
        self._write_or_promote()
        return Action.add

    def _qualifies(self) -> bool:
        return rules.qualifies_for_overwrite(self.event.origin, self.authenticity)

    def _corroborates(self, node: SimNode) -> bool:
        return rules.corroborates(
            node.scope,
            node.state,
            self.related.get(node.node_id),
            self.h.scope,
            self.authenticity,
            self.action,
            self.needs_user_support,
        )

    def _twin(self) -> SimNode | None:
        twin = rules.quarantined_twin(self.related.values(), self.h.scope)
        return None if twin is None else self.by_id[twin]

    def _new_node(self, state: str) -> SimNode:
        at = self.event.at
        node = SimNode(
            node_id=self.ledger._new_id(),
            subject=self.h.subject,
            value=self.h.value,
            direction=self.h.direction.value,
            scope=self.h.scope,
            timescale=self.h.timescale.value,
            layer=rules.layer_for(self.h.scope, self.h.timescale.value, self.ledger.layered).value,
            state=state,
            c0=self.h.confidence,
            authenticity=self.authenticity,
            recorded_at=at,
            last_corroborated_at=at,
            quarantined_at=None if state == _ACTIVE else at,
            embedding=self.embedding,
            evidence=[(self.event.session_id, self._qualifies())],
        )
        self.ledger.nodes.append(node)
        self.by_id[node.node_id] = node
        return node

    def _promote(self, node: SimNode) -> None:
        rules.promote(node, self.event.at, self.ledger.layered)

    def _corroborate(self, node: SimNode) -> None:
        held = rules.corroborate(node, self.event.at)
        node.evidence.append((self.event.session_id, self._qualifies()))
        if held:
            self._promote(node)

    def _write_or_promote(self) -> SimNode:
        twin = self._twin()
        if twin is not None and self._corroborates(twin):
            self._corroborate(twin)
            return twin
        return self._new_node(_ACTIVE)

    def _quarantine(self) -> SimNode:
        twin = self._twin()
        if twin is not None:
            twin.evidence.append((self.event.session_id, self._qualifies()))
            return twin
        return self._new_node(_QUARANTINED)

    def _overwrite_allowed(self) -> bool:
        twin = self._twin()
        return rules.stable_overwrite_allowed(
            self.event.session_id,
            self._qualifies(),
            [] if twin is None else twin.qualifying_sessions(),
        )

    def _revise(self) -> Action:
        targets = [t for t in self.targets if t.state == _ACTIVE]
        if not targets:
            self._write_or_promote()
            return Action.add
        guarded = self.ledger.guard_stable and any(
            rules.guards_overwrite(t.layer, t.qualifying_sessions) for t in targets
        )
        if guarded and not self._overwrite_allowed():
            self._quarantine()
            return Action.quarantine
        twin = self._twin()
        if twin is not None:
            twin.evidence.append((self.event.session_id, self._qualifies()))
            self._promote(twin)
        else:
            self._new_node(_ACTIVE)
        for target in targets:
            rules.retire(target, NodeState.superseded)
        return Action.revise
