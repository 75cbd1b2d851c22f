"""The gate network's hyperparameters, apart from the torch modules (the serving path reads
them without importing torch)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from app.domain.vocabulary import ACTIONS

Variant = Literal["ode", "discrete", "transformer"]
N_ACTIONS = len(ACTIONS)


@dataclass(frozen=True, slots=True)
class GateModelConfig:
    variant: Variant = "ode"
    latent: int = 256  # h, the belief state (paper: 256)
    ode_hidden: int = 128  # width of f_θ's hidden layers (its cost sets the training time)
    event_hidden: int = 128  # the GRU's input width
    claim_hidden: int = 64
    head_hidden: int = 128
    dropout: float = 0.4
    # Dropout on the 384-d sentence embeddings the network reads (events, claims): test
    # wording comes from template families never seen in training.
    input_dropout: float = 0.4
    rtol: float = 1e-3
    atol: float = 1e-4
    method: str = "dopri5"
    # Transformer baseline
    transformer_layers: int = 2
    transformer_heads: int = 4
    max_history: int = 32  # events of history the transformer attends over online

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> GateModelConfig:
        return cls(**{k: v for k, v in raw.items() if k in cls.__dataclass_fields__})
