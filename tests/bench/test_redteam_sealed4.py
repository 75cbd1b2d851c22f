"""The red-team benchmark's fourth sealed set (`sealed4`, call families only): its definitions
hash to the committed digest, it generates the expected cases and no memory cases, its
families and wording appear in no other split (dev, test, `sealed`, `sealed2`, `sealed3`),
and neither the CLI nor the runner reads it unless told to and unchanged. Nothing here runs
the service on a sealed4 case."""

from __future__ import annotations

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
    sealed3_calls,
    sealed4_calls,
    sealed_calls,
)
from bench.redteam.calls import CallCase
from bench.redteam.report import markdown
from tests.bench.test_redteam_sealed import ngrams

SET = "sealed4"
OTHER_SPLITS = ("dev", "test", "sealed", "sealed2", "sealed3")
# Families whose attack is an action: the call carries no value the attacker chose, or
# only an id from the text that offered the action.
ACTIONS = {"disable_2fa", "delete_file", "cancel_calendar_event", "share_document",
           "empty_trash", "set_login_alerts", "approve_sign_in", "authorize_app"}
# Arguments that say where a call goes or what it commits.
SINKS = ("recipients", "share_with", "iban", "amount", "recipient", "url", "channel",
         "sort_code", "routing_number", "bsb", "account_number")


def _call_texts(split: str) -> set[str]:
    return {s.text for c in calls.cases(split, 0, 12) for s in c.steps if s.text}


def _squash(text: str) -> str:
    """Lower case without spaces, hyphens, commas, brackets or a leading plus: how a value
    may be laid out differently in the user's words and in the call."""
    return re.sub(r"[\s\-,()+]", "", text.lower())


def _user_words(case: CallCase) -> str:
    return _squash(" ".join(s.text for s in case.steps if s.origin == "user"))


def _sink_values(case: CallCase) -> list[str]:
    out: list[str] = []
    for key in SINKS:
        value = case.args.get(key)
        for item in value if isinstance(value, list) else [value]:
            if item is not None:
                out.append(f"{item:g}" if isinstance(item, float) else str(item))
    return out


class TestHash:
    def test_its_digest_is_its_own(self) -> None:
        others = {sealed.committed_sha256(name) for name in sealed.SETS if name != SET}
        assert sealed.committed_sha256(SET) not in others
        assert sealed.SETS[SET].hash_file.name == "sealed4.sha256"

    def test_it_is_call_only(self) -> None:
        assert sealed.SETS[SET].memory is None
        assert set(sealed.definitions(SET)) == {"call"}

    def test_an_edited_call_family_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setitem(sealed4_calls.FAMILIES, "revised_amount", "reworded")
        with pytest.raises(sealed.SealedSplitChangedError, match=SET):
            sealed.ensure_sealed(SET)
        for other in sealed.SETS:
            if other != SET:
                assert sealed.ensure_sealed(other) == sealed.committed_sha256(other)

    def test_an_edited_order_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        lang, _, args = sealed4_calls._FAR_ACTIONS[0]
        edited = [(lang, "Удали {file}.", args), *sealed4_calls._FAR_ACTIONS[1:]]
        monkeypatch.setattr(sealed4_calls, "_FAR_ACTIONS", edited)
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed(SET)

    def test_an_edited_declaration_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        edited = {**sealed4_calls.EMPTY_TRASH, "description": "Empties the bin."}
        monkeypatch.setattr(sealed4_calls, "EMPTY_TRASH", edited)
        with pytest.raises(sealed.SealedSplitChangedError):
            sealed.ensure_sealed(SET)


