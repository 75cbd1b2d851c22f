"""`capture train whose-words`: the logistic model of `app.text.whose`, trained on the
authored forms and the generated train split (workers/voice/corpus.py), its threshold chosen
on dev: the lowest probability at which at most `max_own_flagged` of the own turns (authored
and generated, dev) have a sentence read as someone else's.

Dev reports the forms kept out of training, so its recall is a reading of forms the model has
never seen.
"""

from __future__ import annotations

import json
import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from app.text.whose import WEIGHTS, WhoseWords, features, hashed, units
from workers.voice.corpus import Turn, turns

log = logging.getLogger(__name__)


@dataclass
class WhoseWordsTrainConfig:
    seed: int = 0
    dim: int = 1 << 18
    epochs: int = 4
    batch: int = 256
    lr: float = 0.05
    l2: float = 1e-5
    dropout: float = 0.3
    per_form: int = 300
    own_count: int = 6000
    generated: int = 6000
    max_own_flagged: float = 0.01
    threads: int = 2
    out: Path = field(default_factory=lambda: WEIGHTS)


@dataclass
class Encoded:
    indices: list[npt.NDArray[np.int64]]
    labels: npt.NDArray[np.float32]
    turn_of: npt.NDArray[np.int64]


def encode(batch: list[Turn], dim: int) -> Encoded:
    """Every sentence of every turn: hashed features and whether it is someone else's."""
    indices: list[npt.NDArray[np.int64]] = []
    labels: list[float] = []
    turn_of: list[int] = []
    for t_index, turn in enumerate(batch):
        found = units(turn.text)
        for unit, feats in zip(found, features(turn.text, found), strict=True):
            middle = (unit.start + unit.end) / 2
            indices.append(hashed(feats, dim))
            labels.append(float(any(s <= middle < e for s, e in turn.other)))
            turn_of.append(t_index)
    return Encoded(indices, np.asarray(labels, np.float32), np.asarray(turn_of, np.int64))


def _fit(data: Encoded, cfg: WhoseWordsTrainConfig) -> tuple[npt.NDArray[np.float32], float]:
    import torch

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    bag = torch.nn.EmbeddingBag(cfg.dim, 1, mode="sum")
    torch.nn.init.zeros_(bag.weight)
    bias = torch.zeros(1, requires_grad=True)
    opt = torch.optim.Adam([bag.weight, bias], lr=cfg.lr)
    # Balance the two classes: a passage has many more sentences than a user's line.
    positive = float(data.labels.mean())
    weights = np.where(data.labels > 0, 0.5 / positive, 0.5 / (1 - positive)).astype(np.float32)
    gen = np.random.default_rng(cfg.seed)
    n = len(data.indices)
    for epoch in range(cfg.epochs):
        order = gen.permutation(n)
        total = 0.0
        for start in range(0, n, cfg.batch):
            chosen = order[start:start + cfg.batch]
            # Feature dropout: no single cue may carry a sentence alone.
            kept = [data.indices[i][gen.random(len(data.indices[i])) >= cfg.dropout]
                    for i in chosen]
            flat = torch.from_numpy(np.concatenate(kept))
            offsets = torch.from_numpy(np.cumsum([0] + [len(k) for k in kept[:-1]]))
            logits = bag(flat, offsets).squeeze(1) + bias
            target = torch.from_numpy(data.labels[chosen])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                logits, target, weight=torch.from_numpy(weights[chosen]))
            loss = loss + cfg.l2 * bag.weight.pow(2).sum()
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            total += float(loss) * len(chosen)
        log.info("epoch %d/%d loss %.4f", epoch + 1, cfg.epochs, total / n)
    return bag.weight.detach().numpy()[:, 0].astype(np.float32), float(bias.detach()[0])


def _scores(model: WhoseWords, data: Encoded) -> npt.NDArray[np.float64]:
    z = np.array([model.weights[i].sum() for i in data.indices]) + model.bias
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


