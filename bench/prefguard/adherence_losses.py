"""Where adherence goes: each genuine changepoint a method does not adhere to, by the first
thing that went wrong for it (computed from the raw outcomes, like every metric).

The causes, checked in this order for a changepoint whose probe does not follow the true
value (the items `adherence` scores, `bench/common/metrics.scored_changepoints`):

- `not_read`        the extractor abstained on the event
- `answer_in_error` a question about its claim was answered wrongly (the simulated user's
                    ε, `bench/common/clarify_answers.py`): no policy can do better after asking
- `answered_no`     asked (at the event or, deferred, later), answered truthfully "no", and
                    evicted: the claim asked about was not the user's (a misread value or
                    scope)
- `asked_waiting`   asked at the event and still held in quarantine at the probe
- `retained`        the first decision was `retain` (usually: read as a value already held)
- `guarded`         held in quarantine without a question where the policy proposed a write:
                    the stable-overwrite rule held a revision of an established stable node
                    (asked about only while the question budget allows)
- `budget_spent`    held in quarantine because the policy would have asked but the user's
                    question budget was spent (reason `question_budget_spent`)
- `held`            held in quarantine by the policy's own choice (mostly untrusted channels)
- `admitted`        written into the ledger (add, revise, scope, or a confirmed question),
                    yet the probe's response does not follow the true value: a later event
                    replaced it, the read differs from the truth, or retrieval or the
                    selector chose otherwise
- `other`           anything else

Each cause is split by channel (`user` or `untrusted`), since the gate treats them apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from app.domain.gate import QUESTION_BUDGET_SPENT
from bench.common.metrics import scored_changepoints
from bench.common.records import ACTIVE_CHANGES, WRITE_ACTIONS, EpisodeOutcome, EventRecord

CAUSES = ("not_read", "answer_in_error", "answered_no", "asked_waiting", "retained", "guarded",
          "budget_spent", "held", "admitted", "other")
# A confirmed (or narrowed) question promotes its claim with the change "user_confirmed".
ADMITTING_CHANGES = ACTIVE_CHANGES | {"user_confirmed"}


def cause(event: EventRecord) -> str:
    """Why a changepoint event the method does not adhere to was lost (first match)."""
    if not event.actions:
        return "not_read"
    if event.wrong_answers:
        return "answer_in_error"
    admitted = (bool(ADMITTING_CHANGES & set(event.changes))
                or any(a in WRITE_ACTIONS for a in event.actions))
    if admitted:
        return "admitted"
    # Within an episode only an answer evicts what the event wrote (quarantine expiry and
    # erasure are recorded against the events that cause them).
    if "evicted" in event.changes:
        return "answered_no"
    if "clarify" in event.actions:
        return "asked_waiting"
    if event.actions[0] == "retain":
        return "retained"
    if "quarantine" in event.actions:
        if any(p in WRITE_ACTIONS for p in event.proposed):
            return "guarded"
        if QUESTION_BUDGET_SPENT in event.reasons:
            return "budget_spent"
        return "held"
    return "other"


def losses(episodes: Sequence[EpisodeOutcome]) -> dict[str, int]:
    """Counts of lost changepoints by `<channel>:<cause>`, plus `changepoints` and `lost`."""
    counts: Counter[str] = Counter()
    for episode in episodes:
        for event, adhered in scored_changepoints(episode):
            counts["changepoints"] += 1
            if adhered:
                continue
            counts["lost"] += 1
            channel = "user" if event.origin == "user" else "untrusted"
            counts[f"{channel}:{cause(event)}"] += 1
    return dict(counts)
