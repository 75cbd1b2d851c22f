"""Progress output for the trainers: one logger, configured once by the CLI or a test."""

from __future__ import annotations

import logging
import sys

log = logging.getLogger("capture.train")


def configure(level: int = logging.INFO) -> None:
    """Send training progress to stderr (idempotent)."""
    if not any(getattr(h, "_capture_train", False) for h in log.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
        handler._capture_train = True  # type: ignore[attr-defined]
        log.addHandler(handler)
    log.setLevel(level)
    log.propagate = False


def seed_everything(seed: int, threads: int) -> None:
    """Seeded, reproducible CPU training: Python, numpy and torch RNGs; bounded threads."""
    import random

    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, threads))
    torch.use_deterministic_algorithms(True, warn_only=True)
