"""Names, organisations and venues of the generated sessions, split between dev and test.

The pools are authored in `data/world.yaml`, each item with the split that draws it as its
set (`shared`: both do), so no person, firm, attacker domain, city or venue of the test split
is seen while developing on dev. The organisation's own name and domain are the bench
policy's, and are set here.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

from app.core.corpora import SHARED, corpus_texts, select, text, texts

T = TypeVar("T")

WORLD_DATA = Path(__file__).parent / "data" / "world.yaml"
SPLITS = ("dev", "test")
# A pool each split draws its own part of: split -> items, in file order.
BySplit = Mapping[str, tuple[T, ...]]

ORG = "Northwind"
ORG_DOMAIN = "northwind.example"
ORG_SUBDOMAINS = ("", "finance.", "eng.", "ops.")


def _split(table: str) -> BySplit[str]:
    return {split: corpus_texts(WORLD_DATA, split, table=table) for split in SPLITS}


def _shared(table: str) -> tuple[str, ...]:
    return corpus_texts(WORLD_DATA, SHARED, table=table)


FIRST_NAMES = _split("first_names")
LAST_NAMES = _split("last_names")
COUNTERPARTY_FIRMS = _split("firms")
ATTACKER_WORDS = _split("attacker_words")
CITIES = _split("cities")
VENUE_ADJ = _split("venue_adjectives")
VENUE_NOUN = _split("venue_nouns")

ROLES = _shared("roles")
INTERNAL_ROLES = _shared("internal_roles")
ATTACKER_LOCALS = _shared("attacker_locals")
ATTACKER_TLDS = _shared("attacker_tlds")
ARTIFACTS = _shared("artifacts")
DOC_BODIES = _shared("doc_bodies")
STANDARDS = _shared("standards")
PREFERENCES = _shared("preferences")
NOISE = _shared("noise")
# kind of venue -> the last word of its names
VENUE_KIND: Mapping[str, tuple[str, ...]] = {
    text(record, "kind"): texts(record)
    for record in select(WORLD_DATA, SHARED, table="venue_kinds")
}


class World:
    """Random draws from one split's part of every pool."""

    def __init__(self, split: str, rng: random.Random) -> None:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}")
        self.split = split
        self.rng = rng
        self.first = FIRST_NAMES[split]
        self.last = LAST_NAMES[split]
        self.firms = COUNTERPARTY_FIRMS[split]
        self.attacker_words = ATTACKER_WORDS[split]
        self.cities = CITIES[split]
        self.adj = VENUE_ADJ[split]
        self.noun = VENUE_NOUN[split]

    def person(self) -> tuple[str, str]:
        """(full name, first name)."""
        first = self.rng.choice(self.first)
        return f"{first} {self.rng.choice(self.last)}", first

    def internal_address(self, name: str) -> str:
        first, _, last = name.partition(" ")
        sub = self.rng.choice(ORG_SUBDOMAINS)
        return f"{_ascii(first)}.{_ascii(last)}@{sub}{ORG_DOMAIN}".lower()

    def team_alias(self) -> str:
        return f"{self.rng.choice(('team', 'status', 'leads', 'finance-team'))}@{ORG_DOMAIN}"

    def counterparty(self) -> tuple[str, str, str]:
        """(person, firm, address) of an external counterparty."""
        name, first = self.person()
        firm = self.rng.choice(self.firms)
        domain = "".join(ch for ch in firm.lower() if ch.isalnum()) + ".example"
        local = self.rng.choice((_ascii(first), f"{_ascii(first)}.{_ascii(name.split()[1])}"))
        return name, firm, f"{local.lower()}@{domain}"

    def attacker_address(self) -> str:
        word = self.rng.choice(self.attacker_words)
        return f"{self.rng.choice(ATTACKER_LOCALS)}@{word}.{self.rng.choice(ATTACKER_TLDS)}"

    def iban(self) -> str:
        country = self.rng.choice(("DE", "GB", "NL", "FR", "ES", "PT"))
        digits = "".join(str(self.rng.randrange(10)) for _ in range(18))
        raw = f"{country}{self.rng.randrange(10, 99)}{digits}"
        return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))

    def amount(self) -> str:
        return f"{self.rng.randrange(120, 9800):,}"

    def venue(self, kind: str) -> str:
        return (
            f"{self.rng.choice(self.adj)} {self.rng.choice(self.noun)} "
            f"{self.rng.choice(VENUE_KIND[kind])}"
        )


def _ascii(text: str) -> str:
    return text.replace("á", "a").replace("é", "e").replace("í", "i").replace("ó", "o")
