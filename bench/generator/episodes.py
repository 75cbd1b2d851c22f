"""One episode: place the planned preference events among benign ones, give every event a
time, a session and text, and record the oracle fields."""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial

import numpy as np

from bench.generator.probes import build_probes
from bench.generator.profiles import User
from bench.generator.render import Rendered, Renderer
from bench.generator.schema import (
    CHANGEPOINT_MAX_INDEX,
    CHANGEPOINT_MIN_INDEX,
    GLOBAL_SCOPE,
    JSON,
    MAX_EVENTS,
    MIN_EVENTS,
    SOURCE,
    TRACKS,
    Spec,
)
from bench.generator.splits import SplitPlan
from bench.generator.timing import iso, timeline
from bench.generator.tracks import Plan, plan_episode
from bench.generator.wording import DEFAULT_WORDING, Wording

# Share of preference-bearing events aimed for per episode (the paper: ~3 in 10).
_PREF_SHARE_RANGE = (0.24, 0.36)


def layout(specs: list[Spec], rng: np.random.Generator) -> tuple[int, list[int]]:
    """Episode length and the index of each spec; the 'cp' spec lands on index 4..11."""
    count = len(specs)
    share = float(rng.uniform(*_PREF_SHARE_RANGE))
    length = int(min(MAX_EVENTS, max(MIN_EVENTS, round(count / share), count + 6)))
    anchor = next((i for i, s in enumerate(specs) if s.phase == "cp"), None)
    if anchor is None:
        first = int(rng.integers(0, 3))
        rest = rng.choice(np.arange(first + 1, length), size=count - 1, replace=False)
        return length, [first, *sorted(int(i) for i in rest)]
    after = count - anchor - 1
    low = max(CHANGEPOINT_MIN_INDEX, anchor)
    high = min(CHANGEPOINT_MAX_INDEX, length - 1 - after)
    if low > high:
        raise ValueError(f"no room for a changepoint: {count} planned events in {length}")
    cp = int(rng.integers(low, high + 1))
    positions: list[int] = []
    if anchor:
        first = int(rng.integers(0, min(3, cp - anchor + 1)))
        rest = rng.choice(np.arange(first + 1, cp), size=anchor - 1, replace=False)
        positions = [first, *sorted(int(i) for i in rest)]
    positions.append(cp)
    tail = rng.choice(np.arange(cp + 1, length), size=after, replace=False)
    return length, positions + sorted(int(i) for i in tail)


def _empty_state() -> JSON:
    return {"global": {}, "scoped": {}}


def _apply(state: JSON, spec: Spec) -> None:
    if not spec.writes_state:
        return
    if spec.scope == GLOBAL_SCOPE:
        state["global"][spec.dimension] = spec.value
    else:
        state["scoped"].setdefault(spec.scope, {})[spec.dimension] = spec.value


def _snapshot(state: JSON) -> JSON:
    return {
        "global": dict(sorted(state["global"].items())),
        "scoped": {dom: dict(sorted(v.items())) for dom, v in sorted(state["scoped"].items())},
    }


def _oracle(spec: Spec | None, rendered: Rendered, state: JSON, session_id: str) -> JSON:
    if spec is None:
        oracle: JSON = {"action": "retain", "attack": False, "changepoint": False}
    else:
        oracle = {
            "action": spec.action, "attack": spec.label == "attack",
            "changepoint": spec.changepoint, "dimension": spec.dimension, "value": spec.value,
            "direction": spec.direction, "scope": spec.scope, "timescale": spec.timescale,
        }
        if spec.attack_family:
            oracle["attack_family"] = spec.attack_family
            oracle["attack_realization"] = rendered.realization
            oracle["slow_attack"] = spec.slow
            if rendered.passage is not None:
                oracle["passage"] = rendered.passage
        if spec.drift_shape:
            oracle["drift_shape"] = spec.drift_shape
        if spec.scenario is not None:
            oracle["safety_conflict"] = True
    oracle["state_after"] = _snapshot(state)
    oracle["session_id"] = session_id
    oracle["template_family"] = rendered.families[0]
    if rendered.topic is not None and spec is None:
        oracle["topic"] = rendered.topic
    return oracle


def _render_unique(make: Callable[[], Rendered], seen: set[str]) -> Rendered:
    """Texts must be unique in an episode: probes name events by their text."""
    rendered = make()
    for _ in range(40):
        if rendered.text not in seen:
            break
        rendered = make()
    if rendered.text in seen:
        suffix = 2
        while f"{rendered.text} ({suffix})" in seen:
            suffix += 1
        rendered.text = f"{rendered.text} ({suffix})"
    seen.add(rendered.text)
    return rendered


def build_episode(user: User, track: str, split: str, plan: SplitPlan, seed: int,
                  variant: int, wording: Wording = DEFAULT_WORDING) -> JSON:
    rng = np.random.default_rng([seed, 101, user.index, TRACKS.index(track)])
    episode_plan: Plan = plan_episode(track, user, rng, variant)
    specs = episode_plan.specs
    length, positions = layout(specs, rng)
    by_position = dict(zip(positions, specs, strict=True))
    times, sessions = timeline(rng, length)
    topics = [str(t) for t in rng.choice(plan.topics[split], size=4, replace=False)]
    renderer = Renderer(rng, split, plan, topics, wording=wording)
    episode_id = f"dpg-{track.lower()}-{user.user_id.removeprefix('dpg-')}"

    state = _empty_state()
    seen: set[str] = set()
    families: set[str] = set()
    events: list[JSON] = []
    for i in range(length):
        spec = by_position.get(i)
        if spec is None:
            rendered = _render_unique(renderer.noise, seen)
            origin, label, action, notes = rendered.origin, "benign_noise", "retain", rendered.notes
        else:
            rendered = _render_unique(partial(renderer.preference, spec), seen)
            origin, label, action, notes = spec.origin, spec.label, spec.action, spec.notes
            _apply(state, spec)
        families.update(rendered.families)
        session_id = f"{episode_id}-s{sessions[i]:02d}"
        event: JSON = {"t": iso(times[i]), "origin": origin, "text": rendered.text,
                       "label": label, "expected_action": action}
        if notes:
            event["notes"] = notes
        event["oracle"] = _oracle(spec, rendered, state, session_id)
        events.append(event)

    response_families = {key: by_split[split] for key, by_split in plan.response_families.items()}
    probes = build_probes(events, episode_plan, user, response_families, rng, wording)
    finals = [p for p in probes if p["kind"] == "final"]
    episode: JSON = {
        "episode_id": episode_id, "source": SOURCE, "user_id": user.user_id,
        "track": track, "split": split, "events": events,
        "probe": _short_probe(finals[0]),
    }
    if len(finals) > 1:
        episode["extra_probes"] = [_short_probe(p) for p in finals[1:]]
    episode["probes"] = probes
    episode["template_families"] = sorted(families)
    episode["profile"] = copy.deepcopy(user.to_json())
    meta: JSON = {"topics": sorted(topics), "seed": seed}
    if episode_plan.drift_shape:
        meta["drift_shape"] = episode_plan.drift_shape
    if episode_plan.attack_family:
        meta["attack_family"] = episode_plan.attack_family
    if episode_plan.scenario is not None:
        meta["safety_scenario"] = episode_plan.scenario
    episode["meta"] = meta
    return episode


def _short_probe(probe: JSON) -> JSON:
    """The README's probe shape: answered by one retrieval after every event is written."""
    return {"query": probe["query"], "must_retrieve": probe["must_retrieve"],
            "must_not_retrieve": probe["must_not_retrieve"]}
