"""The learned extractor at run time: numpy only (no torch on the write path's stage ②).

    text → [MiniLM (cached, shared with the gate) ‖ origin ‖ rule-reader cues
            ‖ MiniLM of the kept side ‖ of the rejected side ‖ rejected?]
         → trunk → heads → Hypothesis | abstain

Where the weights were trained on typo-repaired text (version 6 on), the heads read the text
after `app/extraction/spelling.py` has put the nearest lexicon word in place of each unknown
word ("Updqte: tabls from here on." → "Update: tables from here on."); the rule reader's cues
and the kept / rejected sides come from the repaired text too, and an open claim keeps the
user's own words.

A text that names a replaced value ("X instead of Y", "moving from Y to X") is split into its
kept and rejected sides (`segments.py`); the two sides are embedded in one more batched call.

Protected attributes are refused twice: an event whose text touches a protected category is
not read at all, and the Hypothesis schema refuses any claim that would persist one.
"""

from __future__ import annotations

import dataclasses
import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from app.core.embeddings import Embedder, get_embedder
from app.domain.claims import Extraction, Hypothesis, ProtectedAttributeError, protected_category
from app.domain.extractor import EventInput
from app.extraction.deterministic import DeterministicExtractor, claim_text
from app.extraction.open_claims import open_hypothesis, open_refusal
from app.extraction.spelling import Speller, load_speller
from app.extraction.taxonomy import DIMENSIONS
from workers.common import npmlp
from workers.common.weights import digest, load_npz
from workers.device import resolve_device
from workers.extraction.contrast import contrast_claim, named_other_claim, unclear_side_claim
from workers.extraction.revision_side import WEIGHTS as SIDE_WEIGHTS
from workers.extraction.revision_side import load_revision_side, value_spans
from workers.extraction.segments import split_sides
from workers.extraction.vocab import (
    CLAIMS,
    DIRECTIONS,
    INPUT_PARTS,
    OPEN_CLAIM,
    SCOPES,
    TIMESCALES,
    cue_features,
    origin_one_hot,
)

log = logging.getLogger(__name__)

WEIGHTS = Path(__file__).parent / "weights" / "extractor.npz"
MAX_TEXT_CHARS = 4_000  # MiniLM reads 256 tokens; the rest would not be seen anyway
_DIMENSIONS = {d.name: d for d in DIMENSIONS}

Array = npt.NDArray[np.float32]
# Where a text names the held value and another, P(the other is wanted) from the words around
# each (`revision_side.py`) turns the read at SIDE_TURN and asks a policy that asks from
# SIDE_ASK. SIDE_TURN was chosen on the held-out authored frames and the train split, SIDE_ASK
# on the first blind frames (docs/models/extractor.md).
SIDE_TURN = 0.8
SIDE_ASK = 0.1


class ExtractorHeads:
    """The forward pass over loaded weights: one network, or an ensemble whose members'
    arrays are stored as `member<k>/<name>` and whose probabilities are averaged. In numpy,
    or in torch on a worker's GPU (`device`, from CAPTURE_WORKER_DEVICE): numpy in and out
    either way."""

    def __init__(self, arrays: dict[str, Array], meta: dict[str, object],
                 device: str = "cpu") -> None:
        self.arrays = arrays
        self.meta = meta
        self.device = device
        threshold = meta.get("abstain_threshold", 0.5)
        self.threshold = float(threshold) if isinstance(threshold, int | float) else 0.5
        self.members = split_members(arrays)
        # Weights from before the kept/rejected sides (model version 1) still load.
        self.legacy = "side.weight" not in self.members[0]
        self._ops: Any = npmlp
        self._params: list[Any] = list(self.members)
        if device != "cpu":
            import torch

            from workers.common import torchmlp

            self._ops = torchmlp
            self._params = [{k: torch.from_numpy(v).to(device) for k, v in member.items()}
                            for member in self.members]

    def forward(self, x: Array) -> dict[str, Array]:
        """x (N, 1213) → has_preference (N,) probabilities and per-field (N, n) probabilities,
        averaged over the members."""
        outs = [self._run(member, x) for member in self._params]
        if len(outs) == 1:
            return outs[0]
        return {name: np.mean([o[name] for o in outs], axis=0) for name in outs[0]}

    def _run(self, params: Any, x: Array) -> dict[str, Array]:
        if self.device == "cpu":
            return self._forward(params, x)
        import torch

        with torch.no_grad():
            out = self._forward(params, torch.from_numpy(np.ascontiguousarray(x))
                                .to(self.device))
        return {name: value.to("cpu").numpy() for name, value in out.items()}

    def _forward(self, arrays: Any, x: Any) -> dict[str, Any]:
        ops = self._ops
        base, kept, rejected, has_rejected = (x[:, part] for part in INPUT_PARTS)
        z = ops.relu(ops.linear(arrays, "trunk1", base))  # (N, H)
        z = ops.relu(ops.linear(arrays, "trunk2", z))  # (N, H)
        logits = {
            name: ops.linear(arrays, f"heads.{name}", z)
            for name in ("direction", "scope", "timescale")
        }
        if self.legacy:  # version-1 weights: the claim from the trunk alone
            logits["claim"] = ops.linear(arrays, "heads.claim", z)
        else:
            sides = [ops.relu(ops.linear(arrays, "side", s)) for s in (kept, rejected)]
            claim_in = ops.concatenate([z, *sides, has_rejected], axis=1)  # (N, H + 2S + 1)
            logits["claim"] = (
                ops.linear(arrays, "heads.claim", claim_in)
                + ops.linear(arrays, "probe_kept", kept)
                + ops.linear(arrays, "probe_rejected", rejected)
            )
        out = {name: ops.softmax(value) for name, value in logits.items()}
        out["has_preference"] = ops.sigmoid(ops.linear(arrays, "has_preference", z)[:, 0])
        return out


