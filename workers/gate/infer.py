"""The learned admission policies at run time: `capture` (the ODE-RNN gate), its comparisons
(`capture_discrete`, `supervised_transformer`) and ablations.

The write path calls, per event, `advance(view, latent) -> latent` once (integrate h over the
gap, read the event with the GRU — every event, with or without a preference), then
`decide(gate_input)` per hypothesis: [h ‖ claim ‖ ledger context ‖ event inputs] → six-way
distribution (temperature-scaled on dev) and σ(h); the gate asks (clarify) when the entropy
of the distribution exceeds η (set on dev so that at most one event in twelve asks).
The latent is persisted by the pipeline on the user's GateState row in the event's
transaction; its header names the model version (`state.py`).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.embeddings import get_embedder
from app.domain.gate import QUESTION_BUDGET_SPENT, EventView, GateDecision, GateInput
from app.domain.vocabulary import ACTIONS, Action, Origin
from app.extraction.open_claims import is_open_subject
from app.gate.policies import on_subject, supporting_nodes
from workers.gate import injection, laundering, runtime
from workers.gate.features import context_features, drop_provenance, event_scalars, gap_days
from workers.gate.runtime import GateRuntime
from workers.gate.state import GateLatent, decode, encode
from workers.gate.targets import targets_for

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).parent / "weights"


@dataclass(frozen=True, slots=True)
class LoadedGate:
    net: GateRuntime  # numpy, or torch on the worker's accelerator (runtime.py)
    meta: dict[str, Any]
    version: str
    temperature: float
    eta: float
    provenance: bool
    scorer: injection.InjectionScorer


@lru_cache(maxsize=8)
def load_gate(path: Path) -> LoadedGate:
    """The gate exported at `path` (`.npz`). Its version names the torch checkpoint it was
    exported from, so the numpy and device paths read each other's latents."""
    loaded = runtime.load(path)
    net, meta = loaded.net, loaded.meta
    return LoadedGate(
        net=net,
        meta=meta,
        version=f"{net.config.variant}-{meta.get('model_version', '1')}+{meta['source_digest']}",
        temperature=float(meta.get("temperature", 1.0)),
        eta=float(meta.get("eta", math.inf)),
        provenance=bool(meta.get("provenance", True)),
        scorer=injection.load(_beside(path, "injection.npz", injection.WEIGHTS)),
    )


def _beside(path: Path, name: str, default: Path) -> Path:
    """A companion weight file next to the checkpoint, else the shipped one."""
    candidate = path.parent / name
    return candidate if candidate.exists() else default


