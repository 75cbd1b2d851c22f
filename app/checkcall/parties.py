"""Whom an id stands for. A reply by message id, or an answer by conversation id, goes to
the party the record names on the id's line ("m-41 · Anouk Bakker <anouk@bakker.example>").
A look-alike sender copies a name the user knows under another address; the id's line then
names a party whose name this session's records give with two addresses, or whose address
is not the one the user gave for that name. Either way, which of them the user meant is the
user's to say: the id is asked about (`value_names_another_party`). Deterministic, no model.
"""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from collections.abc import Iterable

from app.checkcall.provenance import EventRecord
from app.domain.vocabulary import Origin
from app.text.normalize import SinkValue, ValueKind, canonical, normalize_email, skeleton

# A display name (one to four capitalised words) before an address in angle brackets or
# parentheses: "Anouk Bakker <anouk@x.example>", "Anouk Bakker (anouk@x.example)".
_PARTY = re.compile(
    r"(?P<name>[A-Z][\w'’\-]*(?:[ \t]+[A-Z][\w'’\-]*){0,3})[ \t]*[<(][ \t]*"
    r"(?P<addr>[^\s<>()@,;]+@[^\s<>()@,;]+?)[ \t]*[>)]"
)
_EMAIL = re.compile(r"[^\s<>()@,;:\"']+@[^\s<>()@,;:\"']+\.[A-Za-z]{2,}")


def _parties(text: str) -> Iterable[tuple[str, str]]:
    """(casefolded display name, normalized address) pairs of a text."""
    for m in _PARTY.finditer(text):
        addr = normalize_email(m.group("addr"))
        if addr:
            yield " ".join(m.group("name").split()).casefold(), addr


def _line_of(text: str, needle: str) -> str | None:
    """The line of `text` holding `needle` as a token of its own, case-insensitively."""
    pattern = re.compile(rf"(?<![\w\-]){re.escape(needle)}(?![\w\-])", re.IGNORECASE)
    for line in text.splitlines():
        if pattern.search(line):
            return line
    return None


def another_party(value: SinkValue, events: list[EventRecord]) -> list[uuid.UUID]:
    """The events that show the id's party may be another than the one the user means: the
    records of this session that hold the id on a line naming a party (a display name and
    an address), when that name comes with another address in this session's records or
    in the user's own words; empty otherwise."""
    if value.kind != ValueKind.id:
        return []
    texts = [(e, skeleton(canonical(e.text))) for e in events if e.text is not None]
    named: dict[str, set[str]] = defaultdict(set)
    for event, text in texts:
        if event.in_session and event.origin != Origin.user.value:
            for name, addr in _parties(text):
                named[name].add(addr)
    user_gave: dict[str, set[str]] = defaultdict(set)
    for event, text in texts:
        if event.origin == Origin.user.value:
            folded = text.casefold()
            addrs = {a for a in map(normalize_email, _EMAIL.findall(text)) if a}
            for name in named:
                if name in folded:
                    user_gave[name] |= addrs
    found: list[uuid.UUID] = []
    for event, text in texts:
        if not event.in_session or event.origin == Origin.user.value:
            continue
        line = _line_of(text, value.normalized)
        if line is None:
            continue
        for name, addr in _parties(line):
            others = (named[name] | user_gave[name]) - {addr}
            if others and addr not in user_gave[name]:
                found.append(event.id)
                break
    return found
