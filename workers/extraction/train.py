"""Train the extractor: `capture train extractor --out PATH` or `main(ExtractorTrainConfig(...))`.

Train split only; the abstention threshold is chosen on dev; test is scored for the model
card only. Seeded and reproducible on CPU (minutes on 2 cores, embeddings cached).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from app.core.config import REPO_ROOT
from app.extraction.deterministic import DeterministicExtractor
from app.extraction.spelling import (
    WORD,
    Speller,
    encoder_vocabulary,
    lexicon_counts,
    save_lexicon,
)
from app.extraction.taxonomy import DIMENSIONS, SCOPE_DOMAINS
from workers.common.embedding_cache import EmbeddingCache, training_cache
from workers.common.episodes import EventRecord, ensure_bench_data, events_of, load_split
from workers.common.progress import configure, log, seed_everything
from workers.common.weights import save_npz
from workers.extraction import crossfit
from workers.extraction.augment import (
    BLIND_FAMILIES,
    compose_revisions,
    connectives,
    surface_forms,
)
from workers.extraction.dataset import (
    IGNORE,
    NO_ABSTENTION_TARGET,
    ExtractorRows,
    ReadFn,
    as_written,
    build_rows,
)
from workers.extraction.everyday_chatter import chatter_events
from workers.extraction.infer import WEIGHTS, ExtractorHeads, LearnedExtractor, join_members
from workers.extraction.metrics import (
    score_chatter,
    score_composed_revisions,
    score_extractions,
    score_extractor,
    score_one_off,
    score_open,
)
from workers.extraction.model import ExtractorModelConfig, ExtractorNet, export
from workers.extraction.one_off_requests import one_off_events, standing_events
from workers.extraction.open_preferences import open_preference_events, taxonomy_statements
from workers.extraction.segments import CORE_MARKERS, MARKERS, Markers

# The model version of each recipe (`ExtractorTrainConfig.authored_frames`). Both read
# typo-repaired text (a lexicon file beside the weights names the repairs). 6: the shipped
# heads, trained on the plain revision frames with sides split by `segments.CORE_MARKERS`.
# 7: trained on the authored frames too, with sides split by the full `segments.MARKERS`.
MODEL_VERSION = "6"
AUTHORED_MODEL_VERSION = "7"
# Composed revisions of the authored-frames recipe (`authored_recipe`).
AUTHORED_REVISIONS = 5000


@dataclass(slots=True)
class ExtractorTrainConfig:
    out: Path = WEIGHTS
    data_dir: Path | None = None  # unset: the generated benchmark (workers.common.episodes)
    cache: Path = REPO_ROOT / "var" / "cache" / "embeddings" / "minilm.npz"
    embedder: str | None = None  # None: the service's (MiniLM); "hashing" for smoke tests
    seed: int = 0
    epochs: int = 20
    batch_size: int = 256
    lr: float = 2e-3
    weight_decay: float = 1e-4
    # Weight of the has-preference (abstention) loss beside the field losses (paper: ω_abs).
    abstention_weight: float = 1.0
    # Two-value revisions composed from the train split (`augment.py`) added to training.
    augmented_revisions: int = 3000
    # The recipe. False (the shipped extractor's): revisions composed from the plain frames
    # (`augment.frames("plain")`), sides split by `segments.CORE_MARKERS`. True: the authored
    # frames too (`augment.frames("train")`), sides split by the full `segments.MARKERS`,
    # which the service reads with; `authored_recipe` pairs it with 5,000 revisions. The
    # gate's out-of-fold extractors train this one, the relation model's the shipped one
    # (`crossfit.read_train_out_of_fold`).
    authored_frames: bool = False
    # Authored statements on topics outside the taxonomy (`open_preferences.py`), half of them
    # preferences (the open claim class), half the same topics without one.
    open_statements: int = 4000
    # Authored chatter that states no preference (`everyday_chatter.py`): registers and
    # topics the train split lacks, a third of them mentioning a taxonomy value in passing.
    chatter: int = 3000
    # Authored one-off requests that name a taxonomy value (`one_off_requests.py`: "port this
    # snippet to Go for Sam"), a task and not a preference; they train the has-preference head.
    one_off_requests: int = 2000
    # ... and the same task frames made standing ("... from now on"): preferences.
    standing_requests: int = 1000
    # Networks averaged (seeds seed, seed + 1, …, each with its own draw of augmentation):
    # chosen on dev, where three read more and steadier than one (docs/models/extractor.md).
    ensemble: int = 3
    # Family-fold extractors (`crossfit.py`) whose out-of-fold reads of train are reported
    # and, with pooled_threshold, pooled with dev's to choose the abstention threshold
    # (False: on dev alone, version 5). 0: none.
    threshold_folds: int = 3
    pooled_threshold: bool = True
    # A fixed abstention threshold instead of the F1 choice (None: choose), for comparing
    # thresholds end to end on dev where the F1 curve is flat (docs/models/extractor.md).
    threshold: float | None = None
    # Where the family-fold extractors are cached (shared with the gate's and the relation
    # model's training replays).
    fold_dir: Path = REPO_ROOT / "var" / "cache" / "gate"
    # Read typo-repaired text (`app/extraction/spelling.py`), with a lexicon of the train
    # split's words written beside the weights. False: the text as written (version 5).
    spelling: bool = True
    model: ExtractorModelConfig = field(default_factory=ExtractorModelConfig)
    threads: int = 2
    # Episodes per track and split (None: all); a tiny slice for tests.
    limit: int | None = None
    report_splits: tuple[str, ...] = ("dev", "test")

    @property
    def frame_family(self) -> str:
        """The frame family composed revisions are drawn from (`augment.frames`)."""
        return "train" if self.authored_frames else "plain"

    @property
    def markers(self) -> Markers:
        """The markers that split the training texts' sides (`segments.py`)."""
        return MARKERS if self.authored_frames else CORE_MARKERS

    @property
    def model_version(self) -> str:
        return AUTHORED_MODEL_VERSION if self.authored_frames else MODEL_VERSION

    def with_augmentation(self, share: float) -> ExtractorTrainConfig:
        """This recipe with `share` of each authored augmentation (smoke tests: a tenth)."""
        return replace(self, **{name: round(getattr(self, name) * share) for name in (
            "augmented_revisions", "open_statements", "chatter", "one_off_requests",
            "standing_requests")})


