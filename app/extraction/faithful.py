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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from app.domain.claims import Extraction, Hypothesis
from app.extraction.deterministic import states_preference
from app.extraction.open_claims import is_open_subject, open_hypothesis
from app.extraction.spelling import edit_distance, encoder_vocabulary
from app.extraction.taxonomy import DIMENSIONS, compile_cues, find_scopes

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
# Words that may follow a value's name without making it a modifier of some other noun
# ("tables work best", "Rust yesterday", "economy rather than business"): verb forms and
# adverbs that follow a subject, and words that close or join a clause. A noun there is
# what the word describes ("economy cars", "formal dinners", "bullet journal").
PREDICATES = frozenset((
    "work", "works", "worked", "working", "sound", "sounds", "sounded", "suit", "suits",
    "suited", "fit", "fits", "help", "helps", "helped", "make", "makes", "made", "feel",
    "feels", "felt", "seem", "seems", "seemed", "look", "looks", "read", "reads", "win",
    "wins", "rule", "rules", "rock", "rocks", "beat", "beats", "stay", "stays", "again",
    "all", "always", "never", "rather", "without", "except", "including", "plus", "last",
    "next", "yesterday", "tomorrow", "tonight", "lately", "recently", "anyway", "though",
    "tho", "ok", "okay", "fine", "best", "better", "first", "forward", "from", "going",
    "may", "might", "must", "shall", "can", "could", "would", "should", "will", "won't",
    "wins", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do",
    "does", "did", "don't", "doesn't", "isn't", "aren't", "wasn't", "gets", "got", "goes",
    "went", "keeps", "kept", "really", "definitely", "mostly", "usually", "generally",
    "please", "pls", "plz", "thanks", "lol", "huh", "tbh", "haha", "yes", "yeah", "also",
    "too", "either", "neither", "nor", "but", "and", "or", "if", "when", "whenever", "unless",
    "instead", "only", "just", "mainly", "otherwise", "wherever", "whatever", "every",
    "suffice", "suffices", "sufficed", "lowkey",
))
_CONNECTIVES = FUNCTION_WORDS | PREDICATES
# A preposition after an ambiguous word (a weak cue, the dimension's polar word, a learned
# word) attaches it to the noun that follows: "comments on my essay", "references in my
# papers" are about the essay and the papers.
ATTACHING = frozenset((
    "in", "on", "at", "under", "from", "of", "about", "into", "onto", "across", "within",
    "inside", "below", "beneath", "underneath", "around", "near", "beside",
))
# A preposition before a weak cue makes it an adjunct of whatever the clause is about ("I
# read in the evening", "deep work before noon"): it names the value only where the clause
# names the dimension ("meetings in the evening").
ADJUNCT = frozenset(("in", "on", "at", "during", "before", "after", "around", "by", "until",
                     "through", "throughout", "every", "of"))
_SENTENCE = re.compile(r"[^.!?;]+")
# Where every dimension's preference applies: the assistant's answers ("citations on
# everything in your responses", "tabular summaries").
OUTPUTS = frozenset(("answer", "response", "reply", "summary", "output", "explanation",
                     "message", "exchange", "conversation", "chat"))
# Words a preposition's object may open with before its noun ("on everything", "in all of").
# A scope phrase that narrows a preference opens with one of these ("in code reviews", "for
# workouts"); a bare scope noun ("a thorough code review") is the thing a value describes.
_SCOPE_LEADS = re.compile(r"(?:in|for|during|at|on|with|when|while|inside|within|about)\b")
_DETERMINERS = frozenset(("everything", "anything", "each", "every", "all", "any", "both"))
# The last stretch of a clause before a word: its preposition, if any, governs the word.
_CLAUSE_STOP = re.compile(r"[,:;.!?()\[\]\u2014\u2013]|\s-+\s|->")
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


def tokens(low: str) -> list[tuple[str, int, int]]:
    """(stem, start, end) of each word, hyphenated compound and pair of neighbouring words
    of lower-cased `low`."""
    words = [(stem(m.group()), m.start(), m.end()) for m in WORD.finditer(low)]
    pairs = [(f"{a} {b}", s, e) for (a, s, _), (b, _, e) in zip(words, words[1:], strict=False)]
    compounds = [(stem(m.group()), m.start(), m.end()) for m in COMPOUND.finditer(low)]
    return [*words, *compounds, *pairs]


