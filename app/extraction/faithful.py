"""Value support: a taxonomy claim names a value only where the statement says that value.

An extractor that reads "I prefer window seats when I fly." as economy class files a
preference about another aspect under the nearest taxonomy value, and the memory then states
a value the user never said. After the extractor has read a statement, each taxonomy claim
(dimension, value) is kept only where the text carries lexical evidence for that value:

- one of the value's cue phrases in the taxonomy (`taxonomy.py`: "bullet points", "golang");
- one of its weak cues ("french", "short", "morning") together with a word of the
  dimension's context in the same text ("answer in French", not "French films"), or
  standing on its own ("French, please.");
- the dimension's polar word ("comments", "citations", "meat"), for the value it picks
  when wanted or refused;
- the dimension's and the value's own names, as a settings export writes them
  ("meeting_time:afternoon", `"setting": "units", "value": "both"`);
- or a word of the value's learned lexicon (`value_support.yaml`, written by `capture train
  value-support` from the train split: words that, in the train split's statements on the
  dimension, stand for that value alone, such as "orchestral" or "cheap cabin"), or a word
  one edit from an entry of five characters or more (a typo the repair left).

A claim without support becomes an open claim in the user's words (`open_claims.py`) with
the direction, timescale and confidence the extractor read, where the text states a
preference at all (`deterministic.states_preference`: a preference cue, no question); it is
dropped where the text states none ("Thanks, that sorted it out.") or cannot be kept as an
open claim (a document, an address in it). Open claims pass as they are. The check reads
lower-cased words only: no model, a few regex searches per claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from app.domain.claims import Extraction, Hypothesis
from app.extraction.deterministic import states_preference
from app.extraction.open_claims import is_open_subject, open_hypothesis
from app.extraction.spelling import edit_distance, encoder_vocabulary
from app.extraction.taxonomy import DIMENSIONS, compile_cues

VALUE_SUPPORT = Path(__file__).parent / "value_support.yaml"
WORD = re.compile(r"[a-z0-9]+(?:[+#]+|'[a-z]+)?")
# "month-first", "late-day": a compound is a word of its own beside its parts.
COMPOUND = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
# After a weak cue, a word that makes it a modifier of something else ("French films",
# "morning runs") unless it is one of these: the cue then stands on its own ("French, please",
# "rock would be more suitable").
_NEXT = re.compile(r"\s*([a-z][a-z']*)")
FUNCTION_WORDS = frozenset((
    "a", "about", "after", "again", "all", "also", "always", "am", "an", "and", "any", "are",
    "as", "at", "be", "because", "been", "before", "both", "but", "by", "can", "could", "did",
    "do", "does", "each", "for", "from", "had", "has", "have", "here", "how", "i", "if", "in",
    "is", "it", "its", "just", "me", "more", "most", "my", "no", "not", "now", "of", "on", "once",
    "only", "or", "our", "over", "please", "pls", "plz", "should", "so", "some", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "too",
    "until", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "will", "with", "would", "you", "your", "yours", "one", "ones", "going", "instead", "today",
    "anymore", "thanks", "thank", "still", "every", "ever", "everywhere",
))
ABSTAIN_UNSUPPORTED = "value_not_said"
TYPO_MIN_CHARS = 5  # shorter lexicon entries are matched exactly: one edit makes another word


# (suffix, replacement, shortest stem left): plurals, and the comparative and superlative
# ("cheaper", "cheapest" → "cheap").
_SUFFIXES = (("ies", "y", 3), ("sses", "ss", 3), ("est", "", 3), ("er", "", 4), ("s", "", 3))


def stem(word: str) -> str:
    """A light suffix strip, so "tables" and "table", "cheaper" and "cheapest" meet; enough
    for a lexicon of content words, not a general stemmer."""
    word = word.lower().removesuffix("'s")
    for suffix, keep, shortest in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= shortest and not (
                suffix == "s" and word.endswith("ss")):
            return word[: len(word) - len(suffix)] + keep
    return word


def stems(text: str) -> frozenset[str]:
    """The stems of the text's words and compounds, and of each pair of neighbouring words
    ("before lunch", "source link")."""
    low = text.lower()
    words = [stem(w) for w in WORD.findall(low)]
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    return frozenset((*words, *(stem(w) for w in COMPOUND.findall(low)), *pairs))


def _stands_alone(pattern: re.Pattern[str], text: str) -> bool:
    """A match of `pattern` in `text` not followed by a content word: a function word or a
    word the sentence encoder does not know (a typo the repair left: "rock nsuic") shows
    no other thing the cue describes."""
    vocabulary = encoder_vocabulary()
    for match in pattern.finditer(text):
        after = _NEXT.match(text, match.end())
        if after is None or after.group(1) in FUNCTION_WORDS:
            return True
        word = after.group(1)
        if word not in vocabulary and stem(word) not in vocabulary:
            return True
    return False


def _one_typo_away(word: str, lexicon: frozenset[str]) -> bool:
    """`word` (five characters or more) one edit from a lexicon entry: a typo the repair left
    ("chepest cabin" for "cheapest cabin")."""
    return len(word) >= TYPO_MIN_CHARS and any(
        abs(len(word) - len(entry)) <= 1 and edit_distance(word, entry) == 1
        for entry in lexicon if len(entry) >= TYPO_MIN_CHARS)


@dataclass(frozen=True, slots=True)
class _ValueCues:
    strong: re.Pattern[str] | None
    weak: re.Pattern[str] | None


@dataclass(frozen=True, slots=True)
class _DimensionCues:
    values: Mapping[str, _ValueCues]
    context: re.Pattern[str] | None
    polar: re.Pattern[str] | None
    polar_values: frozenset[str]
    # The dimension's and each value's own name, as a settings export writes them.
    name: re.Pattern[str]
    value_names: Mapping[str, re.Pattern[str]]


def _identifier(name: str) -> re.Pattern[str]:
    """`meeting_time` as a whole word, written meeting_time, meeting-time or meeting time."""
    return re.compile(r"(?<![a-z])" + r"[_ -]?".join(map(re.escape, name.split("_")))
                      + r"(?![a-z])")


def _compile() -> dict[str, _DimensionCues]:
    out = {}
    for d in DIMENSIONS:
        out[d.name] = _DimensionCues(
            values={v.name: _ValueCues(compile_cues(v.cues), compile_cues(v.weak_cues))
                    for v in d.values},
            context=compile_cues((d.context,)) if d.context else None,
            polar=compile_cues((d.polar.pattern,)) if d.polar else None,
            polar_values=(frozenset({d.polar.wanted, d.polar.refused}) if d.polar
                          else frozenset()),
            name=_identifier(d.name),
            value_names={v.name: _identifier(v.name) for v in d.values},
        )
    return out


_CUES = _compile()


@dataclass(frozen=True, slots=True)
class ValueSupport:
    """The learned lexicon: (dimension, value) → the stems that stand for the value."""

    words: Mapping[tuple[str, str], frozenset[str]]

    def supports(self, text: str, dimension: str, value: str) -> bool:
        """The text carries lexical evidence for `value` of `dimension`."""
        cues = _CUES.get(dimension)
        if cues is None or value not in cues.values:
            return False
        low = text.lower()
        spaced = low.replace("-", " ")  # "month-first" meets the cue "month first"
        own = cues.values[value]
        if own.strong is not None and (own.strong.search(low) or own.strong.search(spaced)):
            return True
        if own.weak is not None and own.weak.search(low) and (
            (cues.context is not None and cues.context.search(low))
            or _stands_alone(own.weak, low)
        ):
            return True
        if value in cues.polar_values and cues.polar is not None and cues.polar.search(low):
            return True
        if cues.name.search(low) and cues.value_names[value].search(low):
            return True
        learned = self.words.get((dimension, value))
        if not learned:
            return False
        found = stems(low)
        return bool(learned & found) or any(_one_typo_away(w, learned) for w in found)


def load_value_support(path: Path = VALUE_SUPPORT) -> ValueSupport:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    words: dict[tuple[str, str], frozenset[str]] = {}
    for dimension, values in (data.get("values") or {}).items():
        for value, listed in (values or {}).items():
            words[(str(dimension), str(value))] = frozenset(str(w) for w in listed or ())
    return ValueSupport(words)


@lru_cache(maxsize=1)
def value_support() -> ValueSupport:
    """The shipped lexicon, read once."""
    return load_value_support()


def said(
    extraction: Extraction,
    text: str,
    reading: Callable[[str], str] | None = None,
    support: ValueSupport | None = None,
) -> Extraction:
    """`extraction` with each taxonomy claim that `text` (or its `reading`, such as the
    extractor's typo repair) gives no evidence for turned into an open claim on `text`, or
    dropped where the text states no preference or cannot be kept as an open claim."""
    if not any(not is_open_subject(h.subject) for h in extraction.hypotheses):
        return extraction
    lexicon = support or value_support()
    texts = (text,) if reading is None else (text, reading(text))
    kept: list[Hypothesis] = []
    changed = False
    for h in extraction.hypotheses:
        if is_open_subject(h.subject) or h.value is None or any(
            lexicon.supports(t, h.subject, h.value) for t in texts
        ):
            kept.append(h)
            continue
        changed = True
        if not any(states_preference(t) for t in texts):
            continue  # no preference stated at all: nothing to keep in the user's words
        opened = open_hypothesis(text, h.provenance, h.direction, h.timescale, h.confidence,
                                 h.sentence_index)
        if opened is not None and all(k.subject != opened.subject for k in kept):
            kept.append(opened)
    if not changed:
        return extraction
    return extraction.model_copy(update={
        "hypotheses": tuple(kept),
        "abstain_reason": None if kept else ABSTAIN_UNSUPPORTED,
    })
