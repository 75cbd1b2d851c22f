"""Every text table one generation draws from, as one object, read from authored data.

`DEFAULT_WORDING` is the wording of the train, dev and test splits (`data/wording.yaml`, set
`train_dev_test`); the sealed test split (`sealed.py`) draws from its own wording, authored in
`data/sealed.yaml` with the same tables. Renderer and probes read only what they are given, so
two wordings never mix in an episode.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.core.corpora import CorpusError, Record, load_records, text, texts

# family -> templates
Families = dict[str, tuple[str, ...]]
WORDING_DATA = Path(__file__).parent / "data" / "wording.yaml"
TRAIN_DEV_TEST = "train_dev_test"


@dataclass(frozen=True)
class ScenarioResponses:
    """One family of a scenario's responses: ones that act on the unsafe rider, ones that
    honour the preference safely."""

    unsafe: tuple[str, ...]
    safe: tuple[str, ...]


@dataclass(frozen=True)
class SafetyScenario:
    """A domain-scoped preference whose literal pursuit would break a safety constraint."""

    dimension: str
    value: str
    domain: str
    unsafe: tuple[str, ...]  # bare infinitives: "skip the backup before running fixes"
    responses: tuple[ScenarioResponses, ...]  # families, split 1 / 1 / 1
    query: str


@dataclass(frozen=True)
class Wording:
    # intent -> family -> templates
    templates: Mapping[str, Families]
    # family -> clauses that scope a restatement to a domain
    scope_suffixes: Mapping[str, tuple[str, ...]]
    # origin -> carriers of an injected or summarized payload
    injection_carriers: Mapping[str, tuple[str, ...]]
    summary_carriers: Mapping[str, tuple[str, ...]]
    # dimension -> value -> noun phrases
    value_phrases: Mapping[str, Mapping[str, tuple[str, ...]]]
    dimension_phrases: Mapping[str, tuple[str, ...]]
    domain_phrases: Mapping[str, tuple[str, ...]]
    domain_query_prefix: Mapping[str, str]
    topics: tuple[str, ...]
    fillers: tuple[str, ...]
    # dimension -> query family -> query
    queries: Mapping[str, Mapping[str, str]]
    # dimension -> candidate family -> value -> response
    candidates: Mapping[str, Mapping[str, Mapping[str, str]]]
    neutral_candidates: Mapping[str, str]
    # Indexed like `responses.SAFETY_SCENARIOS` (the planner picks a scenario by index).
    safety_scenarios: tuple[SafetyScenario, ...]


def _scenarios(path: Path, records: list[Record],
               planned: Sequence[SafetyScenario] | None) -> tuple[SafetyScenario, ...]:
    """The safety scenarios by index. With `planned`, each takes its dimension, value and
    domain from the planned scenario of its index (a wording that rewrites the riders,
    queries and responses of scenarios the planner picks)."""
    by_index = {int(r["index"]): r for r in records}
    count = len(by_index) if planned is None else len(planned)
    if sorted(by_index) != list(range(count)):
        raise CorpusError(f"{path.name}: safety scenario indices")
    scenarios = []
    for index in range(count):
        r = by_index[index]
        responses = r.get("responses")
        if not isinstance(responses, tuple) or not responses:
            raise CorpusError(f"{path.name}: scenario {index} responses")
        dimension, value, domain = (
            (text(r, "dimension"), text(r, "value"), text(r, "domain")) if planned is None
            else (planned[index].dimension, planned[index].value, planned[index].domain))
        scenarios.append(SafetyScenario(
            dimension=dimension, value=value, domain=domain, unsafe=texts(r, "unsafe"),
            responses=tuple(ScenarioResponses(texts(f, "unsafe"), texts(f, "safe"))
                            for f in responses),
            query=text(r, "query"),
        ))
    return tuple(scenarios)


def load_wording(path: Path, set_name: str,
                 planned: Sequence[SafetyScenario] | None = None) -> Wording:
    """The wording of `path`, a file of one set (`set_name`): every table, in file order."""
    tables: dict[str, list[Record]] = defaultdict(list)
    for record in load_records(path, set_name):
        tables[text(record, "table")].append(record)
    templates: dict[str, Families] = defaultdict(dict)
    for r in tables["templates"]:
        templates[text(r, "intent")][text(r, "family")] = texts(r)
    value_phrases: dict[str, dict[str, tuple[str, ...]]] = defaultdict(dict)
    for r in tables["value_phrases"]:
        value_phrases[text(r, "dimension")][text(r, "value")] = texts(r)
    queries: dict[str, dict[str, str]] = defaultdict(dict)
    for r in tables["queries"]:
        queries[text(r, "dimension")][text(r, "family")] = text(r)
    candidates: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for r in tables["candidates"]:
        by_value = r.get("by_value")
        if not isinstance(by_value, Mapping):
            raise CorpusError(f"{path.name}: candidates need by_value")
        candidates[text(r, "dimension")][text(r, "family")] = {
            str(v): text(by_value, str(v)) for v in by_value}
    return Wording(
        templates=dict(templates),
        scope_suffixes={text(r, "family"): texts(r) for r in tables["scope_suffixes"]},
        injection_carriers={text(r, "origin"): texts(r) for r in tables["injection_carriers"]},
        summary_carriers={text(r, "origin"): texts(r) for r in tables["summary_carriers"]},
        value_phrases=dict(value_phrases),
        dimension_phrases={text(r, "dimension"): texts(r) for r in tables["dimension_phrases"]},
        domain_phrases={text(r, "domain"): texts(r) for r in tables["domain_phrases"]},
        domain_query_prefix={text(r, "domain"): text(r, "query_prefix")
                             for r in tables["domain_phrases"]},
        topics=tuple(t for r in tables["topics"] for t in texts(r)),
        fillers=tuple(t for r in tables["fillers"] for t in texts(r)),
        queries=dict(queries),
        candidates=dict(candidates),
        neutral_candidates={text(r, "family"): text(r) for r in tables["neutral_candidates"]},
        safety_scenarios=_scenarios(path, tables["safety_scenarios"], planned),
    )


DEFAULT_WORDING = load_wording(WORDING_DATA, TRAIN_DEV_TEST)
