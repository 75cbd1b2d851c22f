"""Out-of-fold extractions of the train split: how the extractor reads wording it never saw.

An extractor scored on its own training events reads them almost perfectly; online it misreads
unseen wording. So each train event is also read by an extractor that never saw that event's
*template family*: the families of each intent are dealt into k folds (the benchmark splits
dev and test from train the same way, by family), an extractor is trained on k−1 folds and
reads the held-out one. Two users:

- the gate's and the relation model's training replays read train with these extractors,
  so they learn on the extractor's real misreads and false positives;
- the extractor's abstention threshold is chosen on these reads pooled with dev's: four
  held-out families per intent instead of dev's one (`train.main`).

The fold extractors are trained exactly as a recipe's extractor is (same config, an ensemble
of the same size, a lexicon and augmentation drawn from the training folds only) and cached
under `work_dir` by everything they depend on. The threshold's are trained by the recipe being
trained; the gate's replay's by the authored-frames recipe, the relation model's by the
shipped extractor's, whose reads the shipped relation weights learned on
(`read_train_out_of_fold`; the same cached folds as `capture train extractor`'s threshold).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from app.domain.claims import Extraction, Hypothesis
from app.domain.extractor import EventInput
from app.extraction.spelling import Speller, load_speller, save_lexicon
from workers.common.embedding_cache import EmbeddingCache
from workers.common.episodes import Episode, EventRecord, events_of, held_before
from workers.common.progress import log
from workers.common.weights import load_npz, save_npz
from workers.extraction.dataset import ExtractorRows, as_written, build_rows
from workers.extraction.infer import ExtractorHeads, LearnedExtractor
from workers.extraction.segments import Markers

if TYPE_CHECKING:
    from workers.extraction.train import ExtractorTrainConfig


@dataclass(frozen=True, slots=True)
class FoldModel:
    """An extractor trained without one fold: the arrays of a network or an ensemble
    (`infer.join_members`), its typo repair (None: it reads the text as written), and the
    markers that split the sides it was trained on (it reads with them)."""

    arrays: dict[str, npt.NDArray[np.float32]]
    speller: Speller | None
    markers: Markers

    def reading(self, text: str) -> str:
        return self.speller.normalize(text) if self.speller is not None else text


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


def _key(events: list[EventRecord], cache: EmbeddingCache, cfg: ExtractorTrainConfig,
         folds: int) -> str:
    from workers.extraction.augment import connectives

    # Everything the fold extractors depend on (not where they are written, nor threads). The
    # recipe enters through its version, connectives and markers.
    learning = {k: v for k, v in asdict(cfg).items()
                if k not in ("out", "data_dir", "cache", "threads", "report_splits",
                             "threshold_folds", "pooled_threshold", "threshold", "fold_dir",
                             "authored_frames")}
    return hashlib.sha256(json.dumps(
        [cfg.model_version, cache.embedder.name, folds, learning,
         connectives(cfg.frame_family), cfg.markers.phrases,
         [hashlib.sha1(e.text.encode()).hexdigest() for e in events]],
        sort_keys=True, default=str,
    ).encode()).hexdigest()[:16]


def fold_models(
    events: list[EventRecord],
    cache: EmbeddingCache,
    cfg: ExtractorTrainConfig,
    *,
    folds: int,
    work_dir: Path,
) -> list[FoldModel]:
    """One extractor per fold, trained without that fold's families (cached)."""
    directory = work_dir / f"extractor-folds-{_key(events, cache, cfg, folds)}"
    assignment = family_folds(events, folds)
    models = []
    for fold in range(folds):
        weights = directory / f"fold{fold}.npz"
        lexicon = directory / f"fold{fold}.lexicon.json"
        if weights.exists():
            arrays, _ = load_npz(weights)
            speller = load_speller(lexicon) if cfg.spelling else None
            models.append(FoldModel(arrays, speller, cfg.markers))
            continue
        log.info("out-of-fold extractor %d/%d: %d held-out events",
                 fold + 1, folds, int(np.sum(assignment == fold)))
        model = _fit_fold([e for e, f in zip(events, assignment, strict=True) if f != fold],
                          cache, cfg, cfg.seed + 1 + 10 * fold)
        save_npz(weights, model.arrays, {"kind": "extractor-fold", "fold": fold, "folds": folds})
        if model.speller is not None:
            save_lexicon(lexicon, model.speller.counts)
        models.append(model)
    return models


def _fit_fold(
    fold_events: list[EventRecord], cache: EmbeddingCache, cfg: ExtractorTrainConfig, seed: int
) -> FoldModel:
    from workers.extraction import train as extraction_train

    speller = extraction_train.build_speller(fold_events, cfg) if cfg.spelling else None
    read = speller.normalize if speller is not None else as_written
    rows = build_rows(fold_events, cache, read, cfg.markers)

    def rows_for(member_seed: int) -> ExtractorRows:
        extra = extraction_train.augmentation_rows(fold_events, cache, cfg, member_seed, read)
        return rows.extended(extra)

    return FoldModel(extraction_train.fit_ensemble(rows_for, cfg, seed), speller, cfg.markers)


