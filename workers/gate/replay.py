"""Training replay: each episode, event by event, as the online path would see it.

For every event: the belief inputs (embedding, origin, log(1+Δt), session boundary,
injection-likeness, laundering signal against the user's earlier untrusted events); then,
when the extractor read a hypothesis, its context in a simulated ledger (`ledger_sim`) and
its *target* action. Targets come from the oracle, adapted to what our ledger holds so that
applying them brings it to the oracle's state (labels never look ahead):

- a hypothesis that misreads the event (another claim, scope or direction than the oracle's)
  or reads an event with no preference: `retain` (a no-op) where the oracle retains, else
  `quarantine` (held, never retrievable);
- quarantine and clarify stand; so does retain for non-genuine evidence (sarcasm, hints);
- add, revise, scope and genuine reaffirmations become whatever makes the ledger hold the
  claim: `retain` if an active node already holds it, `revise` if an active node in its
  scope holds another value, else `scope` (scoped) or `add`.

The authenticity target is 1 for a correctly read genuine preference (genuine, scoped or
literal statements), else 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from app.domain.claims import GLOBAL_SCOPE, Hypothesis
from app.domain.gate import RelatedNode
from app.domain.vocabulary import ACTIONS, Action, NodeState
from workers.common.episodes import Episode, EventRecord
from workers.gate import laundering
from workers.gate.features import context_features, event_scalars, gap_days
from workers.gate.injection import InjectionScorer
from workers.gate.ledger_sim import SimEvent, SimLedger
from workers.gate.targets import targets_for

GENUINE_LABELS = frozenset({"genuine_preference", "context_specific", "literal_statement"})
ACTION_INDEX = {a: i for i, a in enumerate(ACTIONS)}
IGNORE = -100
Array = npt.NDArray[np.float32]


@dataclass(slots=True)
class GateStep:
    scalars: list[float]
    dt_days: float
    label: int = IGNORE  # target action index; IGNORE: no hypothesis at this event
    authentic: float = -1.0  # authenticity target; -1: none
    claim: Array | None = None  # (384,)
    context: list[float] | None = None
    # For reporting only.
    oracle_action: str = ""
    event_label: str = ""
    matched: bool = False


@dataclass(slots=True)
class GateSequence:
    episode_id: str
    track: str
    embeddings: Array  # (T, 384)
    steps: list[GateStep] = field(default_factory=list)


def reads_event(hypothesis: Hypothesis, event: EventRecord) -> bool:
    return (
        hypothesis.subject == event.dimension
        and hypothesis.value == event.value
        and hypothesis.direction.value == event.direction
        and hypothesis.scope == event.scope
    )


def target_action(
    event: EventRecord, hypothesis: Hypothesis, related: Sequence[RelatedNode]
) -> Action:
    oracle = Action(event.action)
    if not reads_event(hypothesis, event):
        return Action.retain if oracle == Action.retain else Action.quarantine
    if oracle in (Action.quarantine, Action.clarify):
        return oracle
    if oracle == Action.retain and event.label not in GENUINE_LABELS:
        return Action.retain
    active_in_scope = [
        r for r in related if r.state == NodeState.active.value and r.scope == hypothesis.scope
    ]
    if any(r.value == hypothesis.value and r.direction == hypothesis.direction.value
           for r in active_in_scope):
        return Action.retain
    if any(r.value != hypothesis.value for r in active_in_scope):
        return Action.revise
    return Action.scope if hypothesis.scope != GLOBAL_SCOPE else Action.add


def authenticity_target(event: EventRecord, hypothesis: Hypothesis) -> float:
    genuine = event.label in GENUINE_LABELS and not event.attack
    return 1.0 if genuine and reads_event(hypothesis, event) else 0.0


def replay_episode(
    episode: Episode,
    hypotheses: Sequence[Hypothesis | None],
    text_embeddings: Array,
    claim_embedding: Callable[[str], Array],
    injection: InjectionScorer,
    layered: bool = True,
    guard_stable: bool = True,
    answers: bool = False,
) -> GateSequence:
    """One episode → its gate steps. text_embeddings (T, 384) row per event."""
    # No channel rule: the service's ledger applies it after the gate's decision, and the gate
    # is trained on its own decisions (the targets), not on what the ledger then makes of them.
    ledger = SimLedger(layered=layered, guard_stable=guard_stable, answers=answers,
                       channel_rule=False)
    memory = laundering.UntrustedMemory()
    injection_scores = injection.score(text_embeddings)  # (T,)
    sequence = GateSequence(episode.episode_id, episode.track, text_embeddings)
    previous = None
    for row, (event, hypothesis) in enumerate(zip(episode.events, hypotheses, strict=True)):
        gap = (
            None if previous is None
            else (event.occurred_at - previous.occurred_at).total_seconds()
        )
        new_session = previous is not None and previous.session_id != event.session_id
        now_days = event.occurred_at.timestamp() / 86_400.0
        hashes = laundering.shingles(event.text)
        signal = laundering.signal(memory, now_days, hashes, text_embeddings[row])
        if laundering.is_untrusted(event.origin):
            memory.remember(now_days, hashes, text_embeddings[row])
        step = GateStep(
            scalars=event_scalars(
                event.origin, gap, new_session, float(injection_scores[row]), signal
            ),
            dt_days=gap_days(gap),
            oracle_action=event.action,
            event_label=event.label,
        )
        ledger.evict_expired(event.occurred_at)
        if hypothesis is not None:
            claim = claim_embedding(hypothesis.claim)
            related = ledger.related(hypothesis, claim, event.occurred_at)
            action = target_action(event, hypothesis, related)
            authentic = authenticity_target(event, hypothesis)
            step.label = ACTION_INDEX[action]
            step.authentic = authentic
            step.claim = claim
            step.context = context_features(
                hypothesis, related, event.occurred_at, claim, text_embeddings[row]
            )
            step.matched = reads_event(hypothesis, event)
            if laundering.held_back(event.origin, action.value):
                memory.remember(now_days, hashes, text_embeddings[row], untrusted=False)
            ledger.apply(
                action,
                hypothesis,
                claim,
                related,
                targets_for(action, hypothesis, related, authentic),
                authentic,
                SimEvent(event.origin, event.session_id, event.occurred_at),
            )
        sequence.steps.append(step)
        previous = event
    return sequence
