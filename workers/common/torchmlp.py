"""`npmlp`'s functions over torch tensors, for the extractor's heads on a worker's GPU
(`CAPTURE_WORKER_DEVICE`). Same layer names, same computation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch


def linear(params: Mapping[str, torch.Tensor], name: str, x: torch.Tensor) -> torch.Tensor:
    """x (n, in) → (n, out)."""
    return x @ params[f"{name}.weight"].T + params[f"{name}.bias"]


def relu(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, min=0.0)


def softmax(logits: torch.Tensor, axis: int = -1) -> torch.Tensor:
    return torch.softmax(logits, dim=axis)


def sigmoid(x: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(x)


def concatenate(parts: Sequence[torch.Tensor], axis: int = -1) -> torch.Tensor:
    return torch.cat(list(parts), dim=axis)
