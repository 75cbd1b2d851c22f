"""The extractor network: a shared trunk over [MiniLM embedding ‖ origin] and one head per field.

    x (B, 444) = [MiniLM (384) ‖ origin (4) ‖ rule-reader cues (56)] → trunk (B, H)
    → has_preference (B,) and logits per field:
    claim (B, 55: dimension × value), direction (B, 2), scope (B, 11), timescale (B, 2)

It is trained in torch (`train.py`) and shipped as `.npz` for the numpy forward in
`infer.py`; `export` / the numpy runner keep the two in step (a test checks they agree).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from app.models.base import EMBEDDING_DIM
from workers.extraction.vocab import CUE_FEATURES, HEADS, ORIGINS

INPUT_DIM = EMBEDDING_DIM + len(ORIGINS) + CUE_FEATURES


@dataclass(frozen=True, slots=True)
class ExtractorModelConfig:
    input_dim: int = INPUT_DIM
    hidden: int = 256
    dropout: float = 0.2

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


class ExtractorNet(nn.Module):
    def __init__(self, config: ExtractorModelConfig) -> None:
        super().__init__()
        self.config = config
        self.trunk1 = nn.Linear(config.input_dim, config.hidden)
        self.trunk2 = nn.Linear(config.hidden, config.hidden)
        self.dropout = nn.Dropout(config.dropout)
        self.has_preference = nn.Linear(config.hidden, 1)
        self.heads = nn.ModuleDict({name: nn.Linear(config.hidden, n) for name, n in HEADS.items()})

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        # x: (B, input_dim)
        z = self.dropout(torch.relu(self.trunk1(x)))  # (B, H)
        z = self.dropout(torch.relu(self.trunk2(z)))  # (B, H)
        out = {name: head(z) for name, head in self.heads.items()}  # (B, n_field)
        out["has_preference"] = self.has_preference(z).squeeze(-1)  # (B,)
        return out


def export(net: ExtractorNet) -> dict[str, np.ndarray]:
    """Parameter arrays by the names the numpy runner reads (float32)."""
    params = {
        "trunk1": net.trunk1,
        "trunk2": net.trunk2,
        "has_preference": net.has_preference,
        **{f"heads.{name}": head for name, head in net.heads.items()},
    }
    arrays: dict[str, np.ndarray] = {}
    for name, layer in params.items():
        assert isinstance(layer, nn.Linear)
        arrays[f"{name}.weight"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"{name}.bias"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    return arrays
