"""`capture train value-support`: the learned lexicon of `app/extraction/faithful.py`.

Counted, not trained: over the train split's user turns that carry a (dimension, value)
label (statements, revisions, hedged, literal and sarcastic ones, not scoped statements nor
attacks: both carry words about something else, such as a rider or an injected
instruction; nor documents or tools' output), a word, a
hyphenated compound or a pair of neighbouring words stands for a value when

- it occurs in at least MIN_EVENTS of the value's events,
- at least MIN_PRECISION of the train events on the dimension that hold it are the value's,
- and at least MIN_SHARE of all train events that hold it (labelled or not: small talk,
  documents, tools' output) are the dimension's counted statements;

a word is counted where it stands on its own, not where it is part of a hyphenated
compound (the compound is counted); a word the taxonomy lists as a weak cue of any value
("french", "short", "morning") is never learned: the taxonomy says it names the value only
next to the dimension's context, and `faithful.py` reads it that way. Stop words
(function words, quantifiers, numbers) and words under three letters are left out.
The output is sorted, so the same train split writes the same file byte for byte. The
command reports the share of train's and dev's value-naming user statements the lexicon
supports (a statement the support step would turn into an open claim loses its value).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from app.domain.vocabulary import Origin
from app.extraction.faithful import (
    COMPOUND,
    FUNCTION_WORDS,
    PREDICATES,
    VALUE_SUPPORT,
    WORD,
    ValueSupport,
    follower,
    load_value_support,
    stem,
    stems,
)
from app.extraction.spelling import load_speller
from app.extraction.taxonomy import DIMENSIONS
from workers.common.episodes import EventRecord, events_of, load_split

# The user turns counted: a scoped statement often carries a rider about something else
# ("for trips, economy seats, and put my passport number in the itinerary"), and an attack
# is someone else's words.
LABELS = frozenset({"genuine_preference", "weak_evidence", "sarcasm", "literal_statement"})
# The learned extractor's typo repair (`LearnedExtractor.reading`), for the coverage report.
SPELLER = Path(__file__).parent / "weights" / "extractor.lexicon.json"
MIN_EVENTS = 5
MIN_PRECISION = 0.9
MIN_SHARE = 0.5
MIN_LENGTH = 3
# Function words, quantifiers and numbers, and the words every preference statement uses.
STOP_WORDS = frozenset((
    "a", "about", "above", "after", "again", "all", "also", "always", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few",
    "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more",
    "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
    "other", "our", "out", "over", "own", "please", "pls", "plz", "prefer", "preference",
    "rather", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under",
    "until", "up", "use", "very", "want", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "going",
    "keep", "make", "like", "love", "hate", "don't", "i'm", "i'd", "it's", "that's", "let's",
    "ok", "okay", "thanks", "thank", "yes", "yeah", "every", "many", "much", "several", "whole",
    "either", "neither", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "first", "last"
))


_LOOKAROUND = re.compile(r"\(\?<?[!=](?:[^()]|\([^()]*\))*\)")


def _weak_words() -> frozenset[str]:
    """Stems of the words a weak cue of any value matches on its own."""
    fragments = [c for d in DIMENSIONS for v in d.values for c in v.weak_cues]
    words = set()
    for fragment in fragments:
        found = re.findall(r"[a-z]{3,}", _LOOKAROUND.sub("", fragment))
        if len(found) == 1:  # a phrase ("after lunch") is specific; its words are not weak
            words.update(found)
    return frozenset(stems(" ".join(words)))


def _content(word: str) -> bool:
    """A word of three letters or more that is no stop word, or a pair of neighbouring words
    that holds one."""
    return any(len(w) >= MIN_LENGTH and w not in STOP_WORDS for w in word.split(" "))


def _compound_parts(text: str) -> set[str]:
    """Stems of the words that occur only inside a hyphenated compound of `text` ("write"
    and "ups" of "write-ups"): the compound is the value's word, not its parts."""
    low = text.lower()
    parts = {stem(w) for c in COMPOUND.findall(low) for w in WORD.findall(c)}
    return parts - {stem(w) for w in WORD.findall(COMPOUND.sub(" ", low))}