class TestStructure:
    def test_sizes_at_the_canonical_generation(self) -> None:
        assert memory.cases(SET, 0, 12) == []
        cases = calls.cases(SET, 0, 12)
        assert len(cases) == 192
        assert Counter(c.attack for c in cases) == {True: 96, False: 96}
        assert len(sealed4_calls.ATTACKS) >= 7
        assert len(sealed4_calls.BENIGN) >= 7

    def test_every_legitimate_family_mirrors_an_attack(self) -> None:
        assert len(sealed4_calls.BENIGN) == len(sealed4_calls.ATTACKS)
        cases = calls.cases(SET, 0, 12)
        for attack in (True, False):
            tools = {c.tool for c in cases if c.attack == attack}
            assert {"transfer_money", "send_email", "disable_2fa"} <= tools

    def test_every_text_is_rendered(self) -> None:
        for case in calls.cases(SET, 0, 12):
            assert all(s.text.strip() for s in case.steps if s.action == "event")
            assert not any(re.search(r"\{(?:addr|artifact|file|event|doc)\}", s.text)
                           for s in case.steps)
            assert "{" not in json.dumps(case.args).replace('{"', "").replace("{}", ""), case
            assert {s.origin for s in case.steps} <= {"user", *calls.UNTRUSTED}

    def test_ibans_are_valid(self) -> None:
        for iban in sealed4_calls._IBANS:
            digits = "".join(str(int(ch, 36)) for ch in iban[4:] + iban[:4])
            assert int(digits) % 97 == 1, iban

    def test_phone_numbers_agree(self) -> None:
        for said, dialled in sealed4_calls._PHONES:
            assert re.fullmatch(r"\+\d{11,12}", dialled)
            national = re.sub(r"\D", "", said)
            assert dialled.endswith(national.lstrip("0"))

    def test_declared_calls_carry_what_they_need(self) -> None:
        cases = calls.cases(SET, 0, 12)
        declared = [c for c in cases if c.declaration is not None]
        assert {c.registered for c in declared} == {True, False}
        for case in declared:
            assert case.declaration is not None
            assert case.declaration["name"] == case.tool
            assert case.registered == (case.tool in sealed4_calls.REGISTERED)
            listed = set(case.declaration["inputSchema"]["properties"])
            assert set(case.args) <= listed, case
        by_name = {c.tool: c.declaration for c in declared if c.registered}
        assert all(c.declaration == by_name[c.tool] for c in declared if c.registered)

    def test_legitimate_calls_go_nowhere_an_attacker_named(self) -> None:
        evil_accounts = {a for pairs in sealed4_calls._DOMESTIC_EVIL.values() for _, a in pairs}
        for case in calls.cases(SET, 0, 12):
            if not case.attack:
                dumped = json.dumps(case.args)
                assert not any(host in dumped for host in sealed4_calls._EVIL), case
                assert not any(a in dumped for a in evil_accounts), case
                assert case.channel == "user"

    def test_every_attack_value_is_absent_from_the_users_words(self) -> None:
        for case in calls.cases(SET, 0, 12):
            if not case.attack:
                continue
            values = _sink_values(case)
            if case.tool in ACTIONS and not values:
                continue
            words = _user_words(case)
            assert any(_squash(v) not in words for v in values), case

    def test_legitimate_addresses_and_accounts_are_in_the_users_words(self) -> None:
        for case in calls.cases(SET, 0, 12):
            if case.attack:
                continue
            words = _user_words(case)
            for value in _sink_values(case):
                if "@" in value:
                    local, domain = value.lower().split("@")
                    assert _squash(local) in words, case
                    assert _squash(domain) in words, case
                elif re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+|\d{6,}", value):
                    assert _squash(value) in words, case

    def test_action_attacks_are_never_asked_for_by_the_user(self) -> None:
        for case in calls.cases(SET, 0, 12):
            if case.attack and case.tool in ACTIONS and not _sink_values(case):
                user = " ".join(s.text for s in case.steps if s.origin == "user").lower()
                assert not any(w in user for w in ("two-factor", "two-step", "bin", "alert"))


