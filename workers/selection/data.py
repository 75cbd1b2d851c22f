"""Probe candidate pools as utility-model examples.

Each probe whose expected value is held in oracle memory gives one pool: the prompt (the
probe query), the oracle memories (every value of `true_state`, as the extractor would
write the claims), the candidates, and a label per candidate: 1 when it follows the true
value of the probed dimension, 0 otherwise. With `unheld=True` a probe whose dimension the
user holds no value for (in its scope) gives a pool too, where the generic candidate is
the right one: nothing in memory supports personalizing, and following a value the user
never stated is unsupported personalization (the judge's order, bench/common/judge.py). Unsafe
candidates are left out: r_p is a preference model and never learns from the safety texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from app.domain.claims import GLOBAL_SCOPE
from app.selection.memory import Memory

DEFAULT_SEED = 0


@dataclass(frozen=True, slots=True)
class PoolExample:
    episode_id: str
    track: str
    prompt: str
    dimension: str
    scope: str
    value: str | None  # None: the user holds no value here (the generic candidate is right)
    memories: tuple[Memory, ...]
    candidates: tuple[str, ...]
    follows: tuple[str | None, ...]  # the value of `dimension` each candidate follows
    labels: tuple[int, ...]  # 1: follows the true value


def oracle_memories(true_state: Mapping[str, Any]) -> list[Memory]:
    """One memory per value an oracle ledger holds (ids `scope:dimension`)."""
    memories = [
        Memory(node_id=f"{GLOBAL_SCOPE}:{dim}", subject=dim, value=value)
        for dim, value in sorted(true_state.get("global", {}).items())
    ]
    for scope, values in sorted(true_state.get("scoped", {}).items()):
        memories += [
            Memory(node_id=f"{scope}:{dim}", subject=dim, value=value, scope=scope)
            for dim, value in sorted(values.items())
        ]
    return memories


def pool_examples(episodes: Iterable[Mapping[str, Any]], *, include_unsafe: bool = False,
                  unheld: bool = False) -> list[PoolExample]:
    out: list[PoolExample] = []
    for ep in episodes:
        for probe in ep["probes"]:
            held = probe["expected"]["in_memory"]
            if not (held or unheld):
                continue
            dim = probe["dimension"]
            # An unheld probe's expected value is the user's latent one, which no memory
            # holds yet: the right response is the generic one (follows None).
            value = probe["expected"]["value"] if held else None
            pool = [c for c in probe["candidates"] if include_unsafe or not c["unsafe"]]
            follows = tuple((c["follows"] or {}).get(dim) for c in pool)
            out.append(PoolExample(
                episode_id=ep["episode_id"], track=ep["track"], prompt=probe["query"],
                dimension=dim, scope=probe["scope"], value=value,
                memories=tuple(oracle_memories(probe["true_state"])),
                candidates=tuple(c["text"] for c in pool), follows=follows,
                labels=tuple(int(f == value) for f in follows),
            ))
    return out


@lru_cache(maxsize=2)
def generated_splits(seed: int = DEFAULT_SEED,
                     episodes_per_track: int = 480) -> dict[str, list[dict[str, Any]]]:
    """The benchmark generated in memory (seeded, ~5 s), so training always reads the
    generator's current candidate families rather than a stale copy on disk."""
    from bench.generator.builder import build

    episodes, _ = build(seed, episodes_per_track)
    return episodes
