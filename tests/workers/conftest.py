"""Tiny, fast training runs for the model workers' tests (hashing embeddings, a few episodes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workers.common.episodes import ensure_bench_data

SLICE = 2  # episodes per track and split


@pytest.fixture(scope="session")
def bench_data() -> Path:
    return ensure_bench_data()  # the generated benchmark, as the training commands read it


@pytest.fixture(scope="session")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workers")
