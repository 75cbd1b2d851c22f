"""Whose words a user turn holds: the user's own, or a third party's the user passed on.

A user turn may carry someone else's text: a quoted or forwarded message, a pasted document,
or a record that speaks of the user in the third person ("Per our records the customer
prefers …"). A preference read there is not the user's statement, so extraction reads
those passages apart and marks what it finds in them as a shared file's
(app/ledger/channel_guard.py then holds it until the user supports it).
"""

from __future__ import annotations

import re

from app.text.pasted import pasted_regions

# A sentence that speaks of the user as someone else does: a record, a note, a profile.
_THIRD_PERSON = re.compile(
    r"[^.!?\n]*(?:"
    r"\b(?:per|according\s+to|as\s+per|based\s+on)\s+(?:our|the|their|his|her|company)\s+"
    r"(?:records?|notes?|files?|profile|crm|system|database|logs?|history)\b"
    r"|\b(?:the|this|our|your)\s+(?:user|customer|client|account\s+holder|member|subscriber)"
    r"(?:'s|’s)?\s+(?:(?:now|also|always|really|actually)\s+)?"
    r"(?:prefers?|wants?|likes?|loves?|hates?|dislikes?|asked|requested|has\s+asked|"
    r"has\s+requested|would\s+like|is\s+(?:into|fond\s+of)|preference|settings?)\b"
    r")[^.!?\n]*[.!?]?",
    re.IGNORECASE,
)


# Words attributed to someone: `X said: "…"`, `a quote from X: "…"`, however short.
_ATTRIBUTED_QUOTE = re.compile(
    r"(?:\b(?:said|says|wrote|writes|stated|states|told\s+(?:me|us)|quoted?|quoting)\b"
    r"|\b(?:quote|message|note|words?|statement|reply)\s+(?:from|by|of)\b[^:\n\"“]{1,60})"
    r"\s*:?\s*[\"“]([^\"”\n]{4,})[\"”]",
    re.IGNORECASE,
)

# An explicit paste marker ("paste: …", "pasting: …", "fwd: …"): the rest of the line or
# the quoted passage after it is what was pasted.
_PASTE_MARKER = re.compile(
    r"\b(?:pasting|pasted|paste|fwd|fw|forwarded|forwarding)\s*:\s*"
    r"(?:(?:pasting|pasted|paste|fwd|fw|forwarded|forwarding)\s*:\s*)*"
    r"(['‘\"“]?)([^\n]+)",
    re.IGNORECASE,
)

# A role-play or fiction frame ("let's play a game", "pretend you are my diary", "imagine a
# story where …"): what follows is a character's line, not the user's statement.
_FICTION_FRAME = re.compile(
    r"(?:^|(?<=[.!?\n]))\s*(?:"
    r"let'?s\s+(?:play\s+a\s+game|role-?play|pretend|imagine)"
    r"|(?:pretend|imagine|suppose)\s+(?:that\s+)?(?:you(?:'re|\s+are)|i(?:'m|\s+am)"
    r"|we(?:'re|\s+are)|a\s+(?:story|world|scenario))"
    r"|role-?play(?:ing)?\s*:"
    r"|in\s+(?:this|a|our)\s+(?:story|game|role-?play|scenario)\b"
    r"|you\s+are\s+(?:now\s+)?(?:the\s+user'?s|my)\s+(?:diary|journal|character|persona))"
    r"[^\n]*",
    re.IGNORECASE,
)


def third_party_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of a user turn that a third party wrote, merged and sorted."""
    spans = [*pasted_regions(text), *(m.span() for m in _THIRD_PERSON.finditer(text)),
             *(m.span(1) for m in _ATTRIBUTED_QUOTE.finditer(text)),
             *(m.span(2) for m in _PASTE_MARKER.finditer(text)),
             *(m.span() for m in _FICTION_FRAME.finditer(text))]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        elif end > start:
            merged.append((start, end))
    return merged


# The words that introduce a passage ("The user said:", "Here's the note from Sam:"): they
# state nothing of the user's own, and a reader given them alone misreads them.
_LEAD_IN = re.compile(r"(?:^|(?<=[.!?\n]))[^.!?\n]*[:\"“'‘\s]*$")


def _without_lead_in(own: str) -> str:
    return _LEAD_IN.sub("", own) if own.rstrip().endswith((":", '"', "“", "'", "‘")) else own


def split_voices(text: str) -> tuple[str, str]:
    """(the user's own words, the third party's passages), each as plain text; the second is
    empty when the turn holds no third-party passage."""
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
