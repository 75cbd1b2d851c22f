"""A learned reading of whose words each sentence of a user turn is: the user's own, or a
passage the user passed on (a letter, a post, a review, a form, a transcript …) without
marking it as such.

The cue rules of `app.text.voice` find passages that announce themselves (quote marks,
forwarded headers, speaker labels). This model reads the rest from the form of the turn: a
sentence is judged with the words around it (its neighbours, its paragraph, the turn's first
and last lines) and the shape of its line, so the same first-person sentence reads as the
user's in a chat turn and as someone else's inside a signed letter. Trained by `capture train
whose-words` (workers/voice/), model card `docs/models/whose_words.md`.

A logistic model over hashed features: numpy only, a few hundred microseconds per turn.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

WEIGHTS = Path(__file__).with_name("weights") / "whose_words.npz"
Span = tuple[int, int]

_LINE = re.compile(r"[^\n]+")
# A sentence ends at . ! ? … (and closing quotes) before a space or the line's end, so an
# address or a decimal stays whole.
_UNIT = re.compile(r"\S.*?(?:[.!?…]+[\"”’')\]]*(?=\s|$)|$)")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+|[^\sa-z\d]")
_LABEL = re.compile(r"^\s*[\w .'()#-]{1,24}:\s")
_TIME = re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b", re.IGNORECASE)
_DATE = re.compile(r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|"
                   r"sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b", re.IGNORECASE)
_HANDLE = re.compile(r"(?<!\w)[@#]\w+")
_ADDRESS = re.compile(r"\S+@\S+\.\w+|https?://\S+|www\.\S+")
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+\b")
_NON_LATIN = re.compile(r"[^\x00-\x7f]")
_ENDINGS = frozenset('.!?:"”)')


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence of a turn, with the line and paragraph it sits in."""

    start: int
    end: int
    line: int
    block: int


def units(text: str) -> list[Unit]:
    """The sentences of `text` in order, each with its line and paragraph index."""
    out: list[Unit] = []
    block = 0
    previous_end = 0
    lines = [m for m in _LINE.finditer(text) if m.group().strip()]
    for line_no, line in enumerate(lines):
        if line_no and text.count("\n", previous_end, line.start()) >= 2:
            block += 1  # a blank line between paragraphs
        previous_end = line.end()
        for m in _UNIT.finditer(line.group()):
            out.append(Unit(line.start() + m.start(), line.start() + m.end(), line_no, block))
    return out


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _bucket(n: int, edges: tuple[int, ...]) -> int:
    return sum(n > e for e in edges)


def _shape(piece: str, prefix: str) -> list[str]:
    """What a sentence looks like, apart from its words."""
    stripped = piece.strip()
    last = stripped[-1:] if stripped[-1:] in _ENDINGS else "x"
    feats = [
        f"{prefix}len{_bucket(len(_words(stripped)), (3, 6, 12, 20, 35))}",
        f"{prefix}end{last}",
    ]
    for name, pattern in (("label", _LABEL), ("time", _TIME), ("date", _DATE),
                          ("handle", _HANDLE), ("address", _ADDRESS)):
        if pattern.search(piece):
            feats.append(f"{prefix}{name}")
    caps = len(_CAPITALISED.findall(stripped))
    feats.append(f"{prefix}caps{_bucket(caps, (0, 1, 3))}")
    if stripped[:1].islower():
        feats.append(f"{prefix}lowerstart")
    if stripped.isupper() and len(stripped) > 3:
        feats.append(f"{prefix}allcaps")
    if _NON_LATIN.search(stripped):
        feats.append(f"{prefix}nonlatin")
    return feats


def _grams(words: list[str], prefix: str, bigrams: bool) -> list[str]:
    feats = [f"{prefix}{w}" for w in words]
    if bigrams:
        feats += [f"{prefix}{a}_{b}" for a, b in zip(words, words[1:], strict=False)]
    return feats


def features(text: str, found: list[Unit]) -> list[list[str]]:
    """Each unit's features: its own words and shape, its line's shape, its neighbours' and
    paragraph's words, and the turn's first and last lines. Where it sits in the turn is left
    out: a user's own message has as many lines as a pasted form."""
    lines = [m.group() for m in _LINE.finditer(text) if m.group().strip()]
    pieces = [text[u.start:u.end] for u in found]
    words = [_words(p) for p in pieces]
    n_lines, n_units = len(lines), len(found)
    first_line = _words(lines[0]) if lines else []
    last_line = _words(lines[-1]) if lines else []
    line_shapes = [_shape(line, "l:") for line in lines]
    block_counts: dict[int, Counter[str]] = {}
    for unit, unit_words in zip(found, words, strict=True):
        block_counts.setdefault(unit.block, Counter()).update(unit_words)
    out: list[list[str]] = []
    for i, unit in enumerate(found):
        f = [*_grams(words[i], "w:", True), *_shape(pieces[i], "s:"), *line_shapes[unit.line]]
        if i > 0:
            f += _grams(words[i - 1], "p:", False) + _shape(pieces[i - 1], "ps:")
            if found[i - 1].block != unit.block:
                f.append("newblock")
        else:
            f.append("p:none")
        if i + 1 < n_units:
            f += _grams(words[i + 1], "n:", False) + _shape(pieces[i + 1], "ns:")
        else:
            f.append("n:none")
        # The words of the paragraph's other sentences.
        others = block_counts[unit.block] - Counter(words[i])
        f += [f"b:{w}" for w in sorted(others)]
        if unit.line != 0:
            f += _grams(first_line, "f:", False)
        if unit.line != n_lines - 1:
            f += _grams(last_line, "z:", False)
        out.append(f)
    return out


def hashed(feats: list[str], dim: int) -> npt.NDArray[np.int64]:
    """Bucket indices of `feats` (CRC-32, stable across processes)."""
    return np.fromiter((zlib.crc32(s.encode()) % dim for s in feats), dtype=np.int64,
                       count=len(feats))


@dataclass(frozen=True)
class WhoseWords:
    """The trained model: weights over hashed features, and the probability above which a
    sentence is read as someone else's."""

    weights: npt.NDArray[np.float32]
    bias: float
    threshold: float

    @property
    def dim(self) -> int:
        return int(self.weights.shape[0])

    def probabilities(self, text: str) -> list[tuple[Unit, float]]:
        """Each sentence of `text` and the probability that it is not the user's words."""
        found = units(text)
        return [(unit, self.probability(hashed(feats, self.dim)))
                for unit, feats in zip(found, features(text, found), strict=True)]

    def probability(self, indices: npt.NDArray[np.int64]) -> float:
        """The probability for one sentence's hashed features."""
        z = float(self.weights[indices].sum()) + self.bias
        return 1.0 / (1.0 + float(np.exp(-z)))

    def other_spans(self, text: str) -> list[Span]:
        """The sentences read as someone else's words (a turn of one sentence never is: the
        model has nothing around it to read)."""
        scored = self.probabilities(text)
        if len(scored) < 2:
            return []
        return [(u.start, u.end) for u, p in scored if p >= self.threshold]


def load(path: Path = WEIGHTS) -> WhoseWords | None:
    """The model at `path`, or None where none has been trained."""
    if not path.exists():
        return None
    with np.load(path) as data:
        return WhoseWords(weights=data["weights"].astype(np.float32),
                          bias=float(data["bias"]), threshold=float(data["threshold"]))


@cache
def model() -> WhoseWords | None:
    return load()
