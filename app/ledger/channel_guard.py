"""The channel rule: a claim that did not come from the user's own words never becomes an
active memory without the user's support.

A claim read from a tool output, a retrieved document, a shared file, or a passage a third
party wrote inside a user turn is held (quarantined, or asked about) whatever the gate
decided and whatever the user's history, until the user states it themselves or confirms a
question about it. The one exception is a source the tenant's operator marked as trusted to
speak for the user (`capture tenants trust-source`): a tool the user configured, a store of
their own files. Pure functions over plain values, so the service's ledger and the training
replay apply the same rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.vocabulary import Origin

# The decision reason when the rule holds a claim, and when a trusted source lifted it.
NEEDS_USER_SUPPORT = "untrusted_needs_user_support"
TRUSTED_SOURCE = "trusted_source"


def trusted_source(
    trusted: Sequence[str], tool_name: str | None, source_uri: str | None
) -> str | None:
    """The operator's entry that covers the event's source, if any: an entry holding `://`
    is a URI prefix matched against `source_uri`; any other entry names a tool."""
    for entry in trusted:
        if "://" in entry:
            if source_uri is not None and source_uri.startswith(entry):
                return entry
        elif tool_name is not None and tool_name == entry:
            return entry
    return None


def from_user(event_origin: Origin, claim_provenance: Origin) -> bool:
    """The claim is in the user's own words: a user event, outside any pasted passage."""
    return event_origin == Origin.user and claim_provenance == Origin.user


def needs_user_support(
    event_origin: Origin, claim_provenance: Origin, trusted: str | None
) -> bool:
    """Whether a write of this claim must wait for the user's own support."""
    return not from_user(event_origin, claim_provenance) and trusted is None
