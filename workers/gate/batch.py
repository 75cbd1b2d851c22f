"""Padded tensors for a batch of replayed episodes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from app.models.base import EMBEDDING_DIM
from workers.gate.features import CONTEXT_FEATURES, EVENT_SCALARS, drop_provenance
from workers.gate.replay import IGNORE, GateSequence


@dataclass(frozen=True, slots=True)
class GateBatch:
    embeddings: torch.Tensor  # (B, T, 384)
    scalars: torch.Tensor  # (B, T, EVENT_SCALARS)
    dt_days: torch.Tensor  # (B, T), 0 on padding and first events
    lengths: torch.Tensor  # (B,)
    claims: torch.Tensor  # (B, T, 384), 0 where no hypothesis
    context: torch.Tensor  # (B, T, CONTEXT_FEATURES)
    labels: torch.Tensor  # (B, T) long, IGNORE where no hypothesis
    authentic: torch.Tensor  # (B, T), -1 where no hypothesis


def collate(sequences: Sequence[GateSequence], provenance: bool = True) -> GateBatch:
    batch = len(sequences)
    steps = max(len(s.steps) for s in sequences)
    embeddings = np.zeros((batch, steps, EMBEDDING_DIM), dtype=np.float32)
    scalars = np.zeros((batch, steps, EVENT_SCALARS), dtype=np.float32)
    dt = np.zeros((batch, steps), dtype=np.float32)
    claims = np.zeros((batch, steps, EMBEDDING_DIM), dtype=np.float32)
    context = np.zeros((batch, steps, CONTEXT_FEATURES), dtype=np.float32)
    labels = np.full((batch, steps), IGNORE, dtype=np.int64)
    authentic = np.full((batch, steps), -1.0, dtype=np.float32)
    lengths = np.zeros(batch, dtype=np.int64)
    for b, sequence in enumerate(sequences):
        n = len(sequence.steps)
        lengths[b] = n
        embeddings[b, :n] = sequence.embeddings[:n]
        for t, step in enumerate(sequence.steps):
            scalars[b, t] = step.scalars
            dt[b, t] = step.dt_days
            labels[b, t] = step.label
            authentic[b, t] = step.authentic
            if step.claim is not None and step.context is not None:
                claims[b, t] = step.claim
                context[b, t] = step.context
    if not provenance:
        scalars = drop_provenance(scalars)
    return GateBatch(
        embeddings=torch.from_numpy(embeddings),
        scalars=torch.from_numpy(scalars),
        dt_days=torch.from_numpy(dt),
        lengths=torch.from_numpy(lengths),
        claims=torch.from_numpy(claims),
        context=torch.from_numpy(context),
        labels=torch.from_numpy(labels),
        authentic=torch.from_numpy(authentic),
    )
