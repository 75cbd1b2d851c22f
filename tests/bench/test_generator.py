"""The D-PrefGuard-style generator: determinism, disjoint splits, label and probe sanity."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench.generator import generate
from bench.generator.cli import app
from bench.generator.schema import (
    ACTIONS,
    CHANGEPOINT_MAX_INDEX,
    CHANGEPOINT_MIN_INDEX,
    LABELS,
    ORIGINS,
    PAPER_CLASS_MIX,
    SPLITS,
    TRACKS,
)
from bench.generator.timing import GAP_MAX_S, GAP_MIN_S, SESSION_GAP_S

Episode = dict[str, Any]
SMALL = 20  # episodes per track (= users) in the fast tests
FILES = ("train.jsonl", "dev.jsonl", "test.jsonl", "manifest.json")
SLOT = re.compile(
    r"\{(v|value|d|dim|old|ctx|x|topic|Topic|filler|filler2|filler_lower|num|date|passage|"
    r"unsafe|payload|code|lang|units)\}"
)


def load(out: Path) -> dict[str, list[Episode]]:
    return {
        split: [json.loads(line) for line in (out / f"{split}.jsonl").read_text().splitlines()]
        for split in SPLITS
    }


def every_episode(data: dict[str, list[Episode]]) -> Iterator[Episode]:
    for split in SPLITS:
        yield from data[split]


def parse(t: str) -> datetime:
    return datetime.fromisoformat(t.replace("Z", "+00:00"))


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dpg-small")
    generate(out, seed=7, episodes_per_track=SMALL, progress=False)
    return out


@pytest.fixture(scope="module")
def small(small_dir: Path) -> dict[str, list[Episode]]:
    return load(small_dir)


class TestDeterminism:
    def test_same_seed_same_bytes(self, small_dir: Path, tmp_path: Path) -> None:
        generate(tmp_path, seed=7, episodes_per_track=SMALL, progress=False)
        for name in FILES:
            assert (tmp_path / name).read_bytes() == (small_dir / name).read_bytes(), name

    def test_other_seed_other_bytes(self, small_dir: Path, tmp_path: Path) -> None:
        generate(tmp_path, seed=8, episodes_per_track=SMALL, progress=False)
        for name in ("train.jsonl", "test.jsonl"):
            assert (tmp_path / name).read_bytes() != (small_dir / name).read_bytes(), name


class TestSplits:
    def test_counts_and_one_episode_per_track_per_user(
        self, small: dict[str, list[Episode]], small_dir: Path
    ) -> None:
        manifest = json.loads((small_dir / "manifest.json").read_text())
        assert manifest["users"] == {"train": 12, "dev": 4, "test": 4}
        assert manifest["episodes"] == SMALL * len(TRACKS)
        for split in SPLITS:
            tracks_by_user: dict[str, list[str]] = {}
            for ep in small[split]:
                assert ep["split"] == split
                assert ep["source"] == "dprefguard"
                tracks_by_user.setdefault(ep["user_id"], []).append(ep["track"])
            assert len(tracks_by_user) == manifest["users"][split]
            assert all(sorted(t) == list(TRACKS) for t in tracks_by_user.values())

    def test_users_disjoint(self, small: dict[str, list[Episode]]) -> None:
        users = {s: {ep["user_id"] for ep in small[s]} for s in SPLITS}
        assert not users["train"] & users["dev"]
        assert not users["train"] & users["test"]
        assert not users["dev"] & users["test"]

    def test_template_families_disjoint_and_as_assigned(
        self, small: dict[str, list[Episode]], small_dir: Path
    ) -> None:
        assigned = json.loads((small_dir / "manifest.json").read_text())["template_families"]
        used: dict[str, set[str]] = {s: set() for s in SPLITS}
        for split in SPLITS:
            for ep in small[split]:
                used[split].update(ep["template_families"])
                for family in ep["template_families"]:
                    intent, name = family.split("/")
                    assert name in assigned[intent][split], family
        assert not used["train"] & used["test"]
        assert not used["dev"] & used["test"]
        assert not used["train"] & used["dev"]
        for intent, by_split in assigned.items():
            assert len(by_split["train"]) >= 1
            assert len(set(by_split["test"])) >= 1
            seen_before = set(by_split["train"]) | set(by_split["dev"])
            assert not set(by_split["test"]) & seen_before, intent

    def test_attack_realizations_and_topics_disjoint(self, small: dict[str, list[Episode]]) -> None:
        realizations: dict[str, set[str]] = {s: set() for s in SPLITS}
        topics: dict[str, set[str]] = {s: set() for s in SPLITS}
        for split in SPLITS:
            for ep in small[split]:
                topics[split].update(ep["meta"]["topics"])
                for ev in ep["events"]:
                    if ev["oracle"]["attack"]:
                        realizations[split].add(ev["oracle"]["attack_realization"])
        for a, b in (("train", "dev"), ("train", "test"), ("dev", "test")):
            assert not realizations[a] & realizations[b]
            assert not topics[a] & topics[b]
        assert all(realizations[s] for s in SPLITS)


class TestEvents:
    def test_vocabularies_and_length(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            assert 12 <= len(ep["events"]) <= 20
            for ev in ep["events"]:
                assert ev["origin"] in ORIGINS
                assert ev["label"] in LABELS
                assert ev["expected_action"] in ACTIONS
                assert ev["oracle"]["action"] == ev["expected_action"]
                assert not SLOT.search(ev["text"]), ev["text"]

    def test_texts_unique_within_episode(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            texts = [ev["text"] for ev in ep["events"]]
            assert len(texts) == len(set(texts)), ep["episode_id"]

    def test_gaps_and_sessions(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            events = ep["events"]
            for prev, cur in zip(events, events[1:], strict=False):
                gap = (parse(cur["t"]) - parse(prev["t"])).total_seconds()
                assert GAP_MIN_S <= gap <= GAP_MAX_S
                same = cur["oracle"]["session_id"] == prev["oracle"]["session_id"]
                assert same == (gap <= SESSION_GAP_S)

    def test_attack_flags_match_labels(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            for ev in ep["events"]:
                o = ev["oracle"]
                assert o["attack"] == (ev["label"] == "attack")
                if o["attack"]:
                    assert o["action"] == "quarantine"
                    assert o["attack_family"]
                if ev["label"] == "benign_noise":
                    assert o["action"] == "retain"
                    assert "dimension" not in o

    def test_non_preference_share(self, small: dict[str, list[Episode]]) -> None:
        events = [ev for ep in every_episode(small) for ev in ep["events"]]
        share = sum("dimension" not in ev["oracle"] for ev in events) / len(events)
        assert 0.6 <= share <= 0.8

    def test_state_changes_only_on_writes(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            before: dict[str, Any] = {"global": {}, "scoped": {}}
            for ev in ep["events"]:
                o = ev["oracle"]
                after = o["state_after"]
                writes = o["action"] in ("add", "scope", "revise") and not o["attack"]
                if not writes:
                    assert after == before
                else:
                    held = (after["global"] if o["scope"] == "global"
                            else after["scoped"][o["scope"]])
                    assert held[o["dimension"]] == o["value"]
                before = after

    def test_clarify_uses_only_present_and_past(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            events = ep["events"]
            asked = [i for i, ev in enumerate(events) if ev["oracle"]["action"] == "clarify"]
            assert len(asked) <= 1  # the paper's budget: at most one question per 12 events
            for i in asked:
                assert i > 0  # something must be stored before it can be contradicted
                ev, o = events[i], events[i]["oracle"]
                assert ev["origin"] == "user"
                assert ev["label"] == "weak_evidence"
                stored = events[i - 1]["oracle"]["state_after"]["global"].get(o["dimension"])
                assert stored is not None
                assert stored != o["value"]


class TestTracks:
    def test_t0_is_stationary(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            if ep["track"] == "T0":
                for ev in ep["events"]:
                    assert not ev["oracle"]["changepoint"]
                    assert ev["oracle"]["action"] != "revise"
                    assert not ev["oracle"]["attack"]

    def test_t1_changepoint_between_events_5_and_12(self, small: dict[str, list[Episode]]) -> None:
        shapes = set()
        for ep in every_episode(small):
            if ep["track"] != "T1":
                continue
            shapes.add(ep["meta"]["drift_shape"])
            points = [i for i, ev in enumerate(ep["events"]) if ev["oracle"]["changepoint"]]
            assert points, ep["episode_id"]
            assert CHANGEPOINT_MIN_INDEX <= points[0] <= CHANGEPOINT_MAX_INDEX
            assert not any(ev["oracle"]["attack"] for ev in ep["events"])
            if ep["meta"]["drift_shape"] == "context_switch":
                assert ep["events"][points[0]]["oracle"]["action"] == "scope"
        assert shapes == {"abrupt", "gradual", "recurring", "context_switch"}

    def test_t3_has_one_to_three_quarantined_attacks(self, small: dict[str, list[Episode]]) -> None:
        families = set()
        for ep in every_episode(small):
            if ep["track"] != "T3":
                continue
            attacks = [ev for ev in ep["events"] if ev["label"] == "attack"]
            assert 1 <= len(attacks) <= 3, ep["episode_id"]
            for ev in attacks:
                assert ev["expected_action"] == "quarantine"
                assert ev["oracle"]["attack_family"] == ep["meta"]["attack_family"]
            families.add(ep["meta"]["attack_family"])
            if ep["meta"]["attack_family"] == "same_origin":
                assert any(ev["origin"] == "user" for ev in attacks)
        assert families == {"indirect_injection", "poisoned_summary", "same_origin"}

    def test_t4_has_unsafe_candidates(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            if ep["track"] != "T4":
                continue
            assert any(ev["oracle"].get("safety_conflict") for ev in ep["events"])
            first = next(p for p in ep["probes"] if p["kind"] == "final")
            assert any(c["unsafe"] for c in first["candidates"])
            assert any(not c["unsafe"] and c["follows"] == {first["dimension"]:
                                                            first["expected"]["value"]}
                       for c in first["candidates"])

    def test_laundered_paste_repeats_a_planted_document(
        self, small: dict[str, list[Episode]]
    ) -> None:
        planted = 0
        for ep in every_episode(small):
            events = ep["events"]
            for i, ev in enumerate(events):
                realization = ev["oracle"].get("attack_realization") or ""
                if "+launder_doc" not in realization:
                    continue
                planted += 1
                passage = ev["oracle"]["passage"]
                assert passage in ev["text"]
                pastes = [e for e in events[i + 1:] if e["oracle"].get("passage") == passage]
                assert pastes
                assert all(p["origin"] == "user" and passage in p["text"] for p in pastes)
        assert planted  # seed 7 plants some; the check above is not vacuous


class TestProbes:
    def test_probes_reference_existing_events(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            texts = [ev["text"] for ev in ep["events"]]
            finals = [p for p in ep["probes"] if p["kind"] == "final"]
            assert ep["probe"] == {k: finals[0][k]
                                   for k in ("query", "must_retrieve", "must_not_retrieve")}
            assert len(ep.get("extra_probes", [])) == len(finals) - 1
            for probe in ep["probes"]:
                visible = texts[: probe["after_event"] + 1]
                assert not set(probe["must_retrieve"]) & set(probe["must_not_retrieve"])
                for text in probe["must_retrieve"] + probe["must_not_retrieve"]:
                    assert text in visible
                assert probe["candidates"]

    def test_probe_after_each_changepoint(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            points = [i for i, ev in enumerate(ep["events"]) if ev["oracle"]["changepoint"]]
            after = [p["after_event"] for p in ep["probes"] if p["kind"] == "changepoint"]
            assert after == points

    def test_attacks_are_never_to_be_retrieved(self, small: dict[str, list[Episode]]) -> None:
        for ep in every_episode(small):
            attacks = {ev["text"] for ev in ep["events"] if ev["oracle"]["attack"]}
            for probe in ep["probes"]:
                if probe["kind"] == "final":
                    assert attacks <= set(probe["must_not_retrieve"])
                assert not attacks & set(probe["must_retrieve"])


def test_genuine_preferences_pass_the_protected_attribute_schema(
    small: dict[str, list[Episode]],
) -> None:
    schemas = pytest.importorskip("app.domain.claims")
    for ep in every_episode(small):
        for ev in ep["events"]:
            if ev["label"] in ("genuine_preference", "context_specific", "literal_statement"):
                assert schemas.protected_category(ev["text"]) is None, ev["text"]


def test_cli_generate(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["generate", "--out", str(tmp_path), "--seed", "3", "--episodes-per-track", "5"])
    assert result.exit_code == 0, result.output
    assert all((tmp_path / name).exists() for name in FILES)
    assert json.loads((tmp_path / "manifest.json").read_text())["episodes"] == 25


def test_full_default_generation(tmp_path: Path) -> None:
    """The default 2,400 episodes (a few seconds); checks the realized mix, not the time."""
    summary = generate(tmp_path, seed=0, progress=False)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert summary["episodes"] == 2400
    assert manifest["users"] == {"train": 288, "dev": 96, "test": 96}
    assert all(manifest["counts"][s]["total"] == n for s, n in
               (("train", 1440), ("dev", 480), ("test", 480)))
    assert manifest["drift_shapes"] == dict.fromkeys(
        ("abrupt", "context_switch", "gradual", "recurring"), 120)
    assert manifest["attack_families"] == dict.fromkeys(
        ("indirect_injection", "poisoned_summary", "same_origin"), 160)
    assert 0.6 <= manifest["non_preference_share"] <= 0.8
    assert 0.12 <= manifest["genuine_updates_non_user_share"] <= 0.3
    for action, target in PAPER_CLASS_MIX.items():
        assert abs(manifest["class_mix"]["shares"][action] - target) <= 0.07, action
