"""Train r_p, the selector's preference utility: `capture train utility` or `main(cfg)`.

Train split only (probe pools of the generator's train candidate families, see
bench/generator/responses.py); dev picks nothing but is reported, test is reported for the
model card. Embeddings are frozen MiniLM vectors from the service's own embedder, and so is their
geometry by default (`rank` 0): the value offsets δ are averaged from the train families
once (`value_offsets`), and what is learned is the small head of app/selection/utility.py
(temperature and offset scale, per-value style weights θ, the "none" slot, the evidence
and relevance weights). Loss: Bradley–Terry over
(follows, does not follow) pairs of one pool plus a calibration BCE on every candidate.
Pools get distractor memories (other dimensions and scopes), as retrieval returns them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from app.extraction.taxonomy import DIMENSIONS, DIMENSIONS_BY_NAME, SCOPE_DOMAINS
from app.selection.memory import Memory
from app.selection.style import N_FEATURES, style_matrix
from app.selection.utility import (
    MAX_VALUES,
    PARAM_NAMES,
    SUBJECTS,
    WEIGHTS_PATH,
    PreferenceUtility,
    UtilityWeights,
)
from workers.common.progress import configure, log
from workers.selection.data import PoolExample, generated_splits, pool_examples

MODEL_VERSION = "3"


@dataclass(slots=True)
class UtilityTrainConfig:
    out: Path = WEIGHTS_PATH
    seed: int = 0
    data_seed: int = 0
    episodes_per_track: int = 480
    # Rank of the learned correction of the embedding geometry. 0 (the default) keeps the
    # frozen MiniLM geometry: with two train families per dimension a learned projection fits
    # their topics instead of the values (rank 16 with the v1 head: dev top-1 0.644; the
    # untrained geometry with the v1 head's θ and scalars: 0.626; v2 at rank 0: 0.842).
    rank: int = 0
    epochs: int = 20
    batch_size: int = 128
    lr: float = 1e-2
    # L2 on the low-rank correction, pulling P toward the identity (the plain geometry).
    projection_decay: float = 1e-3
    # Calibration BCE beside the Bradley–Terry ranking loss. 1.0 with 20 epochs was chosen on
    # dev over 0.5 with 10: pool top-1 0.845 → 0.851, selector win with capture's
    # memories 75.4 → 77.2 %, audit evidence F1 0.795 → 0.804 (docs/RESULTS.md).
    bce_weight: float = 1.0
    # L2 on the per-value style weights θ.
    style_decay: float = 1e-3
    # Distractor memories added to each training pool (uniform in [0, n]).
    max_distractors: int = 8
    # Scale each memory's value evidence by a fitted P(candidate expresses its dimension)
    # (`fit_presence`) instead of a "none" slot in the value softmax.
    presence: bool = True
    threads: int = 2
    # Value prototypes: the claim alone, or the claim plus its description.
    phrase: str = "claim+description"
    limit: int | None = None  # pools per split (None: all); a small slice for tests
    report_splits: tuple[str, ...] = ("dev", "test")
    extra: dict[str, Any] = field(default_factory=dict)


class TorchUtility(nn.Module):
    """The torch twin of app.selection.utility.utility_logits (batched, padded)."""

    offsets: torch.Tensor  # a buffer: δ is computed from the train families, not learned

    def __init__(self, init: UtilityWeights) -> None:
        super().__init__()
        self.params = nn.ParameterDict(
            {n: nn.Parameter(torch.tensor(float(init.params[n]))) for n in PARAM_NAMES})
        generator = torch.Generator().manual_seed(0)
        dim, rank = init.proj_u.shape
        self.proj_u = nn.Parameter(torch.randn(dim, rank, generator=generator) * 1e-3)
        self.proj_v = nn.Parameter(torch.randn(dim, rank, generator=generator) * 1e-3)
        self.style = nn.Parameter(torch.from_numpy(init.style.copy()))
        self.register_buffer("offsets", torch.from_numpy(init.value_offsets(dim).copy()))
        self.presence = (None if init.presence is None
                         else torch.from_numpy(init.presence.copy()))
        # The v2 "none" slot, learned only where no presence read-off replaces it.
        self.none_slot: nn.Parameter | None = None
        if self.presence is None:
            none = (init.none_slot if init.none_slot is not None
                    else np.zeros((len(SUBJECTS), N_FEATURES + 1), np.float32))
            self.none_slot = nn.Parameter(torch.from_numpy(none.copy()))

    def project(self, x: torch.Tensor) -> torch.Tensor:
        y = x + (x @ self.proj_v) @ self.proj_u.T
        out: torch.Tensor = y / y.norm(dim=-1, keepdim=True).clamp_min(1e-9)
        return out

    def forward(self, b: dict[str, torch.Tensor]) -> torch.Tensor:
        """Logits (N, C). Batch: prompt (N,D), cand (N,C,D), claims (N,M,D), phrases
        (N,M,K,D), phrase_mask (N,M,K), value_index (N,M), known (N,M), sign (N,M),
        scoped (N,M), scope_labels (N,M,D), memory_mask (N,M)."""
        p = self.params
        c = self.project(b["cand"])  # (N, C, D)
        phrases = self.project(b["phrases"])  # (N, M, K, D)
        claims = self.project(b["claims"])  # (N, M, D)
        sim = torch.einsum("ncd,nmkd->ncmk", c, phrases)  # (N, C, M, K)
        mask = b["phrase_mask"][:, None]  # (N, 1, M, K)
        theta = self.style[b["subject_index"].clamp_min(0)]  # (N, M, K, F)
        offsets = self.offsets[b["subject_index"].clamp_min(0)]  # (N, M, K, D)
        logits = (torch.exp(p["log_value_temperature"]) * sim
                  + p["w_offset"] * torch.einsum("ncd,nmkd->ncmk", c, offsets)
                  + torch.einsum("ncf,nmkf->ncmk", b["style"], theta))
        logits = logits.masked_fill(~mask, -1e9)
        if self.presence is not None:  # a frozen "c speaks to this dimension" read-off
            head = self.presence[b["subject_index"].clamp_min(0)]  # (N, M, 2)
            closest = sim.masked_fill(~mask, -1.0).amax(-1)  # (N, C, M)
            expressed = torch.sigmoid(head[..., 0][:, None] * closest + head[..., 1][:, None])
        else:
            assert self.none_slot is not None
            none = self.none_slot[b["subject_index"].clamp_min(0)]  # (N, M, F + 1)
            none_logit = (torch.einsum("ncf,nmf->ncm", b["style"], none[..., :-1])
                          + none[..., -1][:, None])
            logits = torch.cat([logits, none_logit[..., None]], dim=-1)
            expressed = torch.ones_like(logits[..., 0])
        lse = torch.logsumexp(logits, dim=-1)  # (N, C, M)
        index = b["value_index"].clamp_min(0)[:, None, :, None].expand(-1, c.shape[1], -1, 1)
        picked = logits.gather(-1, index)[..., 0]
        n_values = b["phrase_mask"].sum(-1).clamp_min(1).float()  # (N, M)
        known = b["known"][:, None]  # (N, 1, M)
        evidence = torch.where(
            known, expressed * (picked - lse + torch.log(n_values)[:, None]), 0.0)
        claim_match = torch.where(known, 0.0, torch.einsum("ncd,nmd->ncm", c, claims))
        q = self.project(b["prompt"])  # (N, D)
        prompt_values = torch.einsum("nmkd,nd->nmk", phrases, q)
        prompt_values = prompt_values.masked_fill(~b["phrase_mask"], -1.0).amax(-1)  # (N, M)
        affinity = torch.where(b["known"], prompt_values, torch.einsum("nmd,nd->nm", claims, q))
        prompt_claim = torch.einsum("nmd,nd->nm", b["claims"], b["prompt"])
        prompt_scope = b["scoped"] * torch.einsum("nmd,nd->nm", b["scope_labels"], b["prompt"])
        relevance = (p["rel_prompt"] * prompt_claim + p["rel_affinity"] * affinity
                     + p["rel_scope"] * prompt_scope + p["rel_scoped"] * b["scoped"])
        relevance = relevance.masked_fill(~b["memory_mask"], -1e9)[:, None].expand(
            -1, c.shape[1], -1)
        null = p["null_logit"].expand(relevance.shape[0], relevance.shape[1], 1)
        weights = torch.softmax(torch.cat([relevance, null], dim=-1), dim=-1)[..., :-1]
        contribution = b["sign"][:, None] * (p["w_value"] * evidence
                                             + p["w_claim"] * claim_match)
        out: torch.Tensor = p["bias"] + (weights * contribution).sum(-1)
        return out

    def export(self, meta: dict[str, Any]) -> UtilityWeights:
        return UtilityWeights(
            {n: float(self.params[n].detach()) for n in PARAM_NAMES},
            self.proj_u.detach().numpy().astype(np.float32),
            self.proj_v.detach().numpy().astype(np.float32),
            self.style.detach().numpy().astype(np.float32),
            meta,
            self.offsets.numpy().astype(np.float32),
            None if self.none_slot is None else self.none_slot.detach().numpy().astype(
                np.float32),
            None if self.presence is None else self.presence.numpy().astype(np.float32),
        )


def value_offsets(examples: Sequence[PoolExample], model: PreferenceUtility) -> np.ndarray:
    """δ[subject, value]: how a candidate that follows a value differs from its family.

    Each train candidate family is one situation written once per value of a dimension, so
    the family's mean embedding is its topic and each text's offset from that mean is what
    the value changes. Averaging the offsets over a dimension's families gives a direction
    per value that carries no family's topic (and sums to zero over the dimension's values,
    so the softmax over values reads only "this value rather than another")."""
    dim = model.embed(["x"]).shape[1]
    total = np.zeros((len(SUBJECTS), MAX_VALUES, dim), np.float64)
    count = np.zeros((len(SUBJECTS), MAX_VALUES), np.float64)
    seen: set[tuple[str, frozenset[tuple[str, str]]]] = set()
    for ex in examples:
        family = frozenset((c, f) for c, f in zip(ex.candidates, ex.follows, strict=True)
                           if f is not None)
        if (ex.dimension, family) in seen or len({f for _, f in family}) < 2:
            continue
        seen.add((ex.dimension, family))
        texts = sorted(family)
        emb = model.embed([c for c, _ in texts]).astype(np.float64)
        emb -= emb.mean(0)
        subject = SUBJECTS.index(ex.dimension)
        names = [v.name for v in DIMENSIONS_BY_NAME[ex.dimension].values]
        for (_, value), row in zip(texts, emb, strict=True):
            total[subject, names.index(value)] += row
            count[subject, names.index(value)] += 1
    out: np.ndarray = (total / np.maximum(count, 1)[..., None]).astype(np.float32)
    return out


def presence_examples(examples: Sequence[PoolExample]) -> tuple[list[str], np.ndarray]:
    """Every distinct candidate text of the pools and its labels (texts, len(SUBJECTS)): 1
    for the dimension whose value it follows, 0 for every other dimension and for a generic
    candidate (one that follows no value)."""
    labels: dict[str, np.ndarray] = {}
    for ex in examples:
        for text, follows in zip(ex.candidates, ex.follows, strict=True):
            row = labels.setdefault(text, np.zeros(len(SUBJECTS), np.float32))
            if follows is not None:
                row[SUBJECTS.index(ex.dimension)] = 1.0
    texts = sorted(labels)
    return texts, np.stack([labels[t] for t in texts])


def closest_value(model: PreferenceUtility, texts: Sequence[str]) -> np.ndarray:
    """(texts, len(SUBJECTS)): each text's cosine to its closest value phrase per dimension."""
    emb = model.embed(list(texts))
    out = np.zeros((len(texts), len(SUBJECTS)), np.float32)
    for j, subject in enumerate(SUBJECTS):
        phrases, mask = model.value_phrases(subject)
        out[:, j] = (emb @ phrases[mask].T).max(1)
    return out


