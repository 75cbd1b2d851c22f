"""What a benchmark run records per episode: the raw outcomes every metric is computed from.

Plain dataclasses of built-in types, so outcomes pickle across worker processes, round-trip
through JSON (`DIR/outcomes/<method>.jsonl`), and can be built by hand in tests.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

GLOBAL_SCOPE = "global"
# Oracle actions that change what an oracle memory holds (genuine writes).
WRITE_ACTIONS = frozenset({"add", "revise", "scope"})
# Ledger changes that alter the set of active memories (corroboration only refreshes one).
ACTIVE_CHANGES = frozenset({"created", "promoted", "superseded"})


@dataclass(slots=True)
class Candidate:
    text: str
    follows: dict[str, str] | None
    unsafe: bool = False


@dataclass(slots=True)
class Retrieved:
    """One memory a probe retrieved, with the events its lineage holds (indices)."""

    subject: str
    value: str | None
    direction: str
    scope: str
    score: float
    derives_from: list[int] = field(default_factory=list)
    # The memory's claim as the ledger words it (what r_p reads); None in old outcome files.
    claim: str | None = None


@dataclass(slots=True)
class AuditedCitation:
    """One cited memory the counterfactual audit re-decoded without (app/audit)."""

    rank: int  # index into the probe's `retrieved`
    influence: float  # Inf(n) = U(y_factual) − U(y without n)
    kept: bool  # the audit kept the citation (it was not dropped)
    selection_changed: bool  # removing the memory changed the re-decoded choice
    necessary: bool  # the generator's label: see `necessary` below


@dataclass(slots=True)
class ServiceSelection:
    """The service's safety-bounded selector (app/selection) over the probe's retrieved
    memories and candidates, its ablations without the bound (the objective keeps
    −w_s·r_s) and without any safety term, and the citation audit of the turn. None as a
    chosen index is a refusal."""

    chosen: int | None
    chosen_no_bound: int | None
    # Ablation without any safety: no bound and w_s = 0 (r_p alone).
    chosen_no_safety: int | None = None
    citations: list[AuditedCitation] = field(default_factory=list)
    # Ranks of every retrieved memory that is necessary (audited or not).
    necessary_ranks: list[int] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ServiceSelection:
        return cls(**{**data, "citations": [AuditedCitation(**c) for c in data["citations"]]})


@dataclass(slots=True)
class EventRecord:
    index: int
    origin: str
    label: str
    oracle_action: str
    attack: bool = False
    changepoint: bool = False
    dimension: str | None = None
    value: str | None = None
    scope: str = GLOBAL_SCOPE
    direction: str = "prefer"
    attack_family: str | None = None
    # Applied decision actions, one per hypothesis, in order (empty: the extractor abstained).
    actions: list[str] = field(default_factory=list)
    # The first reason of each decision as the event was written ("most_probable",
    # "question_budget_spent", "laundered_from_untrusted", ...), in the order of `actions`;
    # an answer later changes the actions, not these.
    reasons: list[str] = field(default_factory=list)
    # Each decision's action as the policy chose it, where the ledger's rules applied another
    # ("revise" held by the stable-overwrite rule), else ""; in the order of `actions`. Empty
    # in outcome files written before it was recorded.
    proposed: list[str] = field(default_factory=list)
    # Ledger changes the event caused ("created", "quarantined", "superseded", ...).
    changes: list[str] = field(default_factory=list)
    # Active claims of the user right after the event: [subject, scope, value, direction].
    active_claims: list[list[str]] = field(default_factory=list)
    # The simulated user's answers to the questions the event raised (confirm | reject |
    # scope), in order; the answers' ledger changes are in `changes`.
    answers: list[str] = field(default_factory=list)
    # Questions deferred from earlier events (the question budget was spent then) and asked
    # at this one (app/clarifications/service.py).
    deferred_asked: int = 0
    # Answers to this event's own questions (asked here or deferred to a later event) that
    # were the simulated user's errors (ε): tells an answer in error from a misread claim.
    wrong_answers: int = 0
    ms: float = 0.0
    failed: bool = False

    @property
    def preference_bearing(self) -> bool:
        return self.dimension is not None

    @property
    def genuine_write(self) -> bool:
        return self.oracle_action in WRITE_ACTIONS and not self.attack

    @property
    def predicted_action(self) -> str:
        """The event's first decision, or `retain` when the extractor abstained."""
        return self.actions[0] if self.actions else "retain"


@dataclass(slots=True)
class ProbeRecord:
    after_event: int
    kind: str
    dimension: str
    scope: str
    # The true preference state at probe time: {"global": {dim: value}, "scoped": {...}}.
    true_state: dict[str, Any]
    candidates: list[Candidate]
    retrieved: list[Retrieved] = field(default_factory=list)
    # Events from which some active memory derives at probe time.
    active_from: list[int] = field(default_factory=list)
    selected: int = 0
    unpersonalized: int = 0
    # The service selector and citation audit (None: not run, e.g. `--no-audit`).
    service: ServiceSelection | None = None


@dataclass(slots=True)
class EpisodeOutcome:
    episode_id: str
    user_id: str
    track: str
    events: list[EventRecord]
    probes: list[ProbeRecord]
    drift_shape: str | None = None
    attack_family: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EpisodeOutcome:
        return cls(
            episode_id=data["episode_id"],
            user_id=data["user_id"],
            track=data["track"],
            drift_shape=data.get("drift_shape"),
            attack_family=data.get("attack_family"),
            events=[EventRecord(**e) for e in data["events"]],
            probes=[
                ProbeRecord(
                    **{
                        **p,
                        "candidates": [Candidate(**c) for c in p["candidates"]],
                        "retrieved": [Retrieved(**r) for r in p["retrieved"]],
                        "service": (ServiceSelection.from_json(p["service"])
                                    if p.get("service") else None),
                    }
                )
                for p in data["probes"]
            ],
        )


def true_value(state: dict[str, Any], dimension: str, scope: str) -> str | None:
    """The value the user holds for `dimension` in `scope` (a scoped value overrides the
    global one only inside its domain)."""
    if scope != GLOBAL_SCOPE:
        scoped = state.get("scoped", {}).get(scope, {})
        if dimension in scoped:
            return str(scoped[dimension])
    value = state.get("global", {}).get(dimension)
    return None if value is None else str(value)


def necessary(memory: Retrieved, dimension: str, scope: str, state: dict[str, Any]) -> bool:
    """Whether a retrieved memory is necessary for the probe's right response: it is the
    memory that determines it, by the generator's labels. That is, it prefers the user's
    true value for the probe's dimension (`true_value`) in the scope that value comes from:
    the probe's own domain when the user holds a scoped value there, else global. A memory
    holding the right value in a scope that does not apply (another domain, or global where
    a scoped value overrides), an `avoid` memory, or a memory of another dimension is not
    necessary."""
    truth = true_value(state, dimension, scope)
    if truth is None or memory.subject != dimension or memory.value != truth:
        return False
    if memory.direction == "avoid":
        return False
    overridden = scope != GLOBAL_SCOPE and dimension in state.get("scoped", {}).get(scope, {})
    return memory.scope == (scope if overridden else GLOBAL_SCOPE)
