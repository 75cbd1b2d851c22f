"""The gate network's forward pass in numpy: what the service runs (no torch).

The same computation as `model.GateNet` in eval mode (dropout off), from the same weights:
`gate.npz` holds the checkpoint's state dict under its own names, the model config and the
checkpoint's meta (`export.py` writes it from `gate.pt`; a test checks the two agree).
Between events the ODE variant integrates with the fixed-step solver of `solver.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from workers.common import npmlp
from workers.common.weights import load_npz
from workers.gate.model_config import N_ACTIONS, GateModelConfig
from workers.gate.solver import MAX_STEP_DAYS, dopri5_fixed

Array = npt.NDArray[np.float32]
LAYER_NORM_EPS = 1e-5  # torch.nn.TransformerEncoderLayer's default


def _sigmoid(x: Array) -> Array:
    out: Array = (1.0 / (1.0 + np.exp(-x))).astype(np.float32)
    return out


def _layer_norm(params: dict[str, Array], name: str, x: Array) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Array = (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * params[f"{name}.weight"] + params[
        f"{name}.bias"
    ]
    return out


@dataclass
class NumpyGateNet:
    """`GateNet`'s inference methods over numpy arrays (float32)."""

    config: GateModelConfig
    params: dict[str, Array]
    max_step_days: float = MAX_STEP_DAYS

    @property
    def h0(self) -> Array:
        return self.params["h0"]  # (latent,)

    def encode(self, embedding: Array, scalars: Array) -> Array:
        """(n, 384), (n, EVENT_SCALARS) → (n, event_hidden)."""
        x = np.concatenate([embedding, scalars], axis=-1).astype(np.float32)
        return np.tanh(npmlp.linear(self.params, "encoder.0", x))

    def field(self, h: Array) -> Array:
        """f_θ(h): (n, latent) → (n, latent)."""
        z = np.tanh(npmlp.linear(self.params, "field.net.0", h))
        z = np.tanh(npmlp.linear(self.params, "field.net.2", z))
        return npmlp.linear(self.params, "field.net.4", z)

    def evolve(self, h: Array, dt_days: Array) -> Array:
        """h (n, latent), dt_days (n,) → (n, latent)."""
        if self.config.variant != "ode" or not bool((dt_days > 0).any()):
            return h
        dt = dt_days.astype(np.float32)[:, None]  # (n, 1)
        steps = np.maximum(1.0, np.ceil(dt / self.max_step_days)).astype(np.float32)
        out: Array = dopri5_fixed(self.field, h, dt, steps).astype(np.float32)
        return out

    def update(self, h: Array, encoded: Array) -> Array:
        """GRUCell (torch's gate order r, z, n): (n, latent), (n, event_hidden) → (n, latent)."""
        p = self.params
        gi = encoded @ p["cell.weight_ih"].T + p["cell.bias_ih"]  # (n, 3·latent)
        gh = h @ p["cell.weight_hh"].T + p["cell.bias_hh"]
        i_r, i_z, i_n = np.split(gi, 3, axis=-1)
        h_r, h_z, h_n = np.split(gh, 3, axis=-1)
        reset = _sigmoid(i_r + h_r)
        keep = _sigmoid(i_z + h_z)
        candidate = np.tanh(i_n + reset * h_n)
        out: Array = ((1.0 - keep) * candidate + keep * h).astype(np.float32)
        return out

    def attend(self, encoded: Array) -> Array:
        """Transformer: (T, d) encoded events → (T, d) causal states (post-norm layers)."""
        steps = encoded.shape[0]
        positions = np.arange(steps) % self.config.max_history
        x = encoded + self.params["position.weight"][positions]
        future = np.triu(np.ones((steps, steps), dtype=bool), k=1)
        for layer in range(self.config.transformer_layers):
            name = f"transformer.layers.{layer}"
            x = _layer_norm(self.params, f"{name}.norm1", x + self._attention(name, x, future))
            hidden = npmlp.relu(npmlp.linear(self.params, f"{name}.linear1", x))
            x = _layer_norm(self.params, f"{name}.norm2",
                            x + npmlp.linear(self.params, f"{name}.linear2", hidden))
        return x

    def _attention(self, name: str, x: Array, future: npt.NDArray[np.bool_]) -> Array:
        heads = self.config.transformer_heads
        steps, width = x.shape
        head_width = width // heads
        qkv = x @ self.params[f"{name}.self_attn.in_proj_weight"].T + self.params[
            f"{name}.self_attn.in_proj_bias"]  # (T, 3d)
        q, k, v = (part.reshape(steps, heads, head_width).transpose(1, 0, 2)
                   for part in np.split(qkv, 3, axis=-1))  # (heads, T, hd)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(head_width)  # (heads, T, T)
        scores = np.where(future[None, :, :], -np.inf, scores)
        weights = npmlp.softmax(scores.astype(np.float32))
        mixed = (weights @ v).transpose(1, 0, 2).reshape(steps, width)  # (T, d)
        return npmlp.linear(self.params, f"{name}.self_attn.out_proj", mixed)

    def decide(self, state: Array, claim_embedding: Array, context: Array,
               scalars: Array) -> tuple[Array, Array]:
        """(n, state), (n, 384), (n, CONTEXT), (n, EVENT_SCALARS) → action logits (n, 6) and
        authenticity logits (n,)."""
        claim = np.tanh(npmlp.linear(self.params, "claim.0", claim_embedding))
        z = np.concatenate([state, claim, context, scalars], axis=-1).astype(np.float32)
        hidden = npmlp.relu(npmlp.linear(self.params, "head.0", z))
        out = npmlp.linear(self.params, "head.3", hidden)
        return out[..., :N_ACTIONS], out[..., N_ACTIONS]


def load(path: Path) -> tuple[NumpyGateNet, dict[str, Any]]:
    """A gate `.npz` → the network and the checkpoint's meta (with `source_digest`, the
    digest of the torch checkpoint it was exported from)."""
    arrays, stored = load_npz(path)
    config = GateModelConfig.from_dict(stored["model"])
    meta: dict[str, Any] = {**stored["meta"], "source_digest": stored["source_digest"]}
    return NumpyGateNet(config, arrays), meta
