"""The default `capture train extractor` recipe is the one that trained the shipped heads.

Training takes tens of minutes, so these tests check what the recipe feeds the networks
instead: its typo-repair lexicon is the shipped one, and member 0's training texts, their side
splits, rule-reader cues and labels hash to the value read from the run that reproduced
`extractor.npz` array for array (docs/models/extractor.md). A change to the composed
revisions, the authored sources, the markers, the typo repair or the rule reader fails here:
the shipped weights are then no longer what the command produces.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from app.extraction.spelling import load_speller
from workers.common.episodes import EventRecord, ensure_bench_data, events_of, load_split
from workers.extraction.augment import frames, leads, plain_frames
from workers.extraction.dataset import rule_cues
from workers.extraction.infer import WEIGHTS
from workers.extraction.segments import CORE_MARKERS, MARKERS, split_sides
from workers.extraction.train import (
    ExtractorTrainConfig,
    authored_events,
    authored_recipe,
    build_speller,
)

# sha256 of member 0's training rows as text (`_digest`), read at the commit whose
# `capture train extractor --seed 0` reproduced the shipped extractor.npz.
MEMBER_0_DIGEST = "ff2286bce6f7bf00c1b4158c8c400331dac4afc796860ab0db2e82845f1b9e3a"


@pytest.fixture(scope="module")
def train_events() -> list[EventRecord]:
    return events_of(load_split(ensure_bench_data(), "train"))


def _digest(events: list[EventRecord], cfg: ExtractorTrainConfig) -> str:
    speller = build_speller(events, cfg)
    composed, authored = authored_events(events, cfg, cfg.seed)
    digest = hashlib.sha256()
    for event in (*events, *composed, *authored):
        text = speller.normalize(event.text)
        sides = split_sides(text, cfg.markers)
        row = [text, sides.kept, sides.rejected, event.origin.value, rule_cues(event, text),
               event.dimension, event.value, event.direction, event.scope, event.timescale]
        digest.update(json.dumps(row).encode())
    return digest.hexdigest()


class TestShippedRecipe:
    def test_is_the_default(self) -> None:
        cfg = ExtractorTrainConfig()
        assert (cfg.frame_family, cfg.markers, cfg.model_version) == ("plain", CORE_MARKERS, "6")
        assert cfg.augmented_revisions == 3000
        authored = authored_recipe(cfg)
        assert (authored.frame_family, authored.markers, authored.model_version) == (
            "train", MARKERS, "7")
        assert authored.augmented_revisions == 5000

    def test_plain_frames_always_draw_a_lead(self) -> None:
        # The recipe drew a lead before every frame: all of them start lower-case or with a
        # value, where `augment.draw_lead` draws.
        assert frames("plain") == (*plain_frames("new"), *plain_frames("old"))
        assert (len(plain_frames("new")), len(plain_frames("old"))) == (10, 13)
        assert all(f[0] == "{" or f[0].islower() for f in frames("plain"))
        assert "" in leads()

    def test_core_markers_are_a_subset_of_the_service_markers(self) -> None:
        for core, full in zip(CORE_MARKERS.phrases, MARKERS.phrases, strict=True):
            assert set(core) < set(full)
        # "X over Y" and "swap Y for X" split only by the full set.
        assert not split_sides("dark mode over light mode", CORE_MARKERS).has_rejected
        assert split_sides("dark mode over light mode").rejected == "light mode"
        assert split_sides("replace rust with go", CORE_MARKERS).rejected == "rust with go"
        assert split_sides("replace rust with go").rejected == "rust"

    def test_lexicon_is_the_shipped_one(self, train_events: list[EventRecord]) -> None:
        speller = build_speller(train_events, ExtractorTrainConfig())
        shipped = load_speller(WEIGHTS.with_suffix(".lexicon.json"))
        assert dict(speller.counts) == dict(shipped.counts)

    def test_member_0_trains_on_the_recorded_rows(self, train_events: list[EventRecord]) -> None:
        assert _digest(train_events, ExtractorTrainConfig()) == MEMBER_0_DIGEST
