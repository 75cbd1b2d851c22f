"""The relation network: features (RELATION_FEATURES) → hidden → 3 logits
(supports, contradicts, unrelated). Trained in torch, shipped as `.npz` for numpy inference."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from workers.relation.features import LABELS, RELATION_FEATURES


class RelationNet(nn.Module):
    def __init__(self, hidden: int = 64) -> None:
        super().__init__()
        self.layer1 = nn.Linear(RELATION_FEATURES, hidden)
        self.layer2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, len(LABELS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (B, RELATION_FEATURES) → (B, 3) logits
        z = torch.relu(self.layer1(x))
        z = torch.relu(self.layer2(z))
        return self.out(z)  # type: ignore[no-any-return]


def export(net: RelationNet) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    for name in ("layer1", "layer2", "out"):
        layer = getattr(net, name)
        arrays[f"{name}.weight"] = layer.weight.detach().numpy().astype(np.float32)
        arrays[f"{name}.bias"] = layer.bias.detach().numpy().astype(np.float32)
    return arrays
