"""Passages of a user turn that a third party wrote: quoted lines (`>`), forwarded or
original-message blocks, mail headers (`From:` … `Subject:`), "On … wrote:", a lead-in naming
a document ("here's the email from Jordan:", "I got this from the vendor:", "Sam sent me
this:"), a quoted passage of 30+ characters, or a letter that starts after the user's own
first sentence ("… Hi Sam, …").

Deterministic cues, no model; one of the finders of `app.text.voice`, whose passages
check-call labels `pasted` (`app.checkcall.segments`) and extraction reads apart from the
user's own words.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE | re.MULTILINE

_DOC_NOUN = (
    r"(?:e-?mail|message|mail|note|text|doc(?:ument)?|memo|letter|thread|reply|post|snippet|"
    r"excerpt|passage|paragraph|notice|announcement|comment|chat|invoice|page|it|this|"
    r"what\s+\w+\s+(?:sent|wrote|said))"
)
_PASTE_LEAD_IN = re.compile(
    rf"\b(?:here(?:'s|’s|\s+is|\s+are)|below\s+is|see\s+below|pasting|pasted|paste|copying|"
    rf"copied|quoting|forwarding)\b[^:\n]{{0,60}}?\b{_DOC_NOUN}\b[^:\n]{{0,60}}:"
    r"|\b(?:i|we)\s+(?:just\s+)?(?:got|received|found|was\s+sent|were\s+sent|have)\s+"
    r"(?:this|the\s+following|an?\s+(?:e-?mail|message|note|letter|text|memo|reply))\b[^:\n]{0,60}:"
    r"|\b[\w.’']+\s+(?:sent|wrote|emailed|forwarded|posted|said|replied)"
    r"(?:\s+(?:me|us|this|the\s+following|back))*\s*:"
    r"|\b(?:this|the\s+following)\s+(?:came\s+in|arrived|is\s+from|was\s+sent|just\s+came\s+in)"
    r"\b[^:\n]{0,60}:",
    re.IGNORECASE,
)
_FORWARD_MARK = re.compile(
    r"^[ \t]*-{2,}\s*(?:forwarded|original)\s+message\s*-{2,}|^[ \t]*begin\s+forwarded\s+message"
    r"|^[ \t]*on\s[^\n]{3,80}\swrote:[ \t]*$",
    _I,
)
_HEADER_LINE = re.compile(r"^[ \t]*(?:from|sent|to|subject|date|cc|reply-to):[ \t]+\S", _I)
_QUOTE_LINES = re.compile(r"(?:^[ \t]*>[^\n]*(?:\n|$))+", re.MULTILINE)
_QUOTED = re.compile(r"```(.{30,}?)```|“([^”]{30,})”|\"([^\"]{30,})\"", re.DOTALL)
_GREETING = re.compile(
    r"(?:^|\n|[.!?]\s+)((?i:hi|hello|dear|hey|good\s+(?:morning|afternoon|evening))\s+"
    r"[A-Z][\w\-]+(?:\s+[A-Z][\w\-]+)?\s*[,!:\n])",
)


def pasted_regions(text: str) -> list[tuple[int, int]]:
    """Passages of a user turn that a third party wrote."""
    regions: list[tuple[int, int]] = []
    for m in _QUOTE_LINES.finditer(text):
        regions.append(m.span())
    for m in _QUOTED.finditer(text):
        group = next(g for g in (1, 2, 3) if m.group(g) is not None)
        regions.append(m.span(group))
    starts: list[int] = []
    lead_in = _PASTE_LEAD_IN.search(text)
    if lead_in:
        starts.append(lead_in.end())
    forward = _FORWARD_MARK.search(text)
    if forward:
        starts.append(forward.start())
    headers = list(_HEADER_LINE.finditer(text))
    for first, second in zip(headers, headers[1:], strict=False):
        if text.count("\n", first.start(), second.start()) <= 3:
            starts.append(first.start())
            break
    greeting = _GREETING.search(text)
    if greeting and greeting.start(1) > 0:
        starts.append(greeting.start(1))
    if starts:
        regions.append((min(starts), len(text)))
    return _merge(regions)


def _merge(regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(regions):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
