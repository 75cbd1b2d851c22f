"""Trajectory features of a session (retrieval-observability paper, §2.3) and a triage score.

The session's operations, in server time order, mapped to the paper's vocabulary:
  recall    a retrieval with mode `tool` (the agent's memory-search tool call)
  context   a retrieval with mode `context` (framework context assembly; the paper's
            implicit read, observable here because it goes through /v1/retrieve)
  save      an event whose processing wrote to the ledger (a node created, revised or
            quarantined): the memory write
  read      a checked call of a read-only tool
  draft     a checked call of a `write` tool
  send      a checked call of an `external_send` tool (the call being checked is last)

These are order-only signals: the paper shows they are preconditions, not verdicts
(benign memory-grounded sends trip recall_before_send 24.7–57.6% of the time). They are
returned for triage and ranking and never enter the decision (`rules.decide` does not read
them). `triage_score` is a fixed logistic ranking of them plus the session's content
signals, for a human reviewer's queue.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.checkcall.policy import SideEffect
from app.checkcall.provenance import TAINTED, TRUSTED, EventRecord, SourceKind
from app.checkcall.rules import ValueVerdict
from app.checkcall.segments import Label
from app.domain.vocabulary import Origin

OP_OF_SIDE_EFFECT = {
    SideEffect.read: "read",
    SideEffect.write: "draft",
    SideEffect.external_send: "send",
}
OPS = ("recall", "context", "save", "read", "draft", "send")
BIGRAMS = (
    ("recall", "recall"),
    ("recall", "draft"),
    ("recall", "send"),
    ("context", "send"),
    ("save", "send"),
    ("read", "send"),
    ("draft", "send"),
)

# Triage weights (logit scale); hand-set, documented in docs/checkcall.md.
TRIAGE_BIAS = -3.0
TRIAGE_WEIGHTS: dict[str, float] = {
    "recall_before_send": 0.8,
    "context_before_send": 0.5,
    "save_before_send": 0.3,
    "recipient_external": 1.0,
    "session_instruction_regions": 1.5,
    "session_pasted_regions": 0.7,
    "user_routing_rules": 1.0,
    "untrusted_values": 1.0,
    "unsourced_values": 1.0,
    "tainted_values": 2.5,
}


@dataclass(frozen=True, slots=True)
class Op:
    at: datetime
    name: str


def trajectory(ops: list[Op]) -> dict[str, Any]:
    """The paper's count, structural, bigram and entry-point features of one op sequence."""
    seq = [op.name for op in sorted(ops, key=lambda op: op.at)]
    counts = {f"{name}_count": seq.count(name) for name in OPS}
    positions = {name: [i for i, op in enumerate(seq) if op == name] for name in OPS}

    def before_send(name: str) -> bool:
        # min(name positions) < max(send positions), as the paper's released implementation.
        return bool(positions[name] and positions["send"]) and (
            min(positions[name]) < max(positions["send"])
        )

    chain = best = 0
    for op in seq:
        chain = chain + 1 if op == "recall" else 0
        best = max(best, chain)
    features: dict[str, Any] = {
        **counts,
        "seq_len": len(seq),
        "send_without_recall": bool(positions["send"]) and not positions["recall"],
        "recall_before_send": before_send("recall"),
        "context_before_send": before_send("context"),
        "save_before_send": before_send("save"),
        "retrieval_before_send": before_send("recall") or before_send("context"),
        "recall_to_send_ratio": round(counts["recall_count"] / max(counts["send_count"], 1), 6),
        "max_recall_chain": best,
    }
    for first, second in BIGRAMS:
        features[f"{first}_then_{second}"] = sum(
            1 for a, b in zip(seq, seq[1:], strict=False) if (a, b) == (first, second)
        )
    features["first_op"] = seq[0] if seq else None
    for name in OPS:
        features[f"first_op_is_{name}"] = bool(seq) and seq[0] == name
    return features


def session_signals(events: list[EventRecord]) -> dict[str, Any]:
    """Content signals of the session: what it read, what was injected or pasted."""
    instructions = pasted = user_rules = untrusted = user_turns = 0
    for event in events:
        analysis = event.analysis()
        if event.origin == Origin.user.value:
            user_turns += 1
            user_rules += analysis.own_rules if analysis is not None else 0
        else:
            untrusted += 1
        if analysis is not None:
            instructions += analysis.count(Label.instruction)
            pasted += analysis.count(Label.pasted)
    return {
        "user_turns": user_turns,
        "untrusted_events": untrusted,
        "session_instruction_regions": instructions,
        "session_pasted_regions": pasted,
        # Standing routing rules in the user's own words (the prompt-inline pattern).
        "user_routing_rules": user_rules,
    }


def call_signals(verdicts: list[ValueVerdict]) -> dict[str, Any]:
    sinks = [v for v in verdicts if v.sink is not None]
    external = [
        v
        for v in sinks
        if v.external
        and v.value.domain is not None
        and SourceKind.allowlist not in {s.kind for s in v.sources}
    ]
    return {
        "sink_values": len(sinks),
        # The paper's recipient-externality gate: an address or URL outside the allowlist.
        "recipient_external": bool(external),
        "trusted_values": sum(1 for v in sinks if {s.kind for s in v.sources} & TRUSTED),
        "untrusted_values": sum(
            1
            for v in sinks
            if v.sources and not ({s.kind for s in v.sources} & (TRUSTED | TAINTED))
        ),
        "unsourced_values": sum(1 for v in sinks if not v.sources),
        "tainted_values": sum(1 for v in verdicts if {s.kind for s in v.sources} & TAINTED),
    }


def triage_score(features: dict[str, Any]) -> float:
    z = TRIAGE_BIAS
    for name, weight in TRIAGE_WEIGHTS.items():
        value = features.get(name, 0)
        z += weight * (1.0 if value else 0.0)
    return round(1.0 / (1.0 + math.exp(-z)), 6)