class LearnedGatePolicy:
    """An AdmissionPolicy over a trained gate checkpoint (loaded once per process)."""

    weights: Path = WEIGHTS_DIR / "gate.npz"
    name = "capture"
    layered = True
    guard_stable = True
    # The ledger's channel rule (app/ledger/channel_guard.py): a claim not in the user's own
    # words is held until the user supports it.
    guard_channel = True
    clarify = True  # False: the no-clarification ablation (never asks)

    def __init__(self) -> None:
        self.gate = load_gate(self.weights)
        self.version = self.gate.version

    # --- stage ③a: every event --------------------------------------------------------

    def initial(self) -> GateLatent:
        net = self.gate.net
        if net.config.variant == "transformer":
            return GateLatent(h=np.zeros(0, np.float32),
                              history=np.zeros((0, net.config.event_hidden), np.float32))
        return GateLatent(h=net.h0.astype(np.float32).copy(),
                          history=np.zeros((0, 0), np.float32))

    def advance(self, view: EventView, latent: bytes | None) -> bytes:
        state = decode(latent, self.version) or self.initial()
        embedding = get_embedder().embed([view.text or ""])[0]  # (384,)
        now_days = view.occurred_at.timestamp() / 86_400.0
        hashes = laundering.shingles(view.text or "")
        signal = laundering.signal(state.memory, now_days, hashes, embedding)
        if laundering.is_untrusted(view.origin):
            state.memory.remember(now_days, hashes, embedding)
        scalars = np.asarray(
            event_scalars(
                view.origin,
                view.seconds_since_last_event,
                view.new_session,
                float(self.gate.scorer.score(embedding[None, :])[0]),
                signal,
            ),
            dtype=np.float32,
        )
        if not self.gate.provenance:
            scalars = drop_provenance(scalars)
        net = self.gate.net
        encoded = net.encode(embedding[None, :].astype(np.float32), scalars[None, :])
        if net.config.variant == "transformer":  # encoded (1, event_hidden)
            history = np.concatenate([state.history, encoded], axis=0)
            state.history = history[-net.config.max_history :].astype(np.float32)
        else:
            h = state.h[None, :]  # (1, latent)
            gap = np.asarray([gap_days(view.seconds_since_last_event)], dtype=np.float32)
            h = net.update(net.evolve(h, gap), encoded)
            state.h = h[0].astype(np.float32)
        state.event_id = view.event_id
        state.scalars = scalars
        state.embedding = embedding.astype(np.float32)
        state.sketch = laundering.sketch(hashes)
        return encode(state, self.version)

    def _belief(self, state: GateLatent) -> npt.NDArray[np.float32]:
        net = self.gate.net
        if net.config.variant == "transformer":
            last: npt.NDArray[np.float32] = net.attend(state.history)[-1]  # (m, d) → (d,)
            return last
        return state.h  # (latent,)

    # --- stage ③b: each hypothesis --------------------------------------------------------

    def decide(self, gate_input: GateInput) -> GateDecision:
        new_latent = None
        state = decode(gate_input.latent, self.version)
        if state is None or state.event_id != gate_input.event_id:
            # A caller that only decides (no `advance`): read the event from what the input
            # carries, the claim standing in for the text. Degraded, never wrong-typed.
            new_latent = self.advance(
                EventView(
                    event_id=gate_input.event_id,
                    text=gate_input.hypothesis.claim,
                    origin=gate_input.origin,
                    occurred_at=gate_input.occurred_at,
                    seconds_since_last_event=gate_input.seconds_since_last_event,
                    new_session=gate_input.new_session,
                ),
                gate_input.latent,
            )
            state = decode(new_latent, self.version)
            assert state is not None
        hypothesis = gate_input.hypothesis
        claim = get_embedder().embed([hypothesis.claim])[0]  # (384,)
        context = context_features(
            hypothesis, gate_input.related, gate_input.occurred_at, claim, state.embedding
        )
        logits, auth_logit = self.gate.net.decide(
            self._belief(state)[None, :],
            claim[None, :].astype(np.float32),
            np.asarray([context], dtype=np.float32),
            state.scalars[None, :],
        )  # (1, 6), (1,)
        probs = softmax64(logits[0], self.gate.temperature)
        authenticity = 1.0 / (1.0 + math.exp(-float(auth_logit[0])))
        if not self.clarify:
            probs[ACTIONS.index(Action.clarify)] = 0.0
            probs = probs / probs.sum()
        probabilities = {a: float(p) for a, p in zip(ACTIONS, probs, strict=True)}
        entropy = -sum(p * math.log(p) for p in probabilities.values() if p > 0.0)
        most_probable = max(probabilities, key=lambda a: probabilities[a])
        looks_again = second_look(gate_input.origin, hypothesis.subject, probabilities)
        # The extractor could not tell which side of a revision the user leaves: whatever the
        # action head says about this side, only the user's answer settles it.
        side_unclear = hypothesis.side_unclear and gate_input.origin == Origin.user
        unsure = entropy > self.gate.eta and not first_statement(gate_input, most_probable)
        would_ask = self.clarify and (unsure or most_probable == Action.clarify
                                      or looks_again or side_unclear)
        if would_ask and gate_input.may_ask:
            asks_why = (REVISION_SIDE_UNCLEAR if side_unclear
                        else "entropy_above_eta" if unsure
                        else "most_probable" if most_probable == Action.clarify
                        else "untrusted_channel_may_be_genuine")
            action, reason = Action.clarify, asks_why
        elif would_ask:
            # Would ask, but the user's question budget is spent (app/gate/service.may_ask):
            # decide silently. A claim the gate wanted to ask about is never dropped: where the
            # silent choice is `retain` and no active node holds the claim, it is held in
            # quarantine, as a pending question would hold it (a repeat can still promote it).
            silent = [a for a in ACTIONS if a != Action.clarify]
            action, reason = max(silent, key=probabilities.__getitem__), QUESTION_BUDGET_SPENT
            if side_unclear or (action == Action.retain and not supporting_nodes(gate_input)):
                action = Action.quarantine  # an unclear side is never written unasked
        else:
            action = most_probable
            reason = OPENING_STATEMENT if entropy > self.gate.eta else "most_probable"
        if action in WRITES and laundering.laundered(
            gate_input.origin, _overlap(state, self.gate.provenance)
        ):
            action, reason = Action.quarantine, LAUNDERED
        if laundering.held_back(gate_input.origin, action.value):
            # Its text joins the laundering memory: a later paste of it reads as laundered.
            now_days = gate_input.occurred_at.timestamp() / 86_400.0
            if not state.memory.days or state.memory.days[-1] != now_days:
                state.memory.remember(now_days, state.sketch, state.embedding, untrusted=False)
                new_latent = encode(state, self.version)
        return GateDecision(
            action=action,
            probabilities=probabilities,
            authenticity=authenticity,
            targets=targets_for(action, hypothesis, gate_input.related, authenticity),
            reasons=[reason, f"gate_{self.gate.net.config.variant}"],
            latent=new_latent,
        )


