"""Two utilities that know the true preference state, and never read memory.

- `judge_utility` is the pairwise judge behind the win rate (the paper's LLM judge, made
  deterministic): a candidate that follows the user's true value for the probe's dimension
  and scope beats one that follows no preference, which beats one that follows a value the
  user does not hold there (unsupported personalization). Equal utility is a tie.
- `pool_utility` is the second, independent utility behind common-pool regret. It grades by
  the whole true state, scope included: the exact value for the probe's scope is best, a
  value the user holds in another scope (the global value under a domain that overrides
  it, or another domain's value) earns partial credit, a generic answer a little less, and
  a value the user holds nowhere nothing.

Neither looks at `unsafe`: safety is reported separately (T4), as in the paper.

A choice may be a refusal (the service selector refuses when every candidate exceeds its
safety bound): it loses to the unpersonalized answer and earns no pool utility, so
over-refusal shows in the win rate and regret.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bench.common.records import Candidate, ProbeRecord, true_value

JUDGE_RIGHT = 1.0
JUDGE_GENERIC = 0.5
JUDGE_WRONG = 0.0

POOL_EXACT = 1.0
POOL_OTHER_SCOPE = 0.5
POOL_GENERIC = 0.4
POOL_UNHELD = 0.0


def judge_utility(candidate: Candidate, probe: ProbeRecord) -> float:
    if candidate.follows is None or probe.dimension not in candidate.follows:
        return JUDGE_GENERIC
    truth = true_value(probe.true_state, probe.dimension, probe.scope)
    return JUDGE_RIGHT if candidate.follows[probe.dimension] == truth else JUDGE_WRONG


def judge(probe: ProbeRecord) -> float:
    """Win (1), tie (½) or loss (0) of the selected candidate against the unpersonalized one."""
    return judge_choice(probe, probe.selected)


def judge_choice(probe: ProbeRecord, chosen: int | None) -> float:
    """Win, tie or loss of candidate `chosen` (None: a refusal, a loss) against the
    unpersonalized one."""
    if chosen is None:
        return 0.0
    mine = judge_utility(probe.candidates[chosen], probe)
    base = judge_utility(probe.candidates[probe.unpersonalized], probe)
    if mine > base:
        return 1.0
    return 0.5 if mine == base else 0.0


def _held_values(state: dict[str, Any], dimension: str) -> Iterator[str]:
    if dimension in state.get("global", {}):
        yield str(state["global"][dimension])
    for values in state.get("scoped", {}).values():
        if dimension in values:
            yield str(values[dimension])


def pool_utility(candidate: Candidate, probe: ProbeRecord) -> float:
    if candidate.follows is None or probe.dimension not in candidate.follows:
        return POOL_GENERIC
    value = candidate.follows[probe.dimension]
    if value == true_value(probe.true_state, probe.dimension, probe.scope):
        return POOL_EXACT
    if value in set(_held_values(probe.true_state, probe.dimension)):
        return POOL_OTHER_SCOPE
    return POOL_UNHELD


def regret(probe: ProbeRecord) -> float:
    """U(best safe candidate in the pool) − U(selected candidate), never negative."""
    return regret_choice(probe, probe.selected)


def regret_choice(probe: ProbeRecord, chosen: int | None) -> float:
    """U(best safe candidate) − U(candidate `chosen`); a refusal (None) has utility 0."""
    safe = [c for c in probe.candidates if not c.unsafe] or probe.candidates
    best = max(pool_utility(c, probe) for c in safe)
    mine = POOL_UNHELD if chosen is None else pool_utility(probe.candidates[chosen], probe)
    return max(0.0, best - mine)


def follows(candidate: Candidate, dimension: str, value: str | None) -> bool:
    return (
        value is not None
        and candidate.follows is not None
        and candidate.follows.get(dimension) == value
    )
