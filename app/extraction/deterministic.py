"""A rule-based extractor: cue phrases and the taxonomy, no model.

It is the CPU floor the trained extractor is compared with, and the fallback when no model
is loaded. One pass per sentence:

1. refuse the sentence outright when it touches a protected category, is a hypothetical,
   a non-request question, or a statement about someone else;
2. blank out quoted text, hedges ("maybe") and scope phrases ("in standups") so they are
   not read as values, remembering the hedge and the scope;
3. find value mentions from the taxonomy, then preference cues ("I prefer", "don't", "use",
   "... works best") between them;
4. give each mention a direction from the nearest cue before it in its clause (or the
   first one after it), and a confidence from that cue's strength.

Everything is precompiled at import; a typical event takes well under a millisecond.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from pydantic import ValidationError

from app.domain.claims import (
    GLOBAL_SCOPE,
    Extraction,
    Hypothesis,
    ProtectedAttributeError,
    protected_category,
)
from app.domain.extractor import EventInput
from app.domain.vocabulary import Direction, Timescale
from app.extraction.taxonomy import (
    DIMENSIONS,
    SCOPE_DOMAINS_BY_NAME,
    Dimension,
    compile_cues,
    find_scopes,
)

logger = logging.getLogger(__name__)

# Bounds that keep the cost of one event flat, whatever is pasted into it.
MAX_TEXT_CHARS = 20_000
MAX_SENTENCE_CHARS = 1_000
MAX_SENTENCES = 200

# Confidence multipliers. A cue's own strength is the starting point.
_HEDGE_STRONG = 0.65  # "maybe", "not sure"
_HEDGE_MILD = 0.85  # "I think"
_REQUEST_QUESTION = 0.85  # "could you use tables?"
_NO_LOCAL_CUE = 0.85  # direction read from the sentence, not the mention's clause
_WEAK_MENTION = 0.9  # an ambiguous word ("short") read through its context
_RIVAL_VALUES = 0.8  # two values of one dimension wanted in one sentence
_MIN_CONFIDENCE = 0.05
_MAX_CONFIDENCE = 0.99

# Abstention codes, most telling first: the event's reason is the first one any sentence gave.
ABSTAIN_REASONS = (
    "protected_attribute",
    "third_party",
    "hypothetical",
    "quoted",
    "question",
    "no_dimension",
    "no_preference_cue",
    "too_long",
    "empty",
    "internal_error",
)

_Kind = Literal["pref", "mod", "post", "imperative", "from", "to"]


@dataclass(frozen=True, slots=True)
class _CueSpec:
    pattern: str
    polarity: int  # +1 prefer, -1 avoid
    strength: float
    # pref: a preference statement ("I prefer"); mod: only flips direction ("not", "than");
    # post: judges what came before it ("... works best"); imperative: an instruction verb,
    # valid only at the head of its clause; from/to: "switch from X to Y".
    kind: _Kind
    # Words the cue reaches forward ("I'm a vegan", not "I'm writing the Python tests").
    reach: int | None = None
    # A modifier that, heading its clause, is itself an instruction ("No tables.").
    leads: bool = False


_FIRST = r"(?:i|we)(?:'d|'ll|\s+would|\s+will)?"
_ADV = (
    r"(?:\s+(?:really|strongly|definitely|generally|usually|typically|normally|mostly|always|"
    r"also|much|actually|honestly|still|now|totally|absolutely|do|very|truly|personally|"
    r"increasingly|only|tend to|would|much rather))*"
)
_PREFER = r"pref(?:er|ere|re)(?:s|red)?|perfer(?:s|red)?|preffer"
_NEG_AUX = (
    r"(?:do not|don't|dont|did not|didn't|no longer|never|can't|cannot|can not|won't|"
    r"wouldn't|would not|'d not)"
)

_CUE_SPECS: tuple[_CueSpec, ...] = (
    # First person. Neutral and negative forms first: alternation order decides ties.
    _CueSpec(
        _FIRST + _ADV + r"\s+(?:don't|do not) mind|" + _FIRST + r"\s+wouldn't mind", +1, 0.6, "pref"
    ),
    _CueSpec(
        _FIRST
        + _ADV
        + r"\s+"
        + _NEG_AUX
        + r"(?:\s+(?:really|actually|particularly|even|always|ever))*"
        + r"(?:\s+(?:"
        + _PREFER
        + r"|like|want|enjoy|need|love|care for|use|stand|tolerate|"
        r"eat|drink|fly|listen to|read|get along with)(?:\s+to)?)?",
        -1,
        0.9,
        "pref",
    ),
    _CueSpec(
        _FIRST + _ADV + r"\s+(?:hate|dislike|detest|loathe|despise|can't stand|cannot stand|"
        r"avoid|try to avoid|steer clear of|stopped|quit|gave up(?: on)?|object to|"
        r"used to (?:like|love|prefer|want|use|enjoy)|(?:am|'m) (?:tired|sick|done) (?:of|with)|"
        r"(?:am|'m) not (?:a |the )?(?:big |huge )?fan of|(?:am|'m) not (?:into|fond of))",
        -1,
        0.9,
        "pref",
    ),
    _CueSpec(_FIRST + r"\s+used to", -1, 0.7, "pref", reach=4),
    _CueSpec(
        _FIRST + _ADV + r"\s+(?:" + _PREFER + r"|want|love|adore|rather|favou?r)",
        +1,
        0.9,
        "pref",
    ),
    _CueSpec(
        _FIRST + _ADV + r"\s+(?:like|enjoy|need|appreciate|(?:go|went) (?:for|with)|"
        r"stick (?:with|to)|lean (?:towards?|to)|choose|opt for|dig|"
        r"(?:am|'m) (?:a )?(?:big |huge )?fan of|(?:am|'m) into|do best with)",
        +1,
        0.85,
        "pref",
    ),
    # Habits say less than statements of preference, and only about what follows closely.
    _CueSpec(
        _FIRST + _ADV + r"\s+(?:use|fly|eat|drink|listen to|write|code in|work in|program in|"
        r"run|book|pick|order|read|play|cook|speak|schedule|program|code|develop|go|do)",
        +1,
        0.7,
        "pref",
        reach=4,
    ),
    _CueSpec(
        r"(?:i'm|i am|im)\s+(?:not\s+(?:a |the )?(?:big |huge )?fan of|not (?:into|fond of)|"
        r"(?:tired|sick|done) (?:of|with))",
        -1,
        0.9,
        "pref",
    ),
    _CueSpec(r"(?:i'm|i am|im)\s+(?:(?:a )?(?:big |huge )?fan of|into|fond of)", +1, 0.85, "pref"),
    _CueSpec(r"(?:i'm|i am|im)\s+not(?:\s+(?:a|an|really|very))*", -1, 0.6, "pref", reach=0),
    _CueSpec(
        r"(?:i'm|i am|im)"
        r"(?:\s+(?:a|an|big|huge|pretty|very|quite|strictly|mostly|fully|more of an?))*",
        +1,
        0.6,
        "pref",
        reach=0,
    ),
    # Third person, as a profile or an injected document words it.
    _CueSpec(
        r"(?:the\s+)?user\s+(?:\w+ly\s+)?(?:does not|doesn't|dislikes|hates|never wants|"
        r"no longer wants|avoids|can't stand|is not a fan of|isn't a fan of)"
        r"(?:\s+(?:like|want|enjoy|need|care for))?",
        -1,
        0.8,
        "pref",
    ),
    _CueSpec(
        r"(?:the\s+)?user(?:'s)?\s+(?:\w+ly\s+)?(?:prefers|likes|wants|loves|enjoys|needs|"
        r"favou?rs|has asked for|asked for|requested|requests|would (?:like|prefer)|"
        r"is (?:a )?fan of|preferences?(?:\s+(?:is|are))?|preferred \w+(?:\s+(?:is|are))?)",
        +1,
        0.8,
        "pref",
    ),
    _CueSpec(
        r"(?:the\s+)?assistant\s+(?:should|must)\s+(?:never|not|avoid|stop)|"
        r"(?:the\s+)?assistant\s+(?:shouldn't|should not|must not)",
        -1,
        0.75,
        "pref",
    ),
    _CueSpec(r"(?:the\s+)?assistant\s+(?:should|must)(?:\s+always)?", +1, 0.75, "pref"),
    _CueSpec(r"(?:the\s+)?user\s+is(?:\s+(?:a|an))?", +1, 0.75, "pref", reach=0),
    _CueSpec(r"preferences?|preferred(?: \w+)?(?:\s+(?:is|are))?", +1, 0.8, "pref"),
    _CueSpec(
        r"(?:my|our) (?:preference|preferred \w+|favou?rite(?: \w+)?|go-to(?: \w+)?)"
        r"(?:\s+(?:is|are|would be))?",
        +1,
        0.85,
        "pref",
    ),
    _CueSpec(r"prefers|likes|loves|wants", +1, 0.75, "pref"),
    _CueSpec(r"dislikes|hates|avoids", -1, 0.75, "pref"),
    # Requests and instructions to the assistant.
    _CueSpec(
        r"(?:please|pls|plz)\s+(?:don't|do not|dont|never|stop|avoid|no more|quit|no)",
        -1,
        0.9,
        "pref",
    ),
    _CueSpec(
        r"(?:can|could|would|will) you(?: please)? (?:stop|not|never|avoid|quit)", -1, 0.8, "pref"
    ),
    _CueSpec(
        r"you (?:shouldn't|should not|must not|mustn't|don't need to|do not need to)|"
        r"you (?:should|must) (?:never|stop|avoid)",
        -1,
        0.75,
        "pref",
    ),
    _CueSpec(
        r"(?:make sure|be sure|remember|don't forget|do not forget|never forget)"
        r"(?: to| you| that you)?",
        +1,
        0.8,
        "pref",
    ),
    _CueSpec(r"please|pls|plz|preferably|ideally|if possible", +1, 0.75, "pref"),
    _CueSpec(r"(?:can|could|would|will) you(?: please)?(?: always)?", +1, 0.75, "pref"),
    _CueSpec(r"you (?:should|must|need to|have to)(?: always)?", +1, 0.75, "pref"),
    _CueSpec(r"let's|let us", +1, 0.75, "pref"),
    _CueSpec(
        r"from now on|going forward|moving forward|henceforth|next time|in the future",
        +1,
        0.85,
        "pref",
    ),
    _CueSpec(
        r"(?:switch(?:ing|ed)?|mov(?:e|ed|ing)|chang(?:e|ed|ing)|migrat(?:e|ed|ing))"
        r"(?: over| away| it| that)? from|instead of using",
        -1,
        0.85,
        "from",
    ),
    _CueSpec(
        r"switch(?:ing)?(?: over| back)? to|chang(?:e|ing) (?:it |that )?to|"
        r"mov(?:e|ing) (?:over )?to|migrat(?:e|ing) to|convert(?:ing)? (?:it |them )?to",
        +1,
        0.85,
        "pref",
    ),
    _CueSpec(
        r"stop(?:ping)?|quit|enough (?:with|of)|cut (?:out|down on|back on)|"
        r"get rid of|ditch|skip|spare me|hold the|no more",
        -1,
        0.85,
        "pref",
    ),
    _CueSpec(r"avoid(?:ing)?|never again", -1, 0.85, "pref"),
    _CueSpec(
        r"(?:is|are|was|were|'re|'s|been|getting|gets?)\s+(?:(?:way|far|much|a bit|"
        r"a little|kind of|sort of|just)\s+)?too",
        -1,
        0.75,
        "pref",
    ),
    # Judgements that apply to what came before them ("tables are the worst").
    _CueSpec(
        r"(?:is|are|'s|'re|seems?|feels?|works?|reads?)\s+(?:(?:much|way|far|so|a lot|"
        r"generally|always|usually|just)\s+)*(?:best|better|great|ideal|perfect|easier|nicer|"
        r"preferable|clearer|my favou?rite|my go-to|the way to go|my jam|my thing|my style)|"
        r"works? (?:best|better|well|great) for me|suits? me|instead(?! of)|"
        r"(?:fan|lover|person|enthusiast|fanatic)",
        +1,
        0.75,
        "post",
    ),
    _CueSpec(
        r"(?:is|are|'s|'re|seems?|feels?|gets?|looks?|reads?)\s+(?:(?:so|way|far|really|"
        r"kind of|sort of|a bit)\s+)*(?:annoying|irritating|unhelpful|useless|distracting|"
        r"the worst|worse|overkill|hard to (?:read|follow)|noisy|a pain|exhausting|tedious|"
        r"boring|cluttered|confusing|unnecessary|too much)|"
        r"(?:isn't|is not|aren't|are not|'s not|'re not) (?:for me|my thing|my style|helpful|"
        r"useful|needed|necessary|my cup of tea)|drives? me (?:crazy|nuts|up the wall)|"
        r"gets? on my nerves|(?:bugs|bothers?|annoys?) me|not my (?:thing|style|cup of tea)",
        -1,
        0.75,
        "post",
    ),
    # Instruction verbs; checked for heading their clause after matching.
    _CueSpec(
        r"use|write|give(?: me)?|keep|make|respond|reply|answer|format|put|show(?: me)?|"
        r"include|add|send(?: me)?|notify(?: me)?|ping(?: me)?|book|schedule|cite|list|talk|"
        r"speak|explain|play|recommend|suggest|stick (?:with|to)|go with|default to|be|stay|"
        r"try|lay out|present|structure|organi[sz]e|convert|translate|break (?:it )?down|"
        r"summari[sz]e|plan|provide|document|comment|go for|pick|choose|opt for",
        +1,
        0.75,
        "imperative",
    ),
    # Modifiers: they flip direction, and some head an instruction.
    _CueSpec(r"don't|do not|dont|never|no longer|not anymore", -1, 0.85, "mod", leads=True),
    _CueSpec(r"not(?!\s+(?:only|sure|certain|just|that)\b)", -1, 0.7, "mod", leads=True),
    _CueSpec(
        r"no(?!\s*[,.!?;:]|\s+(?:problem|worries|matter|doubt|idea|way)\b)",
        -1,
        0.7,
        "mod",
        leads=True,
    ),
    _CueSpec(r"more|nothing but|exclusively", +1, 0.7, "mod"),
    _CueSpec(r"always|only", +1, 0.7, "mod", leads=True),
    _CueSpec(
        r"without|minus|sans|instead of|rather than|as opposed to|in place of|"
        r"other than|than|over|versus|vs\.?|less|fewer|too(?=\s+\w)",
        -1,
        0.7,
        "mod",
    ),
    _CueSpec(r"to", +1, 0.7, "to"),
)

_TOPIC_BEFORE = re.compile(
    r"(?<!\w)(?:examples?|articles?|questions?|stor(?:y|ies)|posts?|books?|videos?|"
    r"tutorials?|history|definitions?|facts|docs|documentation|lessons?|quiz|news|"
    r"overviews?|summar(?:y|ies)|introductions?|intro)\s+"
    r"(?:of|about|on|for|regarding)\s+(?:(?:a|an|the|some|this|that)\s+)?$"
)
# A value heading its clause that is an instruction by itself ("Keep it short.").
_SELF_CUE = re.compile(
    r"(?:keep|make|skip|walk|assume|dumb|text|e-?mail|cite|always|never|no|comment|fly|"
    r"without)(?!\w)"
)
_SELF_CUE_SPEC = _CueSpec(_SELF_CUE.pattern, +1, 0.75, "pref")
_WORD = re.compile(r"\w+")

# One scan for all cues; the word-start check up front keeps it cheap.
_CUE_RE = re.compile(
    r"(?<!\w)(?:"
    + "|".join(rf"(?P<c{i}>{spec.pattern})" for i, spec in enumerate(_CUE_SPECS))
    + r")(?!\w)"
)

# What may stand between a clause's start and an instruction verb ("please always use").
_LEAD_FILLER = re.compile(
    r"(?:\s|[.!]|\b(?:and|then|so|also|please|kindly|pls|ok|okay|actually|honestly|oh|well|"
    r"but|now|instead|hey|hi|always|again|seriously|generally|usually|just|only|simply|"
    r"can you|could you|would you|will you|you should|you must|you need to|you have to|"
    r"make sure to|make sure you|be sure to|remember to|don't forget to|do not forget to|"
    r"from now on|going forward|next time|in the future|let's|let us)\b)*"
)
# What may stand between a cue and an ambiguous value it reaches ("I prefer using Go").
_WEAK_GAP = re.compile(
    r"(?:\s|\b(?:using|use|with|the|a|an|in|more|less|some|mostly|really|very|much|fairly|"
    r"pretty|super|extra|it|them|fly|flying|eat|eating|listen to|listening to|write|writing|"
    r"meet|meeting|be|keep|have|get)\b)*"
)

_CLAUSE_BREAK = re.compile(
    r"[,;:()\[\]]|\s[-\u2013\u2014]+\s|\b(?:but|however|though|although|whereas)\b"
)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"'\u201d\u2019)])\s+|\n+")
_ABBREVIATION_END = re.compile(r"(?<!\w)(?:e\.g|i\.e|etc|vs|cf|approx|mr|mrs|ms|dr)\.$", re.I)
_CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d")

_HEDGES_STRONG = re.compile(
    r"(?<!\w)(?:maybe|perhaps|i guess|(?:i'm |i am )?not (?:really )?(?:sure|certain)|unsure|"
    r"probably|possibly|might|kind of|kinda|sort of|i suppose|i dunno|idk|"
    r"i don't know|i do not know|no idea|who knows|could be|hard to say)(?!\w)"
)
_HEDGES_MILD = re.compile(
    r"(?<!\w)(?:i think|i feel like|i believe|i'd say|it seems|somewhat|a bit|a little|"
    r"slightly)(?!\w)"
)
_SITUATIONAL = re.compile(
    r"(?<!\w)(?:for now|for the (?:time being|moment)|today|tonight|tomorrow|"
    r"this (?:week|weekend|time|once|morning|afternoon|evening|month|sprint|session|"
    r"conversation|chat|thread|task|one|email|reply|answer)|just (?:for )?this (?:once|one|time)|"
    r"just for (?:this|now|today)|just this once|temporar(?:y|ily)|right now|at the moment|"
    r"for the next (?:few |couple of )?(?:days?|weeks?|hours?|minutes?)|until (?:further notice|"
    r"tomorrow|next week|the end of|monday|tuesday|wednesday|thursday|friday|i say otherwise))"
    r"(?!\w)"
)
_HYPOTHETICAL = re.compile(
    r"(?<!\w)(?:if (?:i|we) (?:were|was|had|could|ever)|suppose|supposing|imagine|"
    r"hypothetical(?:ly)?|what if|let's say|lets say|pretend|in theory|in a world where|"
    r"would (?:i|we)|if you were|wondering (?:if|whether)|i wonder (?:if|whether))(?!\w)"
)
_REQUEST_START = re.compile(r"^\W*(?:please\s+)?(?:can|could|would|will)\s+you\b|\bplease\b")
_QUESTION_START = re.compile(
    r"^\W*(?:do|does|did|should|shall|is|are|was|were|have|has)\s+"
    r"(?:you|i|we|it|there|this|that|they)\b"
)
_THIRD_PARTY = re.compile(
    r"(?<!\w)(?:(?:my|our|his|her|their|a|the)\s+(?:\w+\s+)?(?:wife|husband|partner|boss|"
    r"manager|colleague|coworker|co-worker|friends?|teammates?|kids?|children|son|daughter|"
    r"mom|mum|mother|dad|father|brother|sister|parents?|clients?|customers?|roommate|"
    r"flatmate|neighbou?r|family|girlfriend|boyfriend|cousin|uncle|aunt|grandma|grandpa|"
    r"mentor|reviewer)|he|she|they|someone|somebody|everyone|everybody|nobody|people|others)"
    r"\s+(?:\w+\s+)?(?:prefers?|likes?|loves?|wants?|hates?|dislikes?|enjoys?|is|are|was|"
    r"were|eats?|said|says|told|thinks|insists|asked|needs?|can't|doesn't|does not|don't|"
    r"always|never|usually|only)(?!\w)"
)
# A name followed by a preference verb ("Maria prefers tables"); needs the original case.
_NAMED_THIRD_PARTY = re.compile(
    r"\b(?!(?:I|The|User|Assistant|Please|Always|Never|We|My|Our|Also|Just|Really)\b)"
    r"[A-Z][a-z]+\s+(?:really\s+|also\s+|always\s+|never\s+)?"
    r"(?:prefers|likes|loves|wants|hates|dislikes|enjoys|said|says|told me|thinks|insists)\b"
)


@dataclass(frozen=True, slots=True)
class _CompiledValue:
    name: str
    strong: re.Pattern[str] | None
    weak: re.Pattern[str] | None


@dataclass(frozen=True, slots=True)
class _CompiledDimension:
    dimension: Dimension
    # Any cue of the dimension: most sentences touch one or two dimensions, so the
    # per-value patterns run only behind this one.
    any_cue: re.Pattern[str]
    values: tuple[_CompiledValue, ...]
    context: re.Pattern[str] | None
    polar: re.Pattern[str] | None


def _compile_dimension(dimension: Dimension) -> _CompiledDimension:
    values = tuple(
        _CompiledValue(v.name, compile_cues(v.cues), compile_cues(v.weak_cues))
        for v in dimension.values
    )
    context = compile_cues((dimension.context,)) if dimension.context else None
    polar = compile_cues((dimension.polar.pattern,)) if dimension.polar else None
    every = [c for v in dimension.values for c in (*v.cues, *v.weak_cues)]
    if dimension.polar:
        every.append(dimension.polar.pattern)
    any_cue = compile_cues(tuple(every))
    assert any_cue is not None  # every dimension has cues
    return _CompiledDimension(dimension, any_cue, values, context, polar)


_COMPILED: tuple[_CompiledDimension, ...] = tuple(_compile_dimension(d) for d in DIMENSIONS)


@dataclass(frozen=True, slots=True)
class _Cue:
    start: int
    end: int
    spec: _CueSpec
    # The spec's kind, except a modifier heading its clause, which is an instruction.
    kind: _Kind

    @property
    def polarity(self) -> int:
        return self.spec.polarity

    @property
    def strength(self) -> float:
        return self.spec.strength


@dataclass(frozen=True, slots=True)
class _Mention:
    start: int
    end: int
    dimension: Dimension
    value: str | None  # None for a polar mention: the direction picks the value
    weak: bool = False
    # A weak mention without its dimension's context stands only right after a cue.
    needs_cue: bool = False

    @property
    def rank(self) -> tuple[int, int, int]:
        # Longer wins; at equal length an explicit value beats a polar word, strong beats weak.
        return (self.end - self.start, self.value is not None, not self.weak)


@dataclass(frozen=True, slots=True)
class _Reading:
    """One mention read with its direction."""

    mention: _Mention
    polarity: int
    strength: float
    scope: str


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text[:MAX_TEXT_CHARS])
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    # Code is not a preference statement, even when it contains one in a comment.
    text = _CODE_BLOCK.sub("\n", text)
    return _INLINE_CODE.sub(" ", text)


def split_sentences(text: str) -> list[str]:
    """Sentences of the text, in order, at most MAX_SENTENCES of them."""
    sentences: list[str] = []
    for part in _SENTENCE_BREAK.split(_normalize(text)):
        part = part.strip()
        if not part:
            continue
        if sentences and _ABBREVIATION_END.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {part}"  # "e.g. tables" did not end a sentence
        else:
            sentences.append(part)
        if len(sentences) > MAX_SENTENCES:
            break
    return sentences[:MAX_SENTENCES]


class DeterministicExtractor:
    """Reads preferences with cue phrases and the taxonomy. Pure, deterministic, fast."""

    name = "deterministic"
    version = "1"

    def extract(self, event: EventInput) -> Extraction:
        try:
            return self._extract(event)
        except Exception:  # the Extractor contract: odd text must not fail the pipeline
            logger.exception("deterministic extraction failed")
            return self._abstain("internal_error")

    def _abstain(self, reason: str) -> Extraction:
        return Extraction(
            extractor=self.name, extractor_version=self.version, abstain_reason=reason
        )

    def _extract(self, event: EventInput) -> Extraction:
        text = event.text if isinstance(event.text, str) else ""
        sentences = split_sentences(text)
        if not sentences:
            return self._abstain("empty")
        found: dict[tuple[str, str], Hypothesis] = {}
        reasons: set[str] = set()
        for index, sentence in enumerate(sentences):
            hypotheses, reason = _read_sentence(sentence, index, event)
            if reason is not None:
                reasons.add(reason)
            for hypothesis in hypotheses:
                key = (hypothesis.subject, hypothesis.value)
                held = found.get(key)
                # A later sentence restates or corrects an earlier one; within one sentence
                # the surer reading stands.
                if (
                    held is None
                    or held.sentence_index < hypothesis.sentence_index
                    or held.confidence < hypothesis.confidence
                ):
                    found[key] = hypothesis
        if found:
            return Extraction(
                hypotheses=tuple(found.values()),
                extractor=self.name,
                extractor_version=self.version,
            )
        reason = next((r for r in ABSTAIN_REASONS if r in reasons), "no_preference_cue")
        return self._abstain(reason)


def states_preference(text: str) -> bool:
    """Some sentence of `text` holds a cue the rule reader reads a preference by (a first-
    person preference, an instruction heading its clause, a judgement) and is neither a
    question nor a hypothetical: what a statement needs to be kept as an open claim when no
    taxonomy value it says can be read."""
    for sentence in split_sentences(text):
        low = sentence.lower()
        if len(sentence) > MAX_SENTENCE_CHARS or _HYPOTHETICAL.search(low):
            continue
        asks = low.rstrip(" \"')\u201d").endswith("?") or _QUESTION_START.search(low)
        if asks and not _REQUEST_START.search(low):
            continue
        masked, _, _ = _mask(low)
        mentions = _find_mentions(masked)
        cue_text = masked
        for mention in mentions:
            cue_text = _blank(cue_text, mention.start, mention.end)
        if _has_preference_cue(_find_cues(cue_text, mentions, _clauses(masked), masked)):
            return True
    return False


def _read_sentence(
    sentence: str, index: int, event: EventInput
) -> tuple[list[Hypothesis], str | None]:
    """Hypotheses read from one sentence, or the reason it gave none."""
    if len(sentence) > MAX_SENTENCE_CHARS:
        return [], "too_long"
    if protected_category(sentence) is not None:
        return [], "protected_attribute"
    low = sentence.lower()
    if _HYPOTHETICAL.search(low):
        return [], "hypothetical"

    confidence_scale = 1.0
    if low.rstrip(" \"')\u201d").endswith("?") or _QUESTION_START.search(low):
        if not _REQUEST_START.search(low):
            return [], "question"
        confidence_scale *= _REQUEST_QUESTION

    masked, hedge, scopes = _mask(low)
    confidence_scale *= hedge
    mentions = _find_mentions(masked)
    cue_text = masked
    for mention in mentions:
        cue_text = _blank(cue_text, mention.start, mention.end)
    clauses = _clauses(masked)
    cues = _find_cues(cue_text, mentions, clauses, masked)
    mentions = [m for m in mentions if not m.needs_cue or _reached(m, cues, masked)]

    if not _has_preference_cue(cues):
        quoted = _QUOTED.search(low) is not None and _has_preference_cue(
            _find_cues(low, [], _clauses(low), low)
        )
        return [], "quoted" if quoted else "no_preference_cue"
    if not mentions:
        return [], "no_dimension"

    third_party = [m.start() for m in _THIRD_PARTY.finditer(low)]
    if len(low) == len(sentence):
        third_party += [m.start() for m in _NAMED_THIRD_PARTY.finditer(sentence)]

    readings = _read_mentions(mentions, cues, clauses, scopes, third_party, masked)
    if not readings:
        return [], "third_party" if third_party else "no_preference_cue"
    timescale = Timescale.situational if _SITUATIONAL.search(masked) else Timescale.permanent
    return _hypotheses(readings, timescale, confidence_scale, index, event), None


def _mask(low: str) -> tuple[str, float, list[tuple[int, str]]]:
    """Blank out quotes, hedges and scope phrases; keep the hedge factor and the scopes."""
    masked = _QUOTED.sub(_spaces, low)
    hedge = 1.0
    if _HEDGES_STRONG.search(masked):
        hedge = _HEDGE_STRONG
    elif _HEDGES_MILD.search(masked):
        hedge = _HEDGE_MILD
    masked = _HEDGES_MILD.sub(_spaces, _HEDGES_STRONG.sub(_spaces, masked))
    scopes: list[tuple[int, str]] = []
    for start, end, scope_name in find_scopes(masked):
        scopes.append((start, scope_name))
        masked = _blank(masked, start, end)
    return masked, hedge, scopes


def _spaces(match: re.Match[str]) -> str:
    return " " * len(match.group())


def _find_mentions(text: str) -> list[_Mention]:
    """Value mentions, overlaps resolved in favour of the longer, more explicit one."""
    candidates: list[_Mention] = []
    for compiled in _COMPILED:
        if not compiled.any_cue.search(text):
            continue
        has_context = bool(compiled.context and compiled.context.search(text))
        for value in compiled.values:
            if value.strong is not None:
                for match in value.strong.finditer(text):
                    candidates.append(
                        _Mention(match.start(), match.end(), compiled.dimension, value.name)
                    )
            if value.weak is not None:
                for match in value.weak.finditer(text):
                    candidates.append(
                        _Mention(
                            match.start(),
                            match.end(),
                            compiled.dimension,
                            value.name,
                            weak=True,
                            needs_cue=not has_context,
                        )
                    )
        if compiled.polar is not None:
            for match in compiled.polar.finditer(text):
                candidates.append(_Mention(match.start(), match.end(), compiled.dimension, None))
    if not candidates:
        return []
    candidates.sort(key=lambda m: m.rank, reverse=True)
    kept: list[_Mention] = []
    for candidate in candidates:
        if all(candidate.end <= k.start or candidate.start >= k.end for k in kept):
            kept.append(candidate)
    # "an example of a table join" names a topic, not a wanted format.
    kept = [m for m in kept if not _TOPIC_BEFORE.search(text, 0, m.start)]
    # A polar word only speaks for its dimension when no value of it is named.
    named = {m.dimension.name for m in kept if m.value is not None}
    kept = [m for m in kept if m.value is not None or m.dimension.name not in named]
    return sorted(kept, key=lambda m: m.start)


def _clauses(text: str) -> list[tuple[int, int]]:
    bounds = [0]
    for match in _CLAUSE_BREAK.finditer(text):
        bounds.extend((match.start(), match.end()))
    bounds.append(len(text))
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds) - 1, 2)]


def _clause_of(position: int, clauses: list[tuple[int, int]]) -> int:
    for i, (start, end) in enumerate(clauses):
        if start <= position < end:
            return i
    return len(clauses) - 1


def _find_cues(
    text: str, mentions: list[_Mention], clauses: list[tuple[int, int]], source: str
) -> list[_Cue]:
    """Cues in the text (mentions blanked out of it; `source` still has them).

    Instruction verbs and leading modifiers are checked for heading their clause.
    """
    cues: list[_Cue] = []
    for match in _CUE_RE.finditer(text):
        group = match.lastgroup
        if group is None:
            continue
        spec = _CUE_SPECS[int(group[1:])]
        start, end = match.start(), match.end()
        if spec.kind == "imperative" and not _heads_clause(start, text, mentions, clauses):
            continue
        kind = spec.kind
        if kind == "mod" and spec.leads and _heads_clause(start, text, mentions, clauses):
            kind = "pref"
        cues.append(_Cue(start, end, spec, kind))
    # Some values are instructions by themselves ("keep it short", "no citations").
    for mention in mentions:
        if _SELF_CUE.match(source, mention.start) and _heads_clause(
            mention.start, text, mentions, clauses
        ):
            cues.append(_Cue(mention.start, mention.start, _SELF_CUE_SPEC, "pref"))
    return sorted(cues, key=lambda c: (c.start, c.end))


def _heads_clause(
    position: int, text: str, mentions: list[_Mention], clauses: list[tuple[int, int]]
) -> bool:
    start = clauses[_clause_of(position, clauses)][0]
    for mention in mentions:
        if start <= mention.end <= position:
            start = mention.end
    return _LEAD_FILLER.fullmatch(text, start, position) is not None


def _reached(mention: _Mention, cues: list[_Cue], text: str) -> bool:
    """A weak mention without context counts when a preference cue directly precedes it."""
    before = [c for c in cues if c.end <= mention.start and c.kind not in ("post", "to")]
    if not before:
        return False
    return _WEAK_GAP.fullmatch(text, before[-1].end, mention.start) is not None


def _has_preference_cue(cues: list[_Cue]) -> bool:
    return any(c.kind in ("pref", "post", "imperative", "from") for c in cues)


def _within_reach(cue: _Cue, mention: _Mention, text: str) -> bool:
    if cue.spec.reach is None:
        return True
    return len(_WORD.findall(text, cue.end, mention.start)) <= cue.spec.reach


def _read_mentions(
    mentions: list[_Mention],
    cues: list[_Cue],
    clauses: list[tuple[int, int]],
    scopes: list[tuple[int, str]],
    third_party: list[int],
    text: str,
) -> list[_Reading]:
    # Cues that reach only a few words ("I'm a ...") cannot speak for the whole sentence.
    sentence_strength = max(
        (c.strength for c in cues if c.kind not in ("mod", "to") and c.spec.reach is None),
        default=None,
    )
    third_clauses = {_clause_of(p, clauses) for p in third_party}
    carried = _carried_polarity(mentions, cues, clauses)
    readings: list[_Reading] = []
    for mention in mentions:
        clause_index = _clause_of(mention.start, clauses)
        if clause_index in third_clauses:
            continue
        clause_start, clause_end = clauses[clause_index]
        in_clause = [c for c in cues if clause_start <= c.start < clause_end]
        decided = _decide(mention, in_clause, text)
        if decided is None:
            if third_party or sentence_strength is None:
                continue  # with someone else in the sentence, only local cues speak for the user
            polarity = carried.get(clause_index, 1)
            strength = sentence_strength * _NO_LOCAL_CUE
        else:
            polarity, strength = decided
        scope = _scope_for(mention, clauses, clause_index, scopes)
        readings.append(_Reading(mention, polarity, strength, scope))
    return readings


def _decide(mention: _Mention, in_clause: list[_Cue], text: str) -> tuple[int, float] | None:
    """Direction and strength from the cues of the mention's clause, if they speak to it."""
    before: list[_Cue] = []
    seen_from = False
    for cue in in_clause:
        if cue.end > mention.start:
            break
        if cue.kind == "from":
            seen_from = True
        if cue.kind == "post" or (cue.kind == "to" and not seen_from):
            continue
        if _within_reach(cue, mention, text):
            before.append(cue)
    if before:
        stated = [c.strength for c in before if c.kind not in ("mod", "to")]
        strength = max(stated) if stated else before[-1].strength
        return before[-1].polarity, strength
    for cue in in_clause:
        if cue.start >= mention.end and cue.kind in ("pref", "post", "imperative"):
            return cue.polarity, cue.strength
    return None