def _held_out(
    events: list[EventRecord], cache: EmbeddingCache, models: list[FoldModel]
) -> list[tuple[np.ndarray, FoldModel, ExtractorRows]]:
    """Per fold: the held-out events' indices, the fold's model, their rows as it reads them."""
    assignment = family_folds(events, len(models))
    out = []
    for fold, model in enumerate(models):
        index = np.flatnonzero(assignment == fold)
        held_out = [events[i] for i in index]
        out.append((index, model, build_rows(held_out, cache, model.reading, model.markers)))
    return out


def out_of_fold_preference(
    events: list[EventRecord], cache: EmbeddingCache, models: list[FoldModel]
) -> npt.NDArray[np.float32]:
    """(N,) P(the event holds a preference), each read by the extractor without its fold."""
    out = np.zeros(len(events), dtype=np.float32)
    for index, model, rows in _held_out(events, cache, models):
        out[index] = ExtractorHeads(model.arrays, {}).forward(rows.x)["has_preference"]
    return out


def out_of_fold(
    events: list[EventRecord],
    cache: EmbeddingCache,
    final: LearnedExtractor,
    models: list[FoldModel],
) -> list[Extraction]:
    """Each event read by the extractor trained without its fold, at the final extractor's
    (dev-chosen) threshold, and with what the user held before it (`held_before`)."""
    out: list[Extraction | None] = [None] * len(events)
    inputs = event_inputs(events)
    for index, model, rows in _held_out(events, cache, models):
        heads = ExtractorHeads(model.arrays, {"abstain_threshold": final.heads.threshold})
        reader = _Reader(final, heads, model.speller)
        inputs_held_out = [inputs[i] for i in index]
        for i, extraction in zip(
            index, reader.extract_rows(inputs_held_out, rows.x), strict=True
        ):
            out[int(i)] = extraction
    assert all(e is not None for e in out)
    return [e for e in out if e is not None]


class _Reader(LearnedExtractor):
    """A LearnedExtractor over in-memory heads (no weight file)."""

    def __init__(
        self, final: LearnedExtractor, heads: ExtractorHeads, speller: Speller | None
    ) -> None:
        self.heads = heads
        self.version = final.version
        self.speller = speller
        self._embedder = final._embedder
        self._rules = final._rules
        self._revision_side = final._revision_side  # authored frames only: no fold to hold out


def event_inputs(events: list[EventRecord]) -> list[EventInput]:
    """What the extractor reads of each event (episode order): its text and origin, and for
    a user-channel event the values an accurate ledger would hold just before it."""
    return [EventInput(e.text, e.origin, e.occurred_at, held=held)
            for e, held in zip(events, held_before(events), strict=True)]


def first_hypotheses(extractions: list[Extraction]) -> list[Hypothesis | None]:
    return [e.hypotheses[0] if e.hypotheses else None for e in extractions]


def read_split(
    episodes: list[Episode], cache: EmbeddingCache, extractor: LearnedExtractor
) -> list[Hypothesis | None]:
    """What the shipped extractor reads of each event (dev and test)."""
    events = events_of(episodes)
    rows = build_rows(events, cache, extractor.reading)
    return first_hypotheses(extractor.extract_rows(event_inputs(events), rows.x))


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
    authored_frames: bool,
    ensemble: int | None = None,
    augmentation: float = 1.0,
) -> list[Hypothesis | None]:
    """Out-of-fold readings of the train split by fold extractors of a recipe, with this seed
    and epochs, on repaired text where the shipped extractor reads one: the authored-frames
    recipe (`train.authored_recipe`), whose sides are split as the service splits them, or
    the shipped extractor's (`authored_frames` False; the folds `capture train extractor`
    chooses its threshold with). Smoke tests shrink them: `ensemble` members (None: the
    recipe's) and `augmentation`, the share of the recipe's authored training statements."""
    from workers.extraction import train as extraction_train

    events = events_of(episodes)
    cfg = extraction_train.ExtractorTrainConfig(
        seed=seed, epochs=epochs, threads=threads, spelling=extractor.speller is not None
    )
    if authored_frames:
        cfg = extraction_train.authored_recipe(cfg)
    cfg = cfg.with_augmentation(augmentation)
    if ensemble is not None:
        cfg.ensemble = ensemble
    models = fold_models(events, cache, cfg, folds=folds, work_dir=work_dir)
    return first_hypotheses(out_of_fold(events, cache, extractor, models))
