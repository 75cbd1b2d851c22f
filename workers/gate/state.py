"""The per-user gate latent as bytes (GateState.latent), versioned.

    b"CAPG" | format (1 byte) | len(version) (1 byte) | model version (ascii) | npz payload

The payload holds h (or, for the transformer, its encoded history), the memory of the
laundering signal (recent untrusted-channel events, and user events whose claim the gate
held back), and the inputs of the event being processed (so `decide`
reads exactly what `advance` computed). A latent whose header names another model version
— or that does not parse — is never read: `decode` returns None and the policy starts from
its initial state (the ledger itself is kept; only the belief restarts).
"""

from __future__ import annotations

import io
import uuid
import zipfile
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from workers.gate.laundering import SKETCH_SIZE, UntrustedMemory

MAGIC = b"CAPG"
FORMAT = 1
Array = npt.NDArray[np.float32]


@dataclass(slots=True)
class GateLatent:
    h: Array  # (latent,) for the recurrent gates; (0,) for the transformer
    history: Array  # (m, event_hidden) encoded past events (transformer); (0, 0) otherwise
    memory: UntrustedMemory = field(default_factory=UntrustedMemory)
    event_id: uuid.UUID | None = None  # the event whose inputs follow
    scalars: Array = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    embedding: Array = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    # The event's word 3-gram sketch: remembered as distrusted if the gate holds its claim.
    sketch: npt.NDArray[np.uint32] = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))


def encode(latent: GateLatent, model_version: str) -> bytes:
    version = model_version.encode("ascii")
    if len(version) > 255:
        raise ValueError("model version too long")
    memory = latent.memory
    n = len(memory.days)
    sketches = np.zeros((n, SKETCH_SIZE), dtype=np.uint32)
    sketch_lengths = np.zeros(n, dtype=np.int16)
    for i, s in enumerate(memory.sketches):
        sketches[i, : len(s)] = s
        sketch_lengths[i] = len(s)
    buffer = io.BytesIO()
    np.savez(
        buffer,
        h=latent.h.astype(np.float32),
        history=latent.history.astype(np.float32),
        memory_days=np.asarray(memory.days, dtype=np.float64),
        memory_sketches=sketches,
        memory_sketch_lengths=sketch_lengths,
        memory_embeddings=(
            np.stack(memory.embeddings).astype(np.float16) if n else np.zeros((0, 0), np.float16)
        ),
        event_id=np.frombuffer(
            latent.event_id.bytes if latent.event_id else b"\0" * 16, dtype=np.uint8
        ),
        scalars=latent.scalars.astype(np.float32),
        embedding=latent.embedding.astype(np.float16),
        sketch=latent.sketch.astype(np.uint32),
    )
    return MAGIC + bytes([FORMAT, len(version)]) + version + buffer.getvalue()


def header_version(data: bytes) -> str | None:
    if len(data) < 6 or data[:4] != MAGIC or data[4] != FORMAT:
        return None
    length = data[5]
    try:
        return data[6 : 6 + length].decode("ascii")
    except UnicodeDecodeError:
        return None


def decode(data: bytes | None, model_version: str) -> GateLatent | None:
    """The latent, or None when absent, unreadable, or written by another model version."""
    if not data or header_version(data) != model_version:
        return None
    offset = 6 + data[5]
    try:
        with np.load(io.BytesIO(data[offset:]), allow_pickle=False) as payload:
            n = len(payload["memory_days"])
            lengths = payload["memory_sketch_lengths"]
            memory = UntrustedMemory(
                days=[float(d) for d in payload["memory_days"]],
                sketches=[
                    payload["memory_sketches"][i, : int(lengths[i])].copy() for i in range(n)
                ],
                embeddings=[payload["memory_embeddings"][i].astype(np.float32) for i in range(n)],
            )
            raw_id = bytes(payload["event_id"])
            return GateLatent(
                h=payload["h"].astype(np.float32),
                history=payload["history"].astype(np.float32),
                memory=memory,
                event_id=None if raw_id == b"\0" * 16 else uuid.UUID(bytes=raw_id),
                scalars=payload["scalars"].astype(np.float32),
                embedding=payload["embedding"].astype(np.float32),
                sketch=payload["sketch"].astype(np.uint32),
            )
    except (ValueError, KeyError, OSError, EOFError, zipfile.BadZipFile):
        return None
