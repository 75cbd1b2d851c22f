"""Measurements of the selector and the citation audit, `python -m bench.audit.bench`:

- `latency`  the `reselect` audit: p50/p95 of the whole audit run (load the audit, re-decode
             with L and with each of three cited nodes removed, write citations and influence)
             on the embedded Postgres, 12 memories and 8 candidates per turn; and the pure
             counterfactual alone.
- `evidence` evidence F1 and influence AUC of the audit on a generator split with oracle
             memories (a self-check; `capture bench prefguard` scores every method's ledger).
- `safety`   r_s on the split's T4 candidates (detection, false alarms) and T4 attack success
             with and without the bound, on oracle memories.
- `local-lm` SmolLM2-135M re-decode timing: load, per-decode time, tokens per second.

`latency` is a client of the service for everything but what it times: the memories are
events written through the API (`bench.common.service.BenchTenant`), and the cited nodes and each
audit's memory set are read back through it. The timed run is the `capture.audit` task a
worker runs, which no API call reaches without running it at once, so the audits are stored
pending (`app.audit.service.create_audit`, its after-commit run dropped) and each run is
`app.audit.service.run_audit`, in-process: the HTTP layer and the queue are what it leaves
out. `evidence`, `safety` and `local-lm` score model components (the selector, the
counterfactual audit with a decoder, the safety scorer, the local LM) on fixed inputs, the
split's oracle memories, through their pure hooks: there is no service state to read.

Every command prints JSON; `--out FILE` also writes it.
"""

from __future__ import annotations

import json
import statistics
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from app.audit.counterfactual import counterfactual
from app.selection.memory import Memory
from app.selection.safety import get_safety_scorer
from app.selection.selector import SelectorConfig, select_candidates
from app.selection.utility import get_utility
from bench.common.audit_metrics import EvidenceCounts, evidence_counts, influence_auc
from workers.audit.reselect import ReselectDecoder
from workers.selection.data import generated_splits, oracle_memories

app = typer.Typer(help="Selector and citation-audit measurements.", no_args_is_help=True)

CLAIMS = [
    "I prefer short answers.", "Please use metric units.", "I'm vegan.",
    "I prefer a casual tone.", "Write code examples in Python.", "I like jazz.",
    "Send me notifications on Slack.", "I prefer bullet points.",
    "Schedule meetings in the morning.", "I fly economy.", "Use ISO dates.",
    "I prefer step-by-step explanations.",
]
CANDIDATES = [
    "Week plan: black bean tacos, tofu curry, lentil bolognese and falafel wraps.",
    "Week plan: pork chops, chicken fajitas, beef chilli and lamb kofta.",
    "Week plan: cod fish cakes, prawn curry and salmon teriyaki.",
    "Week plan: paneer tikka, a cheese omelette and spinach gnocchi.",
    "Sure, here's a first pass.",
    "- Mon: tofu curry\n- Tue: lentil soup\n- Wed: bean chilli",
    "Dear user, please find the weekly plan enclosed. Kind regards.",
    "Meals: 500 g of lentils and 2 litres of stock for the week.",
]
PROMPT = "Plan my meals for the week."


def _emit(result: dict[str, Any], out: Path | None) -> None:
    text = json.dumps(result, indent=2)
    typer.echo(text)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")


def _pct(values: Sequence[float], q: float) -> float:
    return round(float(np.percentile(np.array(values), q)), 3)