def authored_recipe(cfg: ExtractorTrainConfig) -> ExtractorTrainConfig:
    """`cfg` made the authored-frames recipe (`ExtractorTrainConfig.authored_frames`), with
    its 5,000 composed revisions."""
    return replace(cfg, authored_frames=True, augmented_revisions=AUTHORED_REVISIONS)


def _tensor_rows(rows: ExtractorRows) -> dict[str, torch.Tensor]:
    return {
        "x": torch.from_numpy(rows.x),
        "has_preference": torch.from_numpy(rows.has_preference),
        "claim": torch.from_numpy(rows.claim),
        "direction": torch.from_numpy(rows.direction),
        "scope": torch.from_numpy(rows.scope),
        "timescale": torch.from_numpy(rows.timescale),
    }


def authored_events(
    events: list[EventRecord], cfg: ExtractorTrainConfig, seed: int
) -> tuple[list[EventRecord], list[EventRecord]]:
    """(composed revisions, authored statements and chatter) that training adds to `events`
    (train-split events): revisions composed from them, the authored open statements
    (`train` family) and the same frames filled with taxonomy values seen in `events`, and
    authored chatter."""
    composed = compose_revisions(events, cfg.augmented_revisions, seed, family=cfg.frame_family)
    authored = open_preference_events(cfg.open_statements, "train", seed)
    authored += taxonomy_statements(surface_forms(events), cfg.open_statements // 2, seed)
    authored += chatter_events(cfg.chatter, "train", seed)
    authored += one_off_events(cfg.one_off_requests, "train", seed)
    authored += standing_events(cfg.standing_requests, "train", seed)
    return composed, authored


def augmentation_rows(
    events: list[EventRecord],
    cache: EmbeddingCache,
    cfg: ExtractorTrainConfig,
    seed: int,
    read: ReadFn = as_written,
) -> ExtractorRows:
    """The rows of `authored_events`: the composed revisions train the fields only."""
    composed, authored = authored_events(events, cfg, seed)
    rows = build_rows(composed + authored, cache, read, cfg.markers)
    rows.has_preference[: len(composed)] = NO_ABSTENTION_TARGET
    return rows


def fit_ensemble(
    rows_for: Callable[[int], ExtractorRows], cfg: ExtractorTrainConfig, seed: int
) -> dict[str, np.ndarray]:
    """cfg.ensemble networks, member k trained with seed + k on rows_for(seed + k), joined
    into one array dict (`infer.join_members`)."""
    members = []
    for k in range(cfg.ensemble):
        member_seed = seed + k
        log.info("extractor member %d/%d (seed %d)", k + 1, cfg.ensemble, member_seed)
        members.append(export(fit(rows_for(member_seed), replace(cfg, seed=member_seed))))
    return join_members(members)


def fit(rows: ExtractorRows, cfg: ExtractorTrainConfig) -> ExtractorNet:
    """Train the network on `rows` (seeded by cfg.seed)."""
    generator = torch.Generator().manual_seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    net = ExtractorNet(cfg.model)
    data = _tensor_rows(rows)
    optimizer = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, cfg.epochs))
    bce = nn.BCEWithLogitsLoss()
    ce = nn.CrossEntropyLoss(ignore_index=IGNORE)
    n = len(rows)
    for epoch in range(cfg.epochs):
        net.train()
        order = torch.randperm(n, generator=generator)
        total = 0.0
        for start in range(0, n, cfg.batch_size):
            idx = order[start : start + cfg.batch_size]
            out = net(data["x"][idx])
            # Composed revisions (target −1) teach the claim only, not whether text holds one.
            target = data["has_preference"][idx]
            read = target >= 0
            loss = cfg.abstention_weight * bce(out["has_preference"][read], target[read])
            if bool((data["claim"][idx] != IGNORE).any()):
                for name in ("claim", "direction", "scope", "timescale"):
                    loss = loss + ce(out[name], data[name][idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(idx)
        schedule.step()
        if epoch == 0 or (epoch + 1) % 5 == 0 or epoch + 1 == cfg.epochs:
            log.info("extractor epoch %d/%d loss %.4f", epoch + 1, cfg.epochs, total / max(1, n))
    net.eval()
    return net


def taxonomy_words() -> list[str]:
    """The taxonomy's own words: value phrases and names, dimension and scope names."""
    names = [d.name for d in DIMENSIONS] + [v.name for d in DIMENSIONS for v in d.values]
    names += [s.name for s in SCOPE_DOMAINS]
    phrases = [v.phrase for d in DIMENSIONS for v in d.values] + [s.label for s in SCOPE_DOMAINS]
    return [w for text in [*phrases, *(n.replace("_", " ") for n in names)]
            for w in WORD.findall(text)]


def build_speller(events: list[EventRecord], cfg: ExtractorTrainConfig) -> Speller:
    """The typo repair of an extractor trained on `events`: its lexicon holds the words of
    those events and of what training adds to them (seed cfg.seed), and the taxonomy's."""
    composed, authored = authored_events(events, cfg, cfg.seed)
    texts = [e.text for e in (*events, *composed, *authored)] + list(
        connectives(cfg.frame_family))
    vocabulary = encoder_vocabulary()
    return Speller(lexicon_counts(texts, taxonomy_words(), vocabulary), vocabulary)


def choose_threshold(p: np.ndarray, truth: np.ndarray) -> float:
    """The abstention threshold with the best preference-detection F1 over held-out reads:
    p (N,) P(has preference), truth (N,) bool."""
    best, best_f1 = 0.5, -1.0
    for threshold in (*np.linspace(0.05, 0.95, 91), 0.97, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995):
        fired = p >= threshold
        tp = float(np.sum(fired & truth))
        fp = float(np.sum(fired & ~truth))
        fn = float(np.sum(~fired & truth))
        f1 = 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)
        if f1 > best_f1 + 1e-9:
            best, best_f1 = float(threshold), f1
    return round(best, 4)


def _retrain_command(cfg: ExtractorTrainConfig) -> str:
    flags = [f"--out {cfg.out}", f"--seed {cfg.seed}"]
    flags += [] if cfg.spelling else ["--no-spelling"]
    flags += [] if cfg.pooled_threshold else ["--dev-threshold"]
    flags += [] if cfg.threshold is None else [f"--threshold {cfg.threshold}"]
    flags += ["--authored-frames"] if cfg.authored_frames else []
    return "capture train extractor " + " ".join(flags)


def _recorded_config(cfg: ExtractorTrainConfig) -> dict[str, Any]:
    """The config as the weight file records it: paths as text; the options that are off by
    default (a fixed threshold, the authored frames) only where they are on."""
    recorded = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()}
    for name, off in (("threshold", None), ("authored_frames", False)):
        if recorded[name] == off:
            del recorded[name]
    return recorded


