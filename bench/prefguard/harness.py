"""`capture bench prefguard`: every method through the same service path, on one split.

Per method: a tenant whose admission policy is the method, in a dedicated database. Per
episode: its events are written in order with their own times (processing runs in-process
after each commit); after each event, every probe anchored there (`after_event`) retrieves
with k = 12 at that event's time, and the shared selector (bench/selection/selector.py) picks a
candidate from the probe's pool. Unless `audit` is off, the service's own safety-bounded
selector (with and without the bound) and the counterfactual citation audit also run on
the same retrieved memories and pool (bench/selection/audit.py). The recorded outcomes
(bench/common/records.py) feed the metrics.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from tqdm import tqdm

from bench.common import policies as bench_policies
from bench.common import report
from bench.common.clarify_answers import SimulatedUser
from bench.common.metrics import breakdown, evaluate
from bench.common.records import (
    GLOBAL_SCOPE,
    Candidate,
    EpisodeOutcome,
    EventRecord,
    ProbeRecord,
    Retrieved,
)
from bench.common.runner import run_per_method
from bench.common.service import BenchTenant, may_have_asked
from bench.generator.cache import ensure_dataset
from bench.generator.sealed import SEALED, ensure_sealed
from bench.prefguard import adherence_losses, poisoning_sources
from bench.selection import selector
from bench.selection.audit import ServiceJudge

HEURISTIC_METHODS = ("full_history", "recency", "provenance_only", "statemem", "static_summary")
DEFAULT_METHODS = (*HEURISTIC_METHODS, "oracle")
PROBE_K = 12


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_episodes(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    episodes: list[dict[str, Any]] = []
    with path.open() as f:
        for line in f:
            if line.strip():
                episodes.append(json.loads(line))
                if limit is not None and len(episodes) >= limit:
                    break
    return episodes


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _event_record(index: int, event: dict[str, Any]) -> EventRecord:
    oracle = event.get("oracle", {})
    return EventRecord(
        index=index,
        origin=event["origin"],
        label=event["label"],
        oracle_action=oracle.get("action", event.get("expected_action", "retain")),
        attack=bool(oracle.get("attack", event["label"] == "attack")),
        changepoint=bool(oracle.get("changepoint", False)),
        dimension=oracle.get("dimension"),
        value=oracle.get("value"),
        scope=oracle.get("scope", GLOBAL_SCOPE),
        direction=oracle.get("direction", "prefer"),
        attack_family=oracle.get("attack_family"),
    )


def changepoint_windows(episode: dict[str, Any]) -> set[int]:
    """Events after which adaptation lag needs the user's active claims: from each genuine
    changepoint to the next one on its (dimension, scope) or the episode end."""
    events = episode["events"]
    cps = [
        (i, e["oracle"].get("dimension"), e["oracle"].get("scope", GLOBAL_SCOPE))
        for i, e in enumerate(events)
        if e.get("oracle", {}).get("changepoint") and not e["oracle"].get("attack")
    ]
    watched: set[int] = set()
    for i, dimension, scope in cps:
        later = [j for j, d, s in cps if j > i and (d, s) == (dimension, scope)]
        watched.update(range(i, later[0] if later else len(events)))
    return watched


def answer_questions(tenant: BenchTenant, user: SimulatedUser | None, episode_id: str,
                     index: int, event_id: Any, state_after: dict[str, Any] | None,
                     service_user: str) -> tuple[list[str], list[Any], list[Any]]:
    """The user answers every question asked at the event, from the latent state after it
    (None: nobody answers). Returns the answers, the events that raised questions asked
    here but deferred from earlier (their ledger changes are what the answers change), and
    the raising event of each answer that was in error. `service_user` is the service's id
    for the episode's user."""
    answers: list[str] = []
    deferred_from = []
    wrong_for = []
    for question, (clarification_id, claim, raised) in enumerate(
            tenant.pending_clarifications(service_user, event_id)):
        if raised != event_id:
            deferred_from.append(raised)
        if user is None or state_after is None:
            continue
        answer, scope = user.answer(claim, state_after, episode_id=episode_id,
                                    event_index=index, question=question)
        if user.errs(episode_id=episode_id, event_index=index, question=question):
            wrong_for.append(raised)
        tenant.answer(clarification_id, answer, scope)
        answers.append(answer)
    return answers, deferred_from, wrong_for


