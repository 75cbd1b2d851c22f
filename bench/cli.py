"""`capture bench …`: generate, prefguard, external. app/cli.py mounts this app under `bench`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from bench.common.clarify_answers import PAPER_ANSWER_ERROR
from bench.generator.cli import generate_command

app = typer.Typer(help="D-PrefGuard benchmark and third-party episodes.", no_args_is_help=True)
app.command("generate")(generate_command)

ALL_METHODS = "full_history,recency,provenance_only,statemem,static_summary,oracle"
DEFAULT_JOBS = min(2, os.cpu_count() or 1)

MethodsOption = Annotated[
    str, typer.Option("--methods", help="Comma-separated admission policies to compare.")
]
JobsOption = Annotated[
    int, typer.Option("--jobs", min=1, help="Worker processes (one method each at a time).")
]
ReplicatesOption = Annotated[
    int, typer.Option("--replicates", min=100, help="User-level bootstrap replicates.")
]


@app.callback()
def _group() -> None:
    """Benchmark commands."""  # keeps sub-commands named when mounted


def _methods(value: str) -> list[str]:
    methods = [m.strip() for m in value.split(",") if m.strip()]
    if not methods:
        raise typer.BadParameter("give at least one method")
    return methods


def _summary(results: dict[str, object], out: Path) -> None:
    methods = results.get("methods", {})
    assert isinstance(methods, dict)
    print((out / "results.md").read_text())
    print(json.dumps({"out": str(out), "methods": sorted(methods),
                      "wall_seconds": results.get("wall_seconds")}))


@app.command("prefguard")
def prefguard_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    split: Annotated[str, typer.Option(
        "--split", help="train, dev, test, or sealed (with --unseal; read once, by the "
        "protocol in bench/generator/README.md).")] = "test",
    methods: MethodsOption = ALL_METHODS,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N episodes.")
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option("--data", help="Generated data directory (default: generate with "
                     "--seed into var/bench-data, cached)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Generator seed when --data is absent.")] = 0,
    jobs: JobsOption = DEFAULT_JOBS,
    replicates: ReplicatesOption = 10_000,
    no_audit: Annotated[
        bool, typer.Option("--no-audit", help="Skip the service selector and citation audit.")
    ] = False,
    answer_error: Annotated[
        float, typer.Option("--answer-error", min=0.0, max=1.0,
                            help="How often the simulated user answers a clarifying question "
                            "wrongly (the paper's ε).")
    ] = PAPER_ANSWER_ERROR,
    no_answers: Annotated[
        bool, typer.Option("--no-answers", help="Nobody answers clarifying questions: the "
                           "claim stays quarantined (a non-interactive benchmark).")
    ] = False,
    unseal: Annotated[
        bool, typer.Option("--unseal", help="Confirms a run on the sealed split: its one "
                           "reading at the end of a piece of work.")
    ] = False,
) -> None:
    """Run every method through the service on a D-PrefGuard split; write results.json,
    results.md, frontier.png and the raw outcomes to OUT. When a gate asks, a simulated user
    answers from the episode's latent state (bench/common/clarify_answers.py)."""
    from bench.prefguard import harness

    if split not in ("train", "dev", "test", "sealed"):
        raise typer.BadParameter("split must be train, dev, test or sealed")
    if split == "sealed" and not unseal:
        raise typer.BadParameter(
            "the sealed split is read once, at the end of a piece of work "
            "(bench/generator/README.md); pass --unseal to read it")
    results = harness.run(
        split=split, methods=_methods(methods), out=out, limit=limit, data=data, seed=seed,
        jobs=jobs, replicates=replicates, audit=not no_audit,
        answer_error=None if no_answers else answer_error,
    )
    _summary(results, out)


