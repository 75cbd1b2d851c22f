"""Replays of third-party tool calls (AgentDojo travel) through check-call.

Two replays of the same file. Under the operator's policy (the shipped default with the
bench organisation allowlisted), each call carrying its declaration where the episode has
one: the policy file names every AgentDojo tool, so the declaration is never read. And
declaration-only: the same policy less every entry that names a replayed tool (its exact
name, and any pattern that matches it), so each tool is known to check-call only by the
declaration passed with the call, as a third-party tool set would be. The declaration is
the episode's own (the dataset's tool definition: docstring summary, `:param` texts, JSON
types; no annotations, the dataset gives none); a call without one gets a declaration
derived from the call alone (its name, and its arguments' JSON types), which tells
classification nothing the call does not. A third replay passes only such derived
declarations: a tool set that publishes names and argument types and no descriptions.
Each episode's events and its call go through the API, as the bench's client
(`bench.tools.runner`) sends them.
"""

from __future__ import annotations

import fnmatch
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from app.checkcall.policy import ToolPolicy, override_policy
from bench.common.policies import EventContext
from bench.common.service import BenchTenant
from bench.tools import runner
from bench.tools.stats import rate

SOURCES = ("policy", "registered", "declaration", "default")


def read_episodes(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def json_type(value: Any) -> str:
    """The JSON Schema type of a value as a call carries it."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    if value is None:
        return "null"
    return "string"


def derived_declaration(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A declaration in the MCP `Tool` shape built from the call alone: its name, one
    property per argument typed from the value, every argument required; no description
    and no annotations (nothing the call does not say)."""
    properties: dict[str, dict[str, Any]] = {}
    for arg, value in args.items():
        schema: dict[str, Any] = {"type": json_type(value)}
        if isinstance(value, list) and value:
            schema["items"] = {"type": json_type(value[0])}
        properties[arg] = schema
    return {
        "name": name,
        "inputSchema": {"type": "object", "properties": properties, "required": list(args)},
    }


def declaration_for(call: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The declaration a declaration-only replay passes with a call, and where it came
    from: the episode's own (`file`), else one derived from the call (`derived`)."""
    declared = call.get("declaration")
    if declared:
        return declared, "file"
    return derived_declaration(call["name"], call.get("args") or {}), "derived"


def without_tools(policy: ToolPolicy, names: Iterable[str]) -> tuple[ToolPolicy, list[str]]:
    """The policy less every entry that names one of `names`: exact tool entries and the
    patterns any of them matches. Allowlists, tenants and the unknown-tool default stay.
    Also the entries dropped (exact names, then patterns), for the report."""
    wanted = set(names)
    tools = {name: spec for name, spec in policy.tools.items() if name not in wanted}
    patterns, dropped_patterns = [], []
    for pattern, spec in policy.patterns:
        if any(fnmatch.fnmatchcase(name, pattern) for name in wanted):
            dropped_patterns.append(pattern)
        else:
            patterns.append((pattern, spec))
    dropped = sorted(set(policy.tools) - set(tools)) + dropped_patterns
    return replace(policy, tools=tools, patterns=tuple(patterns)), dropped


def by_source(calls: list[tuple[str, bool, str]]) -> dict[str, Any]:
    """Block recall and false blocks per tool source, from (tool source, should block,
    decision) triples."""
    out: dict[str, Any] = {}
    for source in SOURCES:
        picked = [(should, decision) for s, should, decision in calls if s == source]
        attacks = [d for should, d in picked if should]
        benign = [d for should, d in picked if not should]
        out[source] = {
            "calls": len(picked),
            "tool_block_recall": rate(sum(d in ("deny", "ask") for d in attacks), len(attacks)),
            "tool_false_block": rate(sum(d in ("deny", "ask") for d in benign), len(benign)),
        }
    return out


def _write_events(tenant: BenchTenant, user: str, session: str, events: list[Any]) -> None:
    """The episode's events through the API, in order; a microsecond apart at least, so
    events the file stamps with one time keep its order."""
    for i, event in enumerate(events):
        at = datetime.fromisoformat(event["t"].replace("Z", "+00:00"))
        tenant.write(user, session, event["origin"], event["text"],
                     at + timedelta(microseconds=i), EventContext(session=session))


# Which declaration a call carries: the episode's where it has one (`call`, the replay
# under the operator's policy); the episode's, else one derived from the call (`file`);
# always one derived from the call, names and argument types only (`derived`).
Declarations = Literal["call", "file", "derived"]


def replay(
    tenant: BenchTenant,
    path: Path,
    *,
    declarations: Declarations = "call",
    user_prefix: str = "ext",
) -> dict[str, Any]:
    """Each episode's events in one session of its own user, then its tool_call through
    check-call under the policy in force, with the declaration `declarations` picks."""
    episodes = read_episodes(path)
    decisions: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    origins: Counter[str] = Counter()
    by_tool: dict[str, Counter[str]] = defaultdict(Counter)
    scored: list[tuple[str, bool, str]] = []
    calls: list[dict[str, Any]] = []
    blocked = should = false_blocks = benign = 0
    for n, episode in enumerate(episodes):
        call = episode.get("tool_call")
        if not call:
            continue
        user, session = f"{user_prefix}-{n:04d}", "s1"
        _write_events(tenant, user, session, episode["events"])
        args = call.get("args") or {}
        declaration: dict[str, Any] | None
        if declarations == "call":
            declaration = call.get("declaration")
        elif declarations == "file":
            declaration, origin = declaration_for(call)
            origins[origin] += 1
        else:
            declaration = derived_declaration(call["name"], args)
            origins["derived"] += 1
        outcome = runner.check(tenant, user, session, call["name"], args, declaration)
        attack = bool(call.get("should_block"))
        scored.append((outcome.tool_source, attack, outcome.decision))
        decisions[outcome.decision] += 1
        if outcome.codes:
            codes[outcome.codes[0]] += 1
        label = "attack" if attack else "user_task"
        by_tool[f"{call['name']} ({label})"][outcome.decision] += 1
        calls.append(
            {
                "episode_id": episode.get("episode_id", str(n)),
                "tool": call["name"],
                "should_block": attack,
                "decision": outcome.decision,
                "code": outcome.codes[0] if outcome.codes else None,
                "tool_source": outcome.tool_source,
            }
        )
        hit = outcome.decision in ("deny", "ask")
        if attack:
            should += 1
            blocked += hit
        else:
            benign += 1
            false_blocks += hit
    out: dict[str, Any] = {
        "file": path.name,
        "tool_calls": should + benign,
        "attacks": should,
        "user_task_calls": benign,
        "tool_block_recall": rate(blocked, should),
        "tool_false_block": rate(false_blocks, benign),
        "decisions": dict(decisions),
        "tool_source": dict(Counter(source for source, _, _ in scored)),
        "reason_codes": dict(codes.most_common()),
        "by_tool_source": by_source(scored),
        "by_tool": {tool: dict(c) for tool, c in sorted(by_tool.items())},
        "calls": calls,
    }
    if declarations != "call":
        out["declarations"] = dict(origins)
    return out


def tool_names(path: Path) -> list[str]:
    """The tools the file's calls name."""
    return sorted({e["tool_call"]["name"] for e in read_episodes(path) if e.get("tool_call")})


def differing(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """The episodes whose call two replays of one file (same calls, same order) decided
    differently."""
    return [
        b["episode_id"]
        for a, b in zip(first["calls"], second["calls"], strict=True)
        if a["decision"] != b["decision"]
    ]


def replay_all(tenant: BenchTenant, path: Path) -> dict[str, Any]:
    """The replay under the operator's policy, then two under the policy less the
    replayed tools: with the episodes' declarations (`external_declared_only`), and with
    declarations derived from the calls alone (`external_derived_only`). Each replay has
    users of its own, so none sees another's events or decisions."""
    policy = runner.bench_policy()
    with override_policy(policy):
        under_policy = replay(tenant, path)
    stripped, dropped = without_tools(policy, tool_names(path))
    out: dict[str, Any] = {"external": under_policy}
    variants: tuple[tuple[str, Declarations, str], ...] = (
        ("external_declared_only", "file", "extd"),
        ("external_derived_only", "derived", "extn"),
    )
    for key, declarations, prefix in variants:
        with override_policy(stripped):
            result = replay(tenant, path, declarations=declarations, user_prefix=prefix)
        result["policy_entries_dropped"] = dropped
        result["decided_otherwise_than_under_policy"] = differing(under_policy, result)
        out[key] = result
    return out
