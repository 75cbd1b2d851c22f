"""The red-team benchmark's sealed split: families of their own (`sealed_memory.py`,
`sealed_calls.py`), kept out of dev and test, read once at the end of a piece of work.

What pins it is the SHA-256 of its definitions as generated: every family's description and
channels and every case (texts, origins, targets, steps, tools, arguments, declarations) at
the canonical seed and size, as canonical JSON. The digest is committed in `sealed.sha256`;
a run of the sealed split refuses definitions whose digest differs, so a later edit of a
sealed family (or of anything that renders it) shows as a changed hash in review.

Protocol: nobody runs the split, or looks at a case's outcome on it, while working on the
defences it judges. The lead reads it once, at the end, with
`capture bench redteam --split sealed --unseal`, and the figures go to docs/RESULTS.md with
their commit. After that read it is no longer a clean judge: fixes for what it found are
measured on dev families of their own, and a further clean read needs a further sealed set.

    python -m bench.redteam.sealed            # the digest, and whether it is the committed one
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from bench.redteam import sealed_calls, sealed_memory

SEALED_HASH_FILE = Path(__file__).with_name("sealed.sha256")
DEFINITIONS_NAME = "sealed-definitions.json"
# The generation the digest is taken of (a run may use another seed or size).
CANONICAL_SEED = 0
CANONICAL_PER_FAMILY = 12


class SealedSplitChangedError(RuntimeError):
    """The sealed families as defined now are not the ones whose hash was committed."""


def definitions(seed: int = CANONICAL_SEED,
                per_family: int = CANONICAL_PER_FAMILY) -> dict[str, Any]:
    """The sealed families and the cases they generate, as plain JSON values."""
    return {
        "memory": {
            "families": sealed_memory.FAMILIES,
            "channels": {f: list(c) for f, c in sealed_memory.CHANNELS.items()},
            "cases": [dataclasses.asdict(c) for c in sealed_memory.cases(seed, per_family)],
        },
        "call": {
            "families": sealed_calls.FAMILIES,
            "cases": [dataclasses.asdict(c) for c in sealed_calls.cases(seed, per_family)],
        },
    }


def definition_bytes() -> bytes:
    """The canonical definitions as hashed: sorted keys, UTF-8, one line per case."""
    return (json.dumps(definitions(), ensure_ascii=False, sort_keys=True, indent=0)
            + "\n").encode("utf-8")


def digest() -> str:
    return hashlib.sha256(definition_bytes()).hexdigest()


def committed_sha256() -> str:
    """The digest committed beside this module (`sha256sum` format)."""
    return SEALED_HASH_FILE.read_text(encoding="utf-8").split()[0]


def ensure_sealed() -> str:
    """The committed digest, once the definitions are checked to match it."""
    expected, actual = committed_sha256(), digest()
    if actual != expected:
        raise SealedSplitChangedError(
            f"the sealed red-team families hash to {actual}, not the committed {expected} "
            f"({SEALED_HASH_FILE.name}); a sealed family or what renders it changed since "
            "the split was sealed")
    return expected


def main() -> None:
    parser = argparse.ArgumentParser(description="The sealed red-team split's digest.")
    parser.add_argument("--dump", type=Path,
                        help=f"also write the definitions ({DEFINITIONS_NAME}) there")
    ns = parser.parse_args()
    if ns.dump:
        ns.dump.write_bytes(definition_bytes())
    actual = digest()
    print(f"{actual}  {DEFINITIONS_NAME}")
    print(json.dumps({"matches_committed": actual == committed_sha256()}))


if __name__ == "__main__":
    main()
