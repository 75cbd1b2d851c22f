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
from functools import cache
from pathlib import Path

from app.core.corpora import SHARED, corpus_texts, select, strings
from app.domain.vocabulary import Origin
from app.extraction.taxonomy import DIMENSIONS, compile_cues
from workers.common.episodes import EventRecord

# The frames and leads, by set (`data/revision_frames.yaml`).
REVISION_FRAMES_DATA = Path(__file__).parent / "data" / "revision_frames.yaml"
# Sets written without reading this project: measured by every retrain, never trained on or
# used to choose anything.
BLIND_FAMILIES: tuple[str, ...] = ("blind", "blind2", "blind3", "blind3_new_only")


def frames(family: str = "train") -> tuple[str, ...]:
    """The revision frames of a set: `plain` (the shipped extractor's training frames,
    `plain_frames("new")` then `plain_frames("old")`), `train` (those and three authored
    frames in four), `dev` (every fourth authored frame, held out), and the blind sets
    (`BLIND_FAMILIES`; `blind3_new_only` names only the new value)."""
    if family == "plain":
        return (*plain_frames("new"), *plain_frames("old"))
    own = corpus_texts(REVISION_FRAMES_DATA, family, table="frames")
    return (*frames("plain"), *own) if family == "train" else own


def plain_frames(first: str) -> tuple[str, ...]:
    """The plain frames with the wanted value first (`first` "new") or the replaced value
    first ("old")."""
    return corpus_texts(REVISION_FRAMES_DATA, "plain", table="frames", first=first)


@cache
def leads() -> tuple[str, ...]:
    """Openers drawn before a frame ("ok, ", "fyi "); the empty ones draw none."""
    return strings(select(REVISION_FRAMES_DATA, SHARED, table="leads"), allow_empty=True)


def connectives(family: str = "train") -> tuple[str, ...]:
    """Every connective's own words in a training family (`plain` or `train`), for the typo
    repair's lexicon (`train.build_speller`)."""
    return (*frames(family), *leads())


def revision_templates() -> tuple[str, ...]:
    """The widest training family's connectives: every connective any recipe trains on."""
    return connectives("train")


_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_TRAINING = frozenset({"plain", "train"})  # the families a recipe trains on


def draw_lead(frame: str, rng: random.Random) -> str:
    """A lead ("ok, ", "fyi ") only before a lower-case or value start ("ok, {new} over
    {old}"); no draw otherwise."""
    return rng.choice(leads()) if frame[0] == "{" or frame[0].islower() else ""


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
    train_events: list[EventRecord],
    count: int,
    seed: int,
    typo_rate: float = 0.35,
    family: str = "train",
) -> list[EventRecord]:
    """`count` synthetic user revisions "new over old" of one dimension each, labelled with
    the new value (prefer, global, permanent) and the value it replaces (`replaces`). The
    `plain` family alternates a wanted-first and a replaced-first frame."""
    rng = random.Random(seed)
    forms = surface_forms(train_events)
    dimensions = [d for d in DIMENSIONS if len(d.values) >= 2]
    pool = frames(family)
    halves = (plain_frames("new"), plain_frames("old")) if family == "plain" else None
    out: list[EventRecord] = []
    for i in range(count):
        dimension = rng.choice(dimensions)
        new, old = rng.sample(list(dimension.values), 2)
        template = rng.choice(halves[i % 2] if halves is not None else pool)
        text = draw_lead(template, rng) + template.format(
            new=rng.choice(forms[(dimension.name, new.name)]),
            old=rng.choice(forms[(dimension.name, old.name)]),
        )
        if rng.random() < typo_rate:
            text = add_typos(text, rng, rng.randint(1, 3))
        oracle = {
            "action": "update", "attack": False, "changepoint": True,
            "dimension": dimension.name, "value": new.name, "direction": "prefer",
            "scope": "global", "timescale": "permanent", "replaces": old.name,
            "template_family": "augmented_revision/"
                               + ("composed" if family in _TRAINING else family),
        }
        out.append(EventRecord(f"augmented-{family}-{i}", 0, _EPOCH, Origin.user, text,
                               "genuine_preference", oracle))
    return out
