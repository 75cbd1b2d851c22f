"""Run the configured extractor on an event and persist what it read."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from sqlalchemy.orm import Session

from app import registry
from app.domain.claims import Extraction, Hypothesis
from app.domain.extractor import EventInput, Extractor
from app.domain.vocabulary import Origin
from app.extraction.clauses import own_clauses
from app.extraction.faithful import said
from app.extraction.open_claims import is_open_subject
from app.ledger import repository as ledger_repository
from app.models import Event, HypothesisRow
from app.text.voice import split_voices


@lru_cache(maxsize=4)
def get_extractor(name: str = "deterministic") -> Extractor:
    if name == "deterministic":
        from app.extraction.deterministic import DeterministicExtractor

        extractor: Extractor = DeterministicExtractor()
        return extractor
    if name == "learned":
        return registry.learned_extractor()
    if name == "openai_compatible":
        from app.extraction.openai_compatible import OpenAICompatibleExtractor

        # An outage of the model server falls back to the local learned extractor.
        remote: Extractor = OpenAICompatibleExtractor.from_settings(
            fallback=get_extractor("learned")
        )
        return remote
    raise ValueError(f"unknown extractor {name!r}")


def reads_held(extractor: Extractor) -> bool:
    """The extractor reads which values the user holds (`EventInput.held`)."""
    return bool(getattr(extractor, "reads_held", False))


def extract(db: Session, extractor: Extractor, event: Event, asks: bool = False) -> Extraction:
    """What the extractor reads of the event. A user-channel event comes with the values the
    user holds, for an extractor that reads them (one indexed query); `asks`: the admission
    policy asks the user questions (`EventInput.asks`)."""
    if event.text is None:  # erased before processing: nothing to read
        return Extraction(
            extractor=extractor.name, extractor_version=extractor.version, abstain_reason="erased"
        )
    held: frozenset[tuple[str, str]] = frozenset()
    if event.origin == Origin.user.value and reads_held(extractor):
        held = ledger_repository.held_claims(db, event.user_id)
    return read_text(
        extractor, event.text, Origin(event.origin), event.occurred_at, domain=event.domain,
        tool_name=event.tool_name, held=held, asks=asks,
    )


def read_text(
    extractor: Extractor,
    text: str,
    origin: Origin,
    occurred_at: datetime,
    *,
    domain: str | None = None,
    tool_name: str | None = None,
    held: frozenset[tuple[str, str]] = frozenset(),
    asks: bool = False,
) -> Extraction:
    """What the extractor reads of an event's text. In a user turn, a third party's passage
    is read apart, and what it says becomes a shared file's claim, not the user's. A taxonomy
    claim whose value the text does not say becomes an open claim in its words
    (`faithful.said`)."""
    own_text, passed_on = (split_voices(text) if origin == Origin.user else (text, ""))
    reading = getattr(extractor, "reading", None)  # the extractor's typo repair, if any

    def read(part: str) -> Extraction:
        extraction = extractor.extract(
            EventInput(
                text=part,
                origin=origin,
                occurred_at=occurred_at,
                domain=domain,
                tool_name=tool_name,
                held=held,
                asks=asks,
            )
        )
        return said(extraction, part, reading if callable(reading) else None)

    own = read(own_text) if own_text else Extraction(
        extractor=extractor.name, extractor_version=extractor.version,
        abstain_reason="no_own_words")
    if own_text and not own.hypotheses:
        own = _with_own_clauses(own, [read(clause) for clause in own_clauses(own_text)])
    if not passed_on:
        return own
    # A third party's passage in a user turn: what it says is not the user's statement.
    theirs = [h.model_copy(update={"provenance": Origin.shared_file})
              for h in read(passed_on).hypotheses]
    stated = {(h.subject, h.value, h.direction, h.scope) for h in own.hypotheses}
    laundered = [h for h in theirs if (h.subject, h.value, h.direction, h.scope) not in stated]
    if not laundered:
        return own
    return own.model_copy(update={"hypotheses": (*own.hypotheses, *laundered),
                                  "abstain_reason": None})


def _with_own_clauses(whole: Extraction, clauses: list[Extraction]) -> Extraction:
    """The whole text's reading, or, where it found nothing, the taxonomy claims its
    first-person clauses state (each once). An open claim read from a clause alone would
    quote a fragment out of its sentence."""
    found: dict[tuple[str, str, str, str], Hypothesis] = {}
    for reading in clauses:
        for h in reading.hypotheses:
            if not is_open_subject(h.subject):
                found.setdefault((h.subject, h.value, h.direction.value, h.scope), h)
    if not found:
        return whole
    return whole.model_copy(update={"hypotheses": tuple(found.values()), "abstain_reason": None})


def persist(
    db: Session, event: Event, extraction: Extraction, hypothesis: Hypothesis
) -> HypothesisRow:
    row = HypothesisRow(
        tenant_id=event.tenant_id,
        user_id=event.user_id,
        event_id=event.id,
        claim=hypothesis.claim,
        subject=hypothesis.subject,
        value=hypothesis.value,
        direction=hypothesis.direction.value,
        scope=hypothesis.scope,
        timescale=hypothesis.timescale.value,
        confidence=hypothesis.confidence,
        provenance=hypothesis.provenance.value,
        extractor=extraction.extractor,
        extractor_version=extraction.extractor_version,
    )
    db.add(row)
    db.flush()
    return row
