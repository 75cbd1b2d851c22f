"""Whose words a user turn holds: the user's own, or words the user passed on.

A user turn may carry someone else's text: a quoted or forwarded message, a pasted mail, a
chat log, a code comment, a record that speaks of the user in the third person ("Per our
records the customer prefers …"), a line spoken in a role or a made-up customer's words. A
preference read there is not the user's statement, so extraction reads those passages apart
and marks what it finds in them as a shared file's (app/ledger/channel_guard.py then holds it
until the user supports it). A sentence in a language the service does not read is read
apart too: the reader would see only the English value phrase inside it, not who says it.

The cues run on a folded copy of the text (fullwidth and mathematical letters, lookalikes,
soft hyphens and joiners folded or dropped) whose offsets map back to the original, so an
obfuscated cue word reads as the plain one. Cue words live in `voice.yaml`. Passages that
announce nothing are read by the learned whose-words model (`app/text/whose.py`) from the form
of the turn around each sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from app.text.normalize import CONFUSABLES, INVISIBLE_CHARS
from app.text.pasted import pasted_regions
from app.text.whose import model as whose_words

CUES = Path(__file__).with_name("voice.yaml")
Span = tuple[int, int]

# A sentence that speaks of the user as someone else does: a record, a note, a profile, a
# subjectless record line ("prefers …").
_PEOPLE = (r"(?:user|customer|client|account\s+holder|member|subscriber|guest|caller|visitor|"
           r"patient|shopper|buyer|reader|viewer|student|person|new\s+hire|owner)")
_LIKES = (r"(?:prefers?|wants?|likes?|loves?|hates?|dislikes?|asked|requested|has\s+asked|"
          r"has\s+requested|would\s+like|is\s+(?:into|fond\s+of)|preference|settings?|"
          r"writes|wrote|says|said|tells|told|mentions|mentioned)")
_THIRD_PERSON = re.compile(
    r"[^.!?\n]*(?:"
    r"\b(?:per|according\s+to|as\s+per|based\s+on)\s+(?:our|the|their|his|her|company)\s+"
    r"(?:records?|notes?|files?|profile|crm|system|database|logs?|history)\b"
    rf"|\b(?:the|this|our|your|a|an|one|some)\s+{_PEOPLE}(?:'s|’s)?\s+"
    rf"(?:(?:now|also|always|really|actually)\s+)?{_LIKES}\b"
    r"|(?:^|(?<=[:;]))\s*(?:prefers|wants|likes)\b"
    r")[^.!?\n]*[.!?]?",
    re.IGNORECASE | re.MULTILINE,
)

# Words attributed to someone: `X said: "…"`, `a quote from X: "…"`, however short; or a
# quote followed by who wrote it (`"…," reads the sign`).
_ATTRIBUTED_QUOTE = re.compile(
    r"(?:\b(?:said|says|wrote|writes|stated|states|told\s+(?:me|us)|quoted?|quoting)\b"
    r"|\b(?:quote|message|note|words?|statement|reply)\s+(?:from|by|of)\b[^:\n\"“]{1,60})"
    r"\s*:?\s*[\"“]([^\"”\n]{4,})[\"”]",
    re.IGNORECASE,
)
_QUOTE_THEN_SPEAKER = re.compile(
    r"[\"“‘'„]([^\"”’'“\n]{4,}?)[\"”’'“],?\s+(?:\w+\s+){0,3}?"
    r"(?:reads|read|says|said|wrote|writes|scribbled|posted|commented|tweeted|texted|"
    r"replied|added|insisted|announced)\b",
    re.IGNORECASE,
)
# Quote markup: HTML and BBCode quotes, guillemets and other paired quote marks, and lines
# marked as quoted (`>`, box bars, a quoted list item).
_QUOTE_MARKUP = re.compile(
    r"<blockquote\b[^>]*>.*?(?:</blockquote>|$)"
    r"|\[quote\b[^\]]*\].*?(?:\[/quote\]|$)"
    r"|«[^»]{2,}»|»[^«]{2,}«|„[^“”\n]{2,}[“”]|‚[^‘’\n]{2,}[‘’]|‹[^›]{2,}›|「[^」]{2,}」"
    r"|『[^』]{2,}』|‘[^’\n]{4,}’(?![a-z])"
    r"|(?:^[ \t]*(?:[-*+•]\s+)?(?:>|│|┃|▌|▍)[^\n]*(?:\n|$))+",
    re.IGNORECASE | re.DOTALL | re.MULTILINE,
)

# An explicit paste marker ("paste: …", "fwd: …", "copied as is: …"): the rest of the line
# or the quoted passage after it is what was pasted.
_PASTE_WORD = (r"(?:pasting|pasted|paste|fwd|fw|forwarded|forwarding|copied(?:\s+(?:as\s+is|"
               r"verbatim|below|here))?|export|excerpt|transcript|dump|prompt|"
               r"system(?:\s+(?:prompt|message|note))?)")
_PASTE_MARKER = re.compile(
    rf"\b{_PASTE_WORD}\s*:\s*(?:{_PASTE_WORD}\s*:\s*)*(['‘\"“]?)([^\n]+)",
    re.IGNORECASE,
)

# A role, a fiction or a made-up case ("let's play a game", "stay in character", "do an
# impression of", "suppose a customer says", "example input for …"): what follows is a
# character's line or an example, not the user's statement.
_POLITE = (r"(?:(?:now|ok(?:ay)?|so|please|alright)[,\s]+|(?:can|could|would|will)\s+you\s+"
           r"|i\s+(?:want|need|would\s+like)\s+you\s+to\s+|for\s+[^,:.\n]{1,40}?,\s*)*")
_FRAME = re.compile(
    # Frames that open their sentence (an imperative to take a role, or a story's opening).
    rf"(?:^|(?<=[.!?\n;]))\s*{_POLITE}(?:"
    r"let'?s\s+(?:play\s+a\s+game|role-?play|pretend|imagine)"
    r"|(?:pretend|imagine|suppose)\s+(?:that\s+)?(?:you(?:'re|\s+are)|i(?:'m|\s+am)"
    r"|we(?:'re|\s+are)|a\s+(?:story|world|scenario))"
    r"|role-?play(?:ing)?\s*:"
    r"|in\s+(?:this|a|our)\s+(?:story|game|role-?play|scenario)\b"
    r"|you\s+are\s+(?:now\s+)?(?:the\s+user'?s|my)\s+(?:diary|journal|character|persona)"
    r"|play\s+(?:the\s+(?:role|part)\s+of|an?\s|the\s)"
    r"|(?:act|speak|talk)\s+(?:as|like)\s+(?:if\s+you\s+were\s+)?"
    r"(?:an?\s|the\s|my\s|his\s|her\s|their\s|(?-i:[A-Z]))"
    r"|write\s+(?:as\s+(?:me|him|her|them|if)\b|in\s+the\s+voice\s+of)"
    r"|(?:do|give\s+me|try)\s+(?:your\s+(?:best\s+)?|an?\s+)?impression"
    r")[^\n]*"
    # Frames anywhere in their sentence: the sentence from its start is the frame's.
    r"|(?:^|(?<=[.!?\n;]))[^.!?\n]*?(?:"
    r"\b(?:stay|staying|remain|remaining)\s+in\s+character\b|\bin\s+character\s+as\b"
    r"|\byou\s+play\b|\byou(?:'re|\s+are)\s+(?:now\s+)?(?:acting|playing|pretending|"
    r"speaking)\b|\bimpression\s+of\b|\bas\s+a\s+parody\b|\bin\s+(?:his|her|their)\s+voice\b"
    r"|\bpretend(?:ing)?\s+to\s+be\b"
    r"|\bwhat\s+if\s+(?:a|an|some(?:one|body)|the)\b"
    rf"|\b(?:suppose|supposing|imagine|say|let'?s\s+say)\s+(?:that\s+)?(?:a|an|some|one\s+of"
    rf"\s+(?:our|my|the))\s+(?:\w+\s+)?{_PEOPLE}"
    r"|\b(?:suppose|supposing|imagine|let'?s\s+say)\s+(?:that\s+)?some(?:one|body)\b"
    # "If a customer says she'd like …" (what someone else says or wants in a scenario), not
    # a condition the user sets ("If the client hasn't confirmed by Thursday, cancel it").
    rf"|\bif\s+(?:a|an|some(?:one|body)|the|one|my|our)\s+(?:\w+\s+)?{_PEOPLE}s?\s+"
    rf"(?:\w+\s+){{0,2}}?{_LIKES}\b"
    # (not a domain's last label: "…@firm.example will review …")
    r"|(?<![.@/])\b(?:sample|example|mock|dummy|synthetic|fake|made-up)\s+(?:\w+\s+)?(?:ticket|input|"
    r"message|utterance|conversation|dialogue|chat|e-?mail|review|request|prompt|query|"
    r"customer)s?\b"
    r"|\b(?:thought\s+experiment|case\s+study|scenario|training\s+(?:deck|data|example|set))\b"
    r")[^\n]*",
    re.IGNORECASE,
)

# Code comments: block and HTML comments anywhere; line comments where the turn holds code.
_BLOCK_COMMENT = re.compile(r"/\*.*?(?:\*/|$)|<!--.*?(?:-->|$)", re.DOTALL)
_LINE_COMMENT = re.compile(r"(?:(?<![:/\w])//|(?:^|(?<=\s))#(?!#)|;\s*--)[^\n]*", re.MULTILINE)
_CODE_LINE = re.compile(
    r"^[ \t]*(?:def|class|import|from\s+\S+\s+import|return|function|const|let|var|if\s*\(|"
    r"for\s*\(|select|insert|update|delete|create|public|private|func|fn|package|#include)\b"
    r"|[;{}]\s*$|\w\(.*\)\s*[:;{]?\s*$|^\s*[<][a-z][^>]*>\s*$|\w+\s*=\s*\S",
    re.IGNORECASE | re.MULTILINE,
)

# A separator line a mail client puts above a reply (Outlook's underscores).
_SEPARATOR = re.compile(r"^[ \t]*(?:_{5,}|-{5,}|={5,})[ \t]*$", re.MULTILINE)

# A labelled line: `[time] name: …`, `<nick> …`, `Name (where, when): …`, `Name: …`.
_LABELLED = re.compile(
    r"^[ \t]*(?P<time>[\[(]\d{1,2}[:.]\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?[\])]\s*)?"
    r"(?:<(?P<nick>[^<>\s]{1,30})>|(?P<label>[^\W\d][\w.'’\- ]{0,30}?)"
    r"(?P<paren>\s*\([^)\n]{1,40}\))?\s*:(?!//))[ \t]*\S[^\n]*",
    re.MULTILINE,
)

_WORD = re.compile(r"[^\W\d_][\w'’]*")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


@cache
def _cues() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(CUES.read_text(encoding="utf-8"))
    return data


@cache
def _header_names() -> dict[str, str]:
    """Header name → what it is (from, to, subject, …)."""
    return {name: kind for kind, names in _cues()["mail_headers"].items()
            for name in map(str, names)}


@cache
def _language_words() -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    unread = {lang: frozenset(map(str, words))
              for lang, words in _cues()["unread_language_words"].items()}
    return unread, frozenset(map(str, _cues()["read_language_words"]))


_FOLD = {**dict.fromkeys(map(ord, INVISIBLE_CHARS), ""),
         **{ord(k): v for k, v in CONFUSABLES.items()}}


def _folded(text: str) -> tuple[str, list[int]]:
    """`text` with invisible characters dropped, lookalikes and NFKC forms folded, and for
    each folded character the offset of the original character it came from."""
    if text.isascii():
        return text, list(range(len(text) + 1))
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        folded = unicodedata.normalize("NFKC", ch).translate(_FOLD)
        out.append(folded)
        where.extend([i] * len(folded))
    where.append(len(text))
    return "".join(out), where


def _mail_spans(text: str) -> Iterator[Span]:
    """A pasted mail: from its header block (two header lines, or a subject line) or the
    separator above it to the end of the turn."""
    names = _header_names()
    headers = [(m.start(), names[m.group("label").strip().lower()])
               for m in _LABELLED.finditer(text)
               if m.group("label") and m.group("label").strip().lower() in names]
    if any(kind == "subject" for _, kind in headers) or len(headers) >= 2:
        yield headers[0][0], len(text)
    separator = _SEPARATOR.search(text)
    if separator and text[separator.end():].strip():
        yield separator.start(), len(text)


def _speaker_spans(text: str) -> Iterator[Span]:
    """The lines of a chat log or transcript: labelled lines whose labels name speakers (a
    timestamp, a nick or a role; or, among two labelled lines or more, a name with a place
    or time, or a name that speaks twice)."""
    own = frozenset(map(str, _cues()["own_labels"])) | frozenset(_header_names())
    roles = frozenset(map(str, _cues()["speaker_roles"]))
    lines = []
    for m in _LABELLED.finditer(text):
        label = (m.group("nick") or m.group("label") or "").strip()
        key = label.lower()
        if m.group("label") and (key in own or len(label.split()) > 3):
            continue
        marked = bool(m.group("time") or m.group("nick") or key.split()[-1] in roles)
        lines.append((m.span(), key, marked, bool(m.group("paren"))))
    counts = Counter(key for _, key, _, _ in lines)
    speakers = any(marked for _, _, marked, _ in lines) or len(lines) >= 2 and (
        any(n >= 2 for n in counts.values()) or any(paren for *_, paren in lines))
    if speakers:
        yield from (span for span, *_ in lines)


def _comment_spans(text: str) -> Iterator[Span]:
    yield from (m.span() for m in _BLOCK_COMMENT.finditer(text))
    if _CODE_LINE.search(text):
        yield from (m.span() for m in _LINE_COMMENT.finditer(text))


def _unread_language_spans(text: str) -> Iterator[Span]:
    """Sentences in a language the service does not read: mostly letters of another script
    than Latin (Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai, Han, Hangul, Kana …), or
    Latin-script words of a language it does not read."""
    unread, read = _language_words()
    for m in _SENTENCE.finditer(text):
        if _other_script(m.group()):
            yield m.span()
            continue
        words = {w.lower() for w in _WORD.findall(m.group())}
        own_language = len(words & read)
        if any(len(words & vocab) >= 2 and len(words & vocab) > own_language
               for vocab in unread.values()):
            yield m.span()


# A sentence is in another script when this share of its letters is not Latin: a lookalike
# or two inside a Latin word (an obfuscated address) stays far below it.
_OTHER_SCRIPT_SHARE = 0.4
_MIN_LETTERS = 4


def _other_script(sentence: str) -> bool:
    if sentence.isascii():
        return False
    letters = [c for c in sentence if c.isalpha()]
    if len(letters) < _MIN_LETTERS:
        return False
    other = sum(1 for c in letters if not c.isascii() and "LATIN" not in unicodedata.name(c, ""))
    return other >= _OTHER_SCRIPT_SHARE * len(letters)


def in_unread_language(text: str) -> bool:
    """Whether some sentence of `text` is in a language the service does not read."""
    folded, _ = _folded(text)
    return next(_unread_language_spans(folded), None) is not None


def _learned_spans(text: str) -> list[Span]:
    """Sentences the whose-words model reads as someone else's (app/text/whose.py): a passage
    that does not announce itself but has the form of a letter, a post, a form …"""
    reader = whose_words()
    return reader.other_spans(text) if reader is not None else []


def third_party_spans(text: str) -> list[Span]:
    """Character spans of a user turn that are not the user's own words, merged and
    sorted."""
    folded, where = _folded(text)
    found: list[Span] = [
        *pasted_regions(folded),
        *(m.span() for m in _THIRD_PERSON.finditer(folded)),
        *(m.span(1) for m in _ATTRIBUTED_QUOTE.finditer(folded)),
        *(m.span(1) for m in _QUOTE_THEN_SPEAKER.finditer(folded)),
        *(m.span() for m in _QUOTE_MARKUP.finditer(folded)),
        *(m.span(2) for m in _PASTE_MARKER.finditer(folded)),
        *(m.span() for m in _FRAME.finditer(folded)),
        *_comment_spans(folded), *_mail_spans(folded), *_speaker_spans(folded),
        *_unread_language_spans(folded), *_learned_spans(folded),
    ]
    spans = sorted((where[start], where[end - 1] + 1) for start, end in found if end > start)
    merged: list[Span] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


# The words that introduce a passage ("The user said:", "Here's the note from Sam:"): they
# state nothing of the user's own, and a reader given them alone misreads them.
_LEAD_IN = re.compile(r"(?:^|(?<=[.!?\n]))[^.!?\n]*[:\"“'‘\s]*$")


def _without_lead_in(own: str) -> str:
    return _LEAD_IN.sub("", own) if own.rstrip().endswith((":", '"', "“", "'", "‘")) else own


def split_voices(text: str) -> tuple[str, str]:
    """(the user's own words, the passages that are not), each as plain text; the second is
    empty when the turn holds no such passage."""
    spans = third_party_spans(text)
    if not spans:
        return text, ""
    own: list[str] = []
    theirs: list[str] = []
    cursor = 0
    for start, end in spans:
        own.append(_without_lead_in(text[cursor:start]))
        theirs.append(text[start:end].strip())
        cursor = end
    own.append(text[cursor:])
    pieces = (p.strip().strip("\"“”'‘’").strip() for p in own)
    return " ".join(p for p in pieces if p), "\n".join(p for p in theirs if p)
