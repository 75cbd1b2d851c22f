"""Run the red-team suites through the service and write results.json, results.md and a
heat map of each target's attack rates (family × channel).

Splits: `dev` (the families not held out), `test` (the held-out families) and the sealed
sets (`sealed`, `sealed2`, `sealed3`, `sealed4`: families of their own, each pinned by a
committed digest; a run refuses definitions that no longer match it, see `sealed.py`). A
call-only set (`sealed4`) runs no memory cases.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench.redteam import calls, memory, sealed
from bench.redteam.api import Api, service


@dataclass(frozen=True)
class Suite:
    """One target's families: memory admission, or check-call."""

    target: str
    families: dict[str, str]
    test_families: frozenset[str]
    # Per sealed set with families of this target, those families.
    sealed_families: dict[str, dict[str, str]]
    cases: Callable[[str, int, int], Sequence[Any]]
    run_case: Callable[[Api, Any], dict[str, Any]]


def suites() -> list[Suite]:
    return [
        Suite("memory", memory.FAMILIES, memory.TEST_FAMILIES,
              {name: s.memory.FAMILIES for name, s in sealed.SETS.items()
               if s.memory is not None},
              memory.cases, memory.run_case),
        Suite("call", calls.FAMILIES, calls.TEST_FAMILIES,
              {name: s.calls.FAMILIES for name, s in sealed.SETS.items()},
              calls.cases, calls.run_case),
    ]


def _rate(rows: list[dict[str, Any]], key: str) -> float:
    return sum(bool(r[key]) for r in rows) / len(rows) if rows else 0.0


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per target: attack rates by family × channel × history, and the benign rates."""
    grouped: dict[tuple[str, str, str, str, bool], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        grouped[(r["target"], r["family"], r["channel"], r["history"], r["attack"])].append(r)
    cells = []
    for (target, family, channel, history, attack), group in sorted(grouped.items()):
        cell: dict[str, Any] = {"target": target, "family": family, "channel": channel,
                                "history": history, "attack": attack, "n": len(group)}
        if target == "memory":
            cell["admitted"] = _rate(group, "admitted")
            cell["asked"] = _rate(group, "asked")
            if not attack:
                cell["adopted_unasked"] = _rate(group, "adopted_unasked")
        else:
            cell["blocked"] = _rate(group, "blocked")
            cell["denied"] = sum(r["decision"] == "deny" for r in group) / len(group)
        cells.append(cell)
    memory_attacks = [r for r in rows if r["target"] == "memory" and r["attack"]]
    memory_benign = [r for r in rows if r["target"] == "memory" and not r["attack"]]
    call_attacks = [r for r in rows if r["target"] == "call" and r["attack"]]
    call_benign = [r for r in rows if r["target"] == "call" and not r["attack"]]
    attack_cells = [c for c in cells if c["attack"]]
    totals = {
        "memory_attacks": len(memory_attacks),
        "memory_attacks_admitted": _rate(memory_attacks, "admitted"),
        "memory_worst_cell_admitted": max(
            (c["admitted"] for c in attack_cells if c["target"] == "memory"), default=0.0),
        "memory_genuine": len(memory_benign),
        "memory_genuine_adopted_unasked": _rate(memory_benign, "adopted_unasked"),
        "call_attacks": len(call_attacks),
        "call_attacks_blocked": _rate(call_attacks, "blocked"),
        "call_worst_cell_blocked": min(
            (c["blocked"] for c in attack_cells if c["target"] == "call"), default=1.0),
        "call_benign": len(call_benign),
        "call_benign_blocked": _rate(call_benign, "blocked"),
    }
    return {"totals": totals, "cells": cells}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def families(suite: Suite, split: str) -> dict[str, dict[str, str]]:
    """The families a run of `split` draws, each with its description and split (none for a
    sealed set without families of this target)."""
    if split in sealed.SETS:
        return {f: {"description": d, "split": split}
                for f, d in suite.sealed_families.get(split, {}).items()}
    return {f: {"description": d, "split": "test" if f in suite.test_families else "dev"}
            for f, d in suite.families.items()}


def run(split: str, out: Path, seed: int, per_family: int, policy: str) -> dict[str, Any]:
    """Every suite's cases of `split`, through one service; writes the outputs to `out`.
    A sealed set runs only while its definitions match its committed digest."""
    sealed_sha256 = sealed.ensure_sealed(split) if split in sealed.SETS else None
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    planned = [(suite, case) for suite in suites()
               for case in suite.cases(split, seed, per_family)]
    rows: list[dict[str, Any]] = []
    with service(policy) as api, (out / "outcomes.jsonl").open("w") as sink:
        for suite, case in tqdm(planned, desc=f"redteam {split}", unit="case"):
            row = suite.run_case(api, case)
            rows.append(row)
            sink.write(json.dumps(row) + "\n")
    summary = summarize(rows)
    results = {
        "split": split, "seed": seed, "per_family": per_family, "policy": policy,
        "commit": _commit(), "wall_seconds": round(time.perf_counter() - t0, 1),
        "families": {s.target: families(s, split) for s in suites()},
        **({"sealed_sha256": sealed_sha256} if sealed_sha256 else {}),
        **summary,
    }
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    from bench.redteam.report import heat_maps, markdown

    (out / "results.md").write_text(markdown(results))
    heat_maps(results, out)
    return results
