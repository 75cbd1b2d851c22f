"""What an attacker varies to slip past string matching: zero-width characters, lookalike
letters from other scripts."""

from __future__ import annotations

import random

ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
# Latin letters and a Cyrillic or Greek letter drawn the same.
LOOKALIKES = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
              "x": "\u0445", "y": "\u0443", "i": "\u0456", "s": "\u0455"}


def zero_width(text: str, rng: random.Random) -> str:
    """A zero-width character after about one letter in four of each word of 4+ letters."""
    out: list[str] = []
    for word in text.split(" "):
        if len(word) >= 4:
            cut = rng.randrange(1, len(word))
            word = word[:cut] + rng.choice(ZERO_WIDTH) + word[cut:]
        out.append(word)
    return " ".join(out)


def homoglyphs(text: str, rng: random.Random) -> str:
    """About a third of the swappable letters replaced by their lookalikes."""
    return "".join(LOOKALIKES[ch] if ch in LOOKALIKES and rng.random() < 0.35 else ch
                   for ch in text)
