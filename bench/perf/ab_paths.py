"""The write path and retrieval of this checkout against those of another commit, interleaved
call by call in one process on one database, so both see the same machine load:

    python -m bench.perf.ab_paths REF 10000,100000 200 3   # commit, sizes, calls, reps

REF's `app/events/{repository,service}.py`, `app/pipeline.py`,
`app/retrieval/{repository,service}.py` and `app/ledger/repository.py` are read with `git
show` and run against this checkout's schema and other modules. Write path: `create_event`
with in-process processing, each event worded once, the two sides on users of their own;
retrieval: `retrieve` over the bulk user's nodes (loaded as `capture bench perf` loads
them), each query worded once, both sides into the same session. Each call also counts its
statements (before_cursor_execute). Prints p50/p95 in ms per repetition and the median of
the repetitions."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import event

from app import pipeline as this_pipeline
from app.core import db as core_db
from app.events import service as this_events
from app.events.schemas import EventCreate
from app.retrieval import service as this_retrieval
from app.retrieval.schemas import RetrieveRequest
from bench.perf import runner
from bench.perf.ab import at_commit

# (path at REF, module name, imports of the project the source's text is pointed away from)
REF_MODULES = [
    ("app/ledger/repository.py", "ref_ledger_repository", {}),
    ("app/retrieval/repository.py", "ref_retrieval_repository", {}),
    ("app/events/repository.py", "ref_events_repository", {}),
    ("app/retrieval/service.py", "ref_retrieval_service", {
        "from app.retrieval import repository\n":
            "import ref_retrieval_repository as repository\n",
        "from app.ledger import repository as ledger_repository\n":
            "import ref_ledger_repository as ledger_repository\n",
        "from app.events import repository as events_repository\n":
            "import ref_events_repository as events_repository\n",
    }),
    ("app/pipeline.py", "ref_pipeline", {
        "from app.events import repository as events_repository\n":
            "import ref_events_repository as events_repository\n",
    }),
    ("app/events/service.py", "ref_events_service", {
        "from app import pipeline\n": "import ref_pipeline as pipeline\n",
        "from app.events import repository\n": "import ref_events_repository as repository\n",
    }),
]


class Counter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, *args: Any) -> None:
        self.count += 1


def _timed(call: Callable[[], None], counter: Counter) -> tuple[float, int]:
    counter.count = 0
    t0 = time.perf_counter()
    call()
    return (time.perf_counter() - t0) * 1000, counter.count


def _report(label: str, rounds: dict[str, list[list[float]]], trips: dict[str, list[int]]) -> None:
    for side in ("ref", "this"):
        p50 = [float(np.percentile(r, 50)) for r in rounds[side]]
        p95 = [float(np.percentile(r, 95)) for r in rounds[side]]
        print(f"  {label}, {side}: p50 {statistics.median(p50):.2f} "
              f"({', '.join(f'{v:.2f}' for v in p50)}) p95 {statistics.median(p95):.2f} "
              f"({', '.join(f'{v:.2f}' for v in p95)}) statements/call "
              f"{statistics.mean(trips[side]):.2f}", flush=True)


# One call of one side: (repetition, call number, side, its place in the pair) → the call.
CallOf = Callable[[int, int, str, int], Callable[[], None]]
WARM_UP_CALLS = 10


def _interleaved(
    calls: int, reps: int, call_of: CallOf, counter: Counter
) -> tuple[dict[str, list[list[float]]], dict[str, list[int]]]:
    """Each side's call times per repetition and statements per call, the two sides
    alternating which goes first; repetition -1 warms both up (caches, prepared plans) and
    is not kept."""
    rounds: dict[str, list[list[float]]] = {"ref": [], "this": []}
    trips: dict[str, list[int]] = {"ref": [], "this": []}
    for rep in range(-1, reps):
        times: dict[str, list[float]] = {"ref": [], "this": []}
        for i in range(calls if rep >= 0 else WARM_UP_CALLS):
            order = ["ref", "this"] if i % 2 else ["this", "ref"]
            for j, side in enumerate(order):
                ms, n = _timed(call_of(rep, i, side, j), counter)
                times[side].append(ms)
                if rep >= 0:
                    trips[side].append(n)
        if rep >= 0:
            for side in times:
                rounds[side].append(times[side])
    return rounds, trips


def main(ref: str, sizes: list[int], calls: int, reps: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="perf_ab_paths_"))
    loaded = {name: at_commit(ref, path, name, folder, replace)
              for path, name, replace in REF_MODULES}
    events = {"ref": loaded["ref_events_service"], "this": this_events}
    retrieval = {"ref": loaded["ref_retrieval_service"], "this": this_retrieval}
    assert this_pipeline is not loaded["ref_pipeline"]
    with runner.perf_database(None, "capture_perf_ab_paths") as store:
        engine, principal = store.engine, store.principal
        counter = Counter()
        event.listen(engine, "before_cursor_execute", counter)
        templates = {rep: runner.write_events(max(calls, WARM_UP_CALLS), rep)
                     for rep in range(-1, reps)}

        def write(rep: int, i: int, side: str, j: int) -> Callable[[], None]:
            template = templates[rep][i]
            body = EventCreate(**{
                **template.model_dump(), "user_id": f"{side}-{template.user_id}",
                "text": template.text.replace("(ref", f"({side}")})

            def call() -> None:
                with core_db.session_scope() as db:
                    events[side].create_event(db, principal, body, uuid.uuid4().hex)
            return call

        print("write path (per event):", flush=True)
        _report("write path", *_interleaved(calls, reps, write, counter))
        rng, centres = np.random.default_rng(0), runner.anchors()
        user_id = runner._bulk_user(engine, principal.tenant_id)
        done = 0
        for size in sorted(sizes):
            runner._load_nodes(engine, principal.tenant_id, user_id, done, size - done, rng,
                               centres)
            done = size
            texts = {rep: runner.retrieval_queries(size, rep, 2 * calls)
                     for rep in range(-1, reps)}

            def read(rep: int, i: int, side: str, j: int,
                     texts: dict[int, list[str]] = texts) -> Callable[[], None]:
                request = RetrieveRequest(user_id="bulk", session_id="r", k=runner.RECALL_K,
                                          mode="tool", query=texts[rep][2 * i + j])

                def call() -> None:
                    with core_db.session_scope() as db:
                        retrieval[side].retrieve(db, principal, request, uuid.uuid4().hex)
                return call

            print(f"retrieval at {size:,} nodes:", flush=True)
            _report(f"retrieval {size:,}", *_interleaved(calls, reps, read, counter))


if __name__ == "__main__":
    main(sys.argv[1], [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3]),
         int(sys.argv[4]))
