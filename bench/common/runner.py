"""Run one function per method against one dedicated benchmark database, in this process or
in parallel worker processes (each method has its own tenant, so they never share a user)."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from sqlalchemy import Engine

from app.gate.policies import POLICIES
from bench.common import policies as bench_policies
from bench.common.service import (
    attached,
    bench_database,
    embedded_server_uri,
    require_in_process_tasks,
)

T = TypeVar("T")
# run_one(method, engine, position) -> that method's outcomes; must pickle when jobs > 1.
RunOne = Callable[[str, Engine, int], list[T]]


def check_methods(methods: Sequence[str]) -> None:
    bench_policies.register()
    unknown = [m for m in methods if m not in POLICIES]
    if unknown:
        raise ValueError(f"unknown methods {unknown}; known: {sorted(POLICIES)}")


def _worker(run_one: RunOne[T], method: str, url: str, position: int) -> list[T]:
    require_in_process_tasks()
    with attached(url) as engine:
        return run_one(method, engine, position)


def run_per_method(
    methods: Sequence[str],
    run_one: RunOne[T],
    *,
    server_uri: str | None = None,
    jobs: int = 1,
) -> tuple[dict[str, list[T]], float]:
    """Outcomes per method (in the order given) and the wall time in seconds."""
    require_in_process_tasks()
    check_methods(methods)
    t0 = time.perf_counter()
    with bench_database(server_uri or embedded_server_uri()) as url:
        if jobs <= 1 or len(methods) <= 1:
            with attached(url) as engine:
                outcomes = {m: run_one(m, engine, i) for i, m in enumerate(methods)}
        else:
            # spawn: a fresh interpreter per worker, no forked ONNX session or DB connection.
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                futures = {
                    m: pool.submit(_worker, run_one, m, url, i) for i, m in enumerate(methods)
                }
                outcomes = {m: f.result() for m, f in futures.items()}
    return outcomes, time.perf_counter() - t0
