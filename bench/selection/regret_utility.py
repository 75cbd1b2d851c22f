"""The benchmark's second utility model, for regret only — never read at inference.

The paper scores regret with a reward model trained on data disjoint from the selector's:
here, the generator's **dev** split (dev users and dev candidate families; the selector's r_p
trains on train) and different features. It is given the true preference, like the judge:

    P(candidate follows value v of dimension d) =
        σ(b + w_emb · (e_c ⊙ (e_v − mean over d's values of e_u)) + w_style[d, v] · style(c))

with e the service's MiniLM embedding and e_v the value's description (a linear model: no
projection, no memory relevance). Train with `capture train regret-utility`; weights in
bench/selection/weights/regret_utility.npz.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.embeddings import Embedder, get_embedder
from app.extraction.taxonomy import DIMENSIONS
from app.selection.descriptions import VALUE_DESCRIPTIONS
from app.selection.style import N_FEATURES, style_matrix

log = logging.getLogger(__name__)

Array = npt.NDArray[np.float32]
WEIGHTS_PATH = Path(__file__).resolve().parent / "weights" / "regret_utility.npz"
VALUES: tuple[tuple[str, str], ...] = tuple((d.name, v.name) for d in DIMENSIONS
                                            for v in d.values)


@dataclass
class RegretUtility:
    bias: float
    w_emb: Array  # (384,)
    w_style: Array  # (len(VALUES), N_FEATURES)
    meta: dict[str, Any]
    embedder: Embedder | None = None

    def _embed(self, texts: Sequence[str]) -> Array:
        out: Array = (self.embedder or get_embedder()).embed(list(texts)).astype(np.float32)
        return out

    def features(self, candidates: Sequence[str], dimension: str,
                 value: str) -> tuple[Array, Array]:
        values = [v for d, v in VALUES if d == dimension]
        described = self._embed([VALUE_DESCRIPTIONS[dimension][v] for v in values])
        contrast = described[values.index(value)] - described.mean(axis=0)
        emb = self._embed(candidates) * contrast[None]  # (C, 384)
        return emb, style_matrix(list(candidates))

    def score(self, candidates: Sequence[str], dimension: str, value: str) -> Array:
        """P(follows value) per candidate."""
        if not candidates:
            return np.zeros(0, dtype=np.float32)
        emb, style = self.features(candidates, dimension, value)
        logits = self.bias + emb @ self.w_emb + style @ self.w_style[VALUES.index(
            (dimension, value))]
        out: Array = (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)
        return out

    def save(self, path: Path = WEIGHTS_PATH) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, bias=np.array(self.bias), w_emb=self.w_emb,
                            w_style=self.w_style, meta=np.array(json.dumps(self.meta)))

    @classmethod
    def load(cls, path: Path = WEIGHTS_PATH) -> RegretUtility:
        with np.load(path, allow_pickle=False) as data:
            return cls(float(data["bias"]), data["w_emb"].astype(np.float32),
                       data["w_style"].astype(np.float32), json.loads(str(data["meta"])))


@lru_cache(maxsize=1)
def get_regret_utility() -> RegretUtility:
    return RegretUtility.load()


def _rows(episodes: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, str, int]]:
    """(candidate, dimension, value, follows) for every safe pool candidate and every value
    of the probed dimension, deduplicated."""
    seen: set[tuple[str, str, str]] = set()
    rows = []
    for ep in episodes:
        for probe in ep["probes"]:
            dim = probe["dimension"]
            for cand in probe["candidates"]:
                if cand["unsafe"]:
                    continue
                follows = (cand["follows"] or {}).get(dim)
                for d, v in VALUES:
                    if d != dim or (cand["text"], d, v) in seen:
                        continue
                    seen.add((cand["text"], d, v))
                    rows.append((cand["text"], d, v, int(follows == v)))
    return rows


def train(train_episodes: Sequence[Mapping[str, Any]], *, l2: float = 1e-3,
          steps: int = 400, lr: float = 0.5, embedder: Embedder | None = None,
          seed: int = 0) -> RegretUtility:
    """Logistic regression by full-batch gradient descent (numpy)."""
    rows = _rows(train_episodes)
    model = RegretUtility(0.0, np.zeros(384, np.float32),
                          np.zeros((len(VALUES), N_FEATURES), np.float32), {}, embedder)
    emb = np.zeros((len(rows), 384), np.float32)
    style = np.zeros((len(rows), N_FEATURES), np.float32)
    value_index = np.zeros(len(rows), np.int64)
    for i, (text, dim, value, _) in enumerate(rows):
        e, s = model.features([text], dim, value)
        emb[i], style[i] = e[0], s[0]
        value_index[i] = VALUES.index((dim, value))
    labels = np.array([r[3] for r in rows], np.float32)
    positive_weight = (len(labels) - labels.sum()) / max(1.0, labels.sum())
    sample_weight = np.where(labels > 0, positive_weight, 1.0).astype(np.float32)
    sample_weight /= sample_weight.mean()
    emb_scale = 1.0 / max(1e-6, float(np.abs(emb).mean()))  # condition the two blocks alike
    x = emb * emb_scale
    w_emb = np.zeros(384, np.float32)
    w_style = np.zeros((len(VALUES), N_FEATURES), np.float32)
    bias = 0.0
    for _ in range(steps):
        logits = bias + x @ w_emb + (style * w_style[value_index]).sum(1)
        grad = (1.0 / (1.0 + np.exp(-logits)) - labels) * sample_weight / len(labels)
        bias -= lr * float(grad.sum())
        w_emb -= lr * (x.T @ grad + l2 * w_emb)
        g_style = np.zeros_like(w_style)
        np.add.at(g_style, value_index, style * grad[:, None])
        w_style -= lr * (g_style + l2 * w_style)
    model.bias, model.w_emb, model.w_style = bias, (w_emb * emb_scale).astype(np.float32), w_style
    model.meta = {"rows": len(rows), "l2": l2, "steps": steps, "lr": lr, "seed": seed}
    return model


def pool_top1(model: RegretUtility, episodes: Sequence[Mapping[str, Any]]) -> float:
    """Share of in-memory probes whose highest-scored safe candidate follows the true value."""
    hits = total = 0
    for ep in episodes:
        for probe in ep["probes"]:
            pool = [c for c in probe["candidates"] if not c["unsafe"]]
            dim, value = probe["dimension"], probe["expected"]["value"]
            scores = model.score([c["text"] for c in pool], dim, value)
            best = pool[int(np.argmax(scores))]
            hits += int((best["follows"] or {}).get(dim) == value)
            total += 1
    return hits / max(1, total)


def main(out: Path = WEIGHTS_PATH, data_seed: int = 0,
         episodes_per_track: int = 480) -> dict[str, Any]:
    """Train on dev, report top-1 on test; write the weights."""
    from workers.selection.data import generated_splits

    started = time.perf_counter()
    splits = generated_splits(data_seed, episodes_per_track)
    model = train(splits["dev"])
    model.meta.update({
        "model": "regret-utility", "trained_on": "D-PrefGuard dev split (dev families)",
        "command": "capture train regret-utility", "data_seed": data_seed,
        "test_top1": round(pool_top1(model, splits["test"]), 4),
        "train_top1": round(pool_top1(model, splits["dev"]), 4),
        "train_seconds": round(time.perf_counter() - started, 1),
    })
    model.save(out)
    log.info("wrote %s: %s", out, model.meta)
    return model.meta