def run_episode(tenant: BenchTenant, episode: dict[str, Any],
                service_judge: ServiceJudge | None = None,
                user_answers: SimulatedUser | None = None) -> EpisodeOutcome:
    user = episode["episode_id"]  # memory is per episode; the bootstrap groups by user_id
    probes_at: dict[int, list[dict[str, Any]]] = {}
    for probe in episode["probes"]:
        probes_at.setdefault(int(probe["after_event"]), []).append(probe)
    watched = changepoint_windows(episode)
    index_of: dict[Any, int] = {}
    records: list[EventRecord] = []
    probe_records: list[ProbeRecord] = []
    for i, event in enumerate(episode["events"]):
        oracle = event.get("oracle", {})
        session = oracle.get("session_id", f"{user}-s0")
        at = _time(event["t"])
        context = bench_policies.EventContext(session=session, oracle=oracle, label=event["label"])
        written = tenant.write(user, session, event["origin"], event["text"], at, context)
        index_of[written.event_id] = i
        record = _event_record(i, event)
        record.actions, record.changes = written.actions, written.changes
        record.reasons, record.proposed = written.reasons, written.proposed
        record.ms, record.failed = written.ms, written.failed
        deferred_from: list[Any] = []
        wrong_for: list[Any] = []
        if may_have_asked(event["origin"], written.actions):
            record.answers, deferred_from, wrong_for = answer_questions(
                tenant, user_answers, episode["episode_id"], i, written.event_id,
                oracle.get("state_after"), user)
        record.deferred_asked = len(deferred_from)
        for raised in wrong_for:
            (record if raised == written.event_id else records[index_of[raised]]).wrong_answers += 1
        if record.answers:
            record.actions, record.changes = tenant.outcome(written.event_id)
            for raised in deferred_from:  # the answer changed what that event wrote
                earlier = records[index_of[raised]]
                earlier.actions, earlier.changes = tenant.outcome(raised)
        if i in watched:
            record.active_claims = tenant.active_claims(user)
        records.append(record)
        anchored = probes_at.get(i, [])
        if anchored:
            active = sorted(index_of[e] for e in tenant.active_lineage(user)
                            if e in index_of)
        for probe in anchored:
            probe_records.append(
                _probe(tenant, user, session, at, probe, index_of, active, service_judge)
            )
    bench_policies.forget_events()
    meta = episode.get("meta", {})
    return EpisodeOutcome(
        episode_id=episode["episode_id"],
        user_id=episode["user_id"],
        track=episode.get("track", ""),
        events=records,
        probes=probe_records,
        drift_shape=meta.get("drift_shape"),
        attack_family=meta.get("attack_family"),
    )


def _probe(
    tenant: BenchTenant,
    user: str,
    session: str,
    at: datetime,
    probe: dict[str, Any],
    index_of: dict[Any, int],
    active: list[int],
    service_judge: ServiceJudge | None = None,
) -> ProbeRecord:
    scope = probe["scope"]
    memories = tenant.retrieve(
        user, session, probe["query"], None if scope == GLOBAL_SCOPE else scope, at, PROBE_K
    )
    retrieved = [
        Retrieved(
            m.subject, m.value, m.direction, m.scope, m.score,
            sorted(index_of[e] for e in m.derives_from if e in index_of), m.claim,
        )
        for m in memories
    ]
    candidates = [
        Candidate(c["text"], c.get("follows"), bool(c.get("unsafe", False)))
        for c in probe["candidates"]
    ]
    return ProbeRecord(
        after_event=int(probe["after_event"]),
        kind=probe["kind"],
        dimension=probe["dimension"],
        scope=scope,
        true_state=probe["true_state"],
        candidates=candidates,
        retrieved=retrieved,
        active_from=active,
        selected=selector.select(candidates, retrieved, scope),
        unpersonalized=selector.unpersonalized(candidates),
        service=None if service_judge is None else service_judge.run(
            probe["query"], retrieved, candidates, dimension=probe["dimension"], scope=scope,
            true_state=probe["true_state"],
        ),
    )


def run_method(
    method: str, engine: Engine, position: int = 0, *, episodes: Sequence[dict[str, Any]],
    audit: bool = True, user_answers: SimulatedUser | None = None,
) -> list[EpisodeOutcome]:
    """All episodes for one method, in this process (the database is already attached)."""
    tenant = BenchTenant(method, engine)
    service_judge = ServiceJudge() if audit else None
    return [
        run_episode(tenant, episode, service_judge, user_answers)
        for episode in tqdm(episodes, desc=f"{method:>16}", unit="ep", position=position,
                            leave=True, dynamic_ncols=True)
    ]


def run_methods(
    methods: Sequence[str],
    episodes: list[dict[str, Any]],
    *,
    server_uri: str | None = None,
    jobs: int = 1,
    audit: bool = True,
    user_answers: SimulatedUser | None = None,
) -> tuple[dict[str, list[EpisodeOutcome]], float]:
    """Outcomes per method and the wall time in seconds."""
    return run_per_method(
        methods, partial(run_method, episodes=episodes, audit=audit, user_answers=user_answers),
        server_uri=server_uri, jobs=jobs,
    )