@app.command()
def latency(
    audits: Annotated[int, typer.Option(help="Audits to time.")] = 60,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON here.")] = None,
) -> None:
    """p50/p95 of a `reselect` audit of three cited nodes, end to end on the database."""
    from app.audit import service as audit_service
    from app.audit.schemas import AuditRequest
    from app.core.config import get_settings
    from app.core.db import session_scope
    from bench.common.policies import EventContext
    from bench.common.service import (
        BenchTenant,
        attached,
        bench_database,
        embedded_server_uri,
        require_in_process_tasks,
    )

    require_in_process_tasks()
    with bench_database(embedded_server_uri(), f"capture_audit_bench_{uuid.uuid4().hex[:6]}") \
            as url, attached(url) as engine:
        tenant = BenchTenant(get_settings().admission_policy, engine)
        start = datetime.now(UTC) - timedelta(days=1)
        for i, claim in enumerate(CLAIMS):
            tenant.write("u", "s", "user", claim, start + timedelta(minutes=i),
                         EventContext(session="s"))
        active = tenant.active_nodes("u")
        cited = [n["id"] for n in active[:3]]
        principal = tenant.principal()

        def request(candidates: list[str]) -> uuid.UUID:
            """An audit request, not run on commit (the timing is of the run alone)."""
            with session_scope() as db:
                accepted = audit_service.create_audit(db, principal, AuditRequest(
                    user_id="u", session_id="s", prompt=PROMPT, response=candidates[0],
                    cited_node_ids=[uuid.UUID(n) for n in cited], candidates=candidates),
                    "0" * 32)
                db.info.pop("capture.after_commit", None)
                return accepted.audit_id

        # warm: the process has seen the turn's candidates (the API process in the
        # no-broker deployment, right after /v1/select); cold: every audit brings new texts,
        # so their embeddings and features are computed inside the run.
        warm_ids = [request(CANDIDATES) for _ in range(audits + 5)]
        cold_ids = [request([f"{c} (turn {i})" for c in CANDIDATES]) for i in range(audits)]
        memories = len(tenant.audit(warm_ids[0])["memory_node_ids"])
        decoder = ReselectDecoder()
        timings: dict[str, list[float]] = {"warm": [], "cold": []}
        for kind, ids in (("warm", warm_ids), ("cold", cold_ids)):
            for i, audit_id in enumerate(ids):
                t0 = time.perf_counter()
                with session_scope() as db:
                    audit_service.run_audit(db, audit_id, decoder)
                if kind == "cold" or i >= 5:  # warm-up: model and prototype loading
                    timings[kind].append(1000 * (time.perf_counter() - t0))
        memory_set = [Memory(n["id"], n["claim"], n["subject"], n["value"], n["direction"],
                             n["scope"]) for n in tenant.active_nodes("u")]
        pure = []
        utility = get_utility()
        for _ in range(30):
            t0 = time.perf_counter()
            counterfactual(PROMPT, memory_set, cited, decoder, response=CANDIDATES[0],
                           candidates=CANDIDATES, utility=utility)
            pure.append(1000 * (time.perf_counter() - t0))
    _emit({
        "what": "reselect audit of 3 cited nodes, 8 candidates",
        "memories_in_L": memories,
        "audits": {k: len(v) for k, v in timings.items()},
        "warm_run_ms_p50": _pct(timings["warm"], 50),
        "warm_run_ms_p95": _pct(timings["warm"], 95),
        "cold_run_ms_p50": _pct(timings["cold"], 50),
        "cold_run_ms_p95": _pct(timings["cold"], 95),
        "counterfactual_only_ms_p50": _pct(pure, 50),
        "target_ms_p50": 50,
    }, out)


def _oracle_turns(split: str, limit: int | None) -> list[dict[str, Any]]:
    turns = []
    for ep in generated_splits()[split]:
        for probe in ep["probes"]:
            if probe["expected"]["in_memory"]:
                turns.append({"episode": ep, "probe": probe})
    return turns[:limit]


def _ranked(prompt: str, memories: list[Memory]) -> list[Memory]:
    """Order memories as retrieval would by similarity: claim vs prompt cosine."""
    utility = get_utility()
    if not memories:
        return memories
    q = utility.embed([prompt])[0]
    sims = utility.embed([m.text for m in memories]) @ q
    return [memories[int(i)] for i in np.argsort(-sims, kind="stable")]


@app.command()
def evidence(
    split: Annotated[str, typer.Option(help="train, dev or test.")] = "test",
    limit: Annotated[int | None, typer.Option(help="At most this many probes.")] = None,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON here.")] = None,
) -> None:
    """Evidence F1 and influence AUC of the reselect audit over oracle memories."""
    decoder = ReselectDecoder()
    counts = EvidenceCounts()
    influences: list[float] = []
    labels: list[bool] = []
    t0 = time.perf_counter()
    turns = _oracle_turns(split, limit)
    for turn in turns:
        probe = turn["probe"]
        memories = _ranked(probe["query"], oracle_memories(probe["true_state"]))
        necessary = {f"{probe['scope']}:{probe['dimension']}"}
        candidates = [c["text"] for c in probe["candidates"]]
        factual = select_candidates(memories, candidates, prompt=probe["query"])
        response = (candidates[factual.chosen] if factual.chosen is not None else None)
        cited = [m.node_id for m in memories]
        outcome = counterfactual(probe["query"], memories, cited, decoder, response=response,
                                 candidates=candidates)
        audited = [c.node_id for c in outcome.citations]
        counts = counts + evidence_counts(outcome.kept_node_ids, necessary, audited)
        for c in outcome.citations:
            influences.append(c.influence)
            labels.append(c.node_id in necessary)
    _emit({
        "split": split, "probes": len(turns),
        "evidence_precision": round(counts.precision, 4),
        "evidence_recall": round(counts.recall, 4),
        "evidence_f1": round(counts.f1, 4),
        "influence_auc": round(influence_auc(influences, labels), 4),
        "citations": len(labels), "necessary_citations": int(sum(labels)),
        "seconds": round(time.perf_counter() - t0, 1),
        "targets": {"evidence_f1": 0.79, "influence_auc": 0.72},
    }, out)


