"""`capture train revision-side`: the score of which named value a revision wants.

Trains `revision_side.RevisionSide` on authored frames only (no benchmark text): the train
frames of `augment.frames("train")` and `side_frames.SIDE_FRAMES`, each filled with two
placeholders, `copies` times with leads and typos. The context window and the L2 strength
are chosen by cross-validation over the training frames (folds by frame: 220 frames, where
the held-out authored frames are 16), and the score is calibrated on the same out-of-fold
margins; the held-out authored frames (`frames("dev")`) and the blind ones
(`frames("blind")`) are reported, never chosen on. Deterministic given the seed (the draws
of leads and typos and the folds); about 40 s on 2 cores.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.core.embeddings import get_embedder
from workers.common.progress import log
from workers.common.weights import save_npz
from workers.extraction.augment import frames
from workers.extraction.revision_side import (
    WEIGHTS,
    fit_scale,
    fit_weight,
    frame_pairs,
    pairwise_accuracy,
)
from workers.extraction.side_frames import SIDE_FRAMES


@dataclass
class RevisionSideTrainConfig:
    seed: int = 0
    out: Path = WEIGHTS
    copies: int = 6  # draws of lead and typos per training frame
    typo_rate: float = 0.35
    folds: int = 5  # cross-validation by frame, for the window, the L2 and the calibration
    window_grid: tuple[int, ...] = field(default=(2, 3, 4, 6))  # words either side
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
    started = time.perf_counter()
    embedder = get_embedder()
    train_frames = (*frames("train"), *SIDE_FRAMES)
    # Folds by frame in a seeded order: a frame's copies never straddle train and held out.
    order = np.random.default_rng(cfg.seed).permutation(len(train_frames))
    frame_of = np.repeat(order, cfg.copies)
    log.info("revision side: %d training frames x %d copies, %d-fold by frame",
             len(train_frames), cfg.copies, cfg.folds)
    grid: dict[tuple[int, float], float] = {}
    out_of_fold: dict[tuple[int, float], np.ndarray] = {}
    data: dict[int, np.ndarray] = {}
    for window in cfg.window_grid:
        pairs = frame_pairs(train_frames, cfg.copies, cfg.seed, cfg.typo_rate, window)
        vectors = embedder.embed([t for pair in pairs for t in pair]).astype(np.float64)
        data[window] = vectors[0::2] - vectors[1::2]
        for l2 in cfg.l2_grid:
            margins = _cross_validate(data[window], frame_of, cfg.folds, l2)
            out_of_fold[(window, l2)] = margins
            grid[(window, l2)] = float(np.mean(margins > 0))
            log.info("revision side: window %d, l2 %g -> out of fold %.3f", window, l2,
                     grid[(window, l2)])
    # The best out-of-fold accuracy; ties go to the stronger penalty, then the shorter window.
    window, l2 = max(grid, key=lambda k: (round(grid[k], 6), k[1], -k[0]))
    scale = fit_scale(out_of_fold[(window, l2)])
    weight = (fit_weight(data[window], l2) * scale).astype(np.float32)
    dev = frame_pairs(frames("dev"), cfg.copies, cfg.seed + 1, cfg.typo_rate, window)
    blind = frame_pairs(frames("blind"), 3, cfg.seed + 2, cfg.typo_rate, window)
    metrics: dict[str, Any] = {
        # Where the weights went is the caller's, not the model's: no machine path here.
        "config": {k: v for k, v in asdict(cfg).items() if k != "out"},
        "training_frames": len(train_frames),
        "window": window,
        "l2": l2,
        "calibration_scale": round(scale, 3),
        "out_of_fold_grid": {f"{w}/{g:g}": round(a, 4) for (w, g), a in grid.items()},
        "pairwise_accuracy": {
            "train_out_of_fold": round(grid[(window, l2)], 4),
            "dev_frames": round(pairwise_accuracy(weight, embedder, dev), 4),
            "blind_frames": round(pairwise_accuracy(weight, embedder, blind), 4),
        },
    }
    meta = {"window": window, "l2": l2, "scale": scale, "seed": cfg.seed,
            "command": f"capture train revision-side --seed {cfg.seed}"}
    save_npz(cfg.out, {"weight": weight}, meta)
    metrics["train_seconds"] = round(time.perf_counter() - started, 1)
    cfg.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    log.info("revision side: %s", metrics["pairwise_accuracy"])
    return metrics
