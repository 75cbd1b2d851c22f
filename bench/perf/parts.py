"""The write path, retrieval and check-call of `capture bench perf` (`bench.perf.runner.run` less
the throughput rounds, the peers and the plots), with the same loading and measures, so a
change to those parts can be timed on two commits in one window:

    python -m bench.perf.parts OUT.json 10000,100000 3 100 100   # sizes reps queries calls

It runs on its own database of the embedded server (dropped at the end) and writes each
measure's p50/p95 (median of the repetitions, and their range) to OUT.json. Like those parts
of `bench.perf.runner`, it calls the services in-process, not the HTTP API: the HTTP layer is what
these figures leave out."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.perf import runner

KEYS = ("p50", "p95", "p50_range", "p95_range")


def main(out: Path, sizes: tuple[int, ...], reps: int, queries: int, calls: int) -> None:
    results: dict[str, Any] = {"retrieval": {}, "check_call": {}, "load_average_1min": {}}
    with runner.perf_database(None, "capture_perf_parts") as store:
        engine, principal = store.engine, store.principal
        # As in `capture bench perf`: the write path's 60 users are in the ledger too.
        results["write_path"] = {
            k: v for k, v in runner.write_path(principal, 200, reps).items() if k != "samples_ms"
        }
        print("write path", {k: results["write_path"][k] for k in KEYS}, flush=True)
        rng = np.random.default_rng(0)
        centres = runner.anchors()
        user_id = runner._bulk_user(engine, principal.tenant_id)
        loaded, in_session = 0, 0
        for size in sorted(sizes):
            started = time.perf_counter()
            runner._load_nodes(engine, principal.tenant_id, user_id, loaded, size - loaded, rng,
                             centres)
            loaded = size
            print(f"loaded {size:,} nodes in {time.perf_counter() - started:.0f} s", flush=True)
            results["load_average_1min"][str(size)] = os.getloadavg()[0]
            retrieval = runner.retrieval_at(principal, engine, user_id, size, queries, reps)
            retrieval.pop("samples_ms", None)
            results["retrieval"][str(size)] = retrieval
            print(
                size,
                "retrieval",
                {k: retrieval[k] for k in KEYS},
                "ANN candidates p50",
                retrieval["ann_candidates_ms_p50"],
                flush=True,
            )
            if in_session < 1000:
                in_session = runner.session_with_retrievals(principal, engine, user_id)
            check = runner.check_call(principal, calls, reps)
            check.pop("samples_ms", None)
            results["check_call"][str(size)] = {**check, "retrieved_in_session": in_session}
            print(size, "check-call", {k: check[k] for k in KEYS}, flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main(
        Path(sys.argv[1]),
        tuple(int(s) for s in sys.argv[2].split(",")),
        int(sys.argv[3]),
        int(sys.argv[4]),
        int(sys.argv[5]),
    )
