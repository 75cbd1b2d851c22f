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

from app.domain.vocabulary import Origin
from app.extraction.taxonomy import DIMENSIONS, compile_cues
from workers.common.episodes import EventRecord
from workers.extraction.blind2_frames import BLIND2_FRAMES
from workers.extraction.blind3_frames import BLIND3_FRAMES, NEW_ONLY_BLIND_FRAMES
from workers.extraction.blind_frames import BLIND_FRAMES

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
# Written in registers and shapes the lists above lack: formal,
# casual, terse, a story with a reason, the old value first and last, and connectives the
# rejected-side markers (`segments.py`) do not know ("X over Y", "prefer X to Y", "swap Y for
# X", "Y, meh"), where only the words around each value say which is wanted. Every fourth is
# held out (`frames("dev")`): those only measure how a revision in unseen wording is read.
AUTHORED_FRAMES: tuple[str, ...] = (
    # formal
    "Please be advised that I would now like {new}, not {old}.",
    "Kindly update my preference to {new}; {old} no longer suits me.",
    "For future reference, {new} is preferred over {old}.",
    "Could you please switch from {old} to {new}?",
    "Going forward I would prefer {new} to {old}.",
    "I have reconsidered, and {new} suits me better than {old}.",
    "Please discontinue {old} and use {new} instead.",
    "My preference has changed from {old} to {new}.",
    "With immediate effect: {new} rather than {old}.",
    "Allow me to amend my earlier request. {new}, not {old}.",
    "I would like to revise this to {new}. {old} is no longer needed.",
    "On reflection, {old} is not what I want; {new} is.",
    # casual
    "ugh {old} is so boring now, gimme {new}",
    "nah {old} ain't it anymore. {new} pls",
    "lol forget {old}, {new} all the way",
    "ok new plan: {new}. {old} was meh",
    "honestly {new} > {old}",
    "can we do {new}? kinda over {old}",
    "yeah no, {old} isn't doing it for me. {new}?",
    "i'm so over {old}. {new} from here",
    "{old}? nope. {new}.",
    "not feeling {old} lately, let's try {new}",
    "kinda fed up with {old} tbh, {new} instead",
    "{new} for sure, {old} can go",
    # terse
    "{new} over {old}.",
    "Swap {old} for {new}.",
    "Change: {new} (was {old}).",
    "{new}, no {old}.",
    "Update: {new}. Not {old}.",
    "Prefer {new} to {old}.",
    "Less {old}, more {new}.",
    "Replace {old} with {new}.",
    "Set {new}; drop {old}.",
    "{old} out, {new} in.",
    "New default {new}, old one {old}.",
    "Was {old}. Now {new}.",
    # a story with a reason
    "I tried {old} for a few weeks and it just wasn't for me, so let's go with {new} from now on.",
    "A friend showed me {new} last weekend and I loved it, way better than {old}.",
    "After the last project I realised {old} slows me down; {new} works much better for me.",
    "Back when I started I liked {old}, but these days I'd really rather have {new}.",
    "We had a long talk at work and I'm switching to {new}. {old} caused too many headaches.",
    "I gave {old} a fair shot, honestly, but {new} is what I actually want.",
    "Funny thing: I thought I loved {old}, then I tried {new} and never looked back.",
    "Since moving teams I've come around to {new}; {old} doesn't fit anymore.",
    "It took me a while to figure out that {new} suits me more than {old}.",
    "Last month {old} was fine, but things changed, so {new} please.",
    "My doctor and I talked it through, and {new} makes more sense for me now than {old}.",
    "I kept putting up with {old}, but after this week I'm done. {new} going forward.",
    # plain
    "I want {new} now, not {old}.",
    "I prefer {new} over {old} now.",
    "Please stop using {old}. I want {new}.",
    "I've changed my mind about {old}. I want {new}.",
    "Let's switch to {new}. I don't want {old} anymore.",
    "I no longer want {old}. Give me {new}.",
    "{old} was my choice before, but now it's {new}.",
    "I used to prefer {old}; now I prefer {new}.",
    "My new preference is {new}, replacing {old}.",
    "From now on give me {new} rather than {old}.",
    "I think {new} is better for me than {old}.",
    "Use {new}. {old} is not what I want.",
    "{new} works better for me these days than {old} did.",
    "I'd pick {new} over {old} every time now.",
)


# Frame families written without reading this project: measured by every retrain, never
# trained on or used to choose anything (`frames`).
_BLIND: dict[str, tuple[str, ...]] = {
    "blind": BLIND_FRAMES, "blind2": BLIND2_FRAMES, "blind3": BLIND3_FRAMES,
    "blind3_new_only": NEW_ONLY_BLIND_FRAMES,
}
BLIND_FAMILIES: tuple[str, ...] = tuple(_BLIND)


def frames(family: str = "train") -> tuple[str, ...]:
    """The revision frames of a family: `plain` (the first two lists, the shipped extractor's
    training frames), `train` (those and three authored frames in four), `dev` (every fourth
    authored frame, held out), `blind` (written without reading this project,
    `blind_frames.py`; measure only), `blind2` (the same, `blind2_frames.py`; measure only),
    `blind3` and `blind3_new_only` (the same, `blind3_frames.py`; the second names only the
    new value)."""
    if family in _BLIND:
        return _BLIND[family]
    if family == "dev":
        return AUTHORED_FRAMES[3::4]
    if family == "plain":
        return (*WANTED_FIRST, *REPLACED_FIRST)
    authored = tuple(f for i, f in enumerate(AUTHORED_FRAMES) if i % 4 != 3)
    return (*frames("plain"), *authored)


LEADS: tuple[str, ...] = ("", "", "", "actually, ", "ok, ", "quick change: ", "fyi ", "hey - ")


def connectives(family: str = "train") -> tuple[str, ...]:
    """Every connective's own words in a training family (`plain` or `train`), for the typo
    repair's lexicon (`train.build_speller`)."""
    return (*frames(family), *LEADS)


# The widest training family's: every connective any recipe trains on.
REVISION_TEMPLATES: tuple[str, ...] = connectives("train")
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_TRAINING = frozenset({"plain", "train"})  # the families a recipe trains on


def draw_lead(frame: str, rng: random.Random) -> str:
    """A lead ("ok, ", "fyi ") only before a lower-case or value start ("ok, {new} over
    {old}"); no draw otherwise."""
    return rng.choice(LEADS) if frame[0] == "{" or frame[0].islower() else ""


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
    out: list[EventRecord] = []
    for i in range(count):
        dimension = rng.choice(dimensions)
        new, old = rng.sample(list(dimension.values), 2)
        template = rng.choice(
            (WANTED_FIRST if i % 2 == 0 else REPLACED_FIRST) if family == "plain" else pool
        )
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