@app.command("rescore")
def rescore_command(
    out: Annotated[Path, typer.Argument(help="Output directory of an earlier run.")],
    replicates: Annotated[
        int | None, typer.Option("--replicates", min=100, help="Bootstrap replicates.")
    ] = None,
) -> None:
    """Recompute a prefguard or external run's metrics from its raw outcomes (no service
    calls)."""
    from bench.external import replay
    from bench.prefguard import harness

    previous = json.loads((out / "results.json").read_text())
    if previous.get("split") == "external":
        results = replay.rescore(out, replicates=replicates)
    else:
        results = harness.rescore(out, replicates=replicates)
    _summary(results, out)


@app.command("external")
def external_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    episodes: Annotated[
        list[Path] | None,
        typer.Option("--episodes", help="Episode JSONL file(s); more files may follow."),
    ] = None,
    more: Annotated[list[Path] | None, typer.Argument(help="More episode files.")] = None,
    methods: MethodsOption = ALL_METHODS,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N episodes per file.")
    ] = None,
    jobs: JobsOption = DEFAULT_JOBS,
    replicates: ReplicatesOption = 10_000,
) -> None:
    """Replay third-party episodes (../shared/data/external format); evaluation only."""
    from bench.external import replay

    files = [*(episodes or []), *(more or [])]
    if not files:
        raise typer.BadParameter("give episode files with --episodes")
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise typer.BadParameter(f"no such file: {', '.join(missing)}")
    results = replay.run(
        files=files, methods=_methods(methods), out=out, limit=limit, jobs=jobs,
        replicates=replicates,
    )
    _summary(results, out)


@app.command("latency")
def latency_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    nodes: Annotated[int, typer.Option("--nodes", min=12, help="Active nodes in one tenant.")]
    = 100_000,
    writes: Annotated[int, typer.Option("--writes", min=1, help="Events written.")] = 400,
    queries: Annotated[int, typer.Option("--queries", min=1, help="Retrievals timed.")] = 300,
    seed: Annotated[int, typer.Option("--seed")] = 0,
) -> None:
    """Write-path and retrieval latency through the service layer (DESIGN §9 targets)."""
    from bench.common.service import require_in_process_tasks
    from bench.perf import latency

    require_in_process_tasks()
    results = latency.run(out, nodes=nodes, writes=writes, queries=queries, seed=seed)
    print((out / "results.md").read_text())
    print(json.dumps(results))


@app.command("perf")
def perf_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    sizes: Annotated[str, typer.Option("--sizes", help="Active-node counts for retrieval, "
                                       "comma-separated (1000000 works; it loads for long).")]
    = "10000,100000",
    reps: Annotated[int, typer.Option("--reps", min=1, help="Repetitions of each measure.")]
    = 3,
    writes: Annotated[int, typer.Option("--writes", min=1, help="Events per write-path "
                                        "repetition.")] = 200,
    queries: Annotated[int, typer.Option("--queries", min=1, help="Retrievals per size and "
                                         "repetition.")] = 200,
    events: Annotated[int, typer.Option("--events", min=1, help="Events per throughput "
                                        "round.")] = 120,
    workers: Annotated[str, typer.Option("--workers", help="Celery worker counts.")] = "1,2,4",
    mem0: Annotated[bool, typer.Option("--mem0/--no-mem0", help="Run Mem0 beside Capture, "
                                       "from the virtualenv `capture bench peers install` "
                                       "builds (absent: results.md says so).")] = True,
    mem0_venv: Annotated[Path | None, typer.Option("--mem0-venv", help="Mem0's virtualenv "
                                                   "(default: var/peers/mem0).")] = None,
) -> None:
    """Write path, events/s across Celery workers on a real Redis, retrieval and recall@12
    against ledger size, check-call, peak RSS; Mem0's add (infer=False) and search on the same
    events, queries and ledger sizes, and Agent Memory Guard's write check on the same texts;
    writes results.json, results.md and perf.png to OUT."""
    from bench.common.service import require_in_process_tasks
    from bench.perf import runner

    require_in_process_tasks()
    results = runner.run(out, sizes=tuple(int(s) for s in sizes.split(",")), writes=writes,
                       queries=queries, calls=queries, events=events, reps=reps,
                       worker_counts=tuple(int(n) for n in workers.split(",")), mem0=mem0,
                       mem0_venv=mem0_venv)
    print((out / "results.md").read_text())
    skipped = results["peers"]["mem0"].get("skipped")
    if mem0 and skipped:
        typer.echo(f"Mem0 was not run: {skipped}", err=True)


