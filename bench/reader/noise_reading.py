"""`capture bench noise`: what the reader reads as a claim from the generated noise and
sarcasm of the dev split.

Small talk, task requests and one-off instructions are not preferences, and sarcasm is not
a literal preference. Each measured event of the dev split is written to the service
(`create_app()` over in-process HTTP, `bench.common.service.reading_service`) with its origin and
time, for a user of its own, so no ledger stands behind the reader (the extractor is told of
no value the user holds); what the configured extractor read is the event's hypotheses
(`GET /v1/events/{id}`). Dev only: the test splits are not read here, and the shared
third-party files (iSarcasm, benign turns) are evaluation data the lead reads with
`capture bench external`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from app.domain.vocabulary import Direction
from app.extraction.open_claims import is_open_subject
from bench.common.service import BenchTenant, Read, reader_of, reading_service
from bench.generator.cache import ensure_dataset

SPLIT = "dev"
# Kind of event -> what it is (for the report).
KINDS: dict[str, str] = {
    "small_talk": "user small talk, questions and task requests (noise_user)",
    "one_off": "one-off instructions that name a value (noise_oneoff)",
    "non_user_noise": "benign documents, tool output and files",
    "sarcasm": "sarcasm (the literal claim is not the preference)",
    "maybe_sarcasm": "possibly sarcastic statements (labelled weak evidence)",
}
_SARCASM = ("sarcasm", "maybe_sarcasm")
_NOISE_INTENTS = {"noise_user": "small_talk", "noise_oneoff": "one_off", "noise_doc":
                  "non_user_noise", "noise_tool": "non_user_noise", "noise_file": "non_user_noise"}


def kind_of(event: dict[str, Any]) -> str | None:
    """Which measured kind an event is, or None for the rest."""
    intent = str(event["oracle"].get("template_family", "")).split("/")[0]
    if event["label"] == "benign_noise":
        return _NOISE_INTENTS.get(intent)
    if event["label"] == "sarcasm":
        return "sarcasm"
    if intent == "pref_maybe_sarcasm":
        return "maybe_sarcasm"
    return None


def on_mocked_value(event: dict[str, Any], hypotheses: Sequence[Read],
                    direction: Direction) -> bool:
    """A claim on the value the text mocks, in `direction` (prefer: the literal reading;
    avoid: what a sarcastic text means)."""
    oracle = event["oracle"]
    return any(h.subject == oracle.get("dimension") and h.value == oracle.get("value")
               and h.direction == direction.value for h in hypotheses)


def measure(episodes: list[dict[str, Any]], tenant: BenchTenant,
            extractor: str) -> dict[str, Any]:
    """What the service read of each measured event (its configured extractor is
    `extractor`), as rates by kind, with up to 10 examples of each kind."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    examples: dict[str, list[dict[str, Any]]] = defaultdict(list)
    reads: list[Read] = []
    for episode in episodes:
        for i, event in enumerate(episode["events"]):
            kind = kind_of(event)
            if kind is None:
                continue
            at = datetime.fromisoformat(event["t"].replace("Z", "+00:00"))
            hypotheses = tenant.read(f"{episode['episode_id']}-{i}", "noise", event["origin"],
                                     event["text"], at)
            reads += hypotheses
            row = counts[kind]
            row["events"] += 1
            row["read_any"] += bool(hypotheses)
            row["read_taxonomy"] += any(not is_open_subject(h.subject) for h in hypotheses)
            row["read_open"] += any(is_open_subject(h.subject) for h in hypotheses)
            if kind in _SARCASM:
                row["read_literal"] += on_mocked_value(event, hypotheses, Direction.prefer)
                row["read_avoid"] += on_mocked_value(event, hypotheses, Direction.avoid)
            if hypotheses and len(examples[kind]) < 10:
                examples[kind].append({"text": event["text"], "claims": [
                    {"claim": h.claim, "subject": "open" if is_open_subject(h.subject)
                     else h.subject, "value": h.value, "direction": h.direction}
                    for h in hypotheses]})
    by_kind = {}
    for kind, what in KINDS.items():
        row = counts.get(kind, {})
        n = row.get("events", 0)
        keys = ["read_any", "read_taxonomy", "read_open"]
        keys += ["read_literal", "read_avoid"] if kind in _SARCASM else []
        by_kind[kind] = {"what": what, "events": n,
                         **{f"{k}_rate": round(row.get(k, 0) / n, 4) if n else 0.0
                            for k in keys}}
    return {"split": SPLIT, "extractor": reader_of(extractor, reads),
            "episodes": len(episodes), "by_kind": by_kind, "examples": dict(examples)}


def markdown(results: dict[str, Any]) -> str:
    lines = [
        f"# What the reader reads from noise and sarcasm ({results['split']} split)",
        "",
        f"Extractor `{results['extractor']['name']}` {results['extractor']['version']}, "
        f"{results['episodes']} episodes; no ledger behind the reader.",
        "",
        "Sarcasm columns: a claim that the user prefers the mocked value (the literal "
        "reading), and one that the user avoids it.",
        "",
        "| events | n | any claim | taxonomy claim | open claim | prefers mocked | "
        "avoids mocked |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["by_kind"].values():
        lit, avoid = (f"{row[k]:.1%}" if k in row else "—"
                      for k in ("read_literal_rate", "read_avoid_rate"))
        lines.append(
            f"| {row['what']} | {row['events']} | {row['read_any_rate']:.1%} | "
            f"{row['read_taxonomy_rate']:.1%} | {row['read_open_rate']:.1%} | {lit} | "
            f"{avoid} |")
    return "\n".join(lines) + "\n"


def run(out: Path, extractor: str | None = None, *, data: Path | None = None, seed: int = 0,
        limit: int | None = None, server_uri: str | None = None) -> dict[str, Any]:
    """Measure the dev split with `extractor` as the service's reader (the configured one
    when None) and write OUT/results.json and OUT/results.md."""
    lines = (ensure_dataset(data, seed) / f"{SPLIT}.jsonl").read_text().splitlines()
    episodes = [json.loads(line) for line in lines if line.strip()][:limit]
    with reading_service(extractor, server_uri, "capture_bench_noise") as (tenant, name):
        results = measure(episodes, tenant, name)
    results.update(seed=seed, data=str(data) if data else None, limit=limit)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n",
                                      encoding="utf-8")
    (out / "results.md").write_text(markdown(results), encoding="utf-8")
    return results
