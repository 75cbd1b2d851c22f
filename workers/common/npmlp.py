"""A numpy forward pass for the small MLPs the extractor and relation model ship as `.npz`.

They are trained in torch and run without it, so the write path's extraction stage never
imports torch. Layers are stored as `<name>.weight` (out, in) and `<name>.bias` (out,).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]


def linear(params: Mapping[str, Array], name: str, x: Array) -> Array:
    """x (n, in) → (n, out)."""
    out: Array = x @ params[f"{name}.weight"].T + params[f"{name}.bias"]
    return out


def relu(x: Array) -> Array:
    out: Array = np.maximum(x, 0.0)
    return out


def softmax(logits: Array, axis: int = -1) -> Array:
    shifted = logits - logits.max(axis=axis, keepdims=True)
    exp = np.exp(shifted)
    out: Array = (exp / exp.sum(axis=axis, keepdims=True)).astype(np.float32)
    return out


def sigmoid(x: Array) -> Array:
    out: Array = (1.0 / (1.0 + np.exp(-x))).astype(np.float32)
    return out


def concatenate(parts: Sequence[Array], axis: int = -1) -> Array:
    out: Array = np.concatenate(list(parts), axis=axis)
    return out
