"""Which side of a revision is wanted: split an event's text into the replaced (rejected) side
and the rest.

A pooled sentence embedding of "TypeScript instead of Rust" or "moving from Rust to
TypeScript" holds both values and blurs which one is wanted. The markers that say so are a
small, general part of English — a marker *before* a stretch rejects it ("instead of Y",
"rather than Y", "no more Y", "done with Y", "moving from Y to", "scratch Y"), a marker
*after* a stretch rejects what came before it ("Y didn't work", "Y -> X", "Y is out"). A
rejected stretch runs from its marker to the next clause break (punctuation, an arrow, "to"
closing a "from", or a contrast word such as "but" / "so" / "now"). Everything not rejected is
kept: the extractor embeds the kept text and the rejected text apart and learns that the
value it emits comes from the first (`model.py`).

Markers are matched on words, tolerating one typo (edit or swap) in marker words of five
letters or more ("isntead", "rahter", "relpacing"), since revisions are often typed fast.

Two marker sets: `MARKERS`, with which the service reads a text, and `CORE_MARKERS`, a subset
with which the shipped extractor's heads were trained (`train.ExtractorTrainConfig`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

# A word, an arrow, or a single punctuation mark that breaks a clause.
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|->|=>|→|[.,;:!?()\[\]\n]")
_BREAKS = frozenset({".", ",", ";", ":", "!", "?", "(", ")", "[", "]", "\n"})
_ARROWS = frozenset({"->", "=>", "→"})

# Phrases that never start a rejected stretch, matched first ("from now on" is no "from Y").
_CORE_KEEP = (
    "from now on", "from here on", "from here on out", "from this point on",
    "from today", "from then on", "not too", "not only", "not just", "not sure",
)
# A rejected stretch follows these.
_CORE_REJECT_NEXT = (
    "instead of", "rather than", "as opposed to", "in place of", "in lieu of",
    "replacing", "replace", "replaces", "no longer", "no more", "not anymore",
    "don't want", "do not want", "dont want", "don't like", "do not like",
    "stop", "stopped", "stopping", "quit", "quitting", "done with", "tired of",
    "sick of", "enough with", "enough of", "away from", "from", "ditch", "ditching",
    "drop", "dropping", "scratch", "than", "versus", "vs", "not", "used to",
    "over with", "moving on from", "moved on from", "swap out", "get rid of",
)
# These reject the stretch just before them ("Y didn't work for me, so X").
_CORE_REJECT_PREVIOUS = (
    "didn't work", "didnt work", "did not work", "doesn't work", "does not work",
    "isn't working", "is not working", "wasn't working", "was not working",
    "not working", "no longer works", "stopped working", "stopped being fun", "is out",
    "are out", "got old", "is over",
    "anymore", "any more", "was a mistake", "wasn't for me", "isn't for me",
    "not for me", "was too much", "is too much",
)
# The full set adds these, from the authored train frames' misreads (`augment.py`).
_MORE_KEEP = (
    "from here", "over here", "over there", "game over", "all over", "over and over",
    "don't forget", "dont forget", "do not forget", "never forget", "not forget",
)
_MORE_REJECT_NEXT = (
    "over", "so over", "discontinue", "forget", "forget about", "fed up with", "swap",
    "trade", "thought i liked", "thought i loved", "thought i wanted", "bye", "goodbye to",
    "lose the", "nope to", "no thanks to",
)
_MORE_REJECT_PREVIOUS = (
    "no longer suits me", "doesn't suit me", "does not suit me", "is no longer needed",
    "isn't what i want", "is not what i want", "was meh", "is meh", "can go",
    "isn't doing it for me", "is not doing it for me", "slows me down",
    "caused too many headaches", "nope",
)
# Words that end a rejected stretch: the wanted side begins after them.
_WANTED_NEXT = frozenset(
    {"to", "into", "but", "so", "now", "instead", "then", "please", "use", "try", "prefer",
     "want", "rather"}
)
# `from Y` ends at "to"/"into" alone: "moving from Rust to Go"; in the full set `replace Y`
# and `swap Y` at "with"/"for" too: "replace Rust with Go", "swap Rust for Go".
_FROM_ENDS = frozenset({"to", "into"})
_EXCHANGE_ENDS = frozenset({"with", "for", "to", "into"})
# "X over Y" rejects Y, but "over the weekend", "over email", "over it" reject nothing.
_OVER_NOT_BEFORE = frozenset(
    {"the", "a", "an", "my", "your", "our", "this", "that", "these", "those", "it", "them",
     "email", "phone", "chat", "text", "and", "to", "again", "coffee", "dinner", "lunch",
     "breakfast", "drinks"}
)
_FUZZY_MIN = 5

Phrases = tuple[tuple[str, ...], ...]


def _phrases(*texts: str) -> Phrases:
    return tuple(tuple(p.split()) for p in texts)


@dataclass(frozen=True, eq=False)
class Markers:
    """One set of rejected-side markers. Compared and hashed by identity: a set is a module
    constant, and the typo lookup (`_canonical`) is cached per set."""

    keep: Phrases  # never start a rejected stretch
    reject_next: Phrases  # a rejected stretch follows
    reject_previous: Phrases  # the stretch before is rejected
    exchange: frozenset[str]  # markers whose stretch ends at "with" / "for" / "to" / "into"
    not_typos: frozenset[str]  # words one edit from a marker that are words of their own
    words: frozenset[str] = field(init=False)  # the marker words typos are matched against

    def __post_init__(self) -> None:
        words = {w for phrases in (self.reject_next, self.reject_previous)
                 for p in phrases for w in p}
        object.__setattr__(self, "words", frozenset(words))

    @property
    def phrases(self) -> tuple[Phrases, Phrases, Phrases]:
        """Every marker list, for the cache key of what was trained on these sides
        (`crossfit._key`)."""
        return (self.keep, self.reject_next, self.reject_previous)


# The markers the shipped extractor's heads were trained with (`train.py`, the default
# recipe).
CORE_MARKERS = Markers(
    keep=_phrases(*_CORE_KEEP),
    reject_next=_phrases(*_CORE_REJECT_NEXT),
    reject_previous=_phrases(*_CORE_REJECT_PREVIOUS),
    exchange=frozenset(),
    not_typos=frozenset(),
)
# The full set: what the service reads a text with, and what the authored-frames recipe
# trains with.
MARKERS = Markers(
    keep=_phrases(*_CORE_KEEP, *_MORE_KEEP),
    reject_next=_phrases(*_CORE_REJECT_NEXT, *_MORE_REJECT_NEXT),
    reject_previous=_phrases(*_CORE_REJECT_PREVIOUS, *_MORE_REJECT_PREVIOUS),
    exchange=frozenset({"replace", "swap", "trade", "swap out"}),
    not_typos=frozenset({"forgot", "forgets"}),  # "i forgot about the review"
)


def _within_one_edit(a: str, b: str) -> bool:
    """Damerau–Levenshtein distance ≤ 1 (one insertion, deletion, substitution or swap)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    i = 0
    while i < min(la, lb) and a[i] == b[i]:
        i += 1
    if la == lb:
        if a[i + 1 :] == b[i + 1 :]:
            return True
        return i + 1 < la and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    if la > lb:
        return a[i + 1 :] == b[i:]
    return a[i:] == b[i + 1 :]


