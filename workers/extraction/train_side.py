"""`capture train revision-side`: the score of which named value a revision wants.

Trains `revision_side.RevisionSide` on authored frames only (no benchmark text): the train
frames of `augment.frames("train")` and `side_frames("train")`, each filled with two
placeholders, `copies` times with leads and typos. The context window, whether the whole
marked text is read beside it, and the L2 strength are chosen by cross-validation over the
training frames (folds by frame), and the score is calibrated on the same out-of-fold
margins; the held-out authored frames (`frames("dev")`) and the blind ones
(`frames("blind")`, `frames("blind2")`) are reported, never chosen on. Deterministic given
the seed (the draws of leads and typos and the folds); minutes on 2 cores (the 768-wide
fits).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.core.corpora import corpus_texts
from app.core.embeddings import get_embedder
from workers.common.progress import configure, log
from workers.common.weights import save_npz
from workers.extraction.augment import frames
from workers.extraction.revision_side import (
    WEIGHTS,
    RevisionSide,
    fit_scale,
    fit_weight,
    frame_mentions,
    pairwise_accuracy,
    whole_differences,
    window_differences,
)

# The frames written for the score alone, by set (`data/side_frames.yaml`).
SIDE_FRAMES_DATA = Path(__file__).parent / "data" / "side_frames.yaml"


def side_frames(set_name: str = "train") -> tuple[str, ...]:
    """The frames written for the score: `train` (trained on beside `augment.frames("train")`,
    the shipped weights) or `reserve` (written, not trained on)."""
    return corpus_texts(SIDE_FRAMES_DATA, set_name)


@dataclass
class RevisionSideTrainConfig:
    seed: int = 0
    out: Path = WEIGHTS
    copies: int = 6  # draws of lead and typos per training frame
    typo_rate: float = 0.35
    folds: int = 5  # cross-validation by frame, for the features, the L2 and the calibration
    window_grid: tuple[int, ...] = field(default=(2, 3, 4, 6))  # words either side
    # Whether the whole marked text's difference is read beside the window's.
    whole_grid: tuple[bool, ...] = field(default=(False, True))
    l2_grid: tuple[float, ...] = field(default=(1e-4, 1e-3, 1e-2))


def _cross_validate(differences: np.ndarray, frame_of: np.ndarray, folds: int,
                    l2: float) -> np.ndarray:
    """Out-of-fold margins: each frame's pairs scored by a fit without that frame's fold."""
    margins = np.zeros(len(differences))
    for fold in range(folds):
        held = frame_of % folds == fold
        weight = fit_weight(differences[~held], l2)
        margins[held] = differences[held] @ weight
    return margins


def main(cfg: RevisionSideTrainConfig) -> dict[str, Any]:
    configure()
    started = time.perf_counter()
    embedder = get_embedder()
    train_frames = (*frames("train"), *side_frames())
    # Folds by frame in a seeded order: a frame's copies never straddle train and held out.
    order = np.random.default_rng(cfg.seed).permutation(len(train_frames))
    frame_of = np.repeat(order, cfg.copies)
    log.info("revision side: %d training frames x %d copies, %d-fold by frame",
             len(train_frames), cfg.copies, cfg.folds)
    mentions = frame_mentions(train_frames, cfg.copies, cfg.seed, cfg.typo_rate)
    log.info("revision side: embedding %d mention pairs (%d windows%s)", len(mentions),
             len(cfg.window_grid), " and the whole text" if any(cfg.whole_grid) else "")
    # Embedded once each: the window's differences per window, the whole text's once.
    window_parts = {w: window_differences(embedder, mentions, w) for w in cfg.window_grid}
    whole_part = whole_differences(embedder, mentions) if any(cfg.whole_grid) else None

    def features(window: int, whole: bool) -> np.ndarray:
        part = window_parts[window]
        return np.concatenate([part, whole_part], axis=1) if whole_part is not None and whole \
            else part

    Key = tuple[int, bool, float]
    grid: dict[Key, float] = {}
    out_of_fold: dict[Key, np.ndarray] = {}
    total = len(cfg.window_grid) * len(cfg.whole_grid) * len(cfg.l2_grid)
    for window in cfg.window_grid:
        for whole in cfg.whole_grid:
            data = features(window, whole)
            for l2 in cfg.l2_grid:
                key = (window, whole, l2)
                out_of_fold[key] = _cross_validate(data, frame_of, cfg.folds, l2)
                grid[key] = float(np.mean(out_of_fold[key] > 0))
                log.info("revision side %d/%d: window %d, whole text %s, l2 %g -> out of "
                         "fold %.3f", len(grid), total, window, whole, l2, grid[key])
    # The best out-of-fold accuracy; ties go to the stronger penalty, the window alone, then
    # the shorter window.
    window, whole, l2 = max(grid, key=lambda k: (round(grid[k], 6), k[2], not k[1], -k[0]))
    scale = fit_scale(out_of_fold[(window, whole, l2)])
    weight = (fit_weight(features(window, whole), l2) * scale).astype(np.float32)
    side = RevisionSide(weight, window, "training", whole)
    dev = frame_mentions(frames("dev"), cfg.copies, cfg.seed + 1, cfg.typo_rate)
    blind = frame_mentions(frames("blind"), 3, cfg.seed + 2, cfg.typo_rate)
    blind2 = frame_mentions(frames("blind2"), 3, cfg.seed + 2, cfg.typo_rate)
    best_window_only = max((a for k, a in grid.items() if not k[1]), default=0.0)
    metrics: dict[str, Any] = {
        # Where the weights went is the caller's, not the model's: no machine path here.
        "config": {k: v for k, v in asdict(cfg).items() if k != "out"},
        "training_frames": len(train_frames),
        "window": window,
        "whole": whole,
        "l2": l2,
        "calibration_scale": round(scale, 3),
        "out_of_fold_grid": {f"{w}/{'whole' if h else 'window'}/{g:g}": round(a, 4)
                             for (w, h, g), a in grid.items()},
        "best_window_only_out_of_fold": round(best_window_only, 4),
        "pairwise_accuracy": {
            "train_out_of_fold": round(grid[(window, whole, l2)], 4),
            "dev_frames": round(pairwise_accuracy(side, embedder, dev), 4),
            "blind_frames": round(pairwise_accuracy(side, embedder, blind), 4),
            "blind2_frames": round(pairwise_accuracy(side, embedder, blind2), 4),
        },
    }
    meta = {"window": window, "whole": whole, "l2": l2, "scale": scale, "seed": cfg.seed,
            "command": f"capture train revision-side --seed {cfg.seed}"}
    save_npz(cfg.out, {"weight": weight}, meta)
    metrics["train_seconds"] = round(time.perf_counter() - started, 1)
    cfg.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    log.info("revision side: %s", metrics["pairwise_accuracy"])
    return metrics
