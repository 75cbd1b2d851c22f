"""The per-user gate latent as bytes (GateState.latent), versioned.

    b"CAPG" | format (1 byte) | len(version) (1 byte) | model version (ascii) | payload

The payload holds h (or, for the transformer, its encoded history), the memory of the
laundering signal (recent untrusted-channel events, and user events whose claim the gate
held back), and the inputs of the event being processed (so `decide`
reads exactly what `advance` computed). A latent whose header names another model version
— or that does not parse — is never read: `decode` returns None and the policy starts from
its initial state (the ledger itself is kept; only the belief restarts).
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from app.models.base import EMBEDDING_DIM
from workers.gate.laundering import SKETCH_SIZE, UntrustedMemory

MAGIC = b"CAPG"
# 2: each remembered passage says whether it came on an untrusted channel. A latent of
# another format is not read (the belief and the laundering memory restart; the ledger stays).
FORMAT = 2
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


def _array(values: npt.NDArray[Any], dtype: str) -> bytes:
    flat = np.ascontiguousarray(values, dtype=dtype).reshape(-1)
    return struct.pack("<I", flat.size) + flat.tobytes()


class _Reader:
    def __init__(self, data: bytes, offset: int) -> None:
        self.data, self.offset = data, offset

    def count(self) -> int:
        (value,) = struct.unpack_from("<I", self.data, self.offset)
        self.offset += 4
        return int(value)

    def array(self, dtype: str) -> npt.NDArray[Any]:
        n = self.count()
        size = np.dtype(dtype).itemsize * n
        if self.offset + size > len(self.data):
            raise ValueError("truncated latent")
        out = np.frombuffer(self.data, dtype=dtype, count=n, offset=self.offset).copy()
        self.offset += size
        return out

    def raw(self, size: int) -> bytes:
        if self.offset + size > len(self.data):
            raise ValueError("truncated latent")
        out = self.data[self.offset : self.offset + size]
        self.offset += size
        return out


def encode(latent: GateLatent, model_version: str) -> bytes:
    """Little-endian, length-prefixed arrays in a fixed order (fast: ~0.1 ms each way)."""
    version = model_version.encode("ascii")
    if len(version) > 255:
        raise ValueError("model version too long")
    memory = latent.memory
    n = len(memory.days)
    sketches = np.zeros((n, SKETCH_SIZE), dtype=np.uint32)
    lengths = np.zeros(n, dtype=np.uint16)
    for i, sketch in enumerate(memory.sketches):
        sketches[i, : len(sketch)] = sketch[:SKETCH_SIZE]
        lengths[i] = min(len(sketch), SKETCH_SIZE)
    embeddings = (
        np.stack(memory.embeddings) if n else np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
    )
    rows, cols = latent.history.shape if latent.history.ndim == 2 else (0, 0)
    parts = [
        MAGIC,
        bytes([FORMAT, len(version)]),
        version,
        _array(latent.h, "<f4"),
        struct.pack("<II", rows, cols),
        _array(latent.history, "<f4"),
        _array(np.asarray(memory.days), "<f8"),
        _array(lengths, "<u2"),
        _array(sketches, "<u4"),
        _array(embeddings, "<f2"),
        _array(np.asarray(memory.untrusted, dtype=np.uint8), "<u1"),
        latent.event_id.bytes if latent.event_id else b"\0" * 16,
        _array(latent.scalars, "<f4"),
        _array(latent.embedding, "<f2"),
        _array(latent.sketch, "<u4"),
    ]
    return b"".join(parts)


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
    reader = _Reader(data, 6 + data[5])
    try:
        h = reader.array("<f4")
        rows, cols = struct.unpack_from("<II", data, reader.offset)
        reader.offset += 8
        history = reader.array("<f4").reshape(rows, cols)
        days = reader.array("<f8")
        lengths = reader.array("<u2")
        n = len(days)
        sketches = reader.array("<u4").reshape(n, SKETCH_SIZE)
        flat = reader.array("<f2")
        embeddings = flat.reshape(n, -1) if n else flat.reshape(0, 0)
        untrusted = reader.array("<u1")
        if len(untrusted) != n:
            raise ValueError("memory flags do not match")
        raw_id = reader.raw(16)
        latent = GateLatent(
            h=h.astype(np.float32),
            history=history.astype(np.float32),
            memory=UntrustedMemory(
                days=[float(d) for d in days],
                sketches=[sketches[i, : int(lengths[i])].copy() for i in range(n)],
                embeddings=[embeddings[i].astype(np.float32) for i in range(n)],
                untrusted=[bool(u) for u in untrusted],
            ),
            event_id=None if raw_id == b"\0" * 16 else uuid.UUID(bytes=raw_id),
            scalars=reader.array("<f4").astype(np.float32),
            embedding=reader.array("<f2").astype(np.float32),
            sketch=reader.array("<u4").astype(np.uint32),
        )
    except (ValueError, struct.error):
        return None
    if reader.offset != len(data):
        return None
    return latent
