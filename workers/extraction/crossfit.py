"""Out-of-fold extractions of the train split, for training the gate on realistic input.

An extractor scored on its own training events reads them almost perfectly; online it misreads
unseen wording. So the gate's training replay reads each train event with an extractor that
never saw that event's *template family*: the families of each intent are dealt into k folds
(the benchmark splits dev and test from train the same way, by family), an extractor is
trained on k−1 folds and reads the held-out one.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from app.extraction.base import EventInput
from app.extraction.schemas import Extraction, Hypothesis
from workers.common.embedding_cache import EmbeddingCache
from workers.common.episodes import Episode, EventRecord, events_of
from workers.common.progress import log
from workers.extraction.dataset import ExtractorRows, build_rows
from workers.extraction.infer import ExtractorHeads, LearnedExtractor

# fit_fold(rows of the training folds, fold index, the training folds' events) -> the arrays
# of a network or an ensemble (`infer.join_members`)
FitFn = Callable[[ExtractorRows, int, list[EventRecord]], dict[str, np.ndarray]]


def family_folds(events: list[EventRecord], folds: int) -> np.ndarray:
    """(N,) fold of each event: template families of one intent dealt round-robin."""
    by_intent: dict[str, set[str]] = defaultdict(set)
    for event in events:
        intent, _, family = event.template_family.partition("/")
        by_intent[intent].add(family)
    rank = {
        (intent, family): i
        for intent, families in by_intent.items()
        for i, family in enumerate(sorted(families))
    }
    out = np.zeros(len(events), dtype=np.int64)
    for i, event in enumerate(events):
        intent, _, family = event.template_family.partition("/")
        index = rank.get((intent, family), zlib.crc32(event.template_family.encode()))
        # Offset by the intent so that fold sizes even out across intents.
        out[i] = (index + zlib.crc32(intent.encode())) % folds
    return out


def out_of_fold(
    events: list[EventRecord],
    rows: ExtractorRows,
    final: LearnedExtractor,
    folds: int,
    fit_fold: FitFn,
) -> list[Extraction]:
    """Each event read by an extractor trained without its fold (final's dev threshold)."""
    assignment = family_folds(events, folds)
    out: list[Extraction | None] = [None] * len(events)
    inputs = [EventInput(e.text, e.origin, e.occurred_at) for e in events]
    for fold in range(folds):
        held = assignment == fold
        log.info("out-of-fold extractor %d/%d: %d held-out events",
                 fold + 1, folds, int(held.sum()))
        fold_events = [e for e, h in zip(events, held, strict=True) if not h]
        arrays = fit_fold(rows.subset(~held), fold, fold_events)
        heads = ExtractorHeads(arrays, {"abstain_threshold": final.heads.threshold})
        reader = _Reader(final, heads)
        index = np.flatnonzero(held)
        for i, extraction in zip(
            index, reader.extract_rows([inputs[i] for i in index], rows.x[index]), strict=True
        ):
            out[int(i)] = extraction
    assert all(e is not None for e in out)
    return [e for e in out if e is not None]


class _Reader(LearnedExtractor):
    """A LearnedExtractor over in-memory heads (no weight file)."""

    def __init__(self, final: LearnedExtractor, heads: ExtractorHeads) -> None:
        self.heads = heads
        self.version = final.version
        self._embedder = None
        self._rules = final._rules



def first_hypotheses(extractions: list[Extraction]) -> list[Hypothesis | None]:
    return [e.hypotheses[0] if e.hypotheses else None for e in extractions]


def read_split(
    episodes: list[Episode], cache: EmbeddingCache, extractor: LearnedExtractor
) -> list[Hypothesis | None]:
    """What the shipped extractor reads of each event (dev and test)."""
    events = events_of(episodes)
    rows = build_rows(events, cache)
    inputs = [EventInput(e.text, e.origin, e.occurred_at) for e in events]
    return first_hypotheses(extractor.extract_rows(inputs, rows.x))


def read_train_out_of_fold(
    episodes: list[Episode],
    cache: EmbeddingCache,
    extractor: LearnedExtractor,
    *,
    seed: int,
    folds: int,
    epochs: int,
    threads: int,
    work_dir: Path,
) -> list[Hypothesis | None]:
    """Out-of-fold readings of the train split, cached under `work_dir` by everything they
    depend on (the extractor's version, seed, folds, epochs, augmentation, the events)."""
    from workers.extraction import train as extraction_train

    events = events_of(episodes)
    base = extraction_train.ExtractorTrainConfig(seed=seed, epochs=epochs, threads=threads)
    key = hashlib.sha256(
        json.dumps([extractor.version, seed, folds, epochs, base.augmented_revisions,
                    base.open_statements, base.chatter, base.ensemble,
                    [hashlib.sha1(e.text.encode()).hexdigest() for e in events]]).encode()
    ).hexdigest()[:16]
    path = work_dir / f"oof-{key}.json"
    if path.exists():
        raw = json.loads(path.read_text())
        return [None if h is None else Hypothesis.model_validate(h) for h in raw]
    rows = build_rows(events, cache)

    def fit_fold(
        subset: ExtractorRows, fold: int, fold_events: list[EventRecord]
    ) -> dict[str, np.ndarray]:
        # As the shipped extractor is trained (an ensemble of the same size), with
        # augmentation drawn from these folds only.
        def rows_for(member_seed: int) -> ExtractorRows:
            extra = extraction_train.augmentation_rows(fold_events, cache, base, member_seed)
            return subset.extended(extra)

        return extraction_train.fit_ensemble(rows_for, base, seed + 1 + 10 * fold)

    hypotheses = first_hypotheses(out_of_fold(events, rows, extractor, folds, fit_fold))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([None if h is None else h.model_dump(mode="json")
                                for h in hypotheses]))
    return hypotheses