def join_members(members: list[dict[str, Array]]) -> dict[str, Array]:
    """One array dict holding every member (a single network keeps its plain names)."""
    if len(members) == 1:
        return members[0]
    return {
        f"member{k}/{name}": array
        for k, arrays in enumerate(members)
        for name, array in arrays.items()
    }


def split_members(arrays: dict[str, Array]) -> list[dict[str, Array]]:
    if not any(name.startswith("member") and "/" in name for name in arrays):
        return [arrays]
    members: dict[int, dict[str, Array]] = {}
    for name, array in arrays.items():
        prefix, _, rest = name.partition("/")
        members.setdefault(int(prefix.removeprefix("member")), {})[rest] = array
    return [members[k] for k in sorted(members)]


def _hypothesis(
    probs: dict[str, Array], row: int, event: EventInput, claim_index: int,
    side_unclear: bool = False,
) -> Hypothesis | None:
    direction = DIRECTIONS[int(np.argmax(probs["direction"][row]))]
    timescale = TIMESCALES[int(np.argmax(probs["timescale"][row]))]
    confidence = float(probs["has_preference"][row]) * float(probs["claim"][row, claim_index])
    confidence = round(min(0.99, max(0.05, confidence)), 3)
    if claim_index == OPEN_CLAIM:
        text = event.text[:MAX_TEXT_CHARS] if isinstance(event.text, str) else ""
        return open_hypothesis(text, event.origin, direction, timescale, confidence)
    dimension_name, value = CLAIMS[claim_index]
    dimension = _DIMENSIONS[dimension_name]
    scope = SCOPES[int(np.argmax(probs["scope"][row]))]
    if scope == dimension.home_scope:
        scope = SCOPES[0]
    try:
        return Hypothesis(
            claim=claim_text(dimension, value, direction, scope, timescale),
            subject=dimension_name,
            value=value,
            direction=direction,
            scope=scope,
            timescale=timescale,
            confidence=confidence,
            provenance=event.origin,
            side_unclear=side_unclear,
        )
    except (ProtectedAttributeError, ValidationError):
        return None