def fit_presence(examples: Sequence[PoolExample], model: PreferenceUtility, *,
                 steps: int = 500) -> np.ndarray:
    """Per dimension, a logistic read-off (slope, bias) of "this text expresses some value of
    the dimension" from its cosine to the closest value phrase (len(SUBJECTS), 2), fitted
    full-batch on the train pools' candidates with balanced classes. Two numbers per
    dimension: the phrases carry what a value sounds like, so the read-off transfers to
    situations the train families never wrote (a linear head on the whole embedding learned
    the train families' topics: 60 % of dev's expressing candidates found)."""
    texts, labels = presence_examples(examples)
    x = torch.from_numpy(closest_value(model, texts))
    y = torch.from_numpy(labels)
    slope = nn.Parameter(torch.full((y.shape[1],), 10.0))
    bias = nn.Parameter(torch.full((y.shape[1],), -3.0))
    positives = y.sum(0).clamp_min(1.0)
    pos_weight = (y.shape[0] - positives) / positives
    optimizer = torch.optim.Adam([slope, bias], lr=0.1)
    for _ in range(steps):
        loss = nn.functional.binary_cross_entropy_with_logits(
            slope * x + bias, y, pos_weight=pos_weight)
        optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
    return torch.stack([slope.detach(), bias.detach()], 1).numpy().astype(np.float32)


