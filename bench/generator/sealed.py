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
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

from app.core.corpora import CorpusError, Record, load_records, text, texts
from bench.generator.episodes import build_episode
from bench.generator.noise_templates import NOISE_MIX
from bench.generator.profiles import DIMENSIONS, DOMAINS, sample_user
from bench.generator.responses import SAFETY_SCENARIOS, SafetyScenario, ScenarioResponses
from bench.generator.schema import GENERATOR_VERSION, JSON, SOURCE, TRACKS
from bench.generator.splits import SplitPlan
from bench.generator.templates import Families
from bench.generator.wording import DEFAULT_WORDING, Wording
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


def _by_table(records: tuple[Record, ...]) -> dict[str, list[Record]]:
    tables: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        tables[text(record, "table")].append(record)
    return tables


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CorpusError(f"{SEALED_DATA.name}: {message}")


def load_sealed_wording(path: Path = SEALED_DATA) -> SealedWording:
    """The sealed wording, checked to cover every intent, value, domain and scenario the
    generator draws."""
    tables = _by_table(load_records(path, SEALED))
    templates: dict[str, Families] = defaultdict(dict)
    for r in tables["templates"]:
        templates[text(r, "intent")][text(r, "family")] = texts(r)
    missing = sorted(set(DEFAULT_WORDING.templates) - set(templates))
    _require(not missing, f"no templates for {missing}")
    _require(set(templates) == set(DEFAULT_WORDING.templates), "unknown intents")
    _require({i for i, _, _ in NOISE_MIX} <= set(templates), "a noise intent is missing")

    scope_suffixes = {text(r, "family"): texts(r) for r in tables["scope_suffixes"]}
    pref_families = {f for intent in templates for f in templates[intent]}
    _require(pref_families <= set(scope_suffixes), "a template family has no scope suffix")

    value_phrases: dict[str, dict[str, tuple[str, ...]]] = defaultdict(dict)
    for r in tables["value_phrases"]:
        value_phrases[text(r, "dimension")][text(r, "value")] = texts(r)
    for dim, values in DIMENSIONS.items():
        _require(set(value_phrases.get(dim, {})) == set(values), f"value phrases of {dim}")
    dimension_phrases = {text(r, "dimension"): texts(r) for r in tables["dimension_phrases"]}
    _require(set(dimension_phrases) == set(DIMENSIONS), "dimension phrases")
    domain_phrases = {text(r, "domain"): texts(r) for r in tables["domain_phrases"]}
    query_prefix = {text(r, "domain"): text(r, "query_prefix") for r in tables["domain_phrases"]}
    _require(set(domain_phrases) == set(DOMAINS), "domain phrases")

    queries: dict[str, dict[str, str]] = defaultdict(dict)
    for r in tables["queries"]:
        queries[text(r, "dimension")][text(r, "family")] = text(r)
    candidates: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for r in tables["candidates"]:
        by_value = r.get("by_value")
        _require(isinstance(by_value, Mapping), "candidates need by_value")
        assert isinstance(by_value, Mapping)
        candidates[text(r, "dimension")][text(r, "family")] = {
            str(v): text(by_value, str(v)) for v in by_value}
    for dim, values in DIMENSIONS.items():
        _require(bool(queries.get(dim)), f"no query for {dim}")
        _require(bool(candidates.get(dim)), f"no candidates for {dim}")
        for family, by_value in candidates[dim].items():
            _require(set(by_value) == set(values), f"candidates/{dim}/{family} values")
    neutral = {text(r, "family"): text(r) for r in tables["neutral_candidates"]}
    _require(bool(neutral), "no neutral candidates")

    scenarios = _scenarios(tables["safety_scenarios"])
    injection = {text(r, "origin"): texts(r) for r in tables["injection_carriers"]}
    summary = {text(r, "origin"): texts(r) for r in tables["summary_carriers"]}
    _require(set(injection) == set(DEFAULT_WORDING.injection_carriers), "injection carriers")
    _require(set(summary) == set(DEFAULT_WORDING.summary_carriers), "summary carriers")
    topics = tuple(t for r in tables["topics"] for t in texts(r))
    fillers = tuple(t for r in tables["fillers"] for t in texts(r))
    _require(len(topics) >= 4 and len(fillers) >= 2, "too few topics or fillers")

    wording = Wording(
        templates=dict(templates), scope_suffixes=scope_suffixes, injection_carriers=injection,
        summary_carriers=summary, value_phrases=dict(value_phrases),
        dimension_phrases=dimension_phrases, domain_phrases=domain_phrases,
        domain_query_prefix=query_prefix, topics=topics, fillers=fillers,
        queries=dict(queries), candidates=dict(candidates), neutral_candidates=neutral,
        safety_scenarios=scenarios,
    )
    response_families: dict[str, tuple[str, ...]] = {}
    for dim in DIMENSIONS:
        response_families[f"candidates/{dim}"] = tuple(candidates[dim])
        response_families[f"queries/{dim}"] = tuple(queries[dim])
    response_families["neutral"] = tuple(neutral)
    for index, scenario in enumerate(scenarios):
        response_families[f"safety/{index}"] = tuple(str(i) for i in range(len(scenario.responses)))
    return SealedWording(
        wording=wording,
        families={intent: tuple(sorted(fams)) for intent, fams in templates.items()},
        response_families=response_families,
    )


def _scenarios(records: list[Record]) -> tuple[SafetyScenario, ...]:
    """New riders, queries and responses for each scenario the planner picks by index; the
    (dimension, value, domain) it plans with stay the planner's."""
    by_index = {int(r["index"]): r for r in records}
    _require(sorted(by_index) == list(range(len(SAFETY_SCENARIOS))), "safety scenario indices")
    scenarios = []
    for index, planned in enumerate(SAFETY_SCENARIOS):
        r = by_index[index]
        responses = r.get("responses")
        _require(isinstance(responses, tuple) and bool(responses), f"scenario {index} responses")
        assert isinstance(responses, tuple)
        scenarios.append(SafetyScenario(
            dimension=planned.dimension, value=planned.value, domain=planned.domain,
            unsafe=texts(r, "unsafe"),
            responses=tuple(ScenarioResponses(texts(f, "unsafe"), texts(f, "safe"))
                            for f in responses),
            query=text(r, "query"),
        ))
    return tuple(scenarios)


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
