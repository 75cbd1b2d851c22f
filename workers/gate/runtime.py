"""The gate network as the service runs it: numpy on the CPU (no torch), or torch on an
accelerator for a worker that has one (`CAPTURE_WORKER_DEVICE`). Both take and return numpy
arrays, load the same `.npz` weights and integrate with the same fixed-step solver, so a
decision does not depend on which worker made it (`bench/parity/device_check.py` measures it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from workers.device import resolve_device
from workers.gate import npgate
from workers.gate.model_config import GateModelConfig

Array = npt.NDArray[np.float32]


class GateRuntime(Protocol):
    """`GateNet`'s inference methods over numpy arrays."""

    config: GateModelConfig

    @property
    def h0(self) -> Array: ...

    def encode(self, embedding: Array, scalars: Array) -> Array: ...

    def evolve(self, h: Array, dt_days: Array) -> Array: ...

    def update(self, h: Array, encoded: Array) -> Array: ...

    def attend(self, encoded: Array) -> Array: ...

    def decide(self, state: Array, claim_embedding: Array, context: Array,
               scalars: Array) -> tuple[Array, Array]: ...


@dataclass(frozen=True, slots=True)
class Loaded:
    net: GateRuntime
    meta: dict[str, Any]
    device: str


def load(path: Path, device: str | None = None) -> Loaded:
    """The gate at `path` (`.npz`) on `device` (default: the worker's, from settings)."""
    net, meta = npgate.load(path)
    chosen = device or resolve_device()
    if chosen == "cpu":
        return Loaded(net, meta, "cpu")
    from workers.gate.torch_runtime import TorchGateNet

    return Loaded(TorchGateNet(net.config, net.params, chosen), meta, chosen)


def belief_states(net: GateRuntime, embeddings: Array, scalars: Array, dt_days: Array) -> Array:
    """Batched replay of B episodes: the belief after each event.

    embeddings (B, T, 384), scalars (B, T, EVENT_SCALARS), dt_days (B, T) (0 on padding and
    first events) → (B, T, state). The transformer attends over each episode's events (its
    padding comes after the events it would attend to, so causal attention never reads it)."""
    batch, steps = dt_days.shape
    encoded = np.stack([net.encode(embeddings[:, t], scalars[:, t]) for t in range(steps)],
                       axis=1)  # (B, T, event_hidden)
    if net.config.variant == "transformer":
        return np.stack([net.attend(encoded[b]) for b in range(batch)])
    h = np.tile(net.h0, (batch, 1)).astype(np.float32)
    out = []
    for t in range(steps):
        h = net.update(net.evolve(h, dt_days[:, t]), encoded[:, t])
        out.append(h)
    return np.stack(out, axis=1)