peers_app = typer.Typer(help="Peers `capture bench perf` runs in environments of their own.",
                        no_args_is_help=True)
app.add_typer(peers_app, name="peers")


@peers_app.callback()
def _peers_group() -> None:
    """Peers' environments."""


@peers_app.command("install")
def peers_install_command(
    venv: Annotated[Path | None, typer.Option("--venv", help="Where Mem0's virtualenv goes "
                                              "(default: var/peers/mem0).")] = None,
) -> None:
    """Build Mem0's virtualenv (mem0ai==2.2.1, which needs protobuf < 7, beside the service's
    embedding stack at the service's versions) with pip; `capture bench perf` runs Mem0 from
    it. No torch, no model download."""
    from bench.perf import peers

    report = peers.install(venv or peers.mem0_venv())
    print(json.dumps(report, indent=2))
    if report["torch"]:
        typer.echo("torch is in the virtualenv although nothing here asks for it", err=True)


@app.command("gate-parity")
def gate_parity_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    split: Annotated[str, typer.Option("--split", help="train, dev or test.")] = "dev",
    data: Annotated[Path | None, typer.Option("--data", help="Benchmark data directory "
                                               "(default: the generated one).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Episodes per track.")]
    = None,
) -> None:
    """The serving gate (numpy, fixed-step) against the torch model (adaptive dopri5): every
    hypothesis of the split's replay, per learned policy; writes results.json and results.md."""
    from bench.parity import gate

    gate.run(out, split, data, limit=limit)
    print((out / "results.md").read_text())


@app.command("redteam")
def redteam_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    split: Annotated[str, typer.Option(
        "--split", help="dev (families for development), test (held-out families) or a "
        "sealed set (sealed, sealed2, sealed3, sealed4: families of their own, with --unseal: "
        "each read once, by the protocol in bench/redteam/sealed.py).")] = "dev",
    per_family: Annotated[int, typer.Option(
        "--per-family", min=1, help="Cases per family, channel and history.")] = 12,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    policy: Annotated[str, typer.Option("--policy", help="Admission policy.")] = "capture",
    unseal: Annotated[bool, typer.Option(
        "--unseal", help="Confirms a run on a sealed set: its one reading at the end of a "
        "piece of work.")] = False,
) -> None:
    """Generated attacks on memory admission and check-call, with their benign counterparts,
    through the service's API; writes results.json, results.md and heat maps to OUT."""
    from bench.redteam import runner, sealed

    if split not in ("dev", "test", *sealed.SETS):
        raise typer.BadParameter(f"split must be dev, test or one of {', '.join(sealed.SETS)}")
    if split in sealed.SETS and not unseal:
        raise typer.BadParameter(
            f"the sealed set {split} is read once, at the end of a piece of work "
            "(bench/redteam/sealed.py); pass --unseal to read it")
    results = runner.run(split, out, seed=seed, per_family=per_family, policy=policy)
    print((out / "results.md").read_text())
    print(json.dumps({"out": str(out), "totals": results["totals"],
                      "wall_seconds": results["wall_seconds"]}))


