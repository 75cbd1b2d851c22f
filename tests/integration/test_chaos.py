"""The short chaos run: a few faults of each kind (workers killed with SIGKILL, the API,
Redis and Postgres restarted) while writers retry; nothing acknowledged is lost,
duplicated or processed out of order, and every error response is the JSON shape.
`capture bench chaos` is the long run (docs/operations.md §6)."""

from __future__ import annotations

from pathlib import Path

from bench.chaos.runner import ChaosConfig, run

# Faults follow each other within seconds, so a backlog's time includes the next faults
# (a worker start-up is ~15 s on a loaded 2-core machine): twice the 30 s target.
RECOVERY_BOUND_S = 60.0


def test_short_chaos_run_loses_duplicates_and_reorders_nothing(tmp_path: Path) -> None:
    config = ChaosConfig(worker_kills=4, api_restarts=2, redis_restarts=2, postgres_restarts=2,
                         workers=2, users=4, duration_s=45.0, requeue_stale_after_s=5.0,
                         requeue_interval_s=2.0, quiesce_timeout_s=60.0, seed=41)
    results = run(tmp_path / "out", config)
    print((tmp_path / "out" / "results.md").read_text())

    assert results["acknowledged"] > 50, "too few writes got through to test anything"
    assert len(results["faults"]) == 10
    assert results["pending_at_end"] == 0
    assert results["lost"] == 0, results["lost_detail"]
    assert results["duplicated"] == 0
    assert results["out_of_order"] == 0
    assert results["non_json_errors"] == 0, results["non_json_samples"]
    assert results["gave_up"] == 0
    # The faults were felt: Postgres down gives 503s or the API down gives no response.
    assert results["client_errors"], "no client saw any fault"
    for fault in results["faults"]:
        assert fault["backlog_processed_s"] is not None, fault
        assert fault["backlog_processed_s"] <= RECOVERY_BOUND_S, fault
    assert (tmp_path / "out" / "results.json").exists()
    assert (tmp_path / "out" / "recovery.png").exists()
