"""Slot filling, sentence casing and typo injection."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, TypeVar

import numpy as np

from app.core.corpora import SHARED, select
from app.core.corpora import text as field

T = TypeVar("T")

_SLOT = re.compile(r"\{([a-zA-Z_0-9]+)\}")
# Families whose style is lower-case and informal: no forced capital.
_LOWER_FAMILIES: Final = ("casual", "terse")

# Misspellings people actually make (`data/typos.yaml`): (word, typo), applied before
# character-level noise.
TYPOS_DATA = Path(__file__).parent / "data" / "typos.yaml"
_MISSPELLINGS: Final = tuple(
    (field(record, "word"), field(record, "typo"))
    for record in select(TYPOS_DATA, SHARED, table="misspellings")
)
_KEYBOARD_NEIGHBOURS: Final = {
    "a": "sq", "e": "wr", "i": "uo", "o": "ip", "n": "bm", "r": "et", "s": "ad", "t": "ry",
    "l": "k", "h": "gj", "c": "xv", "d": "sf", "m": "n", "u": "yi", "p": "o", "g": "fh",
}


def pick(rng: np.random.Generator, items: Sequence[T]) -> T:
    """One item, uniformly; `Sequence` keeps the order fixed, so the draw is reproducible."""
    return items[int(rng.integers(len(items)))]


def fill(template: str, slots: Mapping[str, str]) -> str:
    """Replace {name} slots; braces that are not slot names (JSON) are left alone."""
    return _SLOT.sub(lambda m: slots.get(m.group(1), m.group(0)), template)


def unfilled_slots(text: str, names: Sequence[str]) -> list[str]:
    """Slot names still present in a rendered text (a template bug if any)."""
    return [m.group(1) for m in _SLOT.finditer(text) if m.group(1) in names]


def style(text: str, family: str) -> str:
    """Capitalize the first letter except in families written in lower case."""
    if family in _LOWER_FAMILIES or not text:
        return text
    return text[0].upper() + text[1:]


_THIRD_PERSON: Final = (
    (re.compile(r"\bmy\b"), "the user's"), (re.compile(r"\bme\b"), "the user"),
    (re.compile(r"\bI'm\b"), "they're"), (re.compile(r"\bI\b"), "they"),
)


def third_person(text: str) -> str:
    """'text me when I'm on call' -> 'text the user when they're on call'."""
    for pattern, replacement in _THIRD_PERSON:
        text = pattern.sub(replacement, text)
    return text


def add_typos(text: str, rng: np.random.Generator, edits: int) -> str:
    """Insert about `edits` realistic typos (misspellings, swaps, drops, doubled keys)."""
    for wrong_from, wrong_to in _MISSPELLINGS:
        if edits > 0 and wrong_from in text and rng.random() < 0.5:
            text = text.replace(wrong_from, wrong_to, 1)
            edits -= 1
    chars = list(text)
    letters = [i for i, c in enumerate(chars) if c.isalpha()]
    for _ in range(max(edits, 0)):
        if len(letters) < 4:
            break
        i = letters[int(rng.integers(1, len(letters) - 1))]
        op = int(rng.integers(4))
        if op == 0 and i + 1 < len(chars) and chars[i + 1].isalpha():
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        elif op == 1:
            chars[i] = ""
        elif op == 2:
            chars[i] = chars[i] * 2
        else:
            near = _KEYBOARD_NEIGHBOURS.get(chars[i].lower())
            if near:
                chars[i] = near[int(rng.integers(len(near)))]
    return "".join(chars)