@app.command("chaos")
def chaos_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    worker_kills: Annotated[int, typer.Option("--worker-kills", min=0, max=1000)] = 100,
    api_restarts: Annotated[int, typer.Option("--api-restarts", min=0, max=200)] = 10,
    redis_restarts: Annotated[int, typer.Option("--redis-restarts", min=0, max=200)] = 10,
    postgres_restarts: Annotated[int, typer.Option("--postgres-restarts", min=0, max=200)] = 10,
    workers: Annotated[int, typer.Option("--workers", min=1, max=16)] = 2,
    users: Annotated[int, typer.Option("--users", min=1, max=64,
                                       help="Writer threads, one user each.")] = 4,
    duration_s: Annotated[float, typer.Option(
        "--duration-s", min=10.0, max=7200.0, help="Seconds of writing; faults fall inside.")]
    = 600.0,
    write_interval_s: Annotated[float, typer.Option(
        "--write-interval-s", min=0.0, max=60.0, help="Pause of each writer between events.")]
    = 0.5,
    requeue_stale_after_s: Annotated[float, typer.Option("--requeue-stale-after-s", min=1.0)]
    = 30.0,
    requeue_interval_s: Annotated[float, typer.Option("--requeue-interval-s", min=1.0)] = 10.0,
    quiesce_timeout_s: Annotated[float, typer.Option("--quiesce-timeout-s", min=10.0)] = 180.0,
    seed: Annotated[int, typer.Option("--seed")] = 0,
) -> None:
    """Fault injection on loopback: a private Redis and Postgres, the API, N workers and beat
    in subprocesses; writers retry while workers (SIGKILL), the API, Redis and Postgres are
    killed at random points. Reports lost, duplicated and out-of-order events, recovery
    times and the error responses clients saw; writes results.json, results.md and
    recovery.png to OUT."""
    from bench.chaos.runner import ChaosConfig, run

    config = ChaosConfig(
        worker_kills=worker_kills, api_restarts=api_restarts, redis_restarts=redis_restarts,
        postgres_restarts=postgres_restarts, workers=workers, users=users,
        duration_s=duration_s, write_interval_s=write_interval_s,
        requeue_stale_after_s=requeue_stale_after_s, requeue_interval_s=requeue_interval_s,
        quiesce_timeout_s=quiesce_timeout_s, seed=seed)
    results = run(out, config)
    print((out / "results.md").read_text())
    print(json.dumps({k: results[k] for k in (
        "acknowledged", "lost", "duplicated", "out_of_order", "non_json_errors",
        "wall_seconds")}))
    if (results["lost"] or results["duplicated"] or results["out_of_order"]
            or results["non_json_errors"] or not results["acknowledged"]):
        raise typer.Exit(1)


ExtractorOption = Annotated[
    str | None, typer.Option("--extractor", help="deterministic, learned or openai_compatible "
                             "(default: the configured CAPTURE_EXTRACTOR).")
]


@app.command("nearmiss")
def nearmiss_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    extractor: ExtractorOption = None,
    statements: Annotated[
        str, typer.Option("--set", help="eval: the evaluation statements (nearmiss.yaml); "
                          "dev: the development statements (nearmiss_dev.yaml).")
    ] = "eval",
) -> None:
    """Write the authored near-miss statements (bench/reader/data/nearmiss.yaml, or with
    --set dev nearmiss_dev.yaml) to the service with the extractor as its reader and report
    how often a claim it read asserts a value the user did not say; writes results.json and
    results.md to OUT."""
    from bench.reader import nearmiss

    if statements not in nearmiss.SETS:
        raise typer.BadParameter(f"--set is one of {', '.join(nearmiss.SETS)}")
    results = nearmiss.run(out, extractor, statements)
    print((out / "results.md").read_text())
    print(json.dumps({"out": str(out), "unsaid_value_rate":
                      results["overall"]["unsaid_value_rate"]}))


@app.command("noise")
def noise_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    extractor: ExtractorOption = None,
    data: Annotated[
        Path | None,
        typer.Option("--data", help="Generated data directory (default: generate with "
                     "--seed into var/bench-data, cached)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Generator seed when --data is absent.")] = 0,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Only the first N episodes.")
    ] = None,
) -> None:
    """What the service, with the extractor as its reader, reads as claims from the dev
    split's small talk, task requests, one-off instructions and sarcasm; writes results.json
    and results.md to OUT. Dev only."""
    from bench.reader import noise_reading

    noise_reading.run(out, extractor, data=data, seed=seed, limit=limit)
    print((out / "results.md").read_text())


def _mount_optional() -> None:
    """Commands other benchmark modules provide, when present (`capture bench tools`)."""
    try:
        from bench.tools.cli import tools_command
    except ImportError:
        return
    app.command("tools")(tools_command)


_mount_optional()
