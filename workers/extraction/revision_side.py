"""Which of two named values a revision wants, read from the words around each.

"Had bullet points for ages. Time for tables." names two values of one dimension; the pooled
sentence embedding the heads read is close to both, and on wording no marker in `segments.py`
covers, the claim head picks about evenly between them. The words *around* each value say
which is wanted: "Had [it] for ages" against "Time for [it]". So where the text names the
value the user holds and another value of its dimension (the taxonomy's cue phrases, spans
that do not overlap), each mention's clause context — up to `window` words either side within
its clause, the mention written "it" and the other one "that" — is embedded, and a linear
score w·(e_other − e_held) gives P(the other value is wanted), σ of it. The whole text is
read as well, once with each mention as "it" and the other as
"that", its difference beside the window's: an answer to one's own question ("Email or text?
Text, probably.") or a reason two clauses away is outside any window. Antisymmetric by
construction: swapping the two mentions gives 1 − p.

Trained (`capture train revision-side`) on authored revision frames only (`augment.frames
("train")` and `train_side.side_frames()`), never on benchmark text: a frame is filled with two
placeholders, so the model learns the connectives, not the values. Measured on the held-out
authored frames (`frames("dev")`) and on the blind ones (`frames("blind")`), which no rule or
threshold was chosen on (docs/models/extractor.md).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from app.core.embeddings import Embedder
from app.extraction.taxonomy import DIMENSIONS, compile_cues
from workers.common.weights import digest, load_npz
from workers.extraction.augment import add_typos, draw_lead

Array = npt.NDArray[np.float32]
WEIGHTS = Path(__file__).parent / "weights" / "revision_side.npz"
MENTION, OTHER = "it", "that"
# A clause ends at punctuation or at a contrast word: "Had X for ages. Time for Y."
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]\n]|->|=>|→|\bbut\b|\bso\b")
_CUES: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    d.name: [(v.name, p) for v in d.values if (p := compile_cues(v.cues)) is not None]
    for d in DIMENSIONS
}


def value_spans(text: str, dimension: str) -> dict[str, list[tuple[int, int]]]:
    """value → (start, end) of each cue-phrase match of it in lower-cased `text`."""
    out: dict[str, list[tuple[int, int]]] = {}
    for value, pattern in _CUES.get(dimension, []):
        spans = [m.span() for m in pattern.finditer(text)]
        if spans:
            out[value] = spans
    return out


def outer_mentions(
    named: Mapping[str, list[tuple[int, int]]],
) -> dict[str, list[tuple[int, int]]]:
    """`named` without the spans that lie inside a longer span of another value: in "fish
    but no meat" the vegetarian cue "no meat" is part of the pescatarian phrase, and in "both
    metric and imperial" metric and imperial are part of the phrase for both."""
    out: dict[str, list[tuple[int, int]]] = {}
    for value, spans in named.items():
        kept = [(start, end) for start, end in spans
                if not any(s <= start and end <= e and e - s > end - start
                           for other, others in named.items() if other != value
                           for s, e in others)]
        if kept:
            out[value] = kept
    return out


def distinct_span(
    spans: list[tuple[int, int]], others: list[tuple[int, int]]
) -> tuple[int, int] | None:
    """The first span that overlaps none of `others` ("both metric and imperial units"
    names metric inside its own phrase: that is no second value)."""
    for start, end in spans:
        if all(end <= s or start >= e for s, e in others):
            return start, end
    return None


Span = tuple[int, int]
# (lower-cased text, the span scored as wanted, the span scored as left)
Mention = tuple[str, Span, Span]


def _marked(text: str, mention: Span, other: Span) -> str:
    """`text` with `mention` as \x01 and `other` as \x02."""
    marked = text
    # Replace the later span first so the earlier one's offsets still hold.
    for (s, e, token) in sorted([(*mention, "\x01"), (*other, "\x02")], reverse=True):
        marked = marked[:s] + token + marked[e:]
    return marked


def mention_context(text: str, mention: Span, other: Span, window: int) -> str:
    """The words around `mention` within its clause, the mention as "it" and the other
    mention (where it falls inside the window) as "that"."""
    marked = _marked(text, mention, other)
    at = marked.index("\x01")
    left, right = marked[:at], marked[at + 1:]
    starts = [m.end() for m in _CLAUSE_BREAK.finditer(left)]
    left = left[starts[-1]:] if starts else left
    stop = _CLAUSE_BREAK.search(right)
    right = right[:stop.start()] if stop else right
    words = [*left.split()[-window:], MENTION, *right.split()[:window]]
    return " ".join(words).replace("\x02", OTHER)


def marked_text(text: str, mention: Span, other: Span) -> str:
    """The whole text, `mention` as "it" and `other` as "that": what a clause window cannot
    see ("Email or text? Text, probably." — the answer is a clause of its own)."""
    return _marked(text, mention, other).replace("\x01", MENTION).replace("\x02", OTHER)


def side_features(embedder: Embedder, mentions: list[Mention], window: int,
                  whole: bool) -> npt.NDArray[np.float64]:
    """Each mention pair's features: e(context of the first) − e(context of the second),
    and with `whole`, beside it e(whole text, first as "it") − e(whole text, second as
    "it"). Swapping the two spans negates them, so a linear score is antisymmetric. One
    embedding call for all of it (the write path scores one pair at a time)."""
    pairs = _window_pairs(mentions, window) + (_whole_pairs(mentions) if whole else [])
    differences = _differences(embedder, pairs)
    n = len(mentions)
    return np.concatenate([differences[:n], differences[n:]], axis=1) if whole \
        else differences


