"""Train the relation model: `capture train relation --out PATH` or `main(RelationTrainConfig())`.

Pairs mirror what `relate()` sees online: a hypothesis read from a train event (out of fold,
so with the extractor's real mistakes) against each earlier hypothesis of the episode on the
same subject (the nodes it would be compared with), plus a few pairs across subjects. The
label asks whether the *new event* supports the *node's claim as stated*: the oracle claim
of the new event against the node's fields — supports (same value and direction),
contradicts (same value, opposite direction; or two preferred values of one dimension),
else unrelated. So the probabilities carry how far the extractor's reading can be trusted.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from app.core.config import REPO_ROOT
from app.domain.claims import Hypothesis
from app.domain.relation import ClaimFields
from app.ledger.relations import relate
from workers.common.embedding_cache import EmbeddingCache, training_cache
from workers.common.episodes import Episode, EventRecord, ensure_bench_data, load_split
from workers.common.progress import configure, log, seed_everything
from workers.common.weights import save_npz
from workers.extraction.crossfit import read_split, read_train_out_of_fold
from workers.extraction.infer import WEIGHTS as EXTRACTOR_WEIGHTS
from workers.extraction.infer import LearnedExtractor
from workers.extraction.revision_side import WEIGHTS as SIDE_WEIGHTS
from workers.relation.features import LABELS, fixed_order_phrase_dot, relation_features
from workers.relation.fixed_dot import fixed_order_dots
from workers.relation.infer import WEIGHTS, RelationModel
from workers.relation.model import RelationNet, export

MODEL_VERSION = "1"
SUPPORTS, CONTRADICTS, UNRELATED = range(3)
RawPair = tuple[ClaimFields, ClaimFields, float]


@dataclass(slots=True)
class RelationTrainConfig:
    out: Path = WEIGHTS
    data_dir: Path | None = None  # unset: the generated benchmark (workers.common.episodes)
    cache: Path = REPO_ROOT / "var" / "cache" / "embeddings" / "minilm.npz"
    embedder: str | None = None  # None: the service's (MiniLM); "hashing" for smoke tests
    work_dir: Path = REPO_ROOT / "var" / "cache" / "gate"
    extractor_weights: Path = EXTRACTOR_WEIGHTS
    seed: int = 0
    epochs: int = 40
    batch_size: int = 256
    lr: float = 3e-3
    hidden: int = 64
    folds: int = 3
    extractor_epochs: int = 20
    # The recipe of the out-of-fold extractors that read train: the shipped extractor's
    # (False) or the authored-frames one the gate's replay reads with (True).
    authored_frames: bool = False
    # Train, dev and test read with the revision-side score's turns (`workers/extraction/
    # infer.py`, SIDE_TURN), as the service reads; False: the heads and the contrast rule
    # alone, the reads the shipped weights learned on.
    revision_side: bool = False
    # Smoke tests only: fewer members and a share of the authored augmentation for them.
    extractor_ensemble: int | None = None
    extractor_augmentation: float = 1.0
    cross_subject_pairs: int = 1  # per hypothesis, one pair with another subject's node
    threads: int = 2
    limit: int | None = None
    report_splits: tuple[str, ...] = ("dev", "test")


def true_relation(event: EventRecord, node: Hypothesis) -> int:
    """The new event's oracle claim against the node's stated claim."""
    if event.dimension is None or event.dimension != node.subject:
        return UNRELATED
    same_value = event.value == node.value
    same_direction = event.direction == node.direction.value
    if same_value and same_direction:
        return SUPPORTS
    if same_value or (event.direction == "prefer" and node.direction.value == "prefer"):
        return CONTRADICTS
    return UNRELATED


def pairs(
    episodes: list[Episode], hypotheses: list[Hypothesis | None], cache: EmbeddingCache,
    cross_subject: int, rng: np.random.Generator,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], list[RawPair]]:
    compared: list[tuple[Hypothesis, Hypothesis]] = []
    y: list[int] = []
    start = 0
    for episode in episodes:
        read = hypotheses[start : start + len(episode.events)]
        start += len(episode.events)
        earlier: list[Hypothesis] = []
        for event, new in zip(episode.events, read, strict=True):
            if new is None:
                continue
            same = [old for old in earlier if old.subject == new.subject]
            other = [old for old in earlier if old.subject != new.subject]
            if other and cross_subject:
                picks = rng.choice(len(other), size=min(cross_subject, len(other)), replace=False)
                same += [other[int(i)] for i in picks]
            for old in same:
                compared.append((new, old))
                y.append(true_relation(event, old))
            earlier.append(new)
    x: list[list[float]] = []
    raw: list[RawPair] = []
    for (new, old), cosine in zip(compared, _cosines(compared, cache), strict=True):
        a = ClaimFields(new.subject, new.value, new.direction.value)
        b = ClaimFields(old.subject, old.value, old.direction.value)
        x.append(relation_features(a, b, cosine, fixed_order_phrase_dot))
        raw.append((a, b, cosine))
    return np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.int64), raw


def _cosines(compared: list[tuple[Hypothesis, Hypothesis]], cache: EmbeddingCache) -> list[float]:
    """The cosine of each pair's claim embeddings, in a fixed summation order: np.dot's last
    bit depends on the CPU (`fixed_dot`)."""
    if not compared:
        return []
    claims = sorted({h.claim for pair in compared for h in pair})
    vectors = dict(zip(claims, cache.embed(claims), strict=True))
    new = np.stack([vectors[a.claim] for a, _ in compared])
    old = np.stack([vectors[b.claim] for _, b in compared])
    cosines: list[float] = fixed_order_dots(new, old).tolist()
    return cosines


def _scores(probs: npt.NDArray[np.float32], y: npt.NDArray[np.int64]) -> dict[str, Any]:
    pred = probs.argmax(axis=1)
    out: dict[str, Any] = {
        "pairs": len(y),
        "accuracy": round(float(np.mean(pred == y)), 4),
        "log_loss": round(
            float(-np.mean(np.log(np.clip(probs[np.arange(len(y)), y], 1e-6, 1.0)))), 4
        ),
    }
    for k, label in enumerate(LABELS):
        tp = int(np.sum((pred == k) & (y == k)))
        fp = int(np.sum((pred == k) & (y != k)))
        fn = int(np.sum((pred != k) & (y == k)))
        out[label] = {"support": int(np.sum(y == k)),
                      "f1": round(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn), 4)}
    # At the ledger's edge / corroboration thresholds.
    for k, label, threshold in ((0, "supports", 0.75), (1, "contradicts", 0.70)):
        fired = probs[:, k] >= threshold
        out[f"{label}_precision_at_{threshold}"] = round(
            float(np.mean(y[fired] == k)) if fired.any() else 0.0, 4)
        out[f"{label}_recall_at_{threshold}"] = round(
            float(np.mean(fired[y == k])) if (y == k).any() else 0.0, 4)
    return out


def _heuristic(raw: list[RawPair]) -> npt.NDArray[np.float32]:
    out = np.zeros((len(raw), 3), dtype=np.float32)
    for i, (a, b, cosine) in enumerate(raw):
        r = relate(a, b, cosine, model=False)
        out[i] = (r.supports, r.contradicts, r.unrelated)
    out = np.clip(out, 1e-6, None)
    normalized: npt.NDArray[np.float32] = out / out.sum(axis=1, keepdims=True)
    return normalized


def main(cfg: RelationTrainConfig) -> dict[str, Any]:
    configure()
    seed_everything(cfg.seed, cfg.threads)
    started = time.monotonic()
    data_dir = ensure_bench_data(cfg.data_dir)
    cache = training_cache(cfg.cache, cfg.embedder, cfg.threads)
    extractor = LearnedExtractor(cfg.extractor_weights, embedder=cache,
                                 revision_side=SIDE_WEIGHTS if cfg.revision_side else None)
    rng = np.random.default_rng(cfg.seed)
    train_episodes = load_split(data_dir, "train", cfg.limit)
    read = read_train_out_of_fold(
        train_episodes, cache, extractor, seed=cfg.seed, folds=cfg.folds,
        epochs=cfg.extractor_epochs, threads=cfg.threads, work_dir=cfg.work_dir,
        authored_frames=cfg.authored_frames, ensemble=cfg.extractor_ensemble,
        augmentation=cfg.extractor_augmentation,
    )
    x, y, _ = pairs(train_episodes, read, cache, cfg.cross_subject_pairs, rng)
    log.info("relation: %d train pairs %s", len(y), np.bincount(y, minlength=3).tolist())
    torch.manual_seed(cfg.seed)
    net = RelationNet(cfg.hidden)
    optimizer = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    generator = torch.Generator().manual_seed(cfg.seed)
    for epoch in range(cfg.epochs):
        order = torch.randperm(len(y), generator=generator)
        total = 0.0
        for s in range(0, len(y), cfg.batch_size):
            idx = order[s : s + cfg.batch_size]
            loss = nn.functional.cross_entropy(net(xt[idx]), yt[idx])
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            total += float(loss.detach()) * len(idx)
        if (epoch + 1) % 10 == 0:
            mean = total / max(1, len(y))
            log.info("relation epoch %d/%d loss %.4f", epoch + 1, cfg.epochs, mean)
    meta = {
        "model_version": MODEL_VERSION,
        "kind": "relation",
        "labels": list(LABELS),
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()},
        "retrain": f"capture train relation --out {cfg.out} --seed {cfg.seed}"
                   + (" --authored-frames" if cfg.authored_frames else "")
                   + (" --revision-side" if cfg.revision_side else ""),
    }
    save_npz(cfg.out, export(net), meta)
    model = RelationModel(cfg.out)
    metrics: dict[str, Any] = {}
    for split in cfg.report_splits:
        episodes = load_split(data_dir, split, cfg.limit)  # type: ignore[arg-type]
        xs, ys, raw = pairs(episodes, read_split(episodes, cache, extractor), cache,
                            cfg.cross_subject_pairs, np.random.default_rng(cfg.seed))
        metrics[split] = {"learned": _scores(model.probabilities(xs), ys),
                          "heuristic": _scores(_heuristic(raw), ys)}
        log.info("%s relation learned %s", split, metrics[split]["learned"])
        log.info("%s relation heuristic %s", split, metrics[split]["heuristic"])
    metrics["train_seconds"] = round(time.monotonic() - started, 1)
    metrics["weights_bytes"] = cfg.out.stat().st_size
    cfg.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    cache.flush()
    return metrics
