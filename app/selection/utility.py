"""r_p: the preference utility of a candidate response given the user's retrieved memories.

A small model over frozen sentence embeddings (numpy at inference; trained with torch by
`capture train utility`, see workers/selection/train.py). For each memory m and candidate c:

    value evidence  e(c, m) · [log p(m.value | c, m.subject) + log |values|]  (0 = none)
                    a softmax over the subject's values v of
                    t · cos(P c, P phrase(v)) + w_δ · (P c)·δ[subject, v] + θ[subject, v] · style(c)
                    phrase(v): the value's claim plus its description (descriptions.py)
                    δ: how a train-split candidate following v differs from its family's
                       mean (one situation written once per value), averaged over families
                    e: P(c expresses some value of the subject at all), a logistic read-off
                       σ(a[subject] · max_v cos(P c, P phrase(v)) + b[subject]) fitted on the
                       train candidates (v3): a memory about something no candidate touches
                       moves no candidate. r_p v2 had, instead of e, a "none" slot in the
                       softmax (ν[subject] · style(c) + ν₀[subject]); its weights still load.
    claim match     cos(P c, P claim(m)), only for a memory the taxonomy does not know (a
                    known memory's claim is in its phrase; the raw cosine is topical)
    relevance       softmax over memories (and a "none" slot) of
                    a_prompt·cos(prompt, claim) + a_aff·max_v cos(P prompt, P phrase(v))
                    + a_scope·[scoped]·cos(prompt, scope label) + a_scoped·[scoped]
                    (the prompt decides which memories matter, never the candidate)
    u(c) = b + Σ_m relevance_m · sign(m) · (w_value·value evidence + w_claim·claim match)
    r_p(c) = σ(u(c))

Every term a known memory contributes is contrastive within its dimension: it measures that
c follows this value rather than another one (or none), never that c is on the claim's topic.
P = I + U Vᵀ is an optional low-rank correction of the embedding space (rank 0, the identity,
as shipped: learned on two train families per dimension it fitted their topics); style(c)
are the surface statistics of app/selection/style.py (length, lists, tables, units, dates,
…) and θ their learned weight per taxonomy value; sign is +1 for a `prefer` memory, −1 for
`avoid`. With no memory r_p is σ(b) for every candidate.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.embeddings import Embedder, get_embedder
from app.extraction.taxonomy import DIMENSIONS, DIMENSIONS_BY_NAME
from app.selection.descriptions import VALUE_DESCRIPTIONS
from app.selection.memory import Memory, canonical_claim, scope_label
from app.selection.style import N_FEATURES, style_matrix

Array = npt.NDArray[np.float32]

WEIGHTS_PATH = Path(__file__).resolve().parent / "weights" / "utility.npz"
PARAM_NAMES: tuple[str, ...] = (
    "bias",
    "w_value",
    "w_claim",
    "log_value_temperature",
    "rel_prompt",
    "rel_affinity",
    "rel_scope",
    "rel_scoped",
    "null_logit",
    "w_offset",
)
# Most values any taxonomy dimension has (code_language: 5).
MAX_VALUES = max(len(d.values) for d in DIMENSIONS_BY_NAME.values())
SUBJECTS: tuple[str, ...] = tuple(d.name for d in DIMENSIONS)
FEATURE_CACHE_SIZE = 256


@dataclass(frozen=True)
class UtilityWeights:
    params: dict[str, float]
    proj_u: Array  # (384, rank)
    proj_v: Array  # (384, rank)
    style: Array  # (len(SUBJECTS), MAX_VALUES, N_FEATURES): θ
    meta: dict[str, Any]
    # (len(SUBJECTS), MAX_VALUES, 384): δ, each value's offset from its dimension's mean,
    # averaged over train-split candidate families (zeros when untrained).
    offsets: Array | None = None
    # (len(SUBJECTS), N_FEATURES + 1): the "none of its values" slot of each dimension's
    # softmax, a weight per style feature and a bias (None: no such slot, as untrained).
    none_slot: Array | None = None
    # (len(SUBJECTS), 2): per dimension, a logistic read-off (slope, bias) of "c expresses
    # some value of this dimension" from c's cosine to the closest value phrase. When
    # present it replaces the none slot: value evidence is a softmax over the values alone,
    # scaled by this probability.
    presence: Array | None = None

    @classmethod
    def initial(cls, dim: int = 384, rank: int = 0,
                phrase: str = "claim+description") -> UtilityWeights:
        """Untrained: plain cosine geometry, value evidence and relevance on."""
        params = dict.fromkeys(PARAM_NAMES, 0.0)
        params.update(w_value=1.0, log_value_temperature=float(np.log(10.0)), rel_prompt=5.0,
                      rel_affinity=5.0, w_offset=10.0)
        zeros = np.zeros((dim, rank), dtype=np.float32)
        style = np.zeros((len(SUBJECTS), MAX_VALUES, N_FEATURES), dtype=np.float32)
        offsets = np.zeros((len(SUBJECTS), MAX_VALUES, dim), dtype=np.float32)
        return cls(params, zeros, zeros.copy(), style, {"trained": False, "phrase": phrase},
                   offsets)

    @classmethod
    def load(cls, path: Path = WEIGHTS_PATH) -> UtilityWeights:
        with np.load(path, allow_pickle=False) as data:
            values = data["params"].astype(np.float64)
            names = [str(n) for n in data["param_names"]]
            meta = json.loads(str(data["meta"]))
            params = dict.fromkeys(PARAM_NAMES, 0.0)  # weights saved before a parameter existed
            params.update({n: float(v) for n, v in zip(names, values, strict=True)})
            return cls(
                params,
                data["proj_u"].astype(np.float32),
                data["proj_v"].astype(np.float32),
                data["style"].astype(np.float32),
                meta,
                data["offsets"].astype(np.float32) if "offsets" in data.files else None,
                data["none_slot"].astype(np.float32) if "none_slot" in data.files else None,
                data["presence"].astype(np.float32) if "presence" in data.files else None,
            )

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Any] = {
            "params": np.array([self.params[n] for n in PARAM_NAMES], dtype=np.float64),
            "param_names": np.array(PARAM_NAMES),
            "proj_u": self.proj_u.astype(np.float32),
            "proj_v": self.proj_v.astype(np.float32),
            "style": self.style.astype(np.float32),
            "offsets": self.value_offsets(self.proj_u.shape[0]),
            "meta": np.array(json.dumps(self.meta, sort_keys=True)),
        }
        if self.none_slot is not None:
            arrays["none_slot"] = self.none_slot.astype(np.float32)
        if self.presence is not None:
            arrays["presence"] = self.presence.astype(np.float32)
        np.savez_compressed(path, **arrays)

    def value_offsets(self, dim: int = 384) -> Array:
        return self.offsets if self.offsets is not None else _zero_offsets(dim)


@lru_cache(maxsize=2)
def _zero_offsets(dim: int) -> Array:
    return np.zeros((len(SUBJECTS), MAX_VALUES, dim), dtype=np.float32)


@dataclass(frozen=True)
class MemoryFeatures:
    """Everything about a memory set the model reads, as arrays (M memories)."""

    claims: Array  # (M, D) claim embeddings
    phrases: Array  # (M, K, D) the subject's value phrases (zeros where masked)
    phrase_mask: npt.NDArray[np.bool_]  # (M, K)
    value_index: npt.NDArray[np.int64]  # (M,) index of the memory's value, -1 unknown
    subject_index: npt.NDArray[np.int64]  # (M,) index in SUBJECTS, -1 unknown
    sign: Array  # (M,) +1 prefer, -1 avoid
    scoped: Array  # (M,) 1 for a scoped memory
    scope_labels: Array  # (M, D)
    claims_projected: Array  # (M, D) P claim, unit norm
    phrases_projected: Array  # (M, K, D) P phrase, unit norm


class PreferenceUtility:
    """r_p over candidates; thread-safe, embeddings cached by the embedder."""

    name = "capture-utility"

    def __init__(self, weights: UtilityWeights, embedder: Embedder | None = None) -> None:
        self.weights = weights
        self._embedder = embedder
        self._lock = threading.Lock()
        self._phrase_cache: dict[str, tuple[Array, npt.NDArray[np.bool_]]] = {}
        # Memory sets repeat (a turn's selection, then its audit): features by the set.
        self._features: OrderedDict[tuple[Memory, ...], MemoryFeatures] = OrderedDict()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    def embed(self, texts: Sequence[str]) -> Array:
        out: Array = self.embedder.embed(list(texts)).astype(np.float32)
        return out

    def value_phrases(self, subject: str) -> tuple[Array, npt.NDArray[np.bool_]]:
        with self._lock:
            cached = self._phrase_cache.get(subject)
        if cached is not None:
            return cached
        dim = DIMENSIONS_BY_NAME[subject]
        claims = self.embed([canonical_claim(subject, v.name) or v.phrase for v in dim.values])
        emb = claims
        if self.weights.meta.get("phrase", "claim+description") == "claim+description":
            emb = emb + self.embed([VALUE_DESCRIPTIONS[subject][v.name] for v in dim.values])
        emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
        texts = list(dim.values)
        phrases = np.zeros((MAX_VALUES, emb.shape[1]), dtype=np.float32)
        phrases[: len(texts)] = emb
        mask = np.zeros(MAX_VALUES, dtype=np.bool_)
        mask[: len(texts)] = True
        with self._lock:
            self._phrase_cache[subject] = (phrases, mask)
        return phrases, mask

    def memory_features(self, memories: Sequence[Memory]) -> MemoryFeatures:
        key = tuple(memories)
        with self._lock:
            cached = self._features.get(key)
            if cached is not None:
                self._features.move_to_end(key)
                return cached
        feats = self._memory_features(memories)
        with self._lock:
            self._features[key] = feats
            if len(self._features) > FEATURE_CACHE_SIZE:
                self._features.popitem(last=False)
        return feats

    def _memory_features(self, memories: Sequence[Memory]) -> MemoryFeatures:
        count = len(memories)
        dim = 384
        claims = self.embed([m.text for m in memories]) if memories else np.zeros((0, dim))
        dim = claims.shape[1] if count else dim
        phrases = np.zeros((count, MAX_VALUES, dim), dtype=np.float32)
        mask = np.zeros((count, MAX_VALUES), dtype=np.bool_)
        value_index = np.full(count, -1, dtype=np.int64)
        subject_index = np.full(count, -1, dtype=np.int64)
        for i, memory in enumerate(memories):
            if memory.known:
                assert memory.subject is not None
                phrases[i], mask[i] = self.value_phrases(memory.subject)
                names = [v.name for v in DIMENSIONS_BY_NAME[memory.subject].values]
                value_index[i] = names.index(str(memory.value))
                subject_index[i] = SUBJECTS.index(memory.subject)
        sign = np.array([-1.0 if m.direction == "avoid" else 1.0 for m in memories],
                        dtype=np.float32)
        scoped = np.array([0.0 if m.scope == "global" else 1.0 for m in memories],
                          dtype=np.float32)
        labels = (self.embed([scope_label(m.scope) for m in memories]) if memories
                  else np.zeros((0, dim), dtype=np.float32))
        claims = claims.astype(np.float32)
        return MemoryFeatures(claims, phrases, mask, value_index, subject_index, sign, scoped,
                              labels, _project(claims, self.weights),
                              _project(phrases, self.weights))

    def score(self, prompt: str, memories: Sequence[Memory], candidates: Sequence[str]) -> Array:
        """r_p ∈ (0, 1) for each candidate."""
        if not candidates:
            return np.zeros(0, dtype=np.float32)
        return self.score_embedded(*self.embed_candidates(prompt, candidates),
                                   self.memory_features(memories))

    def embed_candidates(self, prompt: str, candidates: Sequence[str]
                         ) -> tuple[Array, Array, Array]:
        """The prompt embedding, candidate embeddings and candidate style features."""
        return (self.embed([prompt])[0], self.embed(candidates),
                style_matrix(list(candidates)))

    def score_embedded(self, prompt: Array, candidates: Array, style: Array,
                       feats: MemoryFeatures) -> Array:
        logits = utility_logits(self.weights, prompt, candidates, style, feats)
        out: Array = (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)
        return out


def _project(x: Array, w: UtilityWeights) -> Array:
    projected = x + (x @ w.proj_v) @ w.proj_u.T
    norms = np.linalg.norm(projected, axis=-1, keepdims=True)
    out: Array = projected / np.clip(norms, 1e-9, None)
    return out


def utility_logits(w: UtilityWeights, prompt: Array, candidates: Array, style: Array,
                   f: MemoryFeatures) -> Array:
    """u(c) for each candidate (C,), the numpy twin of workers/selection/train.py's model."""
    p = w.params
    count = f.claims.shape[0]
    if count == 0:
        return np.full(candidates.shape[0], p["bias"], dtype=np.float32)
    c = _project(candidates, w)  # (C, D)
    phrases = f.phrases_projected  # (M, K, D)
    claims = f.claims_projected  # (M, D)
    sim = np.einsum("cd,mkd->cmk", c, phrases)  # (C, M, K)
    temperature = float(np.exp(p["log_value_temperature"]))
    theta = w.style[np.maximum(f.subject_index, 0)]  # (M, K, F)
    offsets = w.value_offsets(candidates.shape[1])[np.maximum(f.subject_index, 0)]  # (M, K, D)
    logits = np.where(f.phrase_mask[None],
                      temperature * sim + p["w_offset"] * np.einsum("cd,mkd->cmk", c, offsets)
                      + np.einsum("cf,mkf->cmk", style, theta), -1e9)
    expressed = np.ones((c.shape[0], count), dtype=np.float32)
    if w.presence is not None:
        # P(c speaks to the memory's dimension at all): evidence counts only that far, so a
        # memory about something no candidate touches moves no candidate.
        head = w.presence[np.maximum(f.subject_index, 0)]  # (M, 2): slope, bias
        closest = np.where(f.phrase_mask[None], sim, -1.0).max(-1)  # (C, M)
        expressed = 1.0 / (1.0 + np.exp(-(head[:, 0] * closest + head[:, 1])))
    elif w.none_slot is not None:  # "follows none of the dimension's values"
        none = w.none_slot[np.maximum(f.subject_index, 0)]  # (M, F + 1)
        logits = np.concatenate([logits, (style @ none[:, :-1].T + none[:, -1])[..., None]], -1)
    top = logits.max(axis=-1, keepdims=True)
    lse = np.log(np.exp(logits - top).sum(axis=-1, keepdims=True)) + top  # (C, M, 1)
    known = f.value_index >= 0
    index = np.where(known, f.value_index, 0)
    picked = np.take_along_axis(logits, index[None, :, None].repeat(c.shape[0], 0), -1)
    n_values = np.maximum(f.phrase_mask.sum(-1), 1).astype(np.float32)  # (M,)
    value_evidence = np.where(
        known[None], expressed * ((picked - lse)[..., 0] + np.log(n_values)[None]), 0.0)
    # A known memory is read only through its value evidence, which is contrastive within the
    # dimension; the raw claim cosine is topical (a code sample is far from any sentence about
    # comments) and counts only for a free-text claim the taxonomy does not know.
    claim_match = np.where(known[None], 0.0, c @ claims.T)  # (C, M)
    # Relevance reads the prompt, never the candidate, so U(y) is a function of y alone.
    q = _project(prompt[None], w)[0]  # (D,)
    prompt_values = np.where(f.phrase_mask, phrases @ q, -1.0).max(-1)  # (M,)
    affinity = np.where(known, prompt_values, claims @ q)
    prompt_claim = f.claims @ prompt  # (M,) raw cosine
    prompt_scope = f.scoped * (f.scope_labels @ prompt)
    relevance = (p["rel_prompt"] * prompt_claim + p["rel_affinity"] * affinity
                 + p["rel_scope"] * prompt_scope + p["rel_scoped"] * f.scoped)[None]
    top_rel = np.maximum(relevance.max(-1, keepdims=True), p["null_logit"])
    weights = np.exp(relevance - top_rel)
    weights = weights / (weights.sum(-1, keepdims=True) + np.exp(p["null_logit"] - top_rel))
    contribution = f.sign[None] * (p["w_value"] * value_evidence + p["w_claim"] * claim_match)
    out: Array = (p["bias"] + (weights * contribution).sum(-1)).astype(np.float32)
    return out


@lru_cache(maxsize=1)
def get_utility() -> PreferenceUtility:
    """The shipped r_p (trained weights when present, else the untrained initial model)."""
    weights = UtilityWeights.load() if WEIGHTS_PATH.exists() else UtilityWeights.initial()
    return PreferenceUtility(weights)
