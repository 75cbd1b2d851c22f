"""`capture bench tools`: the trace benchmark of check-call.

Generated sessions in twelve populations go through the service's API as a client sends
them (bench/tools/runner.py); for each population the paper's order-only rules
(recall_before_send, recipient externality, their conjunction) and Capture's decision, as
`POST /v1/check-call` answers it, are scored on the same sessions. Also: check-call latency
with 1,000 nodes retrieved in the session, through the service layer (bench/tools/latency.py:
the HTTP layer is what it leaves out), and two replays of the third-party AgentDojo travel
tool calls (under the operator's policy, and with the tools known only by their
declarations; bench/tools/external.py).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.core.config import REPO_ROOT
from bench.tools import latency, populations, report, runner
from bench.tools.external import replay_all
from bench.tools.populations import ATTACKS, BENIGN, DECLARED, POPULATIONS
from bench.tools.runner import ScenarioOutcome
from bench.tools.stats import rate

# The third-party episodes live beside the repository, never inside it.
DEFAULT_EXTERNAL = REPO_ROOT.parent / "shared" / "data" / "external" / "agentdojo_travel.jsonl"
RULES = ("recall_before_send", "recipient_external", "rbs_and_external", "capture")


def blocked_by(rule: str, outcome: ScenarioOutcome) -> bool:
    """Whether a rule blocks the scored call (Capture: deny or ask)."""
    features = outcome.check.features
    if rule == "recall_before_send":
        return bool(features["recall_before_send"])
    if rule == "recipient_external":
        return bool(features["recipient_external"])
    if rule == "rbs_and_external":
        return bool(features["recall_before_send"]) and bool(features["recipient_external"])
    return outcome.check.decision in ("deny", "ask")


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1)))], 3)


def summarize(outcomes: list[ScenarioOutcome]) -> dict[str, Any]:
    by_population: dict[str, list[ScenarioOutcome]] = defaultdict(list)
    for o in outcomes:
        by_population[o.population].append(o)
    table: dict[str, Any] = {}
    for population, description in POPULATIONS.items():
        group = by_population.get(population, [])
        n = len(group)
        decisions = Counter(o.check.decision for o in group)
        families: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "blocked": 0})
        for o in group:
            for slot, family in o.families.items():
                entry = families[f"{slot}={family}"]
                entry["n"] += 1
                entry["blocked"] += int(blocked_by("capture", o))
        table[population] = {
            "description": description,
            "kind": "attack"
            if population in ATTACKS
            else "benign"
            if population in BENIGN
            else "reported",
            "n": n,
            "capture": {
                "block": rate(sum(blocked_by("capture", o) for o in group), n),
                "deny": rate(decisions["deny"], n),
                "ask": rate(decisions["ask"], n),
                "allow": rate(decisions["allow"], n),
            },
            **{
                rule: {"block": rate(sum(blocked_by(rule, o) for o in group), n)}
                for rule in RULES[:3]
            },
            "reason_codes": dict(Counter(o.check.codes[0] for o in group if o.check.codes)),
            "tool_source": dict(Counter(o.check.tool_source for o in group)),
            "families": dict(sorted(families.items())),
            "tools": dict(Counter(o.tool for o in group)),
            "triage_score_mean": round(statistics.fmean(o.check.triage_score for o in group), 4)
            if group
            else None,
            "check_ms": {
                "p50": _percentile([o.check.ms for o in group], 0.5),
                "p95": _percentile([o.check.ms for o in group], 0.95),
            },
        }
    attacks = [o for o in outcomes if o.population in ATTACKS]
    benign = [o for o in outcomes if o.population in BENIGN]
    summary: dict[str, Any] = {
        rule: {
            "attack_block": rate(sum(blocked_by(rule, o) for o in attacks), len(attacks)),
            "benign_false_block": rate(sum(blocked_by(rule, o) for o in benign), len(benign)),
        }
        for rule in RULES
    }
    summary["capture"]["attack_deny"] = rate(
        sum(o.check.decision == "deny" for o in attacks), len(attacks)
    )
    declared = [o for o in outcomes if o.population in DECLARED]
    summary["declared_classified"] = rate(
        sum(o.check.tool_source in ("declaration", "registered") for o in declared),
        len(declared),
    )
    summary["from_default"] = sum(o.check.tool_source == "default" for o in outcomes)
    times = [o.check.ms for o in outcomes]
    return {
        "populations": table,
        "summary": summary,
        "population_check_ms": {
            "calls": len(times),
            "p50": _percentile(times, 0.5),
            "p95": _percentile(times, 0.95),
        },
    }


def run(
    split: str,
    out: Path,
    per_population: int = 150,
    seed: int = 0,
    external: Path | None = DEFAULT_EXTERNAL,
    latency_calls: int = 400,
    server_uri: str | None = None,
    external_only: bool = False,
) -> dict[str, Any]:
    """The populations (unless `external_only`), the latency run (`latency_calls` > 0,
    not with `external_only`) and the replays of the third-party file (`external`)."""
    started = time.perf_counter()
    scenarios = [] if external_only else populations.generate(split, per_population, seed)
    command = f"capture bench tools --split {split} --out {out}"
    command += (
        " --external-only" if external_only else f" --per-population {per_population} --seed {seed}"
    )
    if external is not None and external != DEFAULT_EXTERNAL:
        command += f" --external {external}"
    results: dict[str, Any] = {
        "command": command,
        "split": split,
        "seed": seed,
        "per_population": 0 if external_only else per_population,
        "started_at": datetime.now(UTC).isoformat(),
        "policy_version": runner.bench_policy().version,
    }
    with runner.bench_service(server_uri) as (tenant, engine):
        if latency_calls > 0 and not external_only:  # first, while the process holds nothing
            results["latency_1000_nodes"] = latency.run(
                engine, tenant.principal(), calls=latency_calls,
                sessions=max(1, min(8, latency_calls // 50)),
            )
        outcomes = runner.run_all(tenant, scenarios)
        if not external_only:
            results.update(summarize(outcomes))
        if external is not None and external.exists():
            results.update(replay_all(tenant, external))
    results["machine"] = {
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    results["wall_seconds"] = round(time.perf_counter() - started, 1)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "results.md").write_text(report.markdown(results))
    (out / "outcomes.jsonl").write_text(
        "".join(
            json.dumps(
                {
                    "population": o.population,
                    "index": o.index,
                    "tool": o.tool,
                    "decision": o.check.decision,
                    "codes": o.check.codes,
                    "families": o.families,
                    "recall_before_send": o.check.features["recall_before_send"],
                    "recipient_external": o.check.features["recipient_external"],
                    "triage_score": o.check.triage_score,
                    "ms": round(o.check.ms, 3),
                }
            )
            + "\n"
            for o in outcomes
        )
    )
    return results
