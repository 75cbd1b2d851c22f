"""Probe candidates and queries come in families split like event templates: a model trained
on train candidates (the selector's r_p) never sees a test candidate's text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.generator import generate
from bench.generator.responses import SAFETY_SCENARIOS, response_family_keys
from bench.generator.schema import SPLITS
from bench.generator.splits import plan_response_families

Episode = dict[str, Any]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[Episode]], Any]:
    out: Path = tmp_path_factory.mktemp("dpg-families")
    generate(out, seed=11, episodes_per_track=15, progress=False)
    episodes = {
        s: [json.loads(line) for line in (out / f"{s}.jsonl").read_text().splitlines()]
        for s in SPLITS
    }
    return episodes, json.loads((out / "manifest.json").read_text())


def _texts(episodes: list[Episode]) -> tuple[set[str], set[str]]:
    candidates: set[str] = set()
    queries: set[str] = set()
    scenario_queries = {s.query for s in SAFETY_SCENARIOS}
    for ep in episodes:
        for probe in ep["probes"]:
            candidates.update(c["text"] for c in probe["candidates"])
            if probe["query"] not in scenario_queries:
                queries.add(probe["query"].split(": ", 1)[-1].lower())
    return candidates, queries


class TestResponseFamilies:
    def test_every_key_splits_into_disjoint_non_empty_families(self) -> None:
        plan = plan_response_families(0)
        assert set(plan) == set(response_family_keys())
        for key, by_split in plan.items():
            assert all(by_split[s] for s in SPLITS), key
            assert not set(by_split["test"]) & (set(by_split["train"]) | set(by_split["dev"]))
            assert not set(by_split["train"]) & set(by_split["dev"])

    def test_candidate_texts_never_cross_splits(
        self, data: tuple[dict[str, list[Episode]], Any]
    ) -> None:
        episodes, _ = data
        texts = {s: _texts(episodes[s]) for s in SPLITS}
        for a, b in (("train", "dev"), ("train", "test"), ("dev", "test")):
            assert not texts[a][0] & texts[b][0], (a, b)
            assert not texts[a][1] & texts[b][1], (a, b)

    def test_t4_pools_keep_safe_and_unsafe_options(
        self, data: tuple[dict[str, list[Episode]], Any]
    ) -> None:
        episodes, _ = data
        for split in SPLITS:
            for ep in episodes[split]:
                if ep["track"] != "T4":
                    continue
                pool = next(p for p in ep["probes"] if p["kind"] == "final")["candidates"]
                assert any(c["unsafe"] for c in pool)
                assert any(not c["unsafe"] and c["follows"] for c in pool)

    def test_manifest_records_the_assignment(
        self, data: tuple[dict[str, list[Episode]], Any]
    ) -> None:
        _, manifest = data
        assert manifest["response_families"] == {
            key: {s: list(f) for s, f in by_split.items()}
            for key, by_split in plan_response_families(11).items()
        }
