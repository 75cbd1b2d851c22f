"""The audit decoder's contract: re-decode one turn with a given memory set."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

# What the decoder reads of one memory (`app.selection.memory.Memory` in the service).
MemoryT = TypeVar("MemoryT", contravariant=True)


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str
    # Index of the chosen candidate (selection decoders); None for generated text or a refusal.
    index: int | None = None
    refused: bool = False
    # Candidates the decoder could not tell from the chosen one (exact ties; selection
    # decoders only): the output is the set {index, *ties}, not determined by the memories.
    ties: tuple[int, ...] = ()

    def options(self, candidates: Sequence[str]) -> list[str]:
        """The texts this output may be: the chosen one, then any tied candidates."""
        return [self.text, *(candidates[i] for i in self.ties)]


class AuditDecoder(Protocol[MemoryT]):
    """Re-decodes the turn with a given memory set. Implementations: workers/audit/."""

    name: str

    def decode_many(self, prompt: str, memory_sets: Sequence[Sequence[MemoryT]],
                    candidates: Sequence[str]) -> list[Decoded]:
        """One output per memory set, in order; deterministic (greedy)."""
        ...
