"""What extraction emits: ⟨claim, direction, scope, timescale, confidence, provenance⟩.

Protected attributes are refused by the schema itself (not learned): a hypothesis whose
subject or claim falls in a protected category cannot be constructed, so no extractor,
however it is trained, can hand one to the ledger.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.domain.vocabulary import Direction, Origin, Timescale

MAX_CLAIM_CHARS = 512
GLOBAL_SCOPE = "global"


class ProtectedCategory(StrEnum):
    health = "health"
    religion = "religion"
    ethnicity = "ethnicity"
    sexual_orientation = "sexual_orientation"
    political_views = "political_views"


# Cues for protected categories. Conservative by design: a false refusal costs one
# memory, a false admission persists a protected attribute.
_PROTECTED_CUES: dict[ProtectedCategory, tuple[str, ...]] = {
    ProtectedCategory.health: (
        "diagnos",
        "disease",
        "illness",
        "cancer",
        "diabet",
        "hiv",
        "depress",
        "anxiety",
        "disorder",
        "medication",
        "prescription",
        "therap",
        "pregnan",
        "disab",
        "adhd",
        "autis",
        "bipolar",
        "schizo",
        "chronic",
        "surgery",
        "my doctor",
        "mental health",
        "symptom",
        "allerg",
    ),
    ProtectedCategory.religion: (
        "religio",
        "christian",
        "muslim",
        "islam",
        "jewish",
        "judaism",
        "hindu",
        "buddhis",
        "atheis",
        "catholic",
        "protestant",
        "church",
        "mosque",
        "synagogue",
        "pray",
        "sikh",
        "mormon",
        "evangelical",
        # Dietary laws name a faith as surely as the faith does ("I only eat kosher").
        "kosher",
        "halal",
    ),
    ProtectedCategory.ethnicity: (
        "ethnic",
        "my race",
        "racial",
        "black person",
        "white person",
        "hispanic",
        "latino",
        "latina",
        "asian american",
        "african american",
        "caucasian",
        "indigenous",
    ),
    ProtectedCategory.sexual_orientation: (
        "gay",
        "lesbian",
        "bisexual",
        "homosexual",
        "heterosexual",
        "queer",
        "sexual orientation",
        "transgender",
        "asexual",
        "pansexual",
    ),
    ProtectedCategory.political_views: (
        "democrat",
        "republican",
        "liberal",
        "conservative",
        "socialis",
        "communis",
        "libertarian",
        "political",
        "vote for",
        "voted for",
        "my party",
        "left-wing",
        "right-wing",
        "maga",
        "progressive politics",
    ),
}

_CUE_PATTERNS: dict[ProtectedCategory, re.Pattern[str]] = {
    category: re.compile(r"\b(" + "|".join(re.escape(c) for c in cues) + r")", re.IGNORECASE)
    for category, cues in _PROTECTED_CUES.items()
}


def protected_category(text: str) -> ProtectedCategory | None:
    """The first protected category the text touches, or None."""
    for category, pattern in _CUE_PATTERNS.items():
        if pattern.search(text):
            return category
    return None


class ProtectedAttributeError(ValueError):
    """Raised when a hypothesis would persist a protected attribute."""


class Hypothesis(BaseModel):
    """One preference read from one event. Immutable once built."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claim: str = Field(min_length=1, max_length=MAX_CLAIM_CHARS)
    # What the preference is about ("answer length") and the value held ("short").
    # Two hypotheses with one subject and different values contradict each other.
    subject: str = Field(min_length=1, max_length=64)
    value: str = Field(min_length=1, max_length=128)
    direction: Direction = Direction.prefer
    scope: str = Field(default=GLOBAL_SCOPE, min_length=1, max_length=64)
    timescale: Timescale = Timescale.permanent
    confidence: float = Field(ge=0.0, le=1.0)
    provenance: Origin
    # Index of the sentence in the event the claim was read from (several may be read).
    sentence_index: int = Field(default=0, ge=0)
    # The event names this value and one the user holds without saying which it leaves
    # (`workers/extraction/contrast.py`, `unclear_side_claim`): the gate asks the user.
    side_unclear: bool = False

    @field_validator("scope", "subject")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.strip().lower()

    @model_validator(mode="after")
    def _no_protected_attributes(self) -> Hypothesis:
        for text in (self.claim, self.subject, self.value, self.scope):
            category = protected_category(text)
            if category is not None:
                raise ProtectedAttributeError(f"protected attribute ({category.value}) refused")
        return self


class Extraction(BaseModel):
    """What an extractor read from one event: hypotheses, or an abstention (empty list)."""

    model_config = ConfigDict(frozen=True)

    hypotheses: tuple[Hypothesis, ...] = ()
    extractor: str
    extractor_version: str
    # Why nothing was extracted, when nothing was (a code, never the text).
    abstain_reason: str | None = None

    @property
    def abstained(self) -> bool:
        return not self.hypotheses
