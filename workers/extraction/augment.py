"""Training-time augmentation: two-value revisions composed from the train split.

The train split has about a thousand genuine revisions, in a few template families; a model
fit on them can learn those templates instead of which side of a revision is wanted. So we
compose more: two values of one dimension, each written as a surface form seen in a *train*
event (or the taxonomy's own phrase), joined by a general connective in either order (wanted
first: "X rather than Y"; replaced first: "Y didn't work for me, so X"), sometimes with typos.
The label is always the new value. Nothing here reads dev or test.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime

from app.extraction.schemas import Origin
from app.extraction.taxonomy import DIMENSIONS, compile_cues
from workers.common.episodes import EventRecord

# {new} is wanted, {old} the value it replaces. Written for this module, in both orders.
WANTED_FIRST: tuple[str, ...] = (
    "{new} instead of {old}",
    "{new} rather than {old}",
    "{new}, not {old}",
    "{new} now, no more {old}",
    "{new} from now on, done with {old}",
    "please use {new} in place of {old}",
    "{new} please. {old} didn't work for me",
    "i'd go with {new}; {old} is out",
    "{new} going forward, as opposed to {old}",
    "let's do {new} - stop the {old}",
)
REPLACED_FIRST: tuple[str, ...] = (
    "instead of {old}, {new}",
    "{old} didn't work for me, so {new} now",
    "moving from {old} to {new}",
    "no more {old}. {new} please",
    "i'm done with {old}, {new} from here on",
    "{old} -> {new}",
    "scratch {old}, {new} instead",
    "i used to want {old} but now {new}",
    "{old} got old. {new} from now on",
    "rather than {old}, let's do {new}",
    "change it from {old} to {new}",
    "{old} isn't working anymore; {new} then",
    "quit the {old}, i want {new}",
)
LEADS: tuple[str, ...] = ("", "", "", "actually, ", "ok, ", "quick change: ", "fyi ", "hey - ")
# Every connective's own words, for the typo repair's lexicon (`train.build_speller`).
REVISION_TEMPLATES: tuple[str, ...] = (*WANTED_FIRST, *REPLACED_FIRST, *LEADS)
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def surface_forms(
    events: list[EventRecord], per_value: int = 24
) -> dict[tuple[str, str], list[str]]:
    """(dimension, value) → phrases that name it: the taxonomy's phrase and the cue spans
    found in train preference events labelled with that value."""
    patterns = {
        (d.name, v.name): compile_cues(v.cues) for d in DIMENSIONS for v in d.values
    }
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for d in DIMENSIONS:
        for v in d.values:
            found[(d.name, v.name)].add(v.phrase.lower())
    for event in events:
        if event.dimension is None or event.value is None or event.direction != "prefer":
            continue
        key = (event.dimension, event.value)
        pattern = patterns.get(key)
        if pattern is None:
            continue
        found[key].update(match.group(0) for match in pattern.finditer(event.text.lower()))
    return {k: sorted(v)[:per_value] for k, v in found.items()}


def add_typos(text: str, rng: random.Random, count: int) -> str:
    """`count` typos: a swapped, dropped or doubled letter in words of four letters or more."""
    words = text.split(" ")
    for _ in range(count):
        candidates = [i for i, w in enumerate(words) if len(w) >= 4 and w.isalpha()]
        if not candidates:
            break
        i = rng.choice(candidates)
        w = words[i]
        j = rng.randrange(1, len(w) - 1)
        kind = rng.randrange(3)
        if kind == 0:
            w = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
        elif kind == 1:
            w = w[:j] + w[j + 1 :]
        else:
            w = w[:j] + w[j] + w[j:]
        words[i] = w
    return " ".join(words)


def compose_revisions(
    train_events: list[EventRecord], count: int, seed: int, typo_rate: float = 0.35
) -> list[EventRecord]:
    """`count` synthetic user revisions "new over old" of one dimension each, labelled with
    the new value (prefer, global, permanent)."""
    rng = random.Random(seed)
    forms = surface_forms(train_events)
    dimensions = [d for d in DIMENSIONS if len(d.values) >= 2]
    out: list[EventRecord] = []
    for i in range(count):
        dimension = rng.choice(dimensions)
        new, old = rng.sample(list(dimension.values), 2)
        template = rng.choice(WANTED_FIRST if i % 2 == 0 else REPLACED_FIRST)
        text = rng.choice(LEADS) + template.format(
            new=rng.choice(forms[(dimension.name, new.name)]),
            old=rng.choice(forms[(dimension.name, old.name)]),
        )
        if rng.random() < typo_rate:
            text = add_typos(text, rng, rng.randint(1, 3))
        oracle = {
            "action": "update", "attack": False, "changepoint": True,
            "dimension": dimension.name, "value": new.name, "direction": "prefer",
            "scope": "global", "timescale": "permanent",
            "template_family": "augmented_revision/composed",
        }
        out.append(EventRecord(f"augmented-{i}", 0, _EPOCH, Origin.user, text,
                               "genuine_preference", oracle))
    return out