def _report(batch: list[Turn], data: Encoded, scores: npt.NDArray[np.float64],
            threshold: float) -> dict[str, Any]:
    """By kind of turn: for passages, the share of their sentences read as someone else's
    and of turns whose whole passage is; for own turns, the share with any sentence so read
    (turns of one sentence are never flagged)."""
    per_turn: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for score, label, t in zip(scores, data.labels, data.turn_of, strict=True):
        per_turn[int(t)].append((float(score), float(label)))
    kinds: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for t, rows in per_turn.items():
        kind = batch[t].kind
        k = kinds[kind]
        k["turns"] += 1
        several = len(rows) >= 2
        theirs = [s for s, label in rows if label > 0]
        if theirs:
            caught = [several and s >= threshold for s in theirs]
            k["passage_sentences"] += len(theirs)
            k["passage_sentences_caught"] += sum(caught)
            k["passages_caught_whole"] += all(caught)
        own = [s for s, label in rows if label == 0]
        k["own_sentence_flagged"] += any(several and s >= threshold for s in own)
    out: dict[str, Any] = {}
    for kind, k in sorted(kinds.items()):
        row: dict[str, float] = {"turns": int(k["turns"])}
        if k["passage_sentences"]:
            row["passage_sentences_caught"] = round(
                k["passage_sentences_caught"] / k["passage_sentences"], 4)
            row["passages_caught_whole"] = round(k["passages_caught_whole"] / k["turns"], 4)
        row["turns_with_own_sentence_flagged"] = round(k["own_sentence_flagged"] / k["turns"], 4)
        out[kind] = row
    return out


def _threshold(batch: list[Turn], data: Encoded, scores: npt.NDArray[np.float64],
               max_flagged: float) -> float:
    """The lowest threshold at which at most `max_flagged` of the own turns have a sentence
    read as someone else's."""
    own_turns = [i for i, t in enumerate(batch) if t.kind in ("own", "own_mixed", "generated_user")]
    best: dict[int, float] = {}
    count: dict[int, int] = defaultdict(int)
    for score, t in zip(scores, data.turn_of, strict=True):
        count[int(t)] += 1
        best[int(t)] = max(best.get(int(t), 0.0), float(score))
    peaks = sorted(best[t] if count[t] >= 2 else 0.0 for t in own_turns)
    allowed = int(max_flagged * len(peaks))
    return float(min(0.99999, peaks[len(peaks) - 1 - allowed] + 1e-7)) if peaks else 0.5


def _curve(batch: list[Turn], data: Encoded,
           scores: npt.NDArray[np.float64]) -> list[dict[str, float]]:
    """Own turns flagged against passage sentences caught, at a range of thresholds."""
    out = []
    for threshold in (0.5, 0.9, 0.99, 0.995, 0.999, 0.9995, 0.9999):
        report = _report(batch, data, scores, threshold)
        own = [report[k] for k in ("own", "own_mixed", "generated_user") if k in report]
        forms = [r for k, r in report.items() if k.startswith("form:")]
        out.append({
            "threshold": threshold,
            "own_turns_flagged": round(sum(r["turns_with_own_sentence_flagged"] * r["turns"]
                                           for r in own) / sum(r["turns"] for r in own), 4),
            "form_sentences_caught": round(sum(r["passage_sentences_caught"] for r in forms)
                                           / max(1, len(forms)), 4),
        })
    return out


def main(cfg: WhoseWordsTrainConfig) -> dict[str, Any]:
    started = time.perf_counter()
    train = turns("train", per_form=cfg.per_form, own_count=cfg.own_count,
                  generated=cfg.generated, seed=cfg.seed)
    dev = turns("dev", per_form=cfg.per_form // 3, own_count=cfg.own_count // 3,
                generated=cfg.generated // 3, seed=cfg.seed + 1)
    log.info("turns: train %d, dev %d", len(train), len(dev))
    train_data, dev_data = encode(train, cfg.dim), encode(dev, cfg.dim)
    weights, bias = _fit(train_data, cfg)
    weights = weights.astype(np.float16).astype(np.float32)  # as shipped
    provisional = WhoseWords(weights, bias, 0.5)
    dev_scores = _scores(provisional, dev_data)
    threshold = _threshold(dev, dev_data, dev_scores, cfg.max_own_flagged)
    model = WhoseWords(weights, bias, threshold)
    metrics: dict[str, Any] = {
        "seed": cfg.seed,
        "dim": cfg.dim,
        "threshold": round(threshold, 6),
        "train_turns": len(train),
        "train_sentences": len(train_data.labels),
        "dev_turns": len(dev),
        "train": _report(train, train_data, _scores(model, train_data), threshold),
        "dev": _report(dev, dev_data, dev_scores, threshold),
        "dev_curve": _curve(dev, dev_data, dev_scores),
        "seconds": round(time.perf_counter() - started, 1),
    }
    cfg.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cfg.out, weights=weights.astype(np.float16), bias=np.float32(bias),
                        threshold=np.float32(threshold))
    cfg.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics
