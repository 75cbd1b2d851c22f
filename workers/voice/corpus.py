"""Labelled user turns for the whose-words model: someone else's text passed on inside a turn
(with or without the user's own line around it), and turns in the user's own voice.

The first-person preference sentences come from the benchmark's generated user turns of the
split (`bench/generator`), and the same pool fills both kinds of turn, so a sentence's
words alone never tell whose it is: the model has to read the form around it. The forms,
the user's lines around a passage and the user's own turns are authored
(`data/genres.yaml`); train and dev use disjoint forms, lines and fillers.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from app.core.corpora import load_records, texts
from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord, ensure_bench_data, events_of, load_split

DATA = Path(__file__).parent / "data" / "genres.yaml"
Set = Literal["train", "dev"]
Span = tuple[int, int]

_SLOT = re.compile(r"\{(\w+)\}")
# Generated user turns that state or discuss the user's own preferences.
_PREFERENCE_LABELS = frozenset({"genuine_preference", "context_specific", "weak_evidence"})
_OWN_LABELS = _PREFERENCE_LABELS | {"benign_noise", "sarcasm", "literal_statement"}


@dataclass(frozen=True, slots=True)
class Turn:
    """A user turn, the spans of it that are someone else's words, and its kind (a form's
    name, `own`, `own_mixed`, `generated_user` or `generated_document`)."""

    text: str
    other: tuple[Span, ...]
    kind: str


@dataclass(frozen=True)
class Pools:
    prefs: tuple[str, ...]
    user_chat: tuple[str, ...]
    document_chat: tuple[str, ...]
    user_turns: tuple[str, ...]
    documents: tuple[str, ...]


def pools(events: Sequence[EventRecord]) -> Pools:
    """The generated split's sentences, by who speaks them."""
    user = [e for e in events if e.origin == Origin.user and e.label in _OWN_LABELS]
    docs = [e for e in events if e.origin != Origin.user and e.label == "benign_noise"]
    return Pools(
        prefs=tuple(sorted({e.text for e in user if e.label in _PREFERENCE_LABELS
                            and "\n" not in e.text})),
        user_chat=tuple(sorted({e.text for e in user if e.label == "benign_noise"
                                and "\n" not in e.text})),
        document_chat=tuple(sorted({e.text for e in docs if "\n" not in e.text})),
        user_turns=tuple(sorted({e.text for e in user})),
        documents=tuple(sorted({e.text for e in docs})),
    )


def _table(set_name: Set, table: str) -> list[Mapping[str, object]]:
    return [r for r in load_records(DATA) if r["set"] == set_name and r["table"] == table]


def _fill(template: str, fillers: Mapping[str, Sequence[str]], rng: random.Random,
          pref: str, chat: Sequence[str]) -> str:
    def one(m: re.Match[str]) -> str:
        slot = m.group(1)
        if slot == "pref":
            return pref
        if slot == "chat":
            return rng.choice(chat)
        if slot == "num":
            return str(rng.randint(2, 99))
        return rng.choice(fillers[slot.rstrip("2")])  # {name2}: a second person

    return _SLOT.sub(one, template)


def _joined(parts: Sequence[tuple[str, bool]], rng: random.Random) -> Turn | None:
    """Parts (text, is someone else's) joined by a space, a line break or a blank line."""
    text, other = "", []
    for piece, theirs in parts:
        if text:
            text += rng.choice((" ", "\n", "\n\n"))
        if theirs:
            other.append((len(text), len(text) + len(piece)))
        text += piece
    return Turn(text, tuple(other), "") if text.strip() else None


def turns(set_name: Set, *, per_form: int, own_count: int, generated: int, seed: int,
          data_dir: Path | None = None) -> list[Turn]:
    """The set's labelled turns: `per_form` for each form, `own_count` own turns from the
    authored templates and as many of several generated sentences, and `generated` generated
    user turns and documents each."""
    rng = random.Random(seed)
    split_events = events_of(load_split(ensure_bench_data(data_dir), set_name))
    p = pools(split_events)
    fillers = {str(r["slot"]): texts(r) for r in _table(set_name, "slots")}
    before = [str(r["text"]) for r in _table(set_name, "wraps") if r["side"] == "before"]
    after = [str(r["text"]) for r in _table(set_name, "wraps") if r["side"] == "after"]
    chat_any = (*p.user_chat, *p.document_chat)
    out: list[Turn] = []

    def wrapped(passage: str, kind: str) -> None:
        parts: list[tuple[str, bool]] = []
        if rng.random() < 0.5:
            parts.append((rng.choice(before), False))
        parts.append((passage, True))
        if rng.random() < 0.35:
            parts.append((rng.choice(after), False))
        turn = _joined(parts, rng)
        if turn is not None:
            out.append(Turn(turn.text, turn.other, kind))

    for record in _table(set_name, "genres"):
        templates = texts(record, "templates")
        for _ in range(per_form):
            passage = _fill(rng.choice(templates), fillers, rng, rng.choice(p.prefs), chat_any)
            wrapped(passage, f"form:{record['genre']}")
    own = [str(r["text"]) for r in _table(set_name, "own")]
    for _ in range(own_count):
        text = _fill(rng.choice(own), fillers, rng, rng.choice(p.prefs), p.user_chat)
        out.append(Turn(text, (), "own"))
    for _ in range(own_count):  # several things said in one message, a preference among them
        said = rng.sample(p.user_chat, rng.randint(1, 4))
        said.insert(rng.randint(0, len(said)), rng.choice(p.prefs))
        turn = _joined([(s, False) for s in said], rng)
        if turn is not None:
            out.append(Turn(turn.text, (), "own_mixed"))
    for text in rng.sample(p.user_turns, min(generated, len(p.user_turns))):
        out.append(Turn(text, (), "generated_user"))
    for text in rng.sample(p.documents, min(generated, len(p.documents))):
        wrapped(text, "generated_document")
    rng.shuffle(out)
    return out
