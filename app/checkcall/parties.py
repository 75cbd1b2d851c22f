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


# The session's records (with their folded text), the addresses each display name comes with
# in them, and the addresses the user's own words give those names.
_Read = tuple[list[tuple[EventRecord, str]], dict[str, set[str]], dict[str, set[str]]]


class Parties:
    """The parties this session's records name (display name → addresses) and the
    addresses the user's own words give each of those names, read once per call and only
    when an id asks for them."""

    def __init__(self, events: list[EventRecord]) -> None:
        self._events = events
        self._read: _Read | None = None

    def _parties(self) -> _Read:
        if self._read is None:
            records = [
                (e, skeleton(canonical(e.text)))
                for e in self._events
                if e.text is not None and e.in_session and e.origin != Origin.user.value
            ]
            named: dict[str, set[str]] = defaultdict(set)
            for _, text in records:
                for name, addr in _parties(text):
                    named[name].add(addr)
            user_gave: dict[str, set[str]] = defaultdict(set)
            for e in self._events:
                if e.text is None or e.origin != Origin.user.value:
                    continue
                text = skeleton(canonical(e.text))
                folded = text.casefold()
                addrs = {a for a in map(normalize_email, _EMAIL.findall(text)) if a}
                for name in named:
                    if name in folded:
                        user_gave[name] |= addrs
            self._read = records, named, user_gave
        return self._read

    def another(self, value: SinkValue) -> list[uuid.UUID]:
        """The events that show the id's party may be another than the one the user means:
        the records of this session that hold the id on a line naming a party (a display
        name and an address), when that name comes with another address in this session's
        records or in the user's own words; empty otherwise."""
        if value.kind != ValueKind.id:
            return []
        records, named, user_gave = self._parties()
        found: list[uuid.UUID] = []
        for event, text in records:
            line = _line_of(text, value.normalized)
            if line is None:
                continue
            for name, addr in _parties(line):
                others = (named[name] | user_gave[name]) - {addr}
                if others and addr not in user_gave[name]:
                    found.append(event.id)
                    break
        return found
