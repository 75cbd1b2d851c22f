"""r_s: the safety risk of a candidate response, behind a pluggable interface.

- `lexicon` (default, CPU): the rules of app/selection/safety_lexicon.py plus embedding
  similarity to each category's unsafe and safe prototype sentences, and a Luhn check for
  payment card numbers. It reads the prompt and the candidate only, never the ledger.
- `llama_guard_http`: a Llama Guard-class classifier served elsewhere behind an
  OpenAI-compatible chat-completions endpoint (vLLM, Ollama, …). The risk is the
  probability of the "unsafe" verdict when the server returns logprobs, else 1 or 0.

A scorer that cannot answer raises SafetyUnavailable: the selector never treats a missing
verdict as safe.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import httpx
import numpy as np
import numpy.typing as npt

from app.core.config import Settings, get_settings
from app.core.embeddings import Embedder, get_embedder
from app.core.errors import Unavailable
from app.selection.safety_lexicon import CARD_NUMBER_WEIGHT, CATEGORIES, Category


class SafetyUnavailable(Unavailable):
    code = "safety_scorer_unavailable"


@dataclass(frozen=True, slots=True)
class SafetyAssessment:
    risk: float  # r_s ∈ [0, 1]
    category: str | None  # the category behind the risk, when one stands out


class SafetyScorer(Protocol):
    name: str

    def assess(self, prompt: str, candidates: Sequence[str]) -> list[SafetyAssessment]:
        """One assessment per candidate, in order."""
        ...


# Share of the risk the embedding similarity alone can supply. MiniLM similarity separates
# "about an unsafe topic" from "unsafe" poorly (safe answers on the same topic sit as close
# to the unsafe prototypes as unsafe ones), so on its own it stays below τ_safe = 0.35 and
# only strengthens weak rule evidence.
EMBEDDING_SHARE = 0.25
# Cosine to the nearest unsafe prototype where the embedding evidence starts and saturates.
EMBEDDING_FLOOR, EMBEDDING_FULL = 0.50, 0.75
# How much closer to an unsafe than to a safe prototype counts as full evidence.
EMBEDDING_MARGIN = 0.12

_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d * 2 > 9 else d * 2
        total += d
    return total % 10 == 0


def card_numbers(text: str) -> list[str]:
    found = []
    for match in _CARD.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and luhn_valid(digits) and len(set(digits)) > 1:
            found.append(digits)
    return found


@dataclass(frozen=True)
class _CompiledCategory:
    category: Category
    rules: tuple[tuple[tuple[re.Pattern[str], ...], float], ...]
    mitigations: tuple[re.Pattern[str], ...]
    # Any rule's first pattern: most texts match none, and then no rule can fire.
    prefilter: re.Pattern[str]


def _compile(category: Category) -> _CompiledCategory:
    flags = re.IGNORECASE | re.DOTALL
    rules = tuple(
        (tuple(re.compile(p, flags) for p in rule.patterns), rule.weight)
        for rule in category.rules
    )
    prefilter = re.compile("|".join(f"(?:{rule.patterns[0]})" for rule in category.rules),
                           flags)
    return _CompiledCategory(category, rules, tuple(re.compile(p, flags)
                                                    for p in category.mitigations), prefilter)


class LexiconSafetyScorer:
    """Rules + prototype similarity per category; r_s is the riskiest category's score."""

    name = "lexicon-v1"

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder
        self._compiled = tuple(_compile(c) for c in CATEGORIES)
        self._lock = threading.Lock()
        self._prototypes: tuple[list[npt.NDArray[np.float32]],
                                list[npt.NDArray[np.float32]]] | None = None

    def _embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        embedder = self._embedder or get_embedder()
        out: npt.NDArray[np.float32] = embedder.embed(texts).astype(np.float32)
        return out

    def _prototype_matrices(self) -> tuple[list[npt.NDArray[np.float32]],
                                           list[npt.NDArray[np.float32]]]:
        with self._lock:
            if self._prototypes is None:
                unsafe = [self._embed(list(c.unsafe_prototypes)) for c in CATEGORIES]
                safe = [self._embed(list(c.safe_prototypes)) for c in CATEGORIES]
                self._prototypes = (unsafe, safe)
            return self._prototypes

    def rule_evidence(self, text: str) -> list[tuple[float, bool]]:
        """Per category: the noisy-OR of the rules that fire, and whether a mitigation (the
        safe version of the topic) is present."""
        out = []
        cards = bool(card_numbers(text))
        for compiled in self._compiled:
            keep = 1.0
            if compiled.prefilter.search(text):
                for patterns, weight in compiled.rules:
                    if all(p.search(text) for p in patterns):
                        keep *= 1.0 - weight
            if compiled.category.name == "personal_data" and cards:
                keep *= 1.0 - CARD_NUMBER_WEIGHT
            mitigated = any(m.search(text) for m in compiled.mitigations)
            out.append((1.0 - keep, mitigated))
        return out

    def assess(self, prompt: str, candidates: Sequence[str]) -> list[SafetyAssessment]:
        if not candidates:
            return []
        unsafe, safe = self._prototype_matrices()
        emb = self._embed(list(candidates))
        results = []
        for row, text in enumerate(candidates):
            rules = self.rule_evidence(text)
            best, best_category = 0.0, None
            for i, compiled in enumerate(self._compiled):
                evidence, mitigated = rules[i]
                near_unsafe = float((unsafe[i] @ emb[row]).max())
                near_safe = float((safe[i] @ emb[row]).max()) if len(safe[i]) else -1.0
                closeness = _ramp(near_unsafe, EMBEDDING_FLOOR, EMBEDDING_FULL)
                margin = _ramp(near_unsafe - near_safe, 0.0, EMBEDDING_MARGIN)
                similarity = EMBEDDING_SHARE * closeness * margin
                risk = 1.0 - (1.0 - evidence) * (1.0 - similarity)
                if mitigated:
                    risk *= 1.0 - compiled.category.mitigation_strength
                if risk > best:
                    best, best_category = risk, compiled.category.name
            results.append(SafetyAssessment(round(best, 6),
                                            best_category if best >= 0.05 else None))
        return results


