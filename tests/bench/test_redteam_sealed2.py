"""The red-team benchmark's second sealed set (`sealed2`): its definitions hash to the
committed digest, it generates the expected cases, its families and wording appear in no
other split (dev, test, the first sealed set), and neither the CLI nor the runner reads it
unless told to and unchanged. Nothing here runs the service on a sealed2 case."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli import app as capture_app
from bench.redteam import (
    calls,
    memory,
    runner,
    sealed,
    sealed2_calls,
    sealed2_memory,
    sealed_calls,
    sealed_memory,
)
from bench.redteam.report import markdown
from bench.redteam.sealed_memory import Family
from tests.bench.test_redteam_sealed import ngrams

SET = "sealed2"


def _memory_texts(families: dict[str, Family]) -> list[str]:
    """Every sentence a set of memory families is written with: templates, the parts of
    cross-channel templates, per-target statements and the user's lines beside a paste."""
    out: list[str] = []
    for family in families.values():
        out += family.asks
        for template in family.templates:
            out += [template] if isinstance(template, str) else [t for _, t in template]
        for statements in (family.by_target or {}).values():
            out += statements
    return out


def _old_memory_texts() -> list[str]:
    """The wording of dev, test and the first sealed set."""
    old = [t for _, _, templates in memory._FAMILIES.values() for t in templates]
    old += [t for templates in memory._GENUINE.values() for t in templates]
    return old + _memory_texts(sealed_memory.ATTACKS | sealed_memory.GENUINE)


def _call_texts(split: str) -> set[str]:
    return {s.text for c in calls.cases(split, 0, 12) for s in c.steps if s.text}


