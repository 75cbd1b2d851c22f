"""The sealed test split: reproducible to its committed hash, the generator's structure, and
wording that shares nothing with the train/dev/test tables. No policy runs over it here."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from app.cli import app as capture_app
from app.core.corpora import CorpusError
from bench.generator import generate
from bench.generator.cli import app as generator_app
from bench.generator.schema import ACTIONS, FAMILIES, LABELS, ORIGINS, SPLITS, TRACKS
from bench.generator.sealed import (
    SEALED_DATA,
    SEALED_FILE,
    SEALED_MANIFEST,
    SEALED_USERS,
    SealedSplitChangedError,
    committed_sha256,
    ensure_sealed,
    load_sealed_wording,
)
from bench.generator.wording import DEFAULT_WORDING, Wording

Episode = dict[str, Any]
SLOT = re.compile(r"\{([a-zA-Z_0-9]+)\}")
_WORD = re.compile(r"[a-z0-9']+")
# Shared word sequences this long would mean a sealed text was derived from an old one.
NGRAM = 5


@pytest.fixture(scope="module")
def sealed_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sealed")
    result = CliRunner().invoke(generator_app, ["generate", "--sealed", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def sealed(sealed_dir: Path) -> list[Episode]:
    lines = (sealed_dir / SEALED_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def wording_texts(wording: Wording) -> Iterator[str]:
    """Every authored text of a wording (not the names of dimensions, values or domains)."""
    for families in wording.templates.values():
        for templates in families.values():
            yield from templates
    for table in (wording.scope_suffixes, wording.injection_carriers, wording.summary_carriers,
                  wording.dimension_phrases, wording.domain_phrases):
        for items in table.values():
            yield from items
    for by_value in wording.value_phrases.values():
        for phrases in by_value.values():
            yield from phrases
    yield from wording.domain_query_prefix.values()
    yield from wording.topics
    yield from wording.fillers
    for queries in wording.queries.values():
        yield from queries.values()
    for families_by_value in wording.candidates.values():
        for by_value_text in families_by_value.values():
            yield from by_value_text.values()
    yield from wording.neutral_candidates.values()
    for scenario in wording.safety_scenarios:
        yield scenario.query
        yield from scenario.unsafe
        for family in scenario.responses:
            yield from family.unsafe
            yield from family.safe


def ngrams(text: str) -> set[tuple[str, ...]]:
    """Word n-grams within the stretches between slots."""
    grams: set[tuple[str, ...]] = set()
    for stretch in SLOT.split(text.lower())[::2]:
        words = _WORD.findall(stretch)
        grams.update(tuple(words[i:i + NGRAM]) for i in range(len(words) - NGRAM + 1))
    return grams


class TestReproducible:
    def test_generation_matches_the_committed_hash(self, sealed_dir: Path) -> None:
        content = (sealed_dir / SEALED_FILE).read_bytes()
        assert hashlib.sha256(content).hexdigest() == committed_sha256()
        manifest = json.loads((sealed_dir / SEALED_MANIFEST).read_text())
        assert manifest["sha256"] == committed_sha256()

    def test_ensure_sealed_refuses_a_changed_split(self, sealed_dir: Path,
                                                   tmp_path: Path) -> None:
        assert ensure_sealed(sealed_dir) == sealed_dir
        lines = (sealed_dir / SEALED_FILE).read_text(encoding="utf-8").splitlines()
        (tmp_path / SEALED_FILE).write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
        with pytest.raises(SealedSplitChangedError):
            ensure_sealed(tmp_path)


class TestStructure:
    def test_counts_users_and_vocabulary(self, sealed: list[Episode]) -> None:
        assert Counter(e["track"] for e in sealed) == dict.fromkeys(TRACKS, SEALED_USERS)
        assert {e["split"] for e in sealed} == {"sealed"}
        assert all(e["user_id"].startswith("dpg-sealed-u") for e in sealed)
        assert len({e["user_id"] for e in sealed}) == SEALED_USERS
        events = [ev for e in sealed for ev in e["events"]]
        assert {ev["label"] for ev in events} == set(LABELS)
        assert {ev["expected_action"] for ev in events} <= set(ACTIONS)
        assert {ev["origin"] for ev in events} == set(ORIGINS)
        assert all(not SLOT.search(ev["text"]) for ev in events)
        assert all(e["probes"] and all(p["candidates"] for p in e["probes"]) for e in sealed)

    def test_template_families_are_new(self, sealed: list[Episode]) -> None:
        used = {f.split("/")[1] for e in sealed for f in e["template_families"]}
        assert used == {"hedged", "blunt"}
        assert not used & set(FAMILIES)

    def test_no_text_shared_with_train_dev_test(self, sealed: list[Episode],
                                                tmp_path: Path) -> None:
        generate(tmp_path, seed=0, episodes_per_track=60, progress=False)
        seen: set[str] = set()
        for split in SPLITS:
            for line in (tmp_path / f"{split}.jsonl").read_text().splitlines():
                episode = json.loads(line)
                seen.update(ev["text"] for ev in episode["events"])
                for probe in episode["probes"]:
                    seen.add(probe["query"])
                    seen.update(c["text"] for c in probe["candidates"])
        for episode in sealed:
            assert not {ev["text"] for ev in episode["events"]} & seen
            for probe in episode["probes"]:
                assert probe["query"] not in seen
                assert not {c["text"] for c in probe["candidates"]} & seen


class TestWording:
    def test_authored_text_shares_no_wording_with_the_old_tables(self) -> None:
        old = set(wording_texts(DEFAULT_WORDING))
        old_grams = set().union(*(ngrams(t) for t in old))
        new = set(wording_texts(load_sealed_wording().wording))
        # A carrier that is the bare payload is not wording.
        assert {t for t in new & old if SLOT.sub("", t).strip()} == set()
        shared = {t: ngrams(t) & old_grams for t in new}
        assert {t: g for t, g in shared.items() if g} == {}

    def test_topics_are_new(self) -> None:
        assert not set(load_sealed_wording().wording.topics) & set(DEFAULT_WORDING.topics)


class TestLoader:
    def test_wording_missing_an_intent_is_refused(self, tmp_path: Path) -> None:
        records = yaml.safe_load(SEALED_DATA.read_text(encoding="utf-8"))
        kept = [r for r in records if r.get("intent") != "pref_hint"]
        path = tmp_path / "sealed.yaml"
        path.write_text(yaml.safe_dump(kept, allow_unicode=True), encoding="utf-8")
        with pytest.raises(CorpusError, match="pref_hint"):
            load_sealed_wording(path)


class TestPrefguardGuard:
    def test_sealed_split_needs_unseal(self, tmp_path: Path) -> None:
        result = CliRunner().invoke(
            capture_app, ["bench", "prefguard", "--split", "sealed", "--out", str(tmp_path)])
        assert result.exit_code == 2
        assert "--unseal" in result.output
        assert not (tmp_path / "results.json").exists()