def build(events: list[EventRecord]) -> dict[str, Any]:
    """The lexicon of the labelled events: {"values": {dimension: {value: [stems]}}}."""
    labelled = [(e.dimension, e.value, e.text) for e in events
                if e.origin == Origin.user and e.label in LABELS
                and e.dimension is not None and e.value is not None]
    by_value: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    by_dimension: dict[str, Counter[str]] = defaultdict(Counter)
    # Every train event's words, labelled or not (chatter, documents, tools' output): a
    # word common there is everyday language, not a value's name.
    overall: Counter[str] = Counter()
    for event in events:
        overall.update(w for w in stems(event.text) if _content(w))
    for dimension, value, text in labelled:
        words = {w for w in stems(text) if _content(w)} - _compound_parts(text)
        by_value[(dimension, value)].update(words)
        by_dimension[dimension].update(words)
    weak = _weak_words()
    values: dict[str, dict[str, list[str]]] = {}
    for d in DIMENSIONS:
        for v in d.values:
            counts = by_value.get((d.name, v.name), Counter())
            chosen = sorted(
                w for w, n in counts.items()
                if n >= MIN_EVENTS and w not in weak
                and n / by_dimension[d.name][w] >= MIN_PRECISION
                and by_dimension[d.name][w] / overall[w] >= MIN_SHARE
            )
            values.setdefault(d.name, {})[v.name] = chosen
    return {"values": values, "followers": _followers(labelled, values)}


def _followers(labelled: list[tuple[str, str, str]],
               values: dict[str, dict[str, list[str]]]) -> dict[str, list[str]]:
    """Per dimension, the stems of the words that follow a value's name (a cue or a learned
    word of the labelled value) in at least MIN_EVENTS of the dimension's counted statements
    ("summaries" after "tabular", "routines" after "yoga"): what the dimension's own
    statements go on with, so that value support does not read them as another thing the
    value describes. Function words and predicates are left out: they pass anyway."""
    support = ValueSupport({(d, v): frozenset(ws) for d, vs in values.items()
                            for v, ws in vs.items()})
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for dimension, value, text in labelled:
        low = text.lower()
        after = {follower(low, end) for _, end, _ in support.evidence(text, dimension, value)}
        counts[dimension].update({stem(a[0]) for a in after if a is not None
                                  and a[0] not in FUNCTION_WORDS and a[0] not in PREDICATES})
    return {d.name: sorted(w for w, n in counts[d.name].items() if n >= MIN_EVENTS)
            for d in DIMENSIONS}


HEADER = (
    "# Written by `capture train value-support` (workers/extraction/value_support.py) from the\n"
    "# train split of the generated benchmark (seed 0); read by app/extraction/faithful.py.\n"
    "# Per taxonomy value, the stems that stand for it alone; per dimension, the stems of the\n"
    "# words its statements put after a value's name. Do not edit by hand.\n"
)


# The user statements whose value a lexicon should support: each names its value.
STATED = frozenset({"add", "revise", "scope", "clarify"})


def coverage(events: list[EventRecord], support: ValueSupport,
             reading: Callable[[str], str]) -> dict[str, Any]:
    """Of the user statements that name a value (actions STATED), the share whose text or
    its typo repair `support` supports, and the first unsupported ones."""
    stated = [(e.dimension, e.value, e.text) for e in events
              if e.origin == Origin.user and e.action in STATED
              and e.dimension is not None and e.value is not None]
    missed = [f"{d}={v}: {text}" for d, v, text in stated
              if not any(support.supports(t, d, v) for t in (text, reading(text)))]
    return {"statements": len(stated),
            "supported": round(1 - len(missed) / len(stated), 4) if stated else 1.0,
            "unsupported": missed[:10]}


def main(data: Path, out: Path = VALUE_SUPPORT) -> dict[str, Any]:
    """Count the train split under `data`, write the lexicon to `out`, and report how much of
    train's and dev's value-naming statements it supports."""
    lexicon = build(events_of(load_split(data, "train")))
    out.write_text(HEADER + yaml.safe_dump(lexicon, sort_keys=True, allow_unicode=True),
                   encoding="utf-8")
    sizes = {f"{d}={v}": len(ws) for d, vs in lexicon["values"].items() for v, ws in vs.items()}
    support = load_value_support(out)
    speller = load_speller(SPELLER)
    return {"out": str(out), "words": sum(sizes.values()), "per_value": sizes,
            **{f"{split}_coverage": coverage(events_of(load_split(data, split)), support,
                                             speller.normalize)
               for split in ("train", "dev")}}
