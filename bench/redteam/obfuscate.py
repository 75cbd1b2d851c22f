"""What an attacker varies to slip past string matching: zero-width characters, lookalike
letters from other scripts, soft hyphens and combining joiners, fullwidth and mathematical
letter forms."""

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


# Characters that format text without drawing anything where they sit.
SOFT_HYPHEN = "\u00ad"
GRAPHEME_JOINER = "\u034f"


def soft_hyphens(word: str) -> str:
    """A soft hyphen (drawn only at a line break) after every third letter."""
    return SOFT_HYPHEN.join(word[i : i + 3] for i in range(0, len(word), 3))


def grapheme_joiners(word: str) -> str:
    """A combining grapheme joiner (drawn as nothing) between every two letters."""
    return GRAPHEME_JOINER.join(word)


def fullwidth(word: str) -> str:
    """ASCII letters and digits as their fullwidth forms (`Ｒｅｃｏｒｄｓ`)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in word)


def math_sans(word: str) -> str:
    """ASCII letters as mathematical sans-serif letters (`𝖱𝖾𝖼𝗈𝗋𝖽𝗌`)."""
    out = []
    for c in word:
        if c.isascii() and c.isupper():
            out.append(chr(0x1D5A0 + ord(c) - ord("A")))
        elif c.isascii() and c.islower():
            out.append(chr(0x1D5BA + ord(c) - ord("a")))
        else:
            out.append(c)
    return "".join(out)