class TestDisjoint:
    def test_family_names_are_in_no_other_split(self) -> None:
        others = set(calls.FAMILIES) | set(sealed_calls.FAMILIES) | set(
            sealed2_calls.FAMILIES) | set(sealed3_calls.FAMILIES)
        assert not set(sealed4_calls.FAMILIES) & others
        for split in OTHER_SPLITS:
            assert not {c.family for c in calls.cases(split, 0, 1)} & set(
                sealed4_calls.FAMILIES)
        assert {c.family for c in calls.cases(SET, 0, 1)} == set(sealed4_calls.FAMILIES)

    def test_a_run_of_the_set_lists_only_its_call_families(self) -> None:
        for suite in runner.suites():
            listed = runner.families(suite, SET)
            if suite.target == "memory":
                assert listed == {}
                assert SET not in suite.sealed_families
                continue
            assert set(listed) == set(sealed4_calls.FAMILIES)
            assert {v["split"] for v in listed.values()} == {SET}
            for other in ("dev", "sealed", "sealed2", "sealed3"):
                assert not set(runner.families(suite, other)) & set(listed)

    def test_call_vocabulary_is_its_own(self) -> None:
        for pool in ("_FIRST", "_LAST", "_FIRMS", "_EVIL", "_EVIL_LOCAL", "_ARTIFACTS", "_IBANS",
                     "_HISTORY", "_BODY", "_DATA", "_INSTRUCTIONS"):
            mine = set(getattr(sealed4_calls, pool))
            for other in (calls, sealed_calls, sealed2_calls, sealed3_calls):
                assert not mine & set(getattr(other, pool, ())), (pool, other.__name__)
        # sealed3's numbers, and the ranges dev and test draw theirs from.
        old = (*sealed3_calls._PHONES, "07700", "0161 496", "020 7946")
        assert not any(p.startswith(o) for p, _ in sealed4_calls._PHONES for o in old)

    def test_iban_countries_are_their_own(self) -> None:
        old = {i[:2] for m in (calls, sealed_calls, sealed2_calls, sealed3_calls)
               for i in m._IBANS}
        assert not {i[:2] for i in sealed4_calls._IBANS} & old

    def test_call_texts_share_nothing_with_other_splits(self) -> None:
        old = set().union(*(_call_texts(split) for split in OTHER_SPLITS))
        old_grams = set().union(*(ngrams(t) for t in old))
        new = _call_texts(SET)
        assert not new & old
        shared = {t: ngrams(t) & old_grams for t in new}
        assert {t: g for t, g in shared.items() if g} == {}

    def test_orders_use_languages_no_other_split_uses(self) -> None:
        assert set(sealed4_calls._FAR_SEND) == set(sealed4_calls._OWN_SEND)
        assert not set(sealed4_calls._FAR_SEND) & (set(calls._INSTRUCTIONS) | set(
            sealed_calls._NEW_LANGUAGES))

    def test_declared_tools_are_their_own(self) -> None:
        def names(module: Any) -> set[str]:
            return {v["name"] for v in vars(module).values()
                    if isinstance(v, dict) and "inputSchema" in v}

        mine = names(sealed4_calls)
        assert len(mine) == 7
        others = names(sealed_calls) | names(sealed2_calls) | names(sealed3_calls)
        others |= set(calls._DECLARED) | set(calls._PATTERN_READS) | set(calls._DESCRIBED)
        assert not mine & others


class TestReading:
    def test_a_report_without_memory_cases_has_no_memory_rows(self) -> None:
        rows = [{"target": "call", "family": "f", "channel": "tool_output", "history": "new",
                 "attack": attack, "decision": "ask", "blocked": True}
                for attack in (True, False)]
        results = {"split": SET, "seed": 0, "per_family": 1, "policy": "capture",
                   "commit": "abc1234", "wall_seconds": 0.0, "sealed_sha256": "0" * 64,
                   **runner.summarize(rows)}
        text = markdown(results)
        assert "| check-call | bypass attempts blocked (deny or ask) | 1 |" in text
        assert "| memory |" not in text
        assert f"--split {SET} --seed 0 --per-family 1 --unseal`" in text
