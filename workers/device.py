"""The device a worker runs its torch models on (`CAPTURE_WORKER_DEVICE`).

`cpu` (the default) runs the gate and the extractor in numpy and never imports torch; `cuda`
runs them, and the `local_lm` audit decoder, on the GPU and refuses to start without one;
`auto` takes the GPU when torch is installed and sees one, else the CPU.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache

from app.core.config import get_settings


class DeviceUnavailable(RuntimeError):
    pass


def resolve_device(setting: str | None = None) -> str:
    """`cpu` or `cuda` for the given setting (default: the worker's)."""
    return _resolve(setting or get_settings().worker_device)


@lru_cache(maxsize=4)
def _resolve(setting: str) -> str:
    if setting == "cpu":
        return "cpu"
    if importlib.util.find_spec("torch") is None:
        if setting == "auto":
            return "cpu"
        raise DeviceUnavailable("CAPTURE_WORKER_DEVICE=cuda needs torch (pip install '.[gpu]')")
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if setting == "auto":
        return "cpu"
    raise DeviceUnavailable("CAPTURE_WORKER_DEVICE=cuda but torch sees no GPU")
