"""Every text table one generation draws from, as one object.

`DEFAULT_WORDING` holds the train/dev/test tables of the Python modules beside this one; the
sealed test split (`sealed.py`) draws from its own wording, authored in `data/sealed.yaml`.
Renderer and probes read only what they are given, so two wordings never mix in an episode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bench.generator.attack_templates import (
    ATTACK_TEMPLATES,
    INJECTION_CARRIERS,
    SUMMARY_CARRIERS,
)
from bench.generator.noise_templates import NOISE_TEMPLATES
from bench.generator.phrases import (
    DIMENSION_PHRASES,
    DOMAIN_PHRASES,
    DOMAIN_QUERY_PREFIX,
    FILLERS,
    TOPICS,
    VALUE_PHRASES,
)
from bench.generator.responses import (
    CANDIDATES,
    NEUTRAL_CANDIDATES,
    QUERIES,
    SAFETY_SCENARIOS,
    SafetyScenario,
)
from bench.generator.templates import PREF_TEMPLATES, SCOPE_SUFFIXES, Families


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


DEFAULT_WORDING = Wording(
    templates={**PREF_TEMPLATES, **ATTACK_TEMPLATES, **NOISE_TEMPLATES},
    scope_suffixes=SCOPE_SUFFIXES,
    injection_carriers=INJECTION_CARRIERS,
    summary_carriers=SUMMARY_CARRIERS,
    value_phrases=VALUE_PHRASES,
    dimension_phrases=DIMENSION_PHRASES,
    domain_phrases=DOMAIN_PHRASES,
    domain_query_prefix=DOMAIN_QUERY_PREFIX,
    topics=TOPICS,
    fillers=FILLERS,
    queries=QUERIES,
    candidates=CANDIDATES,
    neutral_candidates=NEUTRAL_CANDIDATES,
    safety_scenarios=SAFETY_SCENARIOS,
)
