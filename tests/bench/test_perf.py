"""`capture bench perf` end to end on a small scale: a real Redis, the API and a Celery worker
in subprocesses, the embedded Postgres; the files and every measure it promises."""

from __future__ import annotations

import json
from pathlib import Path

from bench.perf import runner


def test_a_small_run_writes_every_measure(server_uri: str, tmp_path: Path) -> None:
    results = runner.run(tmp_path, sizes=(300,), writes=6, queries=6, calls=6, events=6,
                       reps=2, worker_counts=(1,), server_uri=server_uri,
                       mem0_venv=tmp_path / "no-mem0-venv", progress=lambda _: None)
    assert json.loads((tmp_path / "results.json").read_text())["reps"] == 2
    markdown = (tmp_path / "results.md").read_text()
    assert "events/s, 1 worker(s)" in markdown
    assert (tmp_path / "perf.png").stat().st_size > 0
    write = results["write_path"]
    assert len(write["reps"]) == 2
    assert 0 < write["p50"] <= write["p95"]
    assert len(write["samples_ms"]) == 12
    retrieval = results["retrieval"]["300"]
    assert retrieval["recall_at_12"] > 0.9  # 300 nodes: HNSW finds nearly all of the top 12
    # The session reached every node there is (1,000 at the default sizes).
    assert results["check_call"]["300"]["retrieved_in_session"] == 300
    assert results["check_call"]["300"]["p50"] > 0
    assert retrieval["query_embedding_ms_p50"] > 0
    throughput = results["throughput"]
    assert throughput["1"]["events_per_s"] > 0
    assert throughput["api_peak_rss_mb"] > 0
    guard = results["peers"]["agent_memory_guard"]
    assert guard["policy"] == "Policy.strict()"
    # Without its virtualenv Mem0 is not run, and both files say how to build it.
    assert "capture bench peers install" in results["peers"]["mem0"]["skipped"]
    assert "Mem0: not run: its virtualenv" in markdown
    assert set(results["load_average_1min"]) >= {"write path", "done"}