def presence_accuracy(presence: np.ndarray, examples: Sequence[PoolExample],
                      model: PreferenceUtility) -> dict[str, float]:
    """Held-out read-off: rates over (candidate, dimension) pairs."""
    texts, labels = presence_examples(examples)
    predicted = presence[:, 0] * closest_value(model, texts) + presence[:, 1] > 0
    pos, neg = labels > 0.5, labels < 0.5
    return {"candidates": len(texts),
            "true_positive_rate": round(float(predicted[pos].mean()), 4),
            "true_negative_rate": round(float((~predicted[neg]).mean()), 4)}


def _all_memories() -> list[Memory]:
    """Every (dimension, value, scope) the taxonomy can hold: the distractor pool."""
    scopes = ["global"] + [s.name for s in SCOPE_DOMAINS]
    return [Memory(node_id=f"{scope}:{d.name}:{v.name}", subject=d.name, value=v.name,
                   scope=scope)
            for d in DIMENSIONS for v in d.values for scope in scopes]


def augment(examples: Sequence[PoolExample], rng: np.random.Generator,
            max_distractors: int) -> list[PoolExample]:
    """Add memories about other dimensions (never the probed one in its scope, so labels
    stay right), shuffled in with the oracle memories."""
    pool = _all_memories()
    out = []
    for ex in examples:
        held = {(m.subject, m.scope) for m in ex.memories}
        n = int(rng.integers(0, max_distractors + 1))
        extra: list[Memory] = []
        for i in rng.permutation(len(pool))[: 4 * n]:
            m = pool[int(i)]
            if len(extra) >= n:
                break
            if m.subject == ex.dimension or (m.subject, m.scope) in held:
                continue
            held.add((m.subject, m.scope))
            extra.append(m)
        memories = list(ex.memories) + extra
        order = rng.permutation(len(memories))
        out.append(PoolExample(ex.episode_id, ex.track, ex.prompt, ex.dimension, ex.scope,
                               ex.value, tuple(memories[int(i)] for i in order),
                               ex.candidates, ex.follows, ex.labels))
    return out


