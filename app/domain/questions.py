"""The text of a clarifying question, rendered from the claims it is about as they are now.

Nothing stores a question's text: the API, the export and webhook deliveries each render it
when read, so a claim's erasure removes it from every question that quoted it."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.claims import GLOBAL_SCOPE
from app.domain.vocabulary import ClarificationStatus, Origin

# Where the claim in question came from (an Origin), as the question names it.
_SOURCE: dict[str, str] = {
    Origin.user.value: "Your last message",
    Origin.retrieved_document.value: "A document I retrieved",
    Origin.tool_output.value: "A tool's output",
    Origin.shared_file.value: "A file you shared",
}


@dataclass(frozen=True, slots=True)
class LiveClaim:
    """A claim as held now: `claim` is None once it is erased."""

    claim: str | None
    scope: str


def question_text(
    status: str, source: str | None, held: LiveClaim | None, contradicted: LiveClaim | None
) -> str | None:
    """The question as the user reads it: none once its claim is erased (or the question
    was withdrawn unasked); an erased contradicted claim is not quoted."""
    if (status in (ClarificationStatus.erased.value, ClarificationStatus.withdrawn.value)
            or held is None or held.claim is None):
        return None
    scope = "" if held.scope == GLOBAL_SCOPE else f" (only for {held.scope.replace('_', ' ')})"
    named = _SOURCE.get(source or "", "A message")
    if contradicted is not None and contradicted.claim:
        return (
            f'I have noted "{contradicted.claim}". {named} '
            f'suggests "{held.claim}"{scope}. Should I remember the new preference from '
            "now on, only in this context, or ignore it?"
        )
    return (
        f'Should I remember "{held.claim}"{scope} as your preference? '
        "Answer yes, only in this context, or no."
    )
