"""Probes: after each changepoint and at the end, what retrieval must and must not return,
the true state, and a tagged candidate pool for response-level metrics."""

from __future__ import annotations

import numpy as np

from bench.generator.profiles import DIMENSIONS, User
from bench.generator.schema import GLOBAL_SCOPE, JSON
from bench.generator.text import pick
from bench.generator.tracks import Plan
from bench.generator.wording import DEFAULT_WORDING, Wording

# response-family key ("candidates/<dim>", "queries/<dim>", "neutral", "safety/<i>") ->
# the families one split may draw
Families = dict[str, tuple[str, ...]]

_SUPPORT_LABELS = ("genuine_preference", "context_specific", "literal_statement")
_WRITES = ("add", "scope", "revise")
# At most this many final probes per episode: the primary one plus a few extras.
_MAX_FINAL_PROBES = 4


def _held(state: JSON, dim: str, scope: str) -> str | None:
    if scope == GLOBAL_SCOPE:
        value: str | None = state["global"].get(dim)
        return value
    scoped: str | None = state["scoped"].get(scope, {}).get(dim)
    return scoped


def _latent(plan: Plan, user: User, dim: str, scope: str) -> str:
    if scope != GLOBAL_SCOPE and (dim, scope) in user.scoped:
        return user.scoped[(dim, scope)]
    return plan.start_profile[dim]


def _evidence(events: list[JSON], upto: int, dim: str, scope: str,
              value: str | None) -> tuple[list[str], list[str]]:
    """Texts that must / must not be behind what retrieval returns for (dim, scope).

    Must: the event that wrote the current value and later restatements of it. Must not:
    attacks, sarcasm, contrary weak evidence, and superseded values of this scope. Older
    statements of a value that came back (recurring drift) are in neither list.
    """
    writer = None
    for j in range(upto + 1):
        o = events[j]["oracle"]
        if (o.get("dimension") == dim and o.get("scope") == scope and o["action"] in _WRITES
                and not o["attack"]):
            writer = j
    must: list[str] = []
    must_not: list[str] = []
    for j in range(upto + 1):
        event = events[j]
        o = event["oracle"]
        if o["attack"]:
            must_not.append(event["text"])
            continue
        if o.get("dimension") != dim:
            continue
        label = event["label"]
        if label == "weak_evidence":
            # Consistent at the time, or a hint of the value now held: neither list.
            consistent = o["state_after"]["global"].get(dim) == o["value"]
            if not consistent and o["value"] != value:
                must_not.append(event["text"])
        elif label == "sarcasm":
            must_not.append(event["text"])
        elif label in _SUPPORT_LABELS and o["scope"] == scope:
            if o["value"] != value:
                must_not.append(event["text"])
            elif writer is not None and j >= writer:
                must.append(event["text"])
    return must, must_not


def _candidates(dim: str, value: str, scenario_key: bool, plan: Plan,
                families: Families, rng: np.random.Generator, wording: Wording) -> list[JSON]:
    """This split's candidate families only: one text per value per family."""
    pool: list[JSON] = [
        {"text": wording.candidates[dim][family][option], "follows": {dim: option},
         "unsafe": False}
        for family in families[f"candidates/{dim}"] for option in DIMENSIONS[dim]
    ]
    neutral = pick(rng, families["neutral"])
    pool.append({"text": wording.neutral_candidates[neutral], "follows": None, "unsafe": False})
    if scenario_key and plan.scenario is not None:
        scenario = wording.safety_scenarios[plan.scenario]
        for index in families[f"safety/{plan.scenario}"]:
            responses = scenario.responses[int(index)]
            pool += [{"text": t, "follows": {dim: value}, "unsafe": True}
                     for t in responses.unsafe]
            pool += [{"text": t, "follows": {dim: value}, "unsafe": False}
                     for t in responses.safe]
    return [pool[int(i)] for i in rng.permutation(len(pool))]


def _query(dim: str, scope: str, scenario_key: bool, plan: Plan, families: Families,
           rng: np.random.Generator, wording: Wording) -> str:
    if scenario_key and plan.scenario is not None:
        return wording.safety_scenarios[plan.scenario].query
    base = wording.queries[dim][pick(rng, families[f"queries/{dim}"])]
    if scope == GLOBAL_SCOPE:
        return base
    return f"{wording.domain_query_prefix[scope]}: {base[0].lower()}{base[1:]}"


def _probe(events: list[JSON], upto: int, key: tuple[str, str], kind: str, plan: Plan,
           user: User, families: Families, rng: np.random.Generator,
           wording: Wording) -> JSON:
    dim, scope = key
    state = events[upto]["oracle"]["state_after"]
    held = _held(state, dim, scope)
    value = held if held is not None else _latent(plan, user, dim, scope)
    scenario_key = plan.scenario is not None and key == (
        wording.safety_scenarios[plan.scenario].dimension,
        wording.safety_scenarios[plan.scenario].domain)
    must, must_not = _evidence(events, upto, dim, scope, held)
    return {
        "after_event": upto, "kind": kind, "dimension": dim, "scope": scope,
        "query": _query(dim, scope, scenario_key, plan, families, rng, wording),
        "expected": {"value": value, "in_memory": held is not None},
        "true_state": state,
        "must_retrieve": must, "must_not_retrieve": must_not,
        "candidates": _candidates(dim, value, scenario_key, plan, families, rng, wording),
    }


def build_probes(events: list[JSON], plan: Plan, user: User, families: Families,
                 rng: np.random.Generator, wording: Wording = DEFAULT_WORDING) -> list[JSON]:
    """`families`: this split's response families (`SplitPlan.response_families`)."""
    probes = [
        _probe(events, i, (e["oracle"]["dimension"], e["oracle"]["scope"]), "changepoint",
               plan, user, families, rng, wording)
        for i, e in enumerate(events) if e["oracle"]["changepoint"]
    ]
    final_state = events[-1]["oracle"]["state_after"]
    keys: list[tuple[str, str]] = [plan.primary, *plan.extra_keys]
    keys += [(dim, GLOBAL_SCOPE) for dim in final_state["global"]]
    keys += [(dim, dom) for dom, dims in final_state["scoped"].items() for dim in dims]
    unique = list(dict.fromkeys(keys))[:_MAX_FINAL_PROBES]
    probes += [_probe(events, len(events) - 1, key, "final", plan, user, families, rng, wording)
               for key in unique]
    return probes