@lru_cache(maxsize=8192)
def _canonical(word: str, markers: Markers) -> str:
    """The marker word `word` is a typo of, else `word` itself."""
    if word in markers.words or word in markers.not_typos or len(word) < _FUZZY_MIN:
        return word
    for marker in sorted(markers.words):
        if len(marker) >= _FUZZY_MIN and _within_one_edit(word, marker):
            return marker
    return word


@dataclass(frozen=True, slots=True)
class Sides:
    """The text split by role: `kept` (wanted or neutral) and `rejected` ("" when none)."""

    kept: str
    rejected: str

    @property
    def has_rejected(self) -> bool:
        return bool(self.rejected)


def _match(words: list[str], i: int, phrases: Phrases) -> int:
    """Length of the longest phrase matching at words[i], or 0."""
    best = 0
    for phrase in phrases:
        n = len(phrase)
        if n > best and tuple(words[i : i + n]) == phrase:
            best = n
    return best


def roles(text: str, markers: Markers = MARKERS) -> list[tuple[str, int]]:
    """Tokens of `text` (lower-cased) with a role each: −1 rejected, 0 kept, 2 marker."""
    tokens = _TOKEN.findall(text.lower())
    words = [_canonical(t, markers) for t in tokens]
    role = [0] * len(words)
    i = 0
    while i < len(words):
        keep = _match(words, i, markers.keep)
        if keep:
            i += keep
            continue
        n = _match(words, i, markers.reject_next)
        if n == 1 and words[i] == "over" and (
            i + 1 >= len(words) or words[i + 1] in _OVER_NOT_BEFORE or words[i + 1] in _BREAKS
        ):
            n = 0
        if n and n > _match(words, i, markers.reject_previous):
            for k in range(i, i + n):
                role[k] = 2
            marker = " ".join(words[i : i + n])
            ends = (_FROM_ENDS if words[i + n - 1] == "from"
                    else _EXCHANGE_ENDS if marker in markers.exchange else None)
            j = i + n
            while j < len(words):
                w = words[j]
                if w in _BREAKS or w in _ARROWS or _match(words, j, markers.keep):
                    break
                if (w in ends) if ends is not None else (w in _WANTED_NEXT and j > i + n):
                    break
                role[j] = -1
                j += 1
            i = j
            continue
        n = _match(words, i, markers.reject_previous)
        if n or words[i] in _ARROWS:
            n = max(n, 1)
            for k in range(i, i + n):
                role[k] = 2
            j = i - 1
            while j >= 0 and role[j] == 0 and words[j] not in _BREAKS and words[j] not in _ARROWS:
                role[j] = -1
                j -= 1
            i += n
            continue
        i += 1
    return list(zip(tokens, role, strict=True))


def split_sides(text: str, markers: Markers = MARKERS) -> Sides:
    """`text` as its kept side and its rejected side (both lower-cased word sequences; the
    kept side is the whole text, as written, when nothing is rejected), by `markers`."""
    tagged = roles(text, markers)
    if not any(r == -1 for _, r in tagged):
        return Sides(kept=text, rejected="")
    kept = " ".join(t for t, r in tagged if r in (0, 2) and t != "\n")
    rejected = " ".join(t for t, r in tagged if r == -1 and t not in _BREAKS)
    return Sides(kept=kept, rejected=rejected)