def stems(text: str) -> frozenset[str]:
    """The stems of the text's words and compounds, and of each pair of neighbouring words
    ("before lunch", "source link")."""
    low = text.lower()
    words = [stem(w) for w in WORD.findall(low)]
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    return frozenset((*words, *(stem(w) for w in COMPOUND.findall(low)), *pairs))


def _stands_alone_at(text: str, end: int) -> bool:
    """The stretch of `text` ending at `end` is not followed by a content word: a function
    word or a word the sentence encoder does not know (a typo the repair left: "rock nsuic")
    shows no other thing the cue describes."""
    after = _NEXT.match(text, end)
    if after is None or after.group(1) in FUNCTION_WORDS:
        return True
    word = after.group(1)
    vocabulary = encoder_vocabulary()
    return word not in vocabulary and stem(word) not in vocabulary


def follower(text: str, end: int) -> tuple[str, bool] | None:
    """The word after the stretch ending at `end`, and whether a hyphen joins it to the
    stretch ("jazz-era"); None at a punctuation mark or the end of the text."""
    if text[end:end + 1] == "-":
        joined = _NEXT.match(text, end + 1)
        return (joined.group(1), True) if joined else None
    after = re.compile(r"[ \t]*([a-z][a-z']*)").match(text, end)
    return (after.group(1), False) if after else None


def _adverb(word: str) -> bool:
    """An adverb by its form ("genuinely", "honestly"): it qualifies the clause, not a noun."""
    return len(word) > 5 and word.endswith("ly")


def _scope_at(low: str, end: int, scopes: set[int]) -> bool:
    """A scope phrase ("in standups", "for workouts") opens right after `end`: it narrows
    the preference rather than naming what the value describes."""
    gap = len(low[end:]) - len(low[end:].lstrip(" \t"))
    return end + gap in scopes


def _known(word: str) -> bool:
    vocabulary = encoder_vocabulary()
    return word in vocabulary or stem(word) in vocabulary


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
    # The nouns of the dimension's own claims ("answers", "code", "meetings", "tables").
    subjects: frozenset[str]
    # Stems of the words that weak cues of the dimension match on their own ("french").
    weak_words: frozenset[str]

    def about(self, word: str) -> bool:
        """`word` names what the dimension is about ("answers", "playlist", "code")."""
        return bool(self.context is not None and self.context.fullmatch(word)) or (
            stem(word) in self.subjects or stem(word) in OUTPUTS)


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
            subjects=frozenset(stem(w) for v in d.values for w in WORD.findall(v.phrase.lower())
                               if w not in FUNCTION_WORDS),
            weak_words=frozenset(stem(w) for w in _single_words(
                c for v in d.values for c in v.weak_cues)),
        )
    return out


_LOOKAROUND = re.compile(r"\(\?<?[!=](?:[^()]|\([^()]*\))*\)")


def _single_words(fragments: Iterable[str]) -> set[str]:
    """The words cue fragments match on their own ("french", "rock"), not a phrase's words."""
    words = set()
    for fragment in fragments:
        found = re.findall(r"[a-z]{3,}", _LOOKAROUND.sub("", fragment))
        if len(found) == 1:
            words.update(found)
    return words


_CUES = _compile()


