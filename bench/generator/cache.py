"""The generated benchmark on disk: generated once per seed under CAPTURE_VAR_DIR and reused
only while the seed and the generator's source and wording are unchanged (a stamp beside the
files says what generated them). The benchmarks and every training command read it through
here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from app.core.config import get_settings
from bench.generator.builder import generate
from bench.generator.schema import GENERATOR_VERSION

STAMP = "bench-stamp.json"  # beside the generated files: what generated them


def default_data_dir(seed: int) -> Path:
    var = get_settings().var_dir
    return var / "bench-data" if seed == 0 else var / f"bench-data-seed{seed}"


def generator_fingerprint() -> str:
    """sha256 over the generator's source and its authored wording (`data/`): a cached
    dataset is reused only when it matches."""
    digest = hashlib.sha256(str(GENERATOR_VERSION).encode())
    here = Path(__file__).parent
    for path in sorted([*here.glob("*.py"), *here.glob("data/*.yaml")]):
        digest.update(path.relative_to(here).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_dataset(data: Path | None, seed: int) -> Path:
    """The given data directory, or the generated one for `seed` (generated once, cached
    while the seed and the generator's source are unchanged)."""
    if data is not None:
        return data
    out = default_data_dir(seed)
    stamp = out / STAMP
    expected = {"seed": seed, "generator_sha256": generator_fingerprint()}
    if stamp.exists() and json.loads(stamp.read_text()) == expected:
        return out
    generate(out, seed)
    stamp.write_text(json.dumps(expected) + "\n")
    return out
