"""Weight files: `.npz` (numpy models) with a JSON `meta` record inside, and content digests.

Hyperparameters, label spaces, thresholds and the training command live in `meta`, so a
weight file is self-describing (STYLE habit 5). The digest names the exact weights in
versions (policy versions, extractor versions, latent headers).
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt


def digest(path: Path, length: int = 8) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:length]


def save_npz(path: Path, arrays: Mapping[str, npt.NDArray[Any]], meta: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    payload: dict[str, Any] = {"__meta__": blob, **arrays}
    np.savez_compressed(buffer, **payload)
    path.write_bytes(buffer.getvalue())


def load_npz(path: Path) -> tuple[dict[str, npt.NDArray[np.float32]], dict[str, Any]]:
    with np.load(path, allow_pickle=False) as data:
        meta: dict[str, Any] = json.loads(bytes(data["__meta__"]).decode())
        arrays = {k: data[k].astype(np.float32) for k in data.files if k != "__meta__"}
    return arrays, meta
