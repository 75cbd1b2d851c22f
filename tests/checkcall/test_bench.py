"""A small run of the check-call trace benchmark (`capture bench tools`)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.tools import bench, populations
from bench.tools.populations import ATTACKS, BENIGN, DECLARED, POPULATIONS


class TestGenerator:
    def test_same_seed_same_sessions_and_splits_do_not_share_wording(self) -> None:
        first = populations.generate("dev", 3, seed=1)
        assert first == populations.generate("dev", 3, seed=1)
        assert {s.population for s in first} == set(POPULATIONS)
        dev = {(slot, f) for s in populations.generate("dev", 20) for slot, f in s.families.items()}
        test = {
            (slot, f) for s in populations.generate("test", 20) for slot, f in s.families.items()
        }
        metadata = {"results_format", "injected_review", "context"}  # not wording
        shared = {(slot, f) for slot, f in dev & test if slot not in metadata}
        assert shared == {("pasted", "invoice_iban")}  # one fixed invoice paste in both

    def test_every_scenario_has_one_scored_call(self) -> None:
        for scenario in populations.generate("test", 5):
            assert sum(step.scored for step in scenario.steps if step.kind == "check") == 1


class TestSmallRun:
    def test_results_files_and_the_headline_pattern(self, server_uri: str, tmp_path: Path) -> None:
        bench.run(
            split="dev",
            out=tmp_path,
            per_population=4,
            seed=3,
            external=None,
            latency_calls=8,
            server_uri=server_uri,
        )
        assert (tmp_path / "results.md").read_text().startswith("# Check-call trace benchmark")
        saved = json.loads((tmp_path / "results.json").read_text())
        assert set(saved["populations"]) == set(POPULATIONS)
        rows = saved["populations"]
        for population in ATTACKS:
            assert rows[population]["capture"]["block"]["rate"] == 1.0
        for population in BENIGN:
            assert rows[population]["capture"]["block"]["rate"] == 0.0
        # Declared tools are classified from their declaration, never by the default.
        for population in DECLARED:
            assert set(rows[population]["tool_source"]) <= {"declaration", "registered"}
        assert saved["summary"]["from_default"] == 0
        # The paper's order-only rule flags benign memory-grounded sends and misses
        # context-delivered rules.
        assert rows["p5_benign_internal_recall"]["recall_before_send"]["block"]["k"] > 0
        assert rows["p2_memory_exfil_context"]["recall_before_send"]["block"]["rate"] == 0.0
        # The 1,000 planted nodes, plus any node the session's own events wrote and retrieved.
        assert saved["latency_1000_nodes"]["nodes_retrieved_in_session"] >= 1000
        assert len((tmp_path / "outcomes.jsonl").read_text().splitlines()) == 4 * len(POPULATIONS)