def window_differences(embedder: Embedder, mentions: list[Mention],
                       window: int) -> npt.NDArray[np.float64]:
    return _differences(embedder, _window_pairs(mentions, window))


def whole_differences(embedder: Embedder,
                      mentions: list[Mention]) -> npt.NDArray[np.float64]:
    return _differences(embedder, _whole_pairs(mentions))


def _window_pairs(mentions: list[Mention], window: int) -> list[tuple[str, str]]:
    return [(mention_context(t, a, b, window), mention_context(t, b, a, window))
            for t, a, b in mentions]


def _whole_pairs(mentions: list[Mention]) -> list[tuple[str, str]]:
    return [(marked_text(t, a, b), marked_text(t, b, a)) for t, a, b in mentions]


# Texts per embedding call in training: one call over thousands of long frames pads them all
# to the longest and held 24 GB of activations (1,340 frames).
EMBED_BATCH = 256


def _differences(embedder: Embedder,
                 pairs: list[tuple[str, str]]) -> npt.NDArray[np.float64]:
    texts = [text for pair in pairs for text in pair]
    # At least one call, so that no pairs still give a (0, 384) array.
    vectors = np.concatenate([embedder.embed(texts[i:i + EMBED_BATCH])
                              for i in range(0, max(1, len(texts)), EMBED_BATCH)])
    vectors = vectors.astype(np.float64)
    return np.asarray(vectors[0::2] - vectors[1::2], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class RevisionSide:
    """The trained score: P(the mention at `other` is the wanted one, not the one at `held`)."""

    weight: Array  # (384,) the clause window's; (768,) with the whole text's beside it
    window: int
    version: str
    whole: bool = False  # False: weights that read the clause window only

    def p_other_wanted(self, embedder: Embedder, text: str, held: Span,
                       other: Span) -> float:
        margin = float(self.margins(embedder, [(text, other, held)])[0])
        return 1.0 / (1.0 + float(np.exp(-margin)))

    def margins(self, embedder: Embedder,
                mentions: list[Mention]) -> npt.NDArray[np.float64]:
        """The score's logit of each mention pair (> 0: the first span is wanted)."""
        features = side_features(embedder, mentions, self.window, self.whole)
        return np.asarray(features @ self.weight.astype(np.float64), dtype=np.float64)


@lru_cache(maxsize=2)
def load_revision_side(weights: Path = WEIGHTS) -> RevisionSide | None:
    """The shipped score, or None where no weights file exists (the rule is then off)."""
    if not weights.exists():
        return None
    arrays, meta = load_npz(weights)
    return RevisionSide(arrays["weight"], int(meta["window"]), digest(weights),
                        bool(meta.get("whole", False)))


def frame_mentions(frames: tuple[str, ...], copies: int, seed: int,
                   typo_rate: float) -> list[Mention]:
    """(text, wanted span, left span) of each frame, `copies` times, with leads and typos as
    `augment.compose_revisions` draws them; the two values are placeholders."""
    rng = random.Random(seed)
    out: list[Mention] = []
    for frame in frames:
        for _ in range(copies):
            text = draw_lead(frame, rng) + frame
            if rng.random() < typo_rate:
                typed = add_typos(text, rng, rng.randint(1, 2))
                text = typed if "{new}" in typed and "{old}" in typed else text
            filled = text.replace("{new}", "\x03").replace("{old}", "\x04").lower()
            new = (filled.index("\x03"), filled.index("\x03") + 1)
            old = (filled.index("\x04"), filled.index("\x04") + 1)
            out.append((filled, new, old))
    return out


def pairwise_accuracy(side: RevisionSide, embedder: Embedder,
                      mentions: list[Mention]) -> float:
    """Share of mention pairs whose wanted span scores above the left one."""
    return float(np.mean(side.margins(embedder, mentions) > 0)) if mentions else 0.0


def _with_swaps(
    x: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each pair as scored (label 1) and swapped (−x, label 0): the fits stay antisymmetric."""
    return (np.concatenate([x, -x]),
            np.concatenate([np.ones(len(x)), np.zeros(len(x))]))


def fit_scale(margins: npt.NDArray[np.float64], steps: int = 2000) -> float:
    """The scalar s that makes σ(s·margin) calibrated on held-out pairs (log loss over the
    pairs and their swaps): an L2-shrunk score is too timid to threshold otherwise."""
    x, y = _with_swaps(margins)
    scale = 1.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-scale * x))
        scale -= 0.5 * float(np.mean((p - y) * x)) / max(float(np.mean(x * x)), 1e-9)
    return scale


def fit_weight(differences: npt.NDArray[np.float64], l2: float, steps: int = 3000,
               rate: float = 2.0) -> Array:
    """Logistic regression through the origin on e_wanted − e_left and its negation (label
    1 and 0), full-batch gradient descent: deterministic, no seed needed."""
    x, y = _with_swaps(differences)
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= rate * (x.T @ (p - y) / len(y) + l2 * w)
    return w.astype(np.float32)
