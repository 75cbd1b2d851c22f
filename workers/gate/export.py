"""Write a gate checkpoint (`gate.pt`, torch) as the `.npz` the service loads (numpy).

The arrays are the state dict under its own names; `model` (the config), `meta` (temperature,
η, versions) and `source_digest` (the digest of the `.pt`, which names the policy version)
ride in the npz's meta record. `train.main` writes both files; `capture train export-gate`
re-exports an existing checkpoint.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from workers.common.weights import digest, save_npz


def npz_path(checkpoint: Path) -> Path:
    return checkpoint.with_suffix(".npz")


def export(checkpoint: Path, out: Path | None = None) -> Path:
    """`gate.pt` → `gate.npz` beside it (or `out`)."""
    target = out or npz_path(checkpoint)
    loaded = torch.load(checkpoint, map_location="cpu", weights_only=True)
    arrays = {name: tensor.detach().to(torch.float32).numpy().astype(np.float32)
              for name, tensor in loaded["state_dict"].items()}
    save_npz(target, arrays, {"model": loaded["model"], "meta": loaded["meta"],
                              "source_digest": digest(checkpoint)})
    return target