class LearnedExtractor:
    """MLP heads over MiniLM embeddings; at most one hypothesis per event, or an abstention."""

    name = "learned"
    reads_held = True  # a revision's contrast is read against the values the user holds

    def __init__(self, weights: Path = WEIGHTS, embedder: Embedder | None = None,
                 revision_side: Path | None = SIDE_WEIGHTS, device: str = "cpu") -> None:
        self._embedder = embedder
        self._rules = DeterministicExtractor()
        arrays, meta = load_npz(weights)
        self.heads = ExtractorHeads(arrays, meta, device)
        self.version = f"{meta.get('model_version', '1')}+{digest(weights)}"
        # The revision-side score reads only the embedder, so any heads use the shipped one
        # (the rule is off where `revision_side` is None or names no file); its digest joins
        # the version.
        self._revision_side = None if revision_side is None else load_revision_side(
            revision_side)
        if self._revision_side is not None:
            self.version += f"-side{self._revision_side.version}"
        # Weights trained on typo-repaired text name their lexicon, a file beside them.
        lexicon = meta.get("lexicon")
        self.speller: Speller | None = None
        if isinstance(lexicon, str):
            self.speller = load_speller(weights.parent / lexicon)
            self.version += f"-{digest(weights.parent / lexicon)}"

    @property
    def embedder(self) -> Embedder:
        return self._embedder or get_embedder()

    def reading(self, text: str) -> str:
        """What the heads read of a text: its typo repair, where the weights learned on one."""
        return self.speller.normalize(text) if self.speller is not None else text

    def _refused(self, text: str, read: str) -> bool:
        """A protected category in the text as written or as repaired ("diabetis")."""
        return protected_category(text) is not None or (
            read != text and protected_category(read) is not None
        )

    def _abstain(self, reason: str) -> Extraction:
        return Extraction(
            extractor=self.name, extractor_version=self.version, abstain_reason=reason
        )

    def extract(self, event: EventInput) -> Extraction:
        try:
            return self._extract(event)
        except Exception:  # the Extractor contract: odd text never fails the pipeline
            log.exception("learned extraction failed")
            return self._abstain("internal_error")

    def _extract(self, event: EventInput) -> Extraction:
        text = event.text[:MAX_TEXT_CHARS] if isinstance(event.text, str) else ""
        if not text.strip():
            return self._abstain("empty")
        read = self.reading(text)
        if self._refused(text, read):
            return self._abstain("protected_attribute")
        sides = split_sides(read)
        embedder = self.embedder
        if sides.has_rejected:
            # (3, 384): the text, its kept side, its rejected side, in one batch.
            embedding, kept, rejected = np.split(
                embedder.embed([read, sides.kept, sides.rejected]), 3
            )
        else:
            embedding = embedder.embed([read])  # (1, 384)
            kept, rejected = embedding, np.zeros_like(embedding)
        cues = cue_features(self._rules.extract(dataclasses.replace(event, text=read)).hypotheses)
        x = np.concatenate(
            [
                embedding,
                np.asarray([origin_one_hot(event.origin)], dtype=np.float32),
                np.asarray([cues], dtype=np.float32),
                kept,
                rejected,
                np.asarray([[1.0 if sides.has_rejected else 0.0]], dtype=np.float32),
            ],
            axis=1,
        ).astype(np.float32)  # (1, 1213)
        return self.extract_from_probabilities(self.heads.forward(x), x, 0, event)

    def extract_rows(self, events: list[EventInput], x: Array) -> list[Extraction]:
        """Batch form of `extract` over precomputed features x (N, 1213) of the texts as
        `reading` gives them (`dataset.build_rows(..., read=extractor.reading)`)."""
        probs = self.heads.forward(x)
        out = []
        for row, event in enumerate(events):
            text = event.text[:MAX_TEXT_CHARS]
            if not event.text.strip():
                out.append(self._abstain("empty"))
            elif self._refused(text, self.reading(text)):
                out.append(self._abstain("protected_attribute"))
            else:
                out.append(self.extract_from_probabilities(probs, x, row, event))
        return out

    def extract_from_probabilities(
        self, probs: dict[str, Array], x: Array, row: int, event: EventInput
    ) -> Extraction:
        """The hypothesis of row `row` of the heads' output `probs` over features `x`."""
        if float(probs["has_preference"][row]) < self.heads.threshold:
            return self._abstain("no_preference")
        claim_index = int(np.argmax(probs["claim"][row]))
        side_unclear = False
        if event.held:
            rejected = x[row, INPUT_PARTS[2]]  # (384,): the rejected stretch, zeros if none
            contrast = contrast_claim(probs["claim"][row], rejected, event.origin, event.held)
            if contrast is not None:
                claim_index = contrast
            else:
                claim_index, side_unclear = self._side(probs["claim"][row], rejected, event,
                                                       claim_index)
        hypothesis = _hypothesis(probs, row, event, claim_index, side_unclear)
        if hypothesis is None:
            # The schema refused it (a protected attribute), or the text cannot be kept as an
            # open claim (a document, or it holds an address).
            refusal = (open_refusal(event.text[:MAX_TEXT_CHARS])
                       if claim_index == OPEN_CLAIM else None)
            return self._abstain(refusal or "protected_attribute")
        return Extraction(
            hypotheses=(hypothesis,), extractor=self.name, extractor_version=self.version
        )

    def _side(self, claim: Array, rejected: Array, event: EventInput,
              read: int) -> tuple[int, bool]:
        """(claim class, side_unclear) where the contrast rule left the heads' read. Where the
        heads read a value the user holds and the text names another of its dimension, the
        words around each decide (`revision_side.py`), p = P(the other is wanted): the other
        when p ≥ SIDE_TURN, a question about it from SIDE_ASK for a policy that asks, else
        the read. Where the text names no other value, a policy that asks is asked when the
        heads split their mass (`contrast.unclear_side_claim`)."""
        side = self._revision_side
        if side is not None:
            read_text: list[str] = []  # the repaired text, made only when spans are asked for

            def spans(dimension: str) -> dict[str, list[tuple[int, int]]]:
                read_text.append(self.reading(event.text[:MAX_TEXT_CHARS]).lower())
                return value_spans(read_text[-1], dimension)

            named = named_other_claim(claim, event.origin, event.held, spans)
            if named is not None:
                other, held_span, other_span = named
                p = side.p_other_wanted(self.embedder, read_text[-1], held_span, other_span)
                if p >= SIDE_TURN:
                    return other, False
                if event.asks and p >= SIDE_ASK:
                    return other, True
                return read, False
        if event.asks:
            unclear = unclear_side_claim(claim, rejected, event.origin, event.held)
            if unclear is not None:
                return unclear, True
        return read, False


@lru_cache(maxsize=2)
def load_extractor(weights: Path = WEIGHTS) -> LearnedExtractor:
    """The extractor on the worker's device (CAPTURE_WORKER_DEVICE; numpy on the CPU)."""
    return LearnedExtractor(weights, device=resolve_device())
