"""The red-team benchmark's sealed sets: splits of families of their own, kept out of dev and
test and out of each other, each read once, at the end of a piece of work.

`SETS` names them; each has a call module and, unless it is a call-only set, a memory module
(every family's description, a memory family's channels, and `cases(seed, per_family)`) and
a committed digest:

- `sealed`: `sealed_memory.py`, `sealed_calls.py`, digest in `sealed.sha256`.
- `sealed2`: `sealed2_memory.py`, `sealed2_calls.py`, digest in `sealed2.sha256`. Its
  families share no family, sentence or five-word run with dev, test or `sealed`
  (`tests/bench/test_redteam_sealed2.py`).
- `sealed3`: `sealed3_memory.py`, `sealed3_calls.py`, digest in `sealed3.sha256`. Its
  families share no family, sentence or five-word run with dev, test, `sealed` or `sealed2`
  (`tests/bench/test_redteam_sealed3.py`).
- `sealed4`: call families only, `sealed4_calls.py`, digest in `sealed4.sha256`. Its
  families share no family, sentence or five-word run with dev, test, `sealed`, `sealed2`
  or `sealed3` (`tests/bench/test_redteam_sealed4.py`); a run of it has no memory cases.

What pins a set is the SHA-256 of its definitions as generated: every family's description
and channels and every case (texts, origins, targets, steps, tools, arguments,
declarations) at the canonical seed and size, as canonical JSON; a call-only set's are its
call families and cases. A run of a sealed set refuses definitions whose digest differs
from the committed one, so a later edit of a sealed family (or of anything that renders it)
shows as a changed hash in review.

Protocol: nobody runs a sealed set, or looks at a case's outcome on it, while working on the
defences it judges. The lead reads it once, at the end, with `capture bench redteam --split
NAME --unseal`, and the figures go to docs/RESULTS.md with their commit. After that read it
is no longer a clean judge: fixes for what it found are measured on dev families of their
own, and a further clean read needs a further sealed set (a new entry in `SETS` with modules
and a digest of its own).

    python -m bench.redteam.sealed            # every set's digest, and whether it is committed
    python -m bench.redteam.sealed --set sealed2 --dump var/sealed2-definitions.json
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.redteam import (
    sealed2_calls,
    sealed2_memory,
    sealed3_calls,
    sealed3_memory,
    sealed4_calls,
    sealed_calls,
    sealed_memory,
)

# The generation the digest is taken of (a run may use another seed or size).
CANONICAL_SEED = 0
CANONICAL_PER_FAMILY = 12


@dataclass(frozen=True)
class SealedSet:
    """One sealed set: its memory module (None for a call-only set), its call module, and
    where its digest is committed."""

    memory: ModuleType | None
    calls: ModuleType
    hash_file: Path


SETS: dict[str, SealedSet] = {
    "sealed": SealedSet(sealed_memory, sealed_calls, Path(__file__).with_name("sealed.sha256")),
    "sealed2": SealedSet(sealed2_memory, sealed2_calls,
                         Path(__file__).with_name("sealed2.sha256")),
    "sealed3": SealedSet(sealed3_memory, sealed3_calls,
                         Path(__file__).with_name("sealed3.sha256")),
    "sealed4": SealedSet(None, sealed4_calls, Path(__file__).with_name("sealed4.sha256")),
}


class SealedSplitChangedError(RuntimeError):
    """The sealed families as defined now are not the ones whose hash was committed."""


def definitions_name(name: str) -> str:
    return f"{name}-definitions.json"


def definitions(name: str, seed: int = CANONICAL_SEED,
                per_family: int = CANONICAL_PER_FAMILY) -> dict[str, Any]:
    """The set's families and the cases they generate, as plain JSON values (a call-only
    set has no `memory` part)."""
    s = SETS[name]
    out: dict[str, Any] = {}
    if s.memory is not None:
        out["memory"] = {
            "families": s.memory.FAMILIES,
            "channels": {f: list(c) for f, c in s.memory.CHANNELS.items()},
            "cases": [dataclasses.asdict(c) for c in s.memory.cases(seed, per_family)],
        }
    out["call"] = {
        "families": s.calls.FAMILIES,
        "cases": [dataclasses.asdict(c) for c in s.calls.cases(seed, per_family)],
    }
    return out


def definition_bytes(name: str) -> bytes:
    """The canonical definitions as hashed: sorted keys, UTF-8, one line per case."""
    return (json.dumps(definitions(name), ensure_ascii=False, sort_keys=True, indent=0)
            + "\n").encode("utf-8")


def digest(name: str) -> str:
    return hashlib.sha256(definition_bytes(name)).hexdigest()


def committed_sha256(name: str) -> str:
    """The set's digest committed beside this module (`sha256sum` format)."""
    return SETS[name].hash_file.read_text(encoding="utf-8").split()[0]


def ensure_sealed(name: str) -> str:
    """The set's committed digest, once its definitions are checked to match it."""
    expected, actual = committed_sha256(name), digest(name)
    if actual != expected:
        raise SealedSplitChangedError(
            f"the sealed red-team set {name} hashes to {actual}, not the committed "
            f"{expected} ({SETS[name].hash_file.name}); a family of the set or what renders "
            "it changed since the set was sealed")
    return expected


def main() -> None:
    parser = argparse.ArgumentParser(description="The sealed red-team sets' digests.")
    parser.add_argument("--set", choices=sorted(SETS), dest="name",
                        help="only this set (default: every set)")
    parser.add_argument("--dump", type=Path,
                        help="with --set: also write the set's definitions there")
    ns = parser.parse_args()
    if ns.dump and not ns.name:
        parser.error("--dump needs --set")
    for name in [ns.name] if ns.name else list(SETS):
        if ns.dump:
            ns.dump.write_bytes(definition_bytes(name))
        actual = digest(name)
        print(f"{actual}  {definitions_name(name)}")
        print(json.dumps({"set": name, "matches_committed": actual == committed_sha256(name)}))


if __name__ == "__main__":
    main()
