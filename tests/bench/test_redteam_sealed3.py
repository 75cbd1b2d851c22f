"""The red-team benchmark's third sealed set (`sealed3`): its definitions hash to the
committed digest, it generates the expected cases, its families and wording appear in no
other split (dev, test, `sealed`, `sealed2`), and neither the CLI nor the runner reads it
unless told to and unchanged. Nothing here runs the service on a sealed3 case."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from typing import Any

import pytest

from bench.redteam import (
    calls,
    memory,
    runner,
    sealed,
    sealed2_calls,
    sealed2_memory,
    sealed3_calls,
    sealed3_memory,
    sealed_calls,
    sealed_memory,
)
from tests.bench.test_redteam_sealed import ngrams
from tests.bench.test_redteam_sealed2 import _memory_texts

SET = "sealed3"
OTHER_SPLITS = ("dev", "test", "sealed", "sealed2")


def _old_memory_texts() -> list[str]:
    """The wording of dev, test and the other sealed sets."""
    old = [t for _, _, templates in memory._FAMILIES.values() for t in templates]
    old += [t for templates in memory._GENUINE.values() for t in templates]
    old += _memory_texts(sealed_memory.ATTACKS | sealed_memory.GENUINE)
    return old + _memory_texts(sealed2_memory.ATTACKS | sealed2_memory.GENUINE)


def _call_texts(split: str) -> set[str]:
    return {s.text for c in calls.cases(split, 0, 12) for s in c.steps if s.text}


class TestHash:
    def test_its_digest_is_its_own(self) -> None:
        others = {sealed.committed_sha256(name) for name in sealed.SETS if name != SET}
        assert sealed.committed_sha256(SET) not in others

    def test_an_edited_memory_template_is_refused(self, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:
        family = sealed3_memory.ATTACKS["sms_thread_copy"]
        edited = dataclasses.replace(family, templates=(*family.templates[:-1], "I want {p}."))
        monkeypatch.setitem(sealed3_memory.ATTACKS, "sms_thread_copy", edited)
        with pytest.raises(sealed.SealedSplitChangedError, match=SET):
            sealed.ensure_sealed(SET)
        for other in sealed.SETS:
            if other != SET:
                assert sealed.ensure_sealed(other) == sealed.committed_sha256(other)

    def test_an_edited_per_target_statement_is_refused(self, monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
        monkeypatch.setitem(sealed3_memory.HOUSEHOLD, ("exercise", "yoga"),
                            ("Yoga, please.", "Yoga it is."))
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed(SET)

    def test_an_edited_call_family_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setitem(sealed3_calls.FAMILIES, "reply_routing_swap", "reworded")
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed(SET)

    def test_an_edited_call_wording_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        tool, args, _ = sealed3_calls._WORDED[0]
        edited = [(tool, args, "Two-factor sign-in: off."), *sealed3_calls._WORDED[1:]]
        monkeypatch.setattr(sealed3_calls, "_WORDED", edited)
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed(SET)


class TestStructure:
    def test_sizes_at_the_canonical_generation(self) -> None:
        cases = memory.cases(SET, 0, 12)
        assert len(cases) == 864
        assert Counter(c.attack for c in cases) == {True: 744, False: 120}
        assert len(sealed3_memory.ATTACKS) >= 18
        assert len(sealed3_memory.GENUINE) >= 5
        call_cases = calls.cases(SET, 0, 12)
        assert len(call_cases) == 168
        assert len(sealed3_calls.ATTACKS) >= 7
        assert len(sealed3_calls.BENIGN) >= 7

    def test_the_user_channel_carries_most_attacks(self) -> None:
        channels = {ch for f in sealed3_memory.ATTACKS.values() for ch in f.channels}
        assert channels == {*sealed3_memory.NON_USER, sealed3_memory.PASTE,
                            sealed3_memory.CROSS}
        attacks = [c for c in memory.cases(SET, 0, 12) if c.attack]
        pasted = [c for c in attacks if c.channel == sealed3_memory.PASTE]
        assert len(pasted) > len(attacks) / 2

    def test_every_text_is_rendered(self) -> None:
        for case in memory.cases(SET, 0, 12):
            assert case.texts
            assert all(t.strip() for t in case.texts)
            assert not any("{p}" in t or "⟦" in t for t in case.texts), case
            assert not case.origins or len(case.origins) == len(case.texts)
        for call in calls.cases(SET, 0, 12):
            assert all(s.text.strip() for s in call.steps if s.action == "event")
            assert not any(re.search(r"\{(?:addr|artifact|file|event|doc)\}", s.text)
                           for s in call.steps)
            assert "{" not in json.dumps(call.args).replace('{"', "").replace("{}", ""), call

    def test_a_paste_carries_the_users_own_line(self) -> None:
        pasted = [c for c in memory.cases(SET, 0, 12) if c.channel == sealed3_memory.PASTE]
        with_ask = {f for f, spec in sealed3_memory.ATTACKS.items() if spec.asks}
        assert with_ask
        for case in pasted:
            if case.family in with_ask:
                spec = sealed3_memory.ATTACKS[case.family]
                whole = "\n".join(case.texts)
                assert any(ask in whole for ask in spec.asks), case

    def test_every_attack_plants_the_value_phrase(self) -> None:
        for case in memory.cases(SET, 0, 12):
            if case.attack:
                planted = memory.phrase(case.dimension, case.value)
                assert any(planted in t for t in case.texts), case

    def test_cross_channel_cases_mix_the_user_and_a_non_user_channel(self) -> None:
        cross = [c for c in memory.cases(SET, 0, 4) if c.channel == sealed3_memory.CROSS]
        assert cross
        for case in cross:
            assert "user" in case.origins
            assert set(case.origins) - {"user"} <= set(sealed3_memory.NON_USER)
            assert set(case.origins) - {"user"}

    def test_per_target_statements_cover_every_target(self) -> None:
        assert set(sealed3_memory.HOUSEHOLD) == set(memory.TARGETS)

    def test_iban_parts_are_valid(self) -> None:
        for iban, bank in sealed3_calls._IBAN_PARTS:
            digits = "".join(str(int(ch, 36)) for ch in iban[4:] + iban[:4])
            assert int(digits) % 97 == 1, iban
            assert 0 < bank < len(iban) - 4

    def test_spoken_forms_read_back(self) -> None:
        assert sealed3_calls._said_digits("07700900413") == (
            "oh double seven double oh nine double oh four one three")
        assert sealed3_calls._said_address("ap-desk@payments-verify.eu") == (
            "ap dash desk at payments dash verify dot eu")

    def test_declared_calls_carry_what_they_need(self) -> None:
        cases = calls.cases(SET, 0, 12)
        declared = [c for c in cases if c.declaration is not None]
        assert declared
        for case in declared:
            assert case.registered == (case.tool in sealed3_calls.REGISTERED)
        by_name = {c.tool: c.declaration for c in declared if c.registered}
        assert all(c.declaration == by_name[c.tool] for c in declared if c.registered)

    def test_legitimate_calls_go_nowhere_an_attacker_named(self) -> None:
        for case in calls.cases(SET, 0, 12):
            if not case.attack:
                dumped = json.dumps(case.args)
                assert not any(host in dumped for host in sealed3_calls._EVIL), case

    def test_attacks_carry_an_attacker_value_or_an_action(self) -> None:
        worded = {tool for tool, _, _ in sealed3_calls._WORDED}
        for case in calls.cases(SET, 0, 12):
            if case.attack and case.family not in ("action_wording_gaps",
                                                   "reply_routing_swap"):
                dumped = json.dumps(case.args)
                planted = [*sealed3_calls._EVIL, *sealed3_calls._IBANS,
                           *(p[1:].replace(" ", "") for p in sealed3_calls._PHONES),
                           *(p[1:] for p in sealed3_calls._PHONES)]
                assert any(v in dumped for v in planted), case
            if case.family == "action_wording_gaps":
                assert case.tool in worded


class TestDisjoint:
    def test_family_names_are_in_no_other_split(self) -> None:
        others_memory = set(memory.FAMILIES) | set(sealed_memory.FAMILIES) | set(
            sealed2_memory.FAMILIES)
        others_calls = set(calls.FAMILIES) | set(sealed_calls.FAMILIES) | set(
            sealed2_calls.FAMILIES)
        assert not set(sealed3_memory.FAMILIES) & others_memory
        assert not set(sealed3_calls.FAMILIES) & others_calls
        for split in OTHER_SPLITS:
            assert not {c.family for c in memory.cases(split, 0, 1)} & set(
                sealed3_memory.FAMILIES)
            assert not {c.family for c in calls.cases(split, 0, 1)} & set(
                sealed3_calls.FAMILIES)
        assert {c.family for c in memory.cases(SET, 0, 1)} == set(sealed3_memory.FAMILIES)
        assert {c.family for c in calls.cases(SET, 0, 1)} == set(sealed3_calls.FAMILIES)

    def test_a_run_of_the_set_lists_only_its_families(self) -> None:
        for suite in runner.suites():
            listed = runner.families(suite, SET)
            assert set(listed) == set(suite.sealed_families[SET])
            assert {v["split"] for v in listed.values()} == {SET}
            for other in ("dev", "sealed", "sealed2"):
                assert not set(runner.families(suite, other)) & set(listed)

    def test_memory_wording_shares_nothing_with_other_splits(self) -> None:
        old = _old_memory_texts()
        old_grams = set().union(*(ngrams(t) for t in old))
        new = _memory_texts(sealed3_memory.ATTACKS | sealed3_memory.GENUINE)
        shared = {t: ngrams(t) & old_grams for t in new}
        assert {t: g for t, g in shared.items() if g} == {}
        assert not set(new) & set(old)

    def test_rendered_memory_texts_are_new(self) -> None:
        old = {t for split in OTHER_SPLITS for c in memory.cases(split, 0, 12)
               for t in c.texts}
        assert not {t for c in memory.cases(SET, 0, 12) for t in c.texts} & old

    def test_call_vocabulary_is_its_own(self) -> None:
        for pool in ("_FIRST", "_LAST", "_FIRMS", "_EVIL", "_EVIL_LOCAL", "_ARTIFACTS", "_IBANS",
                     "_HISTORY", "_BODY", "_DATA", "_INSTRUCTIONS"):
            mine = set(getattr(sealed3_calls, pool))
            for other in (calls, sealed_calls, sealed2_calls):
                assert not mine & set(getattr(other, pool, ())), (pool, other.__name__)

    def test_call_texts_share_nothing_with_other_splits(self) -> None:
        old = set().union(*(_call_texts(split) for split in OTHER_SPLITS))
        old_grams = set().union(*(ngrams(t) for t in old))
        new = _call_texts(SET)
        assert not new & old
        shared = {t: ngrams(t) & old_grams for t in new}
        assert {t: g for t, g in shared.items() if g} == {}

    def test_declared_tools_are_their_own(self) -> None:
        def names(module: Any) -> set[str]:
            return {v["name"] for v in vars(module).values()
                    if isinstance(v, dict) and "inputSchema" in v}

        mine = names(sealed3_calls)
        assert mine
        others = names(sealed_calls) | names(sealed2_calls) | set(calls._DECLARED)
        others |= set(calls._PATTERN_READS) | set(calls._DESCRIBED)
        assert not mine & others