def first_statement(gate_input: GateInput, most_probable: Action) -> bool:
    """The user's first statement on a taxonomy subject, in their own words on their
    channel, that the gate would add: it contradicts nothing, so spread in the gate's
    distribution is no reason to spend a question on it (a later statement revises it as
    any other). An open claim is the user's words of unsure meaning, and is still asked."""
    hypothesis = gate_input.hypothesis
    return (most_probable == Action.add and gate_input.origin == Origin.user
            and hypothesis.provenance == Origin.user and not is_open_subject(hypothesis.subject)
            and not on_subject(gate_input))


def softmax64(logits: npt.NDArray[np.float32], temperature: float) -> npt.NDArray[np.float64]:
    """The temperature-scaled action distribution, in float64."""
    scaled = logits.astype(np.float64) / temperature
    exp = np.exp(scaled - scaled.max())
    out: npt.NDArray[np.float64] = exp / exp.sum()
    return out


WRITES = frozenset({Action.add, Action.revise, Action.scope})
LAUNDERED = "laundered_from_untrusted"
REVISION_SIDE_UNCLEAR = "revision_side_unclear"
OPENING_STATEMENT = "first_statement_unasked"


def _overlap(state: GateLatent, provenance: bool) -> float:
    """The event's containment in the user's recent untrusted-channel passages (from its
    sketch; zero in the no-provenance ablation, which has no laundering signal)."""
    return state.memory.untrusted_containment(state.sketch) if provenance else 0.0


# The user's own settings exports and files arrive on untrusted channels, worded like what an
# attacker plants there; the gate holds most of them. Where it would hold a claim yet gives a
# genuine write (add, revise or scope) at least this probability, it asks the user instead,
# budget permitting: their answer on the user channel is the authentication the channel
# lacks. Chosen on dev among 0–0.35 (docs/models/gate.md): adherence 76.6 → 81.3 %,
# response-level poisoning 1.4 → 2.1 %, 7.5 % of events asked; at 0 poisoning is 20.7 %.
SECOND_LOOK_MIN_WRITE = 0.05


def second_look(origin: Origin, subject: str, probabilities: dict[Action, float]) -> bool:
    """Ask about a held claim from an untrusted channel that may be the user's own: the gate
    would quarantine it, gives a genuine write at least SECOND_LOOK_MIN_WRITE, and the claim
    is a taxonomy claim in the service's own words — an open claim quotes the event, and a
    question must never put an untrusted channel's text in front of the user."""
    most_probable = max(probabilities, key=lambda a: probabilities[a])
    write = sum(probabilities.get(a, 0.0) for a in WRITES)
    return (origin != Origin.user and most_probable == Action.quarantine
            and write >= SECOND_LOOK_MIN_WRITE and not is_open_subject(subject))


class CapturePolicy(LearnedGatePolicy):
    """The ODE-RNN authenticity gate with the three-timescale ledger and clarification."""


class CaptureDiscretePolicy(LearnedGatePolicy):
    """Comparison: a discrete GRU given log(1+Δt), no ODE (same supervision, same ledger)."""

    name = "capture_discrete"
    weights = WEIGHTS_DIR / "gate_discrete.npz"


class SupervisedTransformerPolicy(LearnedGatePolicy):
    """Comparison (paper Q4): a causal Transformer with the same labels and log(1+Δt) input,
    writing into a flat versioned store (no timescale layers, no stable-overwrite guard)."""

    name = "supervised_transformer"
    weights = WEIGHTS_DIR / "gate_transformer.npz"
    layered = False
    guard_stable = False


class CaptureNoLayersPolicy(LearnedGatePolicy):
    """Ablation: the capture gate writing every node into one (stable) layer."""

    name = "capture_no_layers"
    layered = False


class CaptureNoProvenancePolicy(LearnedGatePolicy):
    """Ablation: a gate trained without the origin channel and the laundering signal."""

    name = "capture_no_provenance"
    weights = WEIGHTS_DIR / "gate_no_provenance.npz"


class CaptureUnguardedPolicy(LearnedGatePolicy):
    """Variant: the capture gate without the stable-overwrite guard (one authenticated
    statement may revise a stable node). Not the paper's rule; measured because on the
    generated benchmark the guard alone caps genuine-update adherence (docs/models/gate.md)."""

    name = "capture_unguarded"
    guard_stable = False


class CaptureNoClarifyPolicy(LearnedGatePolicy):
    """Ablation: the capture gate that never asks (clarify removed from its distribution)."""

    name = "capture_no_clarify"
    clarify = False


LEARNED_POLICIES: dict[str, type[LearnedGatePolicy]] = {
    p.name: p
    for p in (
        CapturePolicy,
        CaptureDiscretePolicy,
        SupervisedTransformerPolicy,
        CaptureNoLayersPolicy,
        CaptureNoProvenancePolicy,
        CaptureNoClarifyPolicy,
        CaptureUnguardedPolicy,
    )
}
