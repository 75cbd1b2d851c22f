"""The user's own clause inside a sentence that is about someone else first.

"My brother laughs at me for it, but I'd like a formal tone." states the user's preference
in its last clause; read whole, the sentence reads as being about the brother. Where a
reading of the whole text finds nothing, extraction reads each clause that opens in the
first person on its own (app/extraction/service.read_text).
"""

from __future__ import annotations

import re

# A clause boundary (a comma, semicolon, colon or dash, maybe a joining word) followed by a
# first-person opener.
_OWN_CLAUSE = re.compile(
    r"[,;:—–]\s*(?:(?:but|yet|though|although|so|and|then|still)\s+)?"
    r"(?=(?:i|i'd|i'm|i've|i'll|i’d|i’m|i’ve|i’ll|for\s+me|me|personally|as\s+for\s+me)\b)"
    r"|\b(?:but|yet|though|although)\s+(?=(?:i|i'd|i'm|i've|i’d|i’m|i’ve)\b)",
    re.IGNORECASE,
)


# A clause that sets a condition or a context ("When I travel, I prefer …"): the clause after
# it is scoped by it, and read alone it would lose the scope.
_SCOPING = re.compile(
    r"(?:^|[.!?]\s+)(?:when|whenever|while|if|unless|during|on|at|in|for|before|after|until|"
    r"once|at\s+work|on\s+weekends)\b[^.!?]*$",
    re.IGNORECASE,
)


def own_clauses(text: str) -> list[str]:
    """The clauses of `text` that open in the first person after another clause that sets
    no condition or context, each to the end of its sentence; empty when there is none."""
    out: list[str] = []
    for m in _OWN_CLAUSE.finditer(text):
        before = text[:m.start()]
        if not before.strip() or _SCOPING.search(before):
            continue
        rest = text[m.end():]
        stop = re.search(r"[.!?](?:\s|$)", rest)
        clause = rest[: stop.end() if stop else len(rest)].strip()
        if clause:
            out.append(clause)
    return out
