"""The ledger's rules as pure functions over plain data.

The service's ledger (`app.ledger.service`, over the stored nodes) and the training replay
(`workers.gate.ledger_sim`, over nodes in memory) both call these, so the gate is trained on
the ledger it writes to.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Protocol

from app.domain.vocabulary import Layer
from app.ledger.constants import LAYER_DECAY_PER_DAY, SECONDS_PER_DAY


class Decaying(Protocol):
    """What decay reads of a node."""

    @property
    def c0(self) -> float: ...
    @property
    def authenticity(self) -> float: ...
    @property
    def layer(self) -> str: ...
    @property
    def last_corroborated_at(self) -> datetime: ...


def decayed_confidence(node: Decaying, at: datetime) -> float:
    """c0 · σ(h) · exp(−γ_layer (t − t0)), t0 = last corroboration."""
    days = max(0.0, (at - node.last_corroborated_at).total_seconds() / SECONDS_PER_DAY)
    rate = LAYER_DECAY_PER_DAY[Layer(node.layer)]
    return node.c0 * node.authenticity * math.exp(-rate * days)