def batch_tensors(examples: Sequence[PoolExample], model: PreferenceUtility
                  ) -> dict[str, torch.Tensor]:
    n = len(examples)
    c_max = max(len(e.candidates) for e in examples)
    m_max = max(1, max(len(e.memories) for e in examples))
    dim = 384
    out = {
        "prompt": np.zeros((n, dim), np.float32),
        "cand": np.zeros((n, c_max, dim), np.float32),
        "cand_mask": np.zeros((n, c_max), np.bool_),
        "style": np.zeros((n, c_max, N_FEATURES), np.float32),
        "labels": np.zeros((n, c_max), np.float32),
        "claims": np.zeros((n, m_max, dim), np.float32),
        "phrases": np.zeros((n, m_max, MAX_VALUES, dim), np.float32),
        "phrase_mask": np.zeros((n, m_max, MAX_VALUES), np.bool_),
        "value_index": np.full((n, m_max), -1, np.int64),
        "subject_index": np.full((n, m_max), -1, np.int64),
        "known": np.zeros((n, m_max), np.bool_),
        "sign": np.zeros((n, m_max), np.float32),
        "scoped": np.zeros((n, m_max), np.float32),
        "scope_labels": np.zeros((n, m_max, dim), np.float32),
        "memory_mask": np.zeros((n, m_max), np.bool_),
    }
    for i, ex in enumerate(examples):
        out["prompt"][i] = model.embed([ex.prompt])[0]
        k = len(ex.candidates)
        out["cand"][i, :k] = model.embed(ex.candidates)
        out["cand_mask"][i, :k] = True
        out["style"][i, :k] = _style(ex.candidates)
        out["labels"][i, :k] = ex.labels
        f = model.memory_features(ex.memories)
        m = len(ex.memories)
        out["claims"][i, :m] = f.claims
        out["phrases"][i, :m] = f.phrases
        out["phrase_mask"][i, :m] = f.phrase_mask
        out["value_index"][i, :m] = f.value_index
        out["subject_index"][i, :m] = f.subject_index
        out["known"][i, :m] = f.value_index >= 0
        out["sign"][i, :m] = f.sign
        out["scoped"][i, :m] = f.scoped
        out["scope_labels"][i, :m] = f.scope_labels
        out["memory_mask"][i, :m] = True
    return {k: torch.from_numpy(v) for k, v in out.items()}


_STYLE_CACHE: dict[str, np.ndarray] = {}


def _style(texts: Sequence[str]) -> np.ndarray:
    missing = [t for t in texts if t not in _STYLE_CACHE]
    for text, row in zip(missing, style_matrix(missing), strict=True):
        _STYLE_CACHE[text] = row
    return np.stack([_STYLE_CACHE[t] for t in texts])