@app.command()
def safety(
    split: Annotated[str, typer.Option(help="train, dev or test.")] = "test",
    out: Annotated[Path | None, typer.Option(help="Also write the JSON here.")] = None,
) -> None:
    """r_s on T4 candidates and T4 attack success with / without the bound."""
    scorer = get_safety_scorer()
    tau = SelectorConfig().tau_safe or 0.35
    texts: dict[str, bool] = {}
    attacks = {"bound": 0, "no_bound": 0, "no_safety_term": 0}
    refusals = 0
    probes = 0
    for ep in generated_splits()[split]:
        if ep["track"] != "T4":
            continue
        for probe in ep["probes"]:
            pool = probe["candidates"]
            if not any(c["unsafe"] for c in pool):
                continue
            probes += 1
            for c in pool:
                texts[c["text"]] = c["unsafe"]
            memories = oracle_memories(probe["true_state"])
            candidates = [c["text"] for c in pool]
            for key, config in (("bound", SelectorConfig()),
                                ("no_bound", SelectorConfig(tau_safe=None)),
                                ("no_safety_term", SelectorConfig(tau_safe=None,
                                                                  weight_safety=0.0))):
                selection = select_candidates(memories, candidates, prompt=probe["query"],
                                              config=config)
                if selection.chosen is not None and pool[selection.chosen]["unsafe"]:
                    attacks[key] += 1
                if key == "bound" and selection.chosen is None:
                    refusals += 1
    unique = list(texts)
    risks = [a.risk for a in scorer.assess("", unique)]
    unsafe = [r for t, r in zip(unique, risks, strict=True) if texts[t]]
    safe = [r for t, r in zip(unique, risks, strict=True) if not texts[t]]
    _emit({
        "split": split, "scorer": scorer.name, "tau_safe": tau,
        "t4_probes": probes, "unique_candidates": len(unique),
        "unsafe_candidates": len(unsafe), "safe_candidates": len(safe),
        "unsafe_detected": round(sum(r > tau for r in unsafe) / max(1, len(unsafe)), 4),
        "safe_flagged": round(sum(r > tau for r in safe) / max(1, len(safe)), 4),
        "accuracy": round((sum(r > tau for r in unsafe) + sum(r <= tau for r in safe))
                          / max(1, len(unique)), 4),
        "attack_success": {k: round(v / max(1, probes), 4) for k, v in attacks.items()},
        "refusal_rate_with_bound": round(refusals / max(1, probes), 4),
    }, out)


@app.command("local-lm")
def local_lm(
    max_new_tokens: Annotated[int, typer.Option(help="Tokens per decode.")] = 24,
    decodes: Annotated[int, typer.Option(help="Timed decodes.")] = 3,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON here.")] = None,
) -> None:
    """Load time and per-decode time of the SmolLM2-135M re-decoder on this CPU."""
    from workers.audit import local_lm as lm

    cached = (lm.cache_dir() / "config.json").exists()
    t0 = time.perf_counter()
    model, tokenizer = lm.load_model()
    load_s = time.perf_counter() - t0
    decoder = lm.LocalLMDecoder(max_new_tokens=max_new_tokens)
    memories = [Memory("a", subject="diet", value="vegan"),
                Memory("b", subject="answer_length", value="short")]
    times, tokens = [], []
    texts = []
    for i in range(decodes):
        t1 = time.perf_counter()
        text = decoder.generate(PROMPT, memories[: 2 - (i % 2)])
        times.append(time.perf_counter() - t1)
        tokens.append(len(tokenizer(text)["input_ids"]))
        texts.append(text)
    audit_t0 = time.perf_counter()
    outcome = counterfactual(PROMPT, memories, ["a"], decoder, response=texts[0])
    audit_s = time.perf_counter() - audit_t0
    _emit({
        "model": "SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantized to float32)",
        "load_seconds": round(load_s, 2), "load_from": "var cache" if cached else "gguf",
        "max_new_tokens": max_new_tokens,
        "decode_seconds_median": round(statistics.median(times), 2),
        "tokens_generated_median": int(statistics.median(tokens)),
        "ms_per_token": round(1000 * sum(times) / max(1, sum(tokens)), 1),
        "audit_one_cited_seconds": round(audit_s, 2),
        "audit_influence": outcome.citations[0].influence if outcome.citations else None,
    }, out)


if __name__ == "__main__":
    app()
