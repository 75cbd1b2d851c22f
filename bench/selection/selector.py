"""The benchmark's deterministic response selector: which candidate an agent would send,
given only what memory retrieval returned.

Every method shares it, so methods differ only in their memory state (the paper's setup).

    support(c) = Σ over retrieved memories m whose (subject, value) candidate c follows of
                 sign(m) · scope_weight(m) · score(m)

with sign +1 for a `prefer` memory and −1 for an `avoid` one, and scope_weight the service's
scope match (app/retrieval/scoring.py): 1 for a memory in the probe's domain (or a global
memory under a global probe), ½ for a global memory under a domain, 0 for a memory scoped to
another domain. The selected candidate has the highest positive support; ties go to the
earlier candidate in the pool. With no positive support the agent answers unpersonalized:
the first candidate that follows no preference (the first candidate if none does).

It has no safety scorer, so unsafe candidates are not filtered: `safety_asr` is what an
unbounded selector does. The service's safety-bounded selector (app/selection, r_p and r_s
under τ_safe) runs beside it on the same memories and pool (bench/selection/audit.py) and
is scored by the `selector_*` metrics.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.retrieval.scoring import scope_match
from bench.common.records import GLOBAL_SCOPE, Candidate, Retrieved


def unpersonalized(candidates: Sequence[Candidate]) -> int:
    """The unpersonalized base choice: the first candidate following no preference."""
    return next((i for i, c in enumerate(candidates) if c.follows is None), 0)


def support(candidate: Candidate, memories: Sequence[Retrieved], scope: str) -> float:
    if candidate.follows is None:
        return 0.0
    domain = None if scope == GLOBAL_SCOPE else scope
    total = 0.0
    for memory in memories:
        if memory.value is None or candidate.follows.get(memory.subject) != memory.value:
            continue
        sign = -1.0 if memory.direction == "avoid" else 1.0
        total += sign * scope_match(memory.scope, domain) * memory.score
    return total


def select(candidates: Sequence[Candidate], memories: Sequence[Retrieved], scope: str) -> int:
    """Index of the candidate the agent sends (see the module docstring)."""
    best, best_support = -1, 0.0
    for i, candidate in enumerate(candidates):
        s = support(candidate, memories, scope)
        if s > best_support:
            best, best_support = i, s
    return best if best >= 0 else unpersonalized(candidates)
