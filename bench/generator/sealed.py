"""The sealed test split: the generator's tracks and labels over wording written for it alone.

Its text (templates in two template families per intent, value and domain phrases, benign
topics, carriers, probe queries and candidates, the safety scenarios' riders and responses)
is authored in `data/sealed.yaml`, and none of it comes from the train/dev/test tables. Users
are drawn from their own seed. The SHA-256 of the generated `sealed.jsonl` is committed in
`sealed.sha256`; a generation whose bytes differ is not the sealed split. The protocol (who
reads it and when) is in README.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from app.core.corpora import CorpusError
from bench.generator.episodes import build_episode
from bench.generator.profiles import DIMENSIONS, DOMAINS, sample_user
from bench.generator.render import NOISE_MIX
from bench.generator.schema import GENERATOR_VERSION, JSON, SOURCE, TRACKS
from bench.generator.splits import SplitPlan
from bench.generator.wording import DEFAULT_WORDING, Wording, load_wording
from bench.generator.writer import statistics

SEALED = "sealed"
SEALED_DATA = Path(__file__).parent / "data" / "sealed.yaml"
SEALED_HASH_FILE = Path(__file__).parent / "sealed.sha256"
SEALED_FILE = "sealed.jsonl"
SEALED_MANIFEST = "sealed-manifest.json"
# Its own users: a seed no train/dev/test generation uses by default, and ids of their own.
SEALED_SEED = 20_420
SEALED_USERS = 96


@dataclasses.dataclass(frozen=True)
class SealedWording:
    wording: Wording
    # intent -> the template families the sealed split draws
    families: dict[str, tuple[str, ...]]
    # response-family key ("candidates/<dim>", ...) -> families
    response_families: dict[str, tuple[str, ...]]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CorpusError(f"{SEALED_DATA.name}: {message}")


def load_sealed_wording(path: Path = SEALED_DATA) -> SealedWording:
    """The sealed wording, checked to cover every intent, value, domain and scenario the
    generator draws."""
    wording = load_wording(path, SEALED, planned=DEFAULT_WORDING.safety_scenarios)
    templates = wording.templates
    missing = sorted(set(DEFAULT_WORDING.templates) - set(templates))
    _require(not missing, f"no templates for {missing}")
    _require(set(templates) == set(DEFAULT_WORDING.templates), "unknown intents")
    _require({i for i, _, _ in NOISE_MIX} <= set(templates), "a noise intent is missing")
    pref_families = {f for intent in templates for f in templates[intent]}
    _require(pref_families <= set(wording.scope_suffixes),
             "a template family has no scope suffix")
    for dim, values in DIMENSIONS.items():
        _require(set(wording.value_phrases.get(dim, {})) == set(values), f"value phrases of {dim}")
    _require(set(wording.dimension_phrases) == set(DIMENSIONS), "dimension phrases")
    _require(set(wording.domain_phrases) == set(DOMAINS), "domain phrases")
    for dim, values in DIMENSIONS.items():
        _require(bool(wording.queries.get(dim)), f"no query for {dim}")
        _require(bool(wording.candidates.get(dim)), f"no candidates for {dim}")
        for family, by_value in wording.candidates[dim].items():
            _require(set(by_value) == set(values), f"candidates/{dim}/{family} values")
    _require(bool(wording.neutral_candidates), "no neutral candidates")
    _require(set(wording.injection_carriers) == set(DEFAULT_WORDING.injection_carriers),
             "injection carriers")
    _require(set(wording.summary_carriers) == set(DEFAULT_WORDING.summary_carriers),
             "summary carriers")
    _require(len(wording.topics) >= 4 and len(wording.fillers) >= 2,
             "too few topics or fillers")

    response_families: dict[str, tuple[str, ...]] = {}
    for dim in DIMENSIONS:
        response_families[f"candidates/{dim}"] = tuple(wording.candidates[dim])
        response_families[f"queries/{dim}"] = tuple(wording.queries[dim])
    response_families["neutral"] = tuple(wording.neutral_candidates)
    for index, scenario in enumerate(wording.safety_scenarios):
        response_families[f"safety/{index}"] = tuple(str(i) for i in range(len(scenario.responses)))
    return SealedWording(
        wording=wording,
        families={intent: tuple(sorted(fams)) for intent, fams in templates.items()},
        response_families=response_families,
    )


def build_sealed(users: int = SEALED_USERS, seed: int = SEALED_SEED) -> tuple[list[JSON], JSON]:
    """The sealed split's episodes (one per user and track) and its manifest."""
    sealed = load_sealed_wording()
    plan = SplitPlan(
        users={SEALED: tuple(range(users))},
        families={intent: {SEALED: fams} for intent, fams in sealed.families.items()},
        topics={SEALED: sealed.wording.topics},
        response_families={k: {SEALED: v} for k, v in sealed.response_families.items()},
    )
    episodes: list[JSON] = []
    for variant in range(users):
        user = dataclasses.replace(sample_user(seed, variant),
                                   user_id=f"dpg-sealed-u{variant:04d}")
        for track in TRACKS:
            episodes.append(build_episode(user, track, SEALED, plan, seed, variant,
                                          sealed.wording))
    stats = statistics({SEALED: episodes})
    manifest: JSON = {
        "source": SOURCE, "generator_version": GENERATOR_VERSION, "split": SEALED,
        "seed": seed, "users": users, **stats,
        "template_families": {k: list(v) for k, v in sorted(sealed.families.items())},
        "topics": list(sealed.wording.topics),
        "response_families": {k: list(v) for k, v in sealed.response_families.items()},
        "files": [SEALED_FILE],
    }
    return episodes, manifest


def split_bytes(episodes: list[JSON]) -> bytes:
    """`sealed.jsonl` as written: one episode per line."""
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in episodes).encode("utf-8")


def committed_sha256() -> str:
    """The hash committed beside this module (`sha256sum` format)."""
    return SEALED_HASH_FILE.read_text(encoding="utf-8").split()[0]


def generate_sealed(out_dir: Path) -> JSON:
    """Write OUT/sealed.jsonl and OUT/sealed-manifest.json; return the hash and whether it
    matches the committed one."""
    episodes, manifest = build_sealed()
    content = split_bytes(episodes)
    digest = hashlib.sha256(content).hexdigest()
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / SEALED_FILE).write_bytes(content)
    manifest["sha256"] = digest
    (out_dir / SEALED_MANIFEST).write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return {"out_dir": str(out_dir), "file": SEALED_FILE, "episodes": len(episodes),
            "sha256": digest, "matches_committed": digest == committed_sha256()}


class SealedSplitChangedError(RuntimeError):
    """The split on disk or as generated now is not the one whose hash was committed."""


def ensure_sealed(data: Path | None = None) -> Path:
    """A directory holding the sealed split whose bytes match the committed hash: `data`
    when given, else one under CAPTURE_VAR_DIR (generated when absent or different)."""
    expected = committed_sha256()
    if data is None:
        from app.core.config import get_settings

        data = get_settings().var_dir / "bench-data-sealed"
        path = data / SEALED_FILE
        if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != expected:
            generate_sealed(data)
    path = data / SEALED_FILE
    if not path.exists():
        raise SealedSplitChangedError(f"{path}: no sealed split there")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise SealedSplitChangedError(
            f"{path}: sha256 {digest} is not the committed {expected} ({SEALED_HASH_FILE.name}); "
            "the generator or its sealed wording changed since the split was sealed")
    return data