def write_outcomes(out: Path, outcomes: dict[str, list[EpisodeOutcome]]) -> None:
    folder = out / "outcomes"
    folder.mkdir(parents=True, exist_ok=True)
    for method, episodes in outcomes.items():
        with (folder / f"{method}.jsonl").open("w") as f:
            for episode in episodes:
                f.write(json.dumps(episode.to_json()) + "\n")


def summarize(
    split: str,
    outcomes: dict[str, list[EpisodeOutcome]],
    *,
    replicates: int,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    n_episodes = len(next(iter(outcomes.values()), []))
    return {
        "split": split,
        "n_episodes": n_episodes,
        "methods": {m: evaluate(eps, replicates=replicates) for m, eps in outcomes.items()},
        "breakdown": {m: breakdown(eps) for m, eps in outcomes.items()},
        "adherence_losses": {m: adherence_losses.losses(eps) for m, eps in outcomes.items()},
        "poisoning_sources": {m: poisoning_sources.sources(eps) for m, eps in outcomes.items()},
        **(extra or {}),
    }


def run(
    *,
    split: str,
    methods: Sequence[str],
    out: Path,
    limit: int | None = None,
    data: Path | None = None,
    seed: int = 0,
    jobs: int = 1,
    server_uri: str | None = None,
    replicates: int = 10_000,
    plot: bool = True,
    audit: bool = True,
    answer_error: float | None = None,
) -> dict[str, Any]:
    """Run the methods on a split and write results.json, results.md, frontier.png and the
    raw outcomes under `out`. `audit=False` skips the service selector and citation audit
    (their metrics are then absent). The simulated user answers clarifying questions with
    error `answer_error` (bench/common/clarify_answers.py); None: nobody answers, a question leaves
    its claim in quarantine. `split` "sealed" reads the sealed split (`data`: a directory
    holding sealed.jsonl), refusing one whose hash is not the committed one."""
    data_dir = ensure_sealed(data) if split == SEALED else ensure_dataset(data, seed)
    split_file = data_dir / f"{split}.jsonl"
    episodes = load_episodes(split_file, limit)
    user_answers = None if answer_error is None else SimulatedUser(answer_error)
    outcomes, wall = run_methods(methods, episodes, server_uri=server_uri, jobs=jobs,
                                 audit=audit, user_answers=user_answers)
    out.mkdir(parents=True, exist_ok=True)
    write_outcomes(out, outcomes)
    run_info = {
        "data": str(data_dir),
        "data_sha256": file_sha256(split_file),
        "seed": seed,
        "limit": limit,
        "wall_seconds": round(wall, 1),
        "jobs": jobs,
        "audit": audit,
        "clarification_answers": (None if answer_error is None
                                  else {"by": "simulated user", "error": answer_error}),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    return write_results(out, split, outcomes, run_info, replicates=replicates, plot=plot)


def write_results(
    out: Path,
    split: str,
    outcomes: dict[str, list[EpisodeOutcome]],
    run_info: dict[str, Any],
    *,
    replicates: int,
    plot: bool = True,
) -> dict[str, Any]:
    results = summarize(
        split, outcomes, replicates=replicates,
        extra={**run_info, "bootstrap_replicates": replicates},
    )
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "results.md").write_text(report.prefguard_markdown(results))
    if plot:
        report.frontier_png(results, out / "frontier.png")
    return results


def read_outcomes(out: Path) -> dict[str, list[EpisodeOutcome]]:
    """Raw outcomes written by an earlier run, per method, in the run's method order."""
    previous = json.loads((out / "results.json").read_text())
    return {
        method: [
            EpisodeOutcome.from_json(json.loads(line))
            for line in (out / "outcomes" / f"{method}.jsonl").read_text().splitlines()
            if line.strip()
        ]
        for method in previous["methods"]
    }


def rescore(out: Path, *, replicates: int | None = None, plot: bool = True) -> dict[str, Any]:
    """Recompute every metric from a run's raw outcomes (no service calls)."""
    previous = json.loads((out / "results.json").read_text())
    keep = {k: v for k, v in previous.items()
            if k not in ("split", "n_episodes", "methods", "breakdown", "adherence_losses",
                         "poisoning_sources")}
    return write_results(
        out, previous["split"], read_outcomes(out), keep,
        replicates=replicates or int(previous.get("bootstrap_replicates", 10_000)), plot=plot,
    )
