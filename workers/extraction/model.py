"""The extractor network: a shared trunk over the event's features and one head per field.

    x (B, 1213) = [MiniLM (384) ‖ origin (4) ‖ rule-reader cues (56)      base (444)
                   ‖ MiniLM of the kept side (384) ‖ of the rejected side (384) ‖ rejected? (1)]

The kept / rejected sides come from `segments.split_sides` ("TypeScript instead of Rust": kept
"typescript instead of", rejected "rust"); without a rejected side the kept side is the whole
text and the rejected side zeros. The sides feed the claim head only: whether the event holds
a preference at all is read from the base features, as before (feeding the sides to the trunk
too made it fire on chatty non-preferences on dev). Each side goes through one shared
projection (B, S) and straight into the claim logits through its own linear probe, so a value
named on the rejected side can be pushed down whatever the template around it:

    trunk(base) → z (B, H) → has_preference (B,), direction (2), scope (11), timescale (2)
    claim = head([z ‖ relu(P·kept) ‖ relu(P·rejected) ‖ rejected?])
            + probe_kept(kept) + probe_rejected(rejected)                 (B, 55: dimension × value)

It is trained in torch (`train.py`) and shipped as `.npz` for the numpy forward in
`infer.py`; `export` / the numpy runner keep the two in step (a test checks they agree).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from app.models.base import EMBEDDING_DIM
from workers.extraction.vocab import BASE_DIM, HEADS, INPUT_DIM, INPUT_PARTS


def split_input(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """x (B, 1213) → base (B, 444), kept (B, 384), rejected (B, 384), has_rejected (B, 1)."""
    base, kept, rejected, has_rejected = INPUT_PARTS
    return x[:, base], x[:, kept], x[:, rejected], x[:, has_rejected]


@dataclass(frozen=True, slots=True)
class ExtractorModelConfig:
    input_dim: int = INPUT_DIM
    hidden: int = 256
    side_dim: int = 64  # S: the shared projection of each side into the trunk
    dropout: float = 0.2

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


class ExtractorNet(nn.Module):
    def __init__(self, config: ExtractorModelConfig) -> None:
        super().__init__()
        self.config = config
        self.side = nn.Linear(EMBEDDING_DIM, config.side_dim)
        self.trunk1 = nn.Linear(BASE_DIM, config.hidden)
        self.trunk2 = nn.Linear(config.hidden, config.hidden)
        self.dropout = nn.Dropout(config.dropout)
        self.has_preference = nn.Linear(config.hidden, 1)
        claim_in = config.hidden + 2 * config.side_dim + 1
        self.heads = nn.ModuleDict({
            name: nn.Linear(claim_in if name == "claim" else config.hidden, n)
            for name, n in HEADS.items()
        })
        self.probe_kept = nn.Linear(EMBEDDING_DIM, HEADS["claim"])
        self.probe_rejected = nn.Linear(EMBEDDING_DIM, HEADS["claim"])

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        # x: (B, input_dim)
        base, kept, rejected, has_rejected = split_input(x)
        z = self.dropout(torch.relu(self.trunk1(base)))  # (B, H)
        z = self.dropout(torch.relu(self.trunk2(z)))  # (B, H)
        sides = [torch.relu(self.side(kept)), torch.relu(self.side(rejected))]  # 2 × (B, S)
        claim_in = torch.cat([z, *sides, has_rejected], dim=1)  # (B, H + 2S + 1)
        out = {
            name: head(claim_in if name == "claim" else z) for name, head in self.heads.items()
        }  # (B, n_field)
        out["claim"] = out["claim"] + self.probe_kept(kept) + self.probe_rejected(rejected)
        out["has_preference"] = self.has_preference(z).squeeze(-1)  # (B,)
        return out


def export(net: ExtractorNet) -> dict[str, np.ndarray]:
    """Parameter arrays by the names the numpy runner reads (float32)."""
    params = {
        "side": net.side,
        "probe_kept": net.probe_kept,
        "probe_rejected": net.probe_rejected,
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
