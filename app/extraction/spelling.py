"""Typo repair before the learned extractor reads an event.

People type fast: "Updqte: tabls from here on.", "swithc to lots of cmoments". A sentence
encoder splits an unknown word into word pieces that carry none of its meaning, and the rule
reader's cues miss it, so a misspelled preference reads as chatter or as another value. This
module puts the nearest *lexicon* word in place of each unknown word — the classic noisy-
channel repair (Damerau–Levenshtein distance, most frequent word first), with the lookup of a
symmetric-delete index so a text costs well under a millisecond.

What counts as a word that needs no repair: the encoder's own whole-word vocabulary (the
tokenizer's `vocab.txt`, about 22k English words), a vocabulary word with a regular suffix
("renewing", "pescatarians"), or a lexicon word. The lexicon (`Lexicon`, a shipped JSON file
written by `capture train extractor`) holds the words a repair may produce: known words of
the benchmark's *train* split and the taxonomy's own words, with their train counts. A word
that is in neither is left alone unless a lexicon word lies within one edit (two for words of
seven letters or more), so names and rare words ("kombucha") pass through unchanged. Short
words (up to four letters) are repaired only by a swap of neighbours or a dropped letter
("teh", "heer", "setp"), never by a substitution: "hist", "cmd" and "prev" are abbreviations,
not typos.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from app.core.embeddings import TOKENIZER

WORD = re.compile(r"[A-Za-z]+")
MIN_LENGTH = 3  # shorter words are never repaired
MAX_LENGTH = 24  # nor longer ones: no lexicon word is near, and their deletes are costly
SHORT_WORD = 4  # up to this length: only a swap of neighbours or a dropped letter
TWO_EDITS_FROM = 7  # words this long may be two edits away from their repair
# Regular English suffixes: a vocabulary word with one of them is a word, not a typo.
SUFFIXES = (
    "s", "es", "ed", "d", "ing", "er", "ers", "ly", "ness", "ment", "ments", "al", "ally",
    "ful", "less", "able", "ity", "ies", "ied", "ation", "ations", "ist", "ists", "ism",
)


def _deletes(word: str, edits: int) -> set[str]:
    """The word and every string `edits` or fewer deletions away from it."""
    out = {word}
    frontier = {word}
    for _ in range(edits):
        frontier = {s[:i] + s[i + 1 :] for s in frontier for i in range(len(s))}
        out |= frontier
    return out


def edit_distance(a: str, b: str) -> int:
    """Damerau–Levenshtein distance (optimal string alignment): insert, delete, substitute,
    swap two neighbours."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def _short_repair(typo: str, word: str) -> bool:
    """A short word's repair restores one dropped letter or swaps two neighbours back."""
    if len(word) == len(typo) + 1:
        return True
    if len(word) != len(typo):
        return False
    diff = [i for i, (x, y) in enumerate(zip(typo, word, strict=True)) if x != y]
    return (len(diff) == 2 and diff[1] == diff[0] + 1
            and typo[diff[0]] == word[diff[1]] and typo[diff[1]] == word[diff[0]])


def _cased_like(original: str, word: str) -> str:
    if len(original) > 1 and original.isupper():
        return word.upper()
    if original[0].isupper():
        return word[0].upper() + word[1:]
    return word


@dataclass(slots=True)
class Speller:
    """Repairs unknown words to the nearest lexicon word (see the module docstring)."""

    counts: Mapping[str, int]  # the lexicon: word → train count
    vocabulary: frozenset[str]  # words known without repair (the encoder's whole words)
    _index: dict[str, set[str]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._index = defaultdict(set)
        for word in self.counts:
            for deleted in _deletes(word, 2):
                self._index[deleted].add(word)

    def known(self, word: str) -> bool:
        if word in self.counts or word in self.vocabulary:
            return True
        for suffix in SUFFIXES:
            root = word[: -len(suffix)]
            if not word.endswith(suffix) or len(root) < 3:
                continue
            if root in self.vocabulary:
                return True
            if suffix[0] in "aeiou" and root + "e" in self.vocabulary:
                return True  # a dropped e: "making", "notable"
            if len(root) > 3 and root[-1] == root[-2] and root[:-1] in self.vocabulary:
                return True  # a doubled consonant: "planning"
            if suffix in ("ies", "ied") and root + "y" in self.vocabulary:
                return True
        return False

    def repair(self, word: str) -> str:
        lower = word.lower()
        if not MIN_LENGTH <= len(lower) <= MAX_LENGTH or self.known(lower):
            return word
        edits = 2 if len(lower) >= TWO_EDITS_FROM else 1
        candidates = {c for d in _deletes(lower, edits) for c in self._index.get(d, ())}
        ranked = sorted(
            (distance, -self.counts[c], c)
            for c in candidates
            if (distance := edit_distance(lower, c)) <= edits
            and (len(lower) > SHORT_WORD or _short_repair(lower, c))
        )
        return _cased_like(word, ranked[0][2]) if ranked else word

    def normalize(self, text: str) -> str:
        """The text with each unknown word repaired; everything else byte for byte."""
        return WORD.sub(lambda match: self.repair(match.group(0)), text)


def lexicon_counts(
    texts: Iterable[str], extra_words: Iterable[str], vocabulary: frozenset[str],
    min_count: int = 3,
) -> dict[str, int]:
    """The lexicon built from training texts: their words seen at least `min_count` times
    that are words (a vocabulary word, or one with a regular suffix) — the benchmark's own
    typos are frequent too, and must not become repairs — plus `extra_words` (the taxonomy's
    words), with their counts in `texts`."""
    counts: dict[str, int] = defaultdict(int)
    for text in texts:
        for word in WORD.findall(text):
            counts[word.lower()] += 1
    probe = Speller({}, vocabulary)
    lexicon = {w: c for w, c in counts.items()
               if c >= min_count and len(w) >= 2 and probe.known(w)}
    for word in extra_words:
        lexicon[word.lower()] = max(counts.get(word.lower(), 0), 1)
    return dict(sorted(lexicon.items()))


def encoder_vocabulary() -> frozenset[str]:
    """The sentence encoder's whole-word vocabulary (lower-case alphabetic word pieces)."""
    return _read_vocabulary(TOKENIZER)


@lru_cache(maxsize=2)
def _read_vocabulary(path: Path) -> frozenset[str]:
    words: dict[str, int] = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(w for w in words if w.isalpha() and w.islower())


def save_lexicon(path: Path, counts: Mapping[str, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "counts": dict(counts)}, indent=0) + "\n")


@lru_cache(maxsize=4)
def load_speller(path: Path) -> Speller:
    data = json.loads(path.read_text())
    return Speller({str(k): int(v) for k, v in data["counts"].items()}, encoder_vocabulary())
