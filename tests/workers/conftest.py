"""Tiny, fast training runs for the model workers' tests (hashing embeddings, a few episodes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workers.common.episodes import ensure_bench_data

SLICE = 2  # episodes per track and split
# The out-of-fold extractors the gate's and the relation model's replays read train with: one
# member on a tenth of the authored augmentation (the shipped recipe took minutes of CI's
# 300 s per-test timeout).
SMALL_EXTRACTORS: dict[str, Any] = {"extractor_ensemble": 1, "extractor_augmentation": 0.1}


@pytest.fixture(scope="session")
def bench_data() -> Path:
    return ensure_bench_data()  # the generated benchmark, as the training commands read it


@pytest.fixture(scope="session")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workers")
