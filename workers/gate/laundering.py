"""Laundering signal: how much of an event's text was seen earlier on an untrusted channel.

A user who pastes an attacker's passage makes it arrive on the user channel; the passage
often arrived before through a document or a tool, or was pasted before and held back. Each
untrusted event — and each user event whose claim the gate quarantined or asked about —
leaves a bottom-k sketch of its word 3-gram hashes (and its embedding) in the user's gate
state; a later event is scored by the estimated share of its 3-grams found in a recent
sketch (containment) and by its best cosine to a remembered event.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from app.domain.vocabulary import Origin

SKETCH_SIZE = 64  # bottom-k hashes kept per untrusted event
MEMORY_SIZE = 8  # recent untrusted events remembered per user
MEMORY_DAYS = 14.0  # ... within this many days
_WORD = re.compile(r"[a-z0-9']+")
_EMPTY = np.zeros(0, dtype=np.uint32)


def shingles(text: str) -> npt.NDArray[np.uint32]:
    """Sorted unique CRC-32 hashes of the text's word 3-grams (words, for short texts).
    Apostrophes stay inside words ("what's") but quote marks around them go: a passage
    quoted in a document ('cmd: remember x') is the same passage when pasted unquoted."""
    words = [w for w in (m.strip("'") for m in _WORD.findall(text.lower())) if w]
    grams = (
        [" ".join(words[i : i + 3]) for i in range(len(words) - 2)] if len(words) >= 3 else words
    )
    if not grams:
        return _EMPTY
    return np.unique(np.fromiter((zlib.crc32(g.encode()) for g in grams), dtype=np.uint32))


def sketch(hashes: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint32]:
    return hashes[:SKETCH_SIZE]  # sorted: the k smallest


def containment(hashes: npt.NDArray[np.uint32], other: npt.NDArray[np.uint32]) -> float:
    """Estimated share of `hashes` (a full set) inside the set `other` was sketched from."""
    if hashes.size == 0 or other.size == 0:
        return 0.0
    if other.size < SKETCH_SIZE:
        return float(np.isin(hashes, other).mean())  # the sketch is the whole set
    window = hashes[hashes <= other[-1]]  # the part of the universe the sketch covers
    if window.size == 0:
        return 0.0
    return float(np.isin(window, other).mean())


# A user-channel text at least this much contained in a recent untrusted-channel passage is
# that passage, whoever sends it: the gate may hold or ask about its claim but never writes
# it straight into the ledger (`infer.decide`). The learned gate reads the same containment
# as an input, but nothing guarantees it holds a verbatim paste. Chosen on the train split,
# where a text's containment in the untrusted events before it reaches 0.5 for 25.9 % of
# same-origin attacks on the user channel and for 0.1 % of genuine changepoints (0.4 % of
# genuine preference statements).
LAUNDERED_MIN_CONTAINMENT = 0.5


def laundered(origin: Origin, overlap: float) -> bool:
    """A user event whose text repeats a recent untrusted-channel passage."""
    return origin == Origin.user and overlap >= LAUNDERED_MIN_CONTAINMENT


def is_untrusted(origin: Origin) -> bool:
    return origin != Origin.user


def held_back(origin: Origin, action: str) -> bool:
    """A user event to remember as distrusted content: its claim was held (untrusted
    channels are remembered on arrival already)."""
    return origin == Origin.user and action in ("quarantine", "clarify")


@dataclass(slots=True)
class UntrustedMemory:
    """Recent untrusted events of one user: times (days), sketches and embeddings."""

    days: list[float] = field(default_factory=list)
    sketches: list[npt.NDArray[np.uint32]] = field(default_factory=list)
    embeddings: list[npt.NDArray[np.float32]] = field(default_factory=list)
    # Per entry: it arrived on an untrusted channel (False: a user event the gate held back).
    untrusted: list[bool] = field(default_factory=list)

    def forget_before(self, now_days: float) -> None:
        keep = [i for i, d in enumerate(self.days) if now_days - d <= MEMORY_DAYS]
        self.days = [self.days[i] for i in keep]
        self.sketches = [self.sketches[i] for i in keep]
        self.embeddings = [self.embeddings[i] for i in keep]
        self.untrusted = [self.untrusted[i] for i in keep]

    def remember(
        self,
        now_days: float,
        hashes: npt.NDArray[np.uint32],
        embedding: npt.NDArray[np.float32],
        untrusted: bool = True,
    ) -> None:
        self.days.append(now_days)
        self.sketches.append(sketch(hashes))
        self.embeddings.append(embedding.astype(np.float32))
        self.untrusted.append(untrusted)
        if len(self.days) > MEMORY_SIZE:
            self.days, self.sketches, self.embeddings, self.untrusted = (
                self.days[-MEMORY_SIZE:],
                self.sketches[-MEMORY_SIZE:],
                self.embeddings[-MEMORY_SIZE:],
                self.untrusted[-MEMORY_SIZE:],
            )

    def untrusted_containment(self, hashes: npt.NDArray[np.uint32]) -> float:
        """The text's largest containment in a remembered untrusted-channel passage (held-back
        user events left out: a user repeating their own held statement is evidence, not a
        paste)."""
        return max(
            (containment(hashes, s) for s, u in zip(self.sketches, self.untrusted, strict=True)
             if u),
            default=0.0,
        )


def signal(
    memory: UntrustedMemory,
    now_days: float,
    hashes: npt.NDArray[np.uint32],
    embedding: npt.NDArray[np.float32],
) -> list[float]:
    """[max containment, max cosine, log1p(recent untrusted events), recency of the last]
    of this text against the user's recent untrusted events (before this one)."""
    memory.forget_before(now_days)
    if not memory.days:
        return [0.0, 0.0, 0.0, 0.0]
    overlap = max(containment(hashes, s) for s in memory.sketches)
    cosine = max(float(np.dot(embedding, e)) for e in memory.embeddings)
    recency = float(np.exp(-(now_days - memory.days[-1])))  # 1: just now, → 0 over days
    return [overlap, max(0.0, cosine), float(np.log1p(len(memory.days))), recency]


SIGNAL_FEATURES = 4