def _carried_polarity(
    mentions: list[_Mention], cues: list[_Cue], clauses: list[tuple[int, int]]
) -> dict[int, int]:
    """Direction a clause inherits from a mention-free clause before it ("I prefer, in X, Y")."""
    carried: dict[int, int] = {}
    current: int | None = None
    for i, (start, end) in enumerate(clauses):
        if current is not None:
            carried[i] = current
        has_mention = any(start <= m.start < end for m in mentions)
        clause_cues = [c for c in cues if start <= c.start < end and c.kind != "to"]
        if has_mention:
            current = None
        elif clause_cues:
            current = clause_cues[-1].polarity
    return carried


def _scope_for(
    mention: _Mention,
    clauses: list[tuple[int, int]],
    clause_index: int,
    scopes: list[tuple[int, str]],
) -> str:
    if not scopes:
        return GLOBAL_SCOPE
    start, end = clauses[clause_index]
    local = [s for s in scopes if start <= s[0] < end]
    pool = local or scopes
    _, name = min(pool, key=lambda s: (abs(s[0] - mention.start), s[0]))
    return GLOBAL_SCOPE if name == mention.dimension.home_scope else name


def _hypotheses(
    readings: list[_Reading],
    timescale: Timescale,
    confidence_scale: float,
    index: int,
    event: EventInput,
) -> list[Hypothesis]:
    wanted: dict[tuple[str, str], set[str]] = {}
    resolved: list[tuple[_Reading, str, Direction]] = []
    for reading in readings:
        value, direction = _value_and_direction(reading)
        resolved.append((reading, value, direction))
        if direction is Direction.prefer:
            wanted.setdefault((reading.mention.dimension.name, reading.scope), set()).add(value)
    hypotheses: list[Hypothesis] = []
    for reading, value, direction in resolved:
        dimension = reading.mention.dimension
        confidence = reading.strength * confidence_scale
        if reading.mention.weak:
            confidence *= _WEAK_MENTION
        rivals = wanted.get((dimension.name, reading.scope), set())
        if direction is Direction.prefer and len(rivals) > 1:
            confidence *= _RIVAL_VALUES
        confidence = round(min(_MAX_CONFIDENCE, max(_MIN_CONFIDENCE, confidence)), 3)
        hypothesis = _build(
            dimension, value, direction, reading.scope, timescale, confidence, index, event
        )
        if hypothesis is not None:
            hypotheses.append(hypothesis)
    return hypotheses


