"""Vocabulary shared by every generator module: actions, labels, origins, tracks, splits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

JSON = dict[str, Any]

SOURCE: Final = "dprefguard"
GENERATOR_VERSION: Final = 2  # 2: probe candidates and queries in split families

ACTIONS: Final = ("retain", "add", "scope", "revise", "quarantine", "clarify")
# The class mix the Capture paper reports over preference-bearing events (Appendix, training).
PAPER_CLASS_MIX: Final = {
    "retain": 0.28, "add": 0.17, "quarantine": 0.21, "revise": 0.14, "scope": 0.12, "clarify": 0.08,
}
LABELS: Final = (
    "genuine_preference", "benign_noise", "attack", "weak_evidence", "sarcasm",
    "literal_statement", "context_specific",
)
ORIGINS: Final = ("user", "retrieved_document", "tool_output", "shared_file")
TRACKS: Final = ("T0", "T1", "T2", "T3", "T4")
SPLITS: Final = ("train", "dev", "test")
# Users per split as a share of all users (paper: 288 / 96 / 96 of 480).
SPLIT_SHARES: Final = {"train": 0.6, "dev": 0.2, "test": 0.2}

GLOBAL_SCOPE: Final = "global"
# Surface template families: the analogue of the paper's generator model families.
FAMILIES: Final = ("plain", "casual", "formal", "terse", "story")
DRIFT_SHAPES: Final = ("abrupt", "gradual", "recurring", "context_switch")
ATTACK_FAMILIES: Final = ("indirect_injection", "poisoned_summary", "same_origin")

# Episode shape (paper, Appendix D).
MIN_EVENTS: Final = 12
MAX_EVENTS: Final = 20
# First changepoint at event number 5..12 counting from 1, i.e. index 4..11.
CHANGEPOINT_MIN_INDEX: Final = 4
CHANGEPOINT_MAX_INDEX: Final = 11
# Share of genuine updates (add / revise / scope) sent through the user's own file or
# settings export rather than the user channel, so provenance alone cannot be right.
NON_USER_GENUINE_RATE: Final = 0.27


@dataclass
class Spec:
    """One preference-bearing event before it has text, a time or a position."""

    intent: str
    action: str
    label: str
    origin: str
    dimension: str
    value: str
    scope: str = GLOBAL_SCOPE
    direction: str = "prefer"
    timescale: str = "permanent"
    changepoint: bool = False
    # "cp" marks the event the episode's changepoint position is sampled for.
    phase: str = "pre"
    attack_family: str | None = None
    drift_shape: str | None = None
    old_value: str | None = None
    typo: bool = False
    slow: bool = False
    scenario: int | None = None
    passage_id: int | None = None
    notes: str = ""

    @property
    def writes_state(self) -> bool:
        """Whether an oracle memory changes on this event."""
        return self.action in ("add", "revise", "scope") and self.label != "attack"
