"""Check-call's evidence read and retrieval's ANN candidate query of this checkout against
those of another commit, interleaved call by call in one process on one database, so both
see the same machine load (the write path's users, then one user's N nodes, loaded as
`capture bench perf` loads them; the check-call session has 1,000 nodes retrieved):

    python -m bench.perf.ab REF 10000,100000 200   # commit, sizes, calls per size

REF's `app/checkcall/repository.py` and `app/retrieval/repository.py` are read with
`git show` and run against this checkout's schema. Prints p50/p95 in ms per size. What is
compared is those two queries alone, so the repositories are called directly: no service or
HTTP layer runs around them."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

import numpy as np

from app.checkcall import repository as checkcall_repository
from app.core import db as core_db
from app.core.config import REPO_ROOT
from app.retrieval import repository as retrieval_repository
from bench.perf import runner

NEEDLES = ["dana@reyes-cpa.example"]  # the value `bench.perf.runner.check_call` sends


def at_commit(ref: str, path: str, name: str, folder: Path,
              replace: Mapping[str, str] | None = None) -> ModuleType:
    """The module at `path` as it was at `ref`, imported as `name`; `replace` rewrites its
    source first (imports of the project pointed at other modules)."""
    source = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=REPO_ROOT, check=True,
                            capture_output=True, text=True).stdout
    for old, new in (replace or {}).items():
        source = source.replace(old, new)
    file = folder / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _ms(values: list[float]) -> str:
    return f"p50 {np.percentile(values, 50):.2f} p95 {np.percentile(values, 95):.2f}"


def main(ref: str, sizes: list[int], calls: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="perf_ab_"))
    old = {"check-call": at_commit(ref, "app/checkcall/repository.py", "ref_checkcall", folder),
           "candidates": at_commit(ref, "app/retrieval/repository.py", "ref_retrieval", folder)}
    new = {"check-call": checkcall_repository, "candidates": retrieval_repository}
    with runner.perf_database(None, "capture_perf_ab") as store:
        engine, principal = store.engine, store.principal
        tenant_id = principal.tenant_id
        runner.write_path(principal, 200, 3)
        rng, centres = np.random.default_rng(0), runner.anchors()
        user_id = runner._bulk_user(engine, tenant_id)
        loaded, in_session = 0, 0
        for size in sorted(sizes):
            runner._load_nodes(engine, tenant_id, user_id, loaded, size - loaded, rng, centres)
            loaded = size
            if in_session < 1000:
                in_session = runner.session_with_retrievals(principal, engine, user_id)
            queries = runner.node_vectors(centres, calls, np.random.default_rng(size))
            times: dict[str, list[float]] = {}
            for i in range(calls):
                order = [("ref", old), ("this", new)]
                for side, modules in order if i % 2 else order[::-1]:
                    with core_db.session_scope() as db:
                        t0 = time.perf_counter()
                        modules["check-call"].call_evidence(db, tenant_id, "bulk", "cc", NEEDLES)
                        times.setdefault(f"check-call read, {side}", []).append(
                            (time.perf_counter() - t0) * 1000)
                    with core_db.session_scope() as db:
                        t0 = time.perf_counter()
                        modules["candidates"].candidates(db, tenant_id, user_id,
                                                         [float(x) for x in queries[i]], 60)
                        times.setdefault(f"candidates, {side}", []).append(
                            (time.perf_counter() - t0) * 1000)
            print(f"{size:,} nodes (load average {os.getloadavg()[0]:.1f}):", flush=True)
            for label, values in sorted(times.items()):
                print(f"  {label}: {_ms(values)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3]))