@dataclass(frozen=True, slots=True)
class ValueSupport:
    """The learned lexicon: (dimension, value) → the stems that stand for the value."""

    words: Mapping[tuple[str, str], frozenset[str]]
    # Per dimension, the words its train statements put right after a value's name
    # ("summaries" in "tabular summaries", "routines" in "yoga routines").
    followers: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def evidence(self, text: str, dimension: str, value: str) -> list[tuple[int, int, str]]:
        """(start, end, kind) of each stretch of lower-cased `text` that names `value`."""
        cues = _CUES.get(dimension)
        if cues is None or value not in cues.values:
            return []
        low = text.lower()
        spaced = low.replace("-", " ")  # "month-first" meets the cue "month first"
        own = cues.values[value]
        found: list[tuple[int, int, str]] = []
        if own.strong is not None:
            found += [(m.start(), m.end(), "cue") for t in (low, spaced)
                      for m in own.strong.finditer(t)]
        if own.weak is not None:
            found += [(m.start(), m.end(), "weak") for m in own.weak.finditer(low)]
        if value in cues.polar_values and cues.polar is not None:
            found += [(m.start(), m.end(), "polar") for m in cues.polar.finditer(low)]
        if cues.name.search(low) and cues.value_names[value].search(low):
            found.append((0, len(low), "name"))
        learned = self.words.get((dimension, value))
        if learned:
            for token, start, end in tokens(low):
                if token in learned:
                    found.append((start, end, "lexicon"))
                elif _one_typo_away(token, learned):
                    found.append((start, end, "typo"))
        return sorted(set(found))

    def supports(self, text: str, dimension: str, value: str) -> bool:
        """The text carries lexical evidence for `value` of `dimension`: a stretch that names
        the value and is about the dimension's subject (`_about`)."""
        cues = _CUES.get(dimension)
        if cues is None:
            return False
        low = text.lower()
        return any(kind == "name" or self._about(low, start, end, kind, dimension, cues)
                   for start, end, kind in self.evidence(text, dimension, value))

    def _about(self, low: str, start: int, end: int, kind: str, dimension: str,
               cues: _DimensionCues) -> bool:
        """The stretch low[start:end] names the value of the dimension's subject, not of
        another thing: no noun follows it that it describes ("economy cars"); an ambiguous
        word (a weak cue, the polar word, a learned word) is not attached by a preposition
        to another noun ("comments on my essay"); a weak cue in an adjunct ("I read in the
        evening") names the value only where its sentence names the dimension."""
        followers = self.followers.get(dimension, frozenset())

        def names_subject(word: str) -> bool:
            return cues.about(word) or stem(word) in followers or (
                not _known(word) and self._misspells_subject(word, dimension, cues))

        after = follower(low, end)
        scoped = {s for s, e, _ in find_scopes(low) if _SCOPE_LEADS.match(low, s, e)}
        if after is not None:
            word, joined = after
            if not (names_subject(word) or (not joined and (
                    word in FUNCTION_WORDS or word in PREDICATES or _adverb(word)
                    or _scope_at(low, end, scoped)))):
                return False
        if kind == "cue":
            return True
        if after is not None and after[0] in ATTACHING and not after[1] and not _scope_at(
                low, end, scoped):
            head = self._head(low, end)
            if head is not None and not names_subject(head):
                return False
        weak = kind == "weak" or any(stem(w) in cues.weak_words
                                     for w in WORD.findall(low[start:end]))
        if not weak:
            return True
        sentence = next((m for m in _SENTENCE.finditer(low) if m.start() <= start < m.end()),
                        None)
        in_sentence = low if sentence is None else sentence.group()
        if cues.context is not None and cues.context.search(in_sentence):
            return True
        lead = _CLAUSE_STOP.split(low[max(0, start - 40):start])[-1]
        before = WORD.findall(lead)[-3:]
        first = WORD.findall(low[start:end])[:1]
        return not any(w in ADJUNCT for w in (*before, *first))

    def _misspells_subject(self, word: str, dimension: str, cues: _DimensionCues) -> bool:
        """`word`, which the encoder does not know, is a typo of a word the dimension's
        statements are about or go on with ("muusicc", "seatss")."""
        near = cues.subjects | OUTPUTS | self.followers.get(dimension, frozenset())
        typo = stem(word)
        return any(abs(len(typo) - len(w)) <= 2 and edit_distance(typo, w) <= 2
                   for w in near if len(w) >= 4) or any(
            abs(len(word) - len(w)) <= 1 and edit_distance(word, w) == 1
            for w in _CONNECTIVES if len(w) >= 3)

    @staticmethod
    def _head(low: str, end: int) -> str | None:
        """The first word of the clause past the preposition after `end` that is no function
        word: the noun (or its modifier) the preposition attaches to; None where it is
        everything ("citations on everything")."""
        clause = _CLAUSE_STOP.split(low[end:end + 60])[0]
        words: list[str] = WORD.findall(clause)
        for word in words[1:5]:
            if word in ("everything", "anything"):
                return None
            if word not in FUNCTION_WORDS and word not in _DETERMINERS:
                return word
        return None


def load_value_support(path: Path = VALUE_SUPPORT) -> ValueSupport:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    words: dict[tuple[str, str], frozenset[str]] = {}
    for dimension, values in (data.get("values") or {}).items():
        for value, listed in (values or {}).items():
            words[(str(dimension), str(value))] = frozenset(str(w) for w in listed or ())
    followers = {str(dimension): frozenset(str(w) for w in listed or ())
                 for dimension, listed in (data.get("followers") or {}).items()}
    return ValueSupport(words, followers)


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