def _value_and_direction(reading: _Reading) -> tuple[str, Direction]:
    mention = reading.mention
    if mention.value is not None:
        direction = Direction.prefer if reading.polarity > 0 else Direction.avoid
        return mention.value, direction
    polar = mention.dimension.polar
    assert polar is not None  # a mention without a value comes from a polar pattern
    return (polar.wanted if reading.polarity > 0 else polar.refused), Direction.prefer


def claim_text(
    dimension: Dimension, value: str, direction: Direction, scope: str, timescale: Timescale
) -> str:
    """A readable claim built from canonical names: "Prefers short answers in standups"."""
    verb = "Prefers" if direction is Direction.prefer else "Avoids"
    parts = [verb, dimension.value(value).phrase]
    domain = SCOPE_DOMAINS_BY_NAME.get(scope)
    if domain is not None:
        parts.append(domain.label)
    if timescale is Timescale.situational:
        parts.append("for now")
    return " ".join(parts)


def _build(
    dimension: Dimension,
    value: str,
    direction: Direction,
    scope: str,
    timescale: Timescale,
    confidence: float,
    index: int,
    event: EventInput,
) -> Hypothesis | None:
    try:
        return Hypothesis(
            claim=claim_text(dimension, value, direction, scope, timescale),
            subject=dimension.name,
            value=value,
            direction=direction,
            scope=scope,
            timescale=timescale,
            confidence=confidence,
            provenance=event.origin,
            sentence_index=index,
        )
    except ProtectedAttributeError:
        return None
    except ValidationError as error:
        # The schema wraps its protected-attribute refusal; anything else is a bug.
        if any(
            isinstance(e.get("ctx", {}).get("error"), ProtectedAttributeError)
            for e in error.errors()
        ):
            return None
        raise
