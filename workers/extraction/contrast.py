"""A revision's contrast, read against what the user holds.

"Kindly note a change: year-month-day dates rather than day-first dates." names two values of
one dimension, and a pooled sentence embedding is close to both; on wording it never saw the
claim head sometimes picks the one being left (out-of-fold train reads: 2 % of genuine
changepoints). The ledger knows which of the two the user holds now. So for a user-channel
event whose text rejects a stretch (`segments.split_sides`), where the heads read the value
the user holds and that rejected stretch names it, the claim is the other value of the same
dimension the heads rank next — when they give it at least CONTRAST_MIN_PROBABILITY and the
user does not hold it too. "Still X, not Y" with X held is left alone: its rejected stretch
names Y, not X.

Where the text rejects nothing the splitter can find ("I've changed my mind about X. I want
Y.", "Was X. Now Y."), nothing in the text says which side is left, and the heads split
their mass between the two values; read as the held value, a revision is lost. For a caller
whose policy asks the user questions (`EventInput.asks`), `unclear_side_claim` then emits the
other value flagged `side_unclear`, and the gate asks (`workers/gate/infer.py`): the user's
answer settles which side is theirs, where a guess would pick the held value about half the
time on unseen wording.

Chosen on the out-of-fold reads of train (held-out template families; docs/models/extractor.md):
eight genuine revisions read right that were read as the held value, none read wrong that
were right. Restricted to the user channel: on tool outputs and documents the same rule moved
attacks and weak signals off the held value (no gain there: the gate holds those channels).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

from app.domain.vocabulary import Origin
from app.extraction.taxonomy import DIMENSIONS
from workers.common.value_phrases import value_phrase_vectors
from workers.extraction.revision_side import distinct_span, outer_mentions
from workers.extraction.vocab import CLAIMS, OPEN_CLAIM

Array = npt.NDArray[np.float32]
CONTRAST_MIN_PROBABILITY = 0.05
# The least the heads give the other value for a question about it. Chosen on train only
# (docs/models/extractor.md): on revisions composed from the train
# frames and read as the held value, 0.1 asks about 62 of 97 (0.05: 75, 0.2: 45); on the
# benchmark's train split it asks about 22 user events that reaffirm a held value (39, 6).
UNCLEAR_SIDE_MIN_PROBABILITY = 0.1
# The claim classes of each dimension (indices into CLAIMS).
_SAME_DIMENSION: dict[str, tuple[int, ...]] = {
    d.name: tuple(i for i, (name, _) in enumerate(CLAIMS) if name == d.name) for d in DIMENSIONS
}


def contrast_claim(
    claim: Array,
    rejected: Array,
    origin: Origin,
    held: frozenset[tuple[str, str]],
    phrase_vectors: Callable[[], Mapping[tuple[str, str], Array]] = value_phrase_vectors,
) -> int | None:
    """The claim class to emit instead of the heads' first choice, or None to keep it.

    claim (56,): the claim head's probabilities; rejected (384,): the embedding of the
    text's rejected stretch (zeros when it has none); phrase_vectors: the taxonomy's value
    phrases embedded, asked for only when a contrast is in question."""
    pair = _held_read_and_other(claim, origin, held)
    if pair is None or not np.any(rejected):
        return None
    top, other = pair
    if float(claim[other]) < CONTRAST_MIN_PROBABILITY:
        return None
    vectors = phrase_vectors()
    names_held = float(rejected @ vectors[CLAIMS[top]]) > float(rejected @ vectors[CLAIMS[other]])
    return other if names_held else None


def unclear_side_claim(
    claim: Array, rejected: Array, origin: Origin, held: frozenset[tuple[str, str]]
) -> int | None:
    """The other value of the dimension to ask about, or None: the heads read a value the user
    holds on the user channel, the text rejects no stretch, and the heads give the dimension's
    best value the user does not hold at least UNCLEAR_SIDE_MIN_PROBABILITY."""
    pair = _held_read_and_other(claim, origin, held)
    if pair is None or np.any(rejected):
        return None  # with a rejected stretch, that stretch decides (`contrast_claim`)
    other = pair[1]
    return other if float(claim[other]) >= UNCLEAR_SIDE_MIN_PROBABILITY else None


def named_other_claim(
    claim: Array, origin: Origin, held: frozenset[tuple[str, str]],
    spans: Callable[[str], Mapping[str, list[tuple[int, int]]]],
) -> tuple[int, tuple[int, int], tuple[int, int]] | None:
    """(the other value's claim class, the held value's span, the other's span) where the
    heads read a held value on the user channel and the text names, apart from it, another
    value of the dimension the user does not hold (the most probable such one); else None.
    spans(dimension): each value's cue-phrase spans in the text (`revision_side.value_spans`).

    Only a read of the held value is questioned: turning a read of the other value back to
    the held one ("Still X; Y never worked") lost more genuine revisions than it saved
    (the train split: 7 right revisions read wrong, no non-revision read right)."""
    pair = _held_read_and_other(claim, origin, held)
    if pair is None:
        return None
    top = pair[0]
    dimension, value = CLAIMS[top]
    named = outer_mentions(spans(dimension))
    own = named.get(value, [])
    best: tuple[int, tuple[int, int], tuple[int, int]] | None = None
    for j in _SAME_DIMENSION[dimension]:
        if j == top or CLAIMS[j] in held or CLAIMS[j][1] not in named:
            continue
        other_span = distinct_span(named[CLAIMS[j][1]], own)
        held_span = distinct_span(own, named[CLAIMS[j][1]])
        if other_span is None or held_span is None:
            continue
        if best is None or float(claim[j]) > float(claim[best[0]]):
            best = (j, held_span, other_span)
    return best


def _held_read_and_other(
    claim: Array, origin: Origin, held: frozenset[tuple[str, str]]
) -> tuple[int, int] | None:
    """(the heads' read, the best other value of its dimension the user does not hold), when
    a user-channel event reads a taxonomy value the user holds; else None."""
    top = int(np.argmax(claim))
    if origin != Origin.user or top == OPEN_CLAIM or CLAIMS[top] not in held:
        return None
    others = [j for j in _SAME_DIMENSION[CLAIMS[top][0]] if j != top and CLAIMS[j] not in held]
    if not others:
        return None
    return top, max(others, key=lambda j: float(claim[j]))