def main(cfg: ExtractorTrainConfig) -> dict[str, Any]:
    """Train, pick the threshold on dev, save weights to cfg.out, score dev/test. Returns the
    metrics (also written beside the weights as `<out>.metrics.json`)."""
    configure()
    seed_everything(cfg.seed, cfg.threads)
    started = time.monotonic()
    data_dir = ensure_bench_data(cfg.data_dir)
    cache = training_cache(cfg.cache, cfg.embedder, cfg.threads)
    train_events = events_of(load_split(data_dir, "train", cfg.limit))
    dev_events = events_of(load_split(data_dir, "dev", cfg.limit))
    log.info("extractor: %d train events (+%d composed revisions, +%d open statements, +%d "
             "chatter, +%d one-off requests), %d dev events", len(train_events),
             cfg.augmented_revisions, cfg.open_statements, cfg.chatter, cfg.one_off_requests,
             len(dev_events))
    read: ReadFn = as_written
    lexicon = cfg.out.with_suffix(".lexicon.json")
    if cfg.spelling:
        speller = build_speller(train_events, cfg)
        read = speller.normalize
        log.info("typo repair: a lexicon of %d words", len(speller.counts))
    # Once; each member adds its own augmentation.
    rows = build_rows(train_events, cache, read, cfg.markers)
    arrays = fit_ensemble(
        lambda seed: rows.extended(augmentation_rows(train_events, cache, cfg, seed, read)),
        cfg,
        cfg.seed,
    )
    meta: dict[str, Any] = {
        "model_version": cfg.model_version if cfg.spelling else "4",
        "kind": "extractor",
        "config": _recorded_config(cfg),
        "retrain": _retrain_command(cfg),
    }
    if cfg.spelling:
        meta["lexicon"] = lexicon.name
        save_lexicon(lexicon, speller.counts)
    heads = ExtractorHeads(arrays, meta)
    dev_rows = build_rows(dev_events, cache, read, cfg.markers)
    p = heads.forward(dev_rows.x)["has_preference"]
    truth = dev_rows.has_preference > 0.5
    models = []
    if cfg.threshold_folds:
        models = crossfit.fold_models(
            train_events, cache, cfg, folds=cfg.threshold_folds, work_dir=cfg.fold_dir
        )
    pooled = bool(models) and cfg.pooled_threshold
    if pooled:
        p = np.concatenate([p, crossfit.out_of_fold_preference(train_events, cache, models)])
        truth = np.concatenate([truth, rows.has_preference > 0.5])
    meta["abstain_threshold"] = choose_threshold(p, truth)
    meta["threshold_on"] = "dev + out-of-fold train" if pooled else "dev"
    if cfg.threshold is not None:
        meta["f1_threshold"] = meta["abstain_threshold"]  # what the F1 rule would choose
        meta["abstain_threshold"] = cfg.threshold
        meta["threshold_on"] = "fixed (--threshold)"
    log.info("abstention threshold (dev%s): %.3f",
             " + out-of-fold train" if pooled else "", meta["abstain_threshold"])
    save_npz(cfg.out, arrays, meta)
    learned = LearnedExtractor(cfg.out, embedder=cache)
    metrics: dict[str, Any] = {"train_seconds": round(time.monotonic() - started, 1)}
    if models:
        # Train read by the fold extractors: wording of template families they never saw.
        metrics["train_out_of_fold"] = score_extractions(
            crossfit.out_of_fold(train_events, cache, learned, models), train_events
        )
        log.info("train, out of fold %s", metrics["train_out_of_fold"])
    for split in cfg.report_splits:
        events = events_of(load_split(data_dir, split, cfg.limit))  # type: ignore[arg-type]
        build_rows(events, cache, read)  # embeds every text and side once, in batches
        metrics[split] = {
            "learned": score_extractor(learned, events),
            "deterministic": score_extractor(DeterministicExtractor(), events),
        }
        log.info("%s learned %s", split, metrics[split]["learned"])
        log.info("%s deterministic %s", split, metrics[split]["deterministic"])
    held_out_open = open_preference_events(cfg.open_statements // 4, "dev", cfg.seed)
    build_rows(held_out_open, cache, read)
    metrics["open_dev"] = score_open(learned, held_out_open)
    log.info("open statements (held-out frames and topics) %s", metrics["open_dev"])
    held_out_chatter = chatter_events(cfg.chatter // 4, "dev", cfg.seed)
    build_rows(held_out_chatter, cache, read)
    metrics["chatter_dev"] = score_chatter(learned, held_out_chatter)
    log.info("chatter (held-out frames and topics) %s", metrics["chatter_dev"])
    held_out_one_off = one_off_events(cfg.one_off_requests // 4, "dev", cfg.seed)
    build_rows(held_out_one_off, cache, read)
    metrics["one_off_dev"] = score_one_off(learned, held_out_one_off)
    held_out_standing = standing_events(cfg.standing_requests // 4, "dev", cfg.seed)
    build_rows(held_out_standing, cache, read)
    metrics["standing_dev"] = score_extractor(learned, held_out_standing)
    log.info("one-off requests (held-out frames and objects) %s", metrics["one_off_dev"])
    # Two-value revisions in frames training never saw (`augment.frames("dev")`), read with
    # the replaced value held: which side of a revision unseen wording is read as.
    held_out_revisions = compose_revisions(train_events, cfg.augmented_revisions // 5,
                                           cfg.seed + 100, family="dev")
    build_rows(held_out_revisions, cache, read)
    metrics["revision_frames_dev"] = score_composed_revisions(learned, held_out_revisions)
    log.info("revisions (held-out frames) %s", metrics["revision_frames_dev"])
    # The same, for a policy that asks: an unclear side is asked about (`contrast.py`).
    metrics["revision_frames_dev_asking"] = score_composed_revisions(
        learned, held_out_revisions, asks=True)
    log.info("revisions (held-out frames, asking) %s", metrics["revision_frames_dev_asking"])
    # The same from frames written without reading this project (the blind sets of
    # `data/revision_frames.yaml`).
    for family in BLIND_FAMILIES:
        blind_revisions = compose_revisions(train_events, cfg.augmented_revisions // 5,
                                            cfg.seed + 100, family=family)
        build_rows(blind_revisions, cache, read)
        for suffix, asks in (("", False), ("_asking", True)):
            key = f"revision_frames_{family}{suffix}"
            metrics[key] = score_composed_revisions(learned, blind_revisions, asks=asks)
            log.info("revisions (%s frames%s) %s", family, ", asking" if asks else "",
                     metrics[key])
    metrics["abstain_threshold"] = meta["abstain_threshold"]
    metrics["weights_bytes"] = cfg.out.stat().st_size
    cfg.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    cache.flush()
    return metrics