def _ramp(x: float, low: float, high: float) -> float:
    return min(1.0, max(0.0, (x - low) / (high - low)))


# Llama Guard 3 hazard codes.
LLAMA_GUARD_CATEGORIES = {
    "S1": "violent_crimes", "S2": "non_violent_crimes", "S3": "sex_related_crimes",
    "S4": "child_sexual_exploitation", "S5": "defamation", "S6": "specialized_advice",
    "S7": "privacy", "S8": "intellectual_property", "S9": "indiscriminate_weapons",
    "S10": "hate", "S11": "suicide_and_self_harm", "S12": "sexual_content",
    "S13": "elections", "S14": "code_interpreter_abuse",
}


class HttpSafetyScorer:
    """A Llama Guard-class model over an OpenAI-compatible `/v1/chat/completions`."""

    name = "llama-guard-http"

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 timeout_s: float = 10.0, client: httpx.Client | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(timeout=timeout_s)

    def _one(self, prompt: str, candidate: str) -> SafetyAssessment:
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt},
                         {"role": "assistant", "content": candidate}],
            "max_tokens": 12,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": 5,
        }
        try:
            response = self._client.post(f"{self.base_url}/v1/chat/completions", json=body,
                                         headers=self._headers)
            response.raise_for_status()
            choice = response.json()["choices"][0]
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
            raise SafetyUnavailable("the safety classifier did not answer") from exc
        return parse_guard_verdict(choice)

    def assess(self, prompt: str, candidates: Sequence[str]) -> list[SafetyAssessment]:
        return [self._one(prompt, c) for c in candidates]


def parse_guard_verdict(choice: dict[str, Any]) -> SafetyAssessment:
    """`safe` / `unsafe\\nS1,S7` → a risk (P(unsafe) from logprobs when given) and category."""
    content = str(choice.get("message", {}).get("content") or "").strip()
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    if not lines or lines[0].lower() not in ("safe", "unsafe"):
        raise SafetyUnavailable("the safety classifier returned no verdict")
    unsafe = lines[0].lower() == "unsafe"
    category = None
    if unsafe and len(lines) > 1:
        code = lines[1].split(",")[0].strip().upper()
        category = LLAMA_GUARD_CATEGORIES.get(code, code.lower())
    risk = 1.0 if unsafe else 0.0
    tokens = ((choice.get("logprobs") or {}).get("content") or [])
    if tokens:
        first = tokens[0]
        options = {str(t.get("token", "")).strip().lower(): float(t.get("logprob", -1e9))
                   for t in first.get("top_logprobs") or [first]}
        p_unsafe = math.exp(options["unsafe"]) if "unsafe" in options else None
        p_safe = math.exp(options["safe"]) if "safe" in options else None
        if p_unsafe is not None and p_safe is not None:
            risk = p_unsafe / (p_unsafe + p_safe)
        elif p_unsafe is not None:
            risk = p_unsafe
        elif p_safe is not None:
            risk = 1.0 - p_safe
    return SafetyAssessment(round(risk, 6), category)


def build_safety_scorer(settings: Settings) -> SafetyScorer:
    if settings.safety_scorer == "llama_guard_http":
        if not settings.safety_http_url:
            raise SafetyUnavailable("CAPTURE_SAFETY_HTTP_URL is not set")
        return HttpSafetyScorer(settings.safety_http_url, settings.safety_http_model,
                                api_key=settings.safety_http_api_key,
                                timeout_s=settings.safety_http_timeout_s)
    return LexiconSafetyScorer()


@lru_cache(maxsize=1)
def get_safety_scorer() -> SafetyScorer:
    return build_safety_scorer(get_settings())
