"""Surface features of a response that sentence embeddings blur: length, lists, tables,
citations, units, date and time formats, code comments, register, language.

Generic text statistics written from how these properties look in any response (not from
benchmark candidates); r_p learns per taxonomy value how much each one counts.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)
_BULLET = re.compile(r"^\s*(?:[-*•·▪‣]|\d+[.)])\s+", re.MULTILINE)
_INLINE_STEPS = re.compile(
    r"(?:\b(?:step \d+|first(?:ly)?|second(?:ly)?|next|then|after that|finally)\b|\b\d\)\s)",
    re.IGNORECASE)
_TABLE_ROW = re.compile(r"^.*\|.*\|.*$|^\s*\S+(?:\s*\|\s*\S+)+\s*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$", re.MULTILINE)
_CITATION = re.compile(
    r"\[\d+\]|\bet al\.|\bdoi:|\(\s*[A-Z][A-Za-z-]+,? (?:19|20)\d\d\b"
    r"|\b[A-Z][A-Za-z-]+, (?:19|20)\d\d\b"
    r"|\b(?:BMJ|JAMA|Nature|Science|Lancet|NEJM|arXiv)\b")
_SOURCES_OFFER = re.compile(
    r"\b(?:sources?|references?|citations?|studies|papers)\b.{0,40}\b(?:if|want|like|happy|can)\b"
    r"|\b(?:if|want|like|happy|can)\b.{0,40}\b(?:sources?|references?|citations?|studies)\b",
    re.IGNORECASE)
_METRIC = re.compile(
    r"\d\s*(?:km|kg|g|mg|ml|l|litres?|liters?|m|cm|mm|m²|km/h|°c)\b|°\s*c\b|\bmetres?\b|\bmeters?\b"
    r"|\bkilo(?:metre|meter|gram)s?\b|\bcelsius\b|\bsquare metres\b", re.IGNORECASE)
_IMPERIAL = re.compile(
    r"\d\s*(?:mi|miles?|lbs?|oz|ft|in|inches|mph|cups?|°f|sq ft|gallons?|yards?)\b|°\s*f\b"
    r"|\bfeet\b|\bpounds?\b|\bounces?\b|\bfahrenheit\b|\bsquare feet\b", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_SLASH_DATE = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{2,4})\b")
_DOT_DATE = re.compile(r"\b\d{1,2}\.\d{1,2}\.\d{4}\b")
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?(?=[\s.,;!?)]|$)",
                    re.IGNORECASE)
_DAYPART = {
    "morning": re.compile(r"\b(?:morning|first thing|breakfast|dawn|sunrise)\b", re.IGNORECASE),
    "afternoon": re.compile(r"\b(?:afternoon|after lunch|midday|noon)\b", re.IGNORECASE),
    "evening": re.compile(r"\b(?:evening|tonight|night|after work|dinner)\b", re.IGNORECASE),
}
_CODE_BLOCK = re.compile(r"```")
_COMMENT_LINE = re.compile(r"(?:#|//|/\*|--)\s*\S")
_EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF]")
_FORMAL = re.compile(
    r"\b(?:dear|regret|kind regards|sincerely|please be advised|we apologi[sz]e|"
    r"inconvenience|greatly appreciated|respectfully|hereby|to inform you)\b", re.IGNORECASE)
_CASUAL = re.compile(
    r"\b(?:hey|hi|heads up|gonna|wanna|lol|sorry|thanks a ton|grab it|catch up|no biggie|"
    r"cool|awesome|you're a star|quick)\b|!", re.IGNORECASE)
_PLAYFUL = re.compile(r"\b(?:alas|drumroll|plot twist|ta-?da|woohoo|yay)\b|…|😄|🎉|🥁",
                      re.IGNORECASE)


def _words(text: str) -> list[str]:
    return text.split()


_STOPWORDS: Final[dict[str, frozenset[str]]] = {
    "english": frozenset(_words("the and is are will be with your you of to on in for it this")),
    "spanish": frozenset(_words("el la los las es está estará con de que y en tu tus una un por")),
    "french": frozenset(_words("le la les est sera avec de que et en tu tes une un du pour il")),
    "german": frozenset(_words("der die das ist wird mit und zu deine dein ein eine bei im am")),
}

FEATURE_NAMES: Final = (
    "log_words", "sentences", "bullets", "inline_steps", "table_rows", "table_rule",
    "citations", "sources_offer", "metric_units", "imperial_units", "iso_dates",
    "month_first_dates", "day_first_dates", "clock_morning", "clock_afternoon",
    "clock_evening", "code_block", "comment_share", "emoji", "formal", "casual", "playful",
    "lang_english", "lang_spanish", "lang_french", "lang_german", "non_ascii", "numbers",
)
N_FEATURES: Final = len(FEATURE_NAMES)


def _saturate(count: float, scale: float = 1.0) -> float:
    return 1.0 - math.exp(-count / scale)


def _clock_parts(text: str) -> tuple[float, float, float]:
    morning = afternoon = evening = 0.0
    for match in _CLOCK.finditer(text):
        hour_text, minutes, meridiem = match.groups()
        if minutes is None and meridiem is None:
            continue  # a bare number, not a time
        hour = int(hour_text)
        if meridiem:
            is_pm = meridiem.lower().startswith("p")
            hour = hour % 12 + (12 if is_pm else 0)
        if hour > 23:
            continue
        if 5 <= hour < 12:
            morning += 1
        elif 12 <= hour < 17:
            afternoon += 1
        elif hour >= 17:
            evening += 1
    for name, pattern in _DAYPART.items():
        hits = len(pattern.findall(text))
        if name == "morning":
            morning += hits
        elif name == "afternoon":
            afternoon += hits
        else:
            evening += hits
    return _saturate(morning), _saturate(afternoon), _saturate(evening)


def _dates(text: str) -> tuple[float, float, float]:
    iso = len(_ISO_DATE.findall(text))
    month_first = day_first = 0
    for a, b, _ in _SLASH_DATE.findall(text):
        first, second = int(a), int(b)
        if first > 12 >= second:
            day_first += 1
        elif second > 12 >= first:
            month_first += 1
    day_first += len(_DOT_DATE.findall(text))
    return _saturate(iso), _saturate(month_first), _saturate(day_first)


def _language(words: list[str]) -> list[float]:
    lowered = [w.lower() for w in words]
    counts = [sum(w in stop for w in lowered) for stop in _STOPWORDS.values()]
    total = sum(counts)
    return [c / total if total else 0.0 for c in counts]


def style_features(text: str) -> npt.NDArray[np.float32]:
    """A fixed-length vector of surface statistics, each roughly in [0, 1]."""
    words = _WORD.findall(text)
    lines = [line for line in text.splitlines() if line.strip()]
    sentences = max(1, len(re.findall(r"[.!?](?:\s|$)", text)))
    code_lines = 0
    comment_lines = 0
    in_code = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            code_lines += 1
            comment_lines += bool(_COMMENT_LINE.search(line))
    letters = [ch for ch in text if ch.isalpha()]
    non_ascii = sum(not ch.isascii() for ch in letters) / max(1, len(letters))
    morning, afternoon, evening = _clock_parts(text)
    iso, month_first, day_first = _dates(text)
    values = [
        math.log1p(len(words)) / 5.0,
        _saturate(sentences, 4.0),
        _saturate(len(_BULLET.findall(text)), 2.0),
        _saturate(len(_INLINE_STEPS.findall(text)), 3.0),
        _saturate(len(_TABLE_ROW.findall(text)), 2.0) if len(lines) > 1 else 0.0,
        float(bool(_TABLE_RULE.search(text))),
        _saturate(len(_CITATION.findall(text)), 1.5),
        float(bool(_SOURCES_OFFER.search(text))),
        _saturate(len(_METRIC.findall(text))),
        _saturate(len(_IMPERIAL.findall(text))),
        iso,
        month_first,
        day_first,
        morning,
        afternoon,
        evening,
        float(bool(_CODE_BLOCK.search(text))),
        comment_lines / code_lines if code_lines else 0.0,
        _saturate(len(_EMOJI.findall(text))),
        _saturate(len(_FORMAL.findall(text))),
        _saturate(len(_CASUAL.findall(text))),
        _saturate(len(_PLAYFUL.findall(text))),
        *_language(words),
        non_ascii * 5.0,
        _saturate(len(re.findall(r"\d+", text)), 4.0),
    ]
    return np.array(values, dtype=np.float32)


@lru_cache(maxsize=4096)
def _cached(text: str) -> npt.NDArray[np.float32]:
    row = style_features(text)
    row.setflags(write=False)
    return row


def style_matrix(texts: list[str]) -> npt.NDArray[np.float32]:
    if not texts:
        return np.zeros((0, N_FEATURES), dtype=np.float32)
    return np.stack([_cached(t) for t in texts])