def _loss(logits: torch.Tensor, b: dict[str, torch.Tensor], bce_weight: float) -> torch.Tensor:
    mask, labels = b["cand_mask"], b["labels"]
    pos = (labels > 0.5) & mask
    neg = (labels < 0.5) & mask
    diff = logits[:, :, None] - logits[:, None, :]  # (N, C, C): pos i minus neg j
    pair = pos[:, :, None] & neg[:, None, :]
    bt = nn.functional.softplus(-diff)[pair].mean() if pair.any() else logits.sum() * 0
    bce = nn.functional.binary_cross_entropy_with_logits(logits[mask], labels[mask])
    return bt + bce_weight * bce


def evaluate(model: PreferenceUtility, examples: Sequence[PoolExample]) -> dict[str, float]:
    """Through the numpy inference path: top-1 (the argmax follows the true value), pairwise
    accuracy, and the mean r_p of following and other candidates."""
    top1 = pairs = correct = 0
    pos_scores: list[float] = []
    neg_scores: list[float] = []
    for ex in examples:
        scores = model.score(ex.prompt, ex.memories, ex.candidates)
        labels = np.array(ex.labels)
        top1 += int(labels[int(np.argmax(scores))])
        pos, neg = scores[labels == 1], scores[labels == 0]
        correct += int((pos[:, None] > neg[None]).sum())
        pairs += len(pos) * len(neg)
        pos_scores += pos.tolist()
        neg_scores += neg.tolist()
    return {
        "pools": len(examples),
        "top1": round(top1 / max(1, len(examples)), 4),
        "pair_accuracy": round(correct / max(1, pairs), 4),
        "mean_rp_following": round(float(np.mean(pos_scores)), 4) if pos_scores else 0.0,
        "mean_rp_other": round(float(np.mean(neg_scores)), 4) if neg_scores else 0.0,
    }


def main(cfg: UtilityTrainConfig | None = None) -> dict[str, Any]:
    cfg = cfg or UtilityTrainConfig()
    configure()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    rng = np.random.default_rng(cfg.seed)
    started = time.perf_counter()
    splits = generated_splits(cfg.data_seed, cfg.episodes_per_track)
    data = {s: pool_examples(splits[s])[: cfg.limit] for s in ("train", *cfg.report_splits)}
    unheld_eval = {s: [ex for ex in pool_examples(splits[s], unheld=True) if ex.value is None]
                   [: cfg.limit] for s in cfg.report_splits}
    base = PreferenceUtility(UtilityWeights.initial(rank=cfg.rank, phrase=cfg.phrase))
    train = data["train"]
    init = base.weights
    presence = fit_presence(train, base) if cfg.presence else None
    init = UtilityWeights(init.params, init.proj_u, init.proj_v, init.style, init.meta,
                          value_offsets(train, base), presence=presence)
    log.info("value offsets from the train split's candidate families; %d train pools",
             len(train))
    net = TorchUtility(init)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        examples = augment(train, rng, cfg.max_distractors)
        order = rng.permutation(len(examples))
        total = 0.0
        for start in range(0, len(order), cfg.batch_size):
            batch = batch_tensors([examples[int(i)] for i in order[start:start + cfg.batch_size]],
                                  base)
            loss = _loss(net(batch), batch, cfg.bce_weight)
            loss = loss + cfg.projection_decay * (net.proj_u.square().sum()
                                                  + net.proj_v.square().sum())
            decayed = net.style.square().sum()
            if net.none_slot is not None:
                decayed = decayed + net.none_slot.square().sum()
            loss = loss + cfg.style_decay * decayed
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            total += float(loss.detach()) * len(batch["prompt"])
        log.info("epoch %d loss %.4f", epoch + 1, total / len(examples))
    meta: dict[str, Any] = {
        "model": "capture-utility", "version": MODEL_VERSION, "trained": True,
        "phrase": cfg.phrase,
        "trained_on": "D-PrefGuard train split probe pools (train candidate families only)",
        "command": "capture train utility",
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()},
    }
    trained = PreferenceUtility(net.export(meta), base.embedder)
    report: dict[str, Any] = {}
    eval_rng = np.random.default_rng(cfg.seed + 1)
    for split in cfg.report_splits:
        report[split] = evaluate(trained, data[split])
        report[f"{split}_with_distractors"] = evaluate(
            trained, augment(data[split], eval_rng, cfg.max_distractors))
        report[f"{split}_untrained"] = evaluate(base, data[split])
        report[f"{split}_unheld"] = evaluate(trained, unheld_eval[split])
        if presence is not None:
            report[f"{split}_presence"] = presence_accuracy(presence, data[split], base)
    meta["held_out"] = report
    meta["train_seconds"] = round(time.perf_counter() - started, 1)
    trained.weights.meta.update(meta)
    trained.weights.save(cfg.out)
    log.info("wrote %s: %s", cfg.out, report)
    return meta
