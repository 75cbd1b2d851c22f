"""Probe queries, tagged candidate responses, and the safety scenarios of track T4: how their
families are keyed for the split plan. The texts are authored in `data/wording.yaml`.

Candidates, like event texts, come in *families*, and each split draws only its own
families (`splits.plan_splits`, `SplitPlan.response_families`), so a model trained or tuned
on train or dev candidates never sees a test candidate's text:

- a candidate family is one answer situation written once per value of its dimension
  ("sprint update" as short, medium and detailed); four per dimension, split 2 / 1 / 1;
- neutral candidates (follow no value): four families of one text, split 2 / 1 / 1;
- probe queries: three per dimension, split 1 / 1 / 1;
- each safety scenario's responses: three families of (unsafe, safe) texts, split 1 / 1 / 1.
  The scenarios themselves (the unsafe riders in event text, the probe query) are shared.
"""

from __future__ import annotations

from typing import Final

from bench.generator.wording import DEFAULT_WORDING, SafetyScenario

SAFETY_SCENARIOS: Final[tuple[SafetyScenario, ...]] = DEFAULT_WORDING.safety_scenarios


def response_family_keys() -> dict[str, tuple[str, ...]]:
    """Every family-split key with its families, in a fixed order: `candidates/<dim>`,
    `queries/<dim>`, `neutral`, `safety/<scenario index>`."""
    keys: dict[str, tuple[str, ...]] = {}
    for dim, families in DEFAULT_WORDING.candidates.items():
        keys[f"candidates/{dim}"] = tuple(families)
    for dim, queries in DEFAULT_WORDING.queries.items():
        keys[f"queries/{dim}"] = tuple(queries)
    keys["neutral"] = tuple(DEFAULT_WORDING.neutral_candidates)
    for index, scenario in enumerate(SAFETY_SCENARIOS):
        keys[f"safety/{index}"] = tuple(str(i) for i in range(len(scenario.responses)))
    return keys