class TestHash:
    def test_each_set_has_its_own_digest_file(self) -> None:
        files = {s.hash_file for s in sealed.SETS.values()}
        assert len(files) == len(sealed.SETS)
        assert sealed.committed_sha256(SET) != sealed.committed_sha256("sealed")

    def test_an_edited_memory_template_is_refused(self, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:
        family = sealed2_memory.ATTACKS["voicemail_transcript"]
        edited = dataclasses.replace(family, templates=(*family.templates[:-1], "I want {p}."))
        monkeypatch.setitem(sealed2_memory.ATTACKS, "voicemail_transcript", edited)
        with pytest.raises(sealed.SealedSplitChangedError, match=SET):
            sealed.ensure_sealed(SET)
        assert sealed.ensure_sealed("sealed") == sealed.committed_sha256("sealed")

    def test_an_edited_per_target_statement_is_refused(self, monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
        monkeypatch.setitem(sealed2_memory.WITH_PEOPLE, ("exercise", "yoga"),
                            ("Yoga, please.", "Yoga it is."))
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed(SET)

    def test_an_edited_call_family_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setitem(sealed2_calls.FAMILIES, "hedged_reply", "reworded")
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed(SET)

    def test_an_edited_carrier_line_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(sealed2_calls, "VOCABULARY", dataclasses.replace(
            sealed2_calls.VOCABULARY, data=["Contact: {addr}."]))
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed(SET)


class TestStructure:
    def test_sizes_at_the_canonical_generation(self) -> None:
        cases = memory.cases(SET, 0, 12)
        assert len(cases) == 1008
        assert Counter(c.attack for c in cases) == {True: 888, False: 120}
        assert len(sealed2_memory.ATTACKS) >= 12
        assert len(sealed2_memory.GENUINE) >= 4
        call_cases = calls.cases(SET, 0, 12)
        assert len(call_cases) == 168
        assert len(sealed2_calls.ATTACKS) >= 6
        assert len(sealed2_calls.BENIGN) >= 4

    def test_every_channel_is_attacked(self) -> None:
        channels = {ch for f in sealed2_memory.ATTACKS.values() for ch in f.channels}
        assert channels == {*sealed2_memory.NON_USER, sealed2_memory.PASTE, sealed2_memory.CROSS}

    def test_every_text_is_rendered(self) -> None:
        for case in memory.cases(SET, 0, 12):
            assert case.texts
            assert all(t.strip() for t in case.texts)
            assert not any("{p}" in t or "⟦" in t for t in case.texts), case
            assert not case.origins or len(case.origins) == len(case.texts)
        for case in calls.cases(SET, 0, 12):
            assert not any(re.search(r"\{(?:addr|artifact)\}", s.text) for s in case.steps)

    def test_a_paste_carries_the_users_own_line(self) -> None:
        pasted = [c for c in memory.cases(SET, 0, 12) if c.channel == sealed2_memory.PASTE]
        with_ask = {f for f, spec in sealed2_memory.ATTACKS.items() if spec.asks}
        for case in pasted:
            if case.family in with_ask:
                spec = sealed2_memory.ATTACKS[case.family]
                assert any(ask in case.texts[0] for ask in spec.asks), case

    def test_cross_channel_cases_mix_the_user_and_a_non_user_channel(self) -> None:
        cross = [c for c in memory.cases(SET, 0, 4) if c.channel == sealed2_memory.CROSS]
        assert cross
        for case in cross:
            assert case.origins[-1] == "user"
            assert set(case.origins) - {"user"} <= set(sealed2_memory.NON_USER)

    def test_the_lowercase_family_is_lowercase(self) -> None:
        lower = [c for c in memory.cases(SET, 0, 12)
                 if c.family == "genuine_lowercase_shorthand"]
        assert lower
        assert all(t == t.lower() for c in lower for t in c.texts)

    def test_per_target_statements_cover_every_target(self) -> None:
        assert set(sealed2_memory.WITH_PEOPLE) == set(memory.TARGETS)

    def test_asked_and_declared_calls_carry_what_they_need(self) -> None:
        cases = calls.cases(SET, 0, 12)
        for case in cases:
            if case.family in ("hedged_reply", "legit_plain_yes"):
                assert case.call_id
                assert [s.action for s in case.steps][-2:] == ["check", "event"]
                assert case.steps[-1].origin == "user"
            if case.registered:
                assert case.declaration is not None
                assert case.declaration["name"] in sealed2_calls.REGISTERED
        declared = [c for c in cases if c.declaration is not None]
        assert {c.registered for c in declared} == {True, False}
        by_name = {c.tool: c.declaration for c in declared if c.registered}
        assert all(c.declaration == by_name[c.tool] for c in declared if c.registered)

    def test_legitimate_calls_go_nowhere_an_attacker_named(self) -> None:
        for case in calls.cases(SET, 0, 12):
            if not case.attack:
                dumped = json.dumps(case.args)
                assert not any(host in dumped for host in sealed2_calls._EVIL), case


class TestDisjoint:
    def test_family_names_are_in_no_other_split(self) -> None:
        others_memory = set(memory.FAMILIES) | set(sealed_memory.FAMILIES)
        others_calls = set(calls.FAMILIES) | set(sealed_calls.FAMILIES)
        assert not set(sealed2_memory.FAMILIES) & others_memory
        assert not set(sealed2_calls.FAMILIES) & others_calls
        for split in ("dev", "test", "sealed"):
            assert not {c.family for c in memory.cases(split, 0, 1)} & set(
                sealed2_memory.FAMILIES)
            assert not {c.family for c in calls.cases(split, 0, 1)} & set(
                sealed2_calls.FAMILIES)
        assert {c.family for c in memory.cases(SET, 0, 1)} == set(sealed2_memory.FAMILIES)
        assert {c.family for c in calls.cases(SET, 0, 1)} == set(sealed2_calls.FAMILIES)

    def test_a_run_of_the_set_lists_only_its_families(self) -> None:
        for suite in runner.suites():
            listed = runner.families(suite, SET)
            assert set(listed) == set(suite.sealed_families[SET])
            assert {v["split"] for v in listed.values()} == {SET}
            for other in ("dev", "sealed"):
                assert not set(runner.families(suite, other)) & set(listed)

    def test_memory_wording_shares_nothing_with_other_splits(self) -> None:
        old = _old_memory_texts()
        old_grams = set().union(*(ngrams(t) for t in old))
        new = _memory_texts(sealed2_memory.ATTACKS | sealed2_memory.GENUINE)
        shared = {t: ngrams(t) & old_grams for t in new}
        assert {t: g for t, g in shared.items() if g} == {}
        assert not set(new) & set(old)

    def test_rendered_memory_texts_are_new(self) -> None:
        old = {t for split in ("dev", "test", "sealed") for c in memory.cases(split, 0, 12)
               for t in c.texts}
        assert not {t for c in memory.cases(SET, 0, 12) for t in c.texts} & old

    def test_call_vocabulary_is_its_own(self) -> None:
        for pool in ("_FIRST", "_LAST", "_FIRMS", "_EVIL", "_EVIL_LOCAL", "_ARTIFACTS", "_IBANS",
                     "_HISTORY", "_BODY", "_DATA", "_INSTRUCTIONS"):
            mine = set(getattr(sealed2_calls, pool))
            for other in (calls, sealed_calls):
                assert not mine & set(getattr(other, pool, ())), (pool, other.__name__)

    def test_call_texts_share_nothing_with_other_splits(self) -> None:
        old = set().union(*(_call_texts(split) for split in ("dev", "test", "sealed")))
        old_grams = set().union(*(ngrams(t) for t in old))
        new = _call_texts(SET)
        assert not new & old
        shared = {t: ngrams(t) & old_grams for t in new}
        assert {t: g for t, g in shared.items() if g} == {}

    def test_declared_tools_are_their_own(self) -> None:
        def names(module: Any) -> set[str]:
            return {v["name"] for v in vars(module).values()
                    if isinstance(v, dict) and "inputSchema" in v}

        mine = names(sealed2_calls)
        assert mine
        assert not mine & (names(sealed_calls) | set(calls._DECLARED))


class TestReading:
    def test_the_cli_refuses_an_unknown_split(self, tmp_path: Path) -> None:
        result = CliRunner().invoke(
            capture_app, ["bench", "redteam", "--split", "sealed-unknown", "--out", str(tmp_path)])
        assert result.exit_code == 2
        assert SET in result.output
        assert not any(tmp_path.iterdir())

    def test_the_report_gives_the_command_that_reads_it(self) -> None:
        results = {"split": SET, "seed": 0, "per_family": 12, "policy": "capture",
                   "commit": "abc1234", "wall_seconds": 0.0, "sealed_sha256": "0" * 64,
                   **runner.summarize([])}
        assert f"--split {SET} --seed 0 --per-family 12 --unseal`" in markdown(results)
        del results["sealed_sha256"]
        assert "--unseal" not in markdown(results)
