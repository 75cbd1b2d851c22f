"""The simulated user who answers clarifying questions in `capture bench prefguard`.

When a method's gate asks (`clarify`), the claim waits in quarantine for the user's answer
on the user channel. The benchmark's user answers at once, from the episode's latent
preference state right after the event (the generator's `state_after`), never from the
event's label, and is wrong with probability `error` — the paper's D-PrefGuard protocol
(Appendix D: stored answers generated from the latent state, 92 % accurate, ε = 0.08). A
wrong answer flips confirm ↔ reject (a wrong "only in <scope>" becomes a reject). Draws are
seeded per (episode, event, question), so every method meets the same user.

The answer to "should I remember <subject> = <value> in <scope>?":
- `confirm` when the user holds that value where the claim applies: in its own scope, or
  globally (a global value also holds inside every domain that has no value of its own);
- `scope` with the domain when the claim is global but the user holds the value only in
  one domain (e.g. short answers, but only in standups);
- `reject` otherwise (an attacker's value, a sarcastic aside, a stale value).
An `avoid` claim is confirmed when the user's value there exists and is another one.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any, Literal

from bench.common.records import GLOBAL_SCOPE, true_value

Answer = Literal["confirm", "reject", "scope"]
PAPER_ANSWER_ERROR = 0.08  # ε: the paper's stored answers are 92 % accurate


@dataclass(frozen=True, slots=True)
class PendingClaim:
    subject: str | None
    value: str | None
    scope: str
    direction: str


def truthful_answer(claim: PendingClaim, state: dict[str, Any]) -> tuple[Answer, str | None]:
    """What the user answers when they answer correctly: (answer, scope for `scope`)."""
    if claim.subject is None or claim.value is None:
        return "reject", None
    held = true_value(state, claim.subject, claim.scope)
    if claim.direction == "avoid":
        return ("confirm", None) if held is not None and held != claim.value else ("reject", None)
    if held == claim.value:
        return "confirm", None
    if claim.scope == GLOBAL_SCOPE:
        domains = sorted(domain for domain, values in state.get("scoped", {}).items()
                         if values.get(claim.subject) == claim.value)
        if domains:
            return "scope", domains[0]
    return "reject", None


@dataclass(frozen=True, slots=True)
class SimulatedUser:
    error: float = PAPER_ANSWER_ERROR

    def answer(self, claim: PendingClaim, state: dict[str, Any], *, episode_id: str,
               event_index: int, question: int) -> tuple[Answer, str | None]:
        truth, scope = truthful_answer(claim, state)
        if not self.errs(episode_id=episode_id, event_index=event_index, question=question):
            return truth, scope
        return ("reject", None) if truth != "reject" else ("confirm", None)

    def errs(self, *, episode_id: str, event_index: int, question: int) -> bool:
        """Whether this question's answer is one of the user's errors (the same draw
        `answer` uses, so the benchmark can tell a wrong answer from a misread claim)."""
        return self.error > 0.0 and _draw(episode_id, event_index, question) < self.error


def _draw(episode_id: str, event_index: int, question: int) -> float:
    """A uniform draw in [0, 1) fixed by the question's place in the episode."""
    digest = hashlib.sha256(f"{episode_id}:{event_index}:{question}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big")).random()
