"""The red-team benchmark's sealed split: its definitions hash to the committed digest, it
generates the expected cases, its families and wording are its own, and the CLI reads it
only when told to. Nothing here runs the service on a sealed case."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.checkcall.declaration import ToolDeclaration
from app.checkcall.schemas import CheckCallRequest
from app.cli import app as capture_app
from app.events.schemas import EventCreate
from bench.redteam import calls, memory, runner, sealed, sealed_calls, sealed_memory
from bench.redteam.api import START

_WORD = re.compile(r"[a-z0-9']+")
# Shared word sequences this long would mean a sealed text was derived from an old one.
NGRAM = 5


def ngrams(text: str) -> set[tuple[str, ...]]:
    """Word n-grams within the stretches between `{slot}`s."""
    grams: set[tuple[str, ...]] = set()
    for stretch in re.split(r"\{\w+\}", text.lower()):
        words = _WORD.findall(stretch)
        grams.update(tuple(words[i:i + NGRAM]) for i in range(len(words) - NGRAM + 1))
    return grams


class TestHash:
    @pytest.mark.parametrize("name", sorted(sealed.SETS))
    def test_definitions_match_the_committed_digest(self, name: str) -> None:
        assert re.fullmatch(r"[0-9a-f]{64}", sealed.committed_sha256(name))
        assert sealed.digest(name) == sealed.committed_sha256(name)
        assert sealed.ensure_sealed(name) == sealed.committed_sha256(name)

    def test_an_edited_memory_family_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        family = sealed_memory.ATTACKS["in_character"]
        edited = dataclasses.replace(family, templates=(*family.templates[:-1], "Critic: {p}."))
        monkeypatch.setitem(sealed_memory.ATTACKS, "in_character", edited)
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed("sealed")

    def test_an_edited_call_family_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setitem(sealed_calls.FAMILIES, "spoofed_confirmation", "reworded")
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed("sealed")


class TestStructure:
    @pytest.mark.parametrize("name", sorted(sealed.SETS))
    def test_memory_cases_per_family_channel_and_history(self, name: str) -> None:
        module = sealed.SETS[name].memory
        cases = memory.cases(name, 0, 3)
        if module is None:  # a call-only set
            assert cases == []
            assert "memory" not in sealed.definitions(name)
            return
        counts = Counter((c.family, c.channel, c.history) for c in cases)
        expected = {(f, ch, h): 3 for f, chs in module.CHANNELS.items()
                    for ch in chs for h in ("new", "history")}
        assert counts == expected
        assert len(memory.cases(name, 0, 12)) == 12 * sum(
            2 * len(chs) for chs in module.CHANNELS.values())
        assert cases == memory.cases(name, 0, 3)  # same seed, same cases
        assert {c.family for c in cases if not c.attack} == set(module.GENUINE)
        assert all(c.channel == "user" for c in cases if not c.attack)

    @pytest.mark.parametrize("name", sorted(sealed.SETS))
    def test_call_cases_per_family(self, name: str) -> None:
        module = sealed.SETS[name].calls
        cases = calls.cases(name, 0, 12)
        assert Counter(c.family for c in cases) == dict.fromkeys(module.FAMILIES, 12)
        assert {c.family for c in cases if c.attack} == module.ATTACKS
        assert len({c.user for c in cases}) == len(cases)
        assert {c.history for c in cases} == {"new", "history"}
        assert cases == calls.cases(name, 0, 12)

    def test_every_text_is_rendered(self) -> None:
        for case in memory.cases("sealed", 0, 12):
            assert case.texts
            assert all(t.strip() for t in case.texts)
            assert not any("{p}" in t or "⟦" in t for t in case.texts), case
            assert not case.origins or len(case.origins) == len(case.texts)

    def test_cross_channel_cases_mix_the_user_and_a_non_user_channel(self) -> None:
        cross = [c for c in memory.cases("sealed", 0, 4) if c.channel == sealed_memory.CROSS]
        assert cross
        for case in cross:
            assert "user" in case.origins
            assert set(case.origins) - {"user"} <= set(sealed_memory.NON_USER)

    def test_obfuscated_cues_change_the_text(self) -> None:
        obfuscated = [c for c in memory.cases("sealed", 0, 4) if c.family == "obfuscated_cues"]
        assert obfuscated
        assert all(not c.texts[0].isascii() for c in obfuscated)

    def test_declared_and_confirmed_calls_carry_what_they_need(self) -> None:
        cases = calls.cases("sealed", 0, 12)
        for case in cases:
            if case.family in ("spoofed_confirmation", "legit_confirmed_after_ask"):
                assert case.call_id
                assert any(s.action == "check" for s in case.steps)
            if case.registered:
                assert case.declaration is not None
                assert case.declaration["name"] in sealed_calls.REGISTERED
        declared = [c for c in cases if c.declaration is not None]
        assert {c.registered for c in declared} == {True, False}
        # One declaration per registered name, so cases sharing a tenant agree.
        by_name = {c.tool: c.declaration for c in declared if c.registered}
        assert all(c.declaration == by_name[c.tool] for c in declared if c.registered)


class TestDisjoint:
    def test_sealed_families_are_in_no_other_split(self) -> None:
        for sealed_names, others in ((set(sealed_memory.FAMILIES), set(memory.FAMILIES)),
                                     (set(sealed_calls.FAMILIES), set(calls.FAMILIES))):
            assert not sealed_names & others
        for split in ("dev", "test"):
            assert not {c.family for c in memory.cases(split, 0, 1)} & set(
                sealed_memory.FAMILIES)
            assert not {c.family for c in calls.cases(split, 0, 1)} & set(
                sealed_calls.FAMILIES)
        assert {c.family for c in memory.cases("sealed", 0, 1)} == set(sealed_memory.FAMILIES)
        assert {c.family for c in calls.cases("sealed", 0, 1)} == set(sealed_calls.FAMILIES)

    @pytest.mark.parametrize("name", sorted(sealed.SETS))
    def test_each_sets_family_names_are_its_own(self, name: str) -> None:
        def families(s: sealed.SealedSet) -> set[str]:
            return set(s.calls.FAMILIES) | set(s.memory.FAMILIES if s.memory else ())

        names = families(sealed.SETS[name])
        others = set(memory.FAMILIES) | set(calls.FAMILIES)
        for other, s in sealed.SETS.items():
            if other != name:
                others |= families(s)
        assert not names & others

    def test_a_sealed_run_lists_only_sealed_families(self) -> None:
        for suite in runner.suites():
            listed = runner.families(suite, "sealed")
            assert set(listed) == set(suite.sealed_families["sealed"])
            assert {v["split"] for v in listed.values()} == {"sealed"}
            assert not set(runner.families(suite, "dev")) & set(listed)

    def test_memory_wording_shares_nothing_with_dev_and_test(self) -> None:
        old = [t for _, _, templates in memory._FAMILIES.values() for t in templates]
        old += [t for templates in memory._GENUINE.values() for t in templates]
        old_grams = set().union(*(ngrams(t) for t in old))
        new: list[str] = [*(t for pair in sealed_memory.REASONED.values() for t in pair)]
        for family in (sealed_memory.ATTACKS | sealed_memory.GENUINE).values():
            new += family.asks
            for template in family.templates:
                new += [template] if isinstance(template, str) else [t for _, t in template]
        shared = {t: ngrams(t) & old_grams for t in new}
        assert {t: g for t, g in shared.items() if g} == {}
        assert not set(new) & set(old)

    def test_call_vocabulary_and_texts_are_their_own(self) -> None:
        for pool in ("_FIRST", "_LAST", "_FIRMS", "_EVIL", "_ARTIFACTS", "_IBANS", "_HISTORY",
                     "_BODY"):
            assert not set(getattr(sealed_calls, pool)) & set(getattr(calls, pool)), pool
        old = {s.text for split in ("dev", "test") for c in calls.cases(split, 0, 12)
               for s in c.steps if s.text}
        old_grams = set().union(*(ngrams(t) for t in old))
        new = {s.text for c in calls.cases("sealed", 0, 12) for s in c.steps if s.text}
        assert not new & old
        shared = {t: ngrams(t) & old_grams for t in new}
        assert {t: g for t, g in shared.items() if g} == {}


def _event(user: str, session: str, origin: str, text: str) -> None:
    EventCreate.model_validate({"user_id": user, "session_id": session, "origin": origin,
                                "text": text, "occurred_at": START.isoformat()})


class TestRequests:
    """Every request a sealed case makes is one the API's schemas accept (validated here,
    never sent)."""

    @pytest.mark.parametrize("name", sorted(sealed.SETS))
    def test_memory_events(self, name: str) -> None:
        for case in memory.cases(name, 0, 12):
            for i, text in enumerate(case.texts):
                origin = case.origins[i] if case.origins else memory._origin(case.channel)
                _event("rt-0123456789ab", "s-01234567", origin, text)

    @pytest.mark.parametrize("name", sorted(sealed.SETS))
    def test_call_requests(self, name: str) -> None:
        for case in calls.cases(name, 0, 12):
            tool: dict[str, Any] = {"name": case.tool, "args": case.args}
            if case.registered:
                assert case.declaration is not None
                ToolDeclaration.model_validate(case.declaration)
            elif case.declaration is not None:
                tool["declaration"] = case.declaration
            for step in case.steps:
                if step.action == "event":
                    _event(case.user, case.sessions[step.session], step.origin, step.text)
                if step.action == "check":
                    args = json.loads(step.text) if step.text else case.args
                    CheckCallRequest.model_validate({
                        "user_id": case.user, "session_id": case.sessions[1],
                        "tool": {**tool, "args": args}, "call_id": case.call_id})
            CheckCallRequest.model_validate({
                "user_id": case.user, "session_id": case.sessions[1], "tool": tool,
                "call_id": case.call_id})


class TestCli:
    @pytest.mark.parametrize("name", sorted(sealed.SETS))
    def test_a_sealed_split_needs_unseal(self, name: str, tmp_path: Path) -> None:
        result = CliRunner().invoke(
            capture_app, ["bench", "redteam", "--split", name, "--out", str(tmp_path)])
        assert result.exit_code == 2
        assert "--unseal" in result.output
        assert not any(tmp_path.iterdir())

    @pytest.mark.parametrize("name", sorted(sealed.SETS))
    def test_a_run_refuses_changed_definitions_before_starting(
            self, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        families = sealed.SETS[name].calls.FAMILIES
        monkeypatch.setitem(families, next(iter(families)), "reworded")

        def no_service(policy: str) -> None:
            raise AssertionError("a changed sealed set reached the service")

        monkeypatch.setattr(runner, "service", no_service)
        out = tmp_path / "out"
        with pytest.raises(sealed.SealedSplitChangedError):
            runner.run(name, out, seed=0, per_family=1, policy="capture")
        assert not out.exists()
