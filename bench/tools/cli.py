"""`capture bench tools`: the typer sub-app the bench CLI mounts (`from bench.tools.cli import
app`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="Check-call trace benchmark.", no_args_is_help=True)


@app.callback()
def _group() -> None:
    """Check-call benchmark commands."""  # keeps `tools` a named sub-command when mounted


@app.command("tools")
def tools_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    split: Annotated[str, typer.Option("--split", help="dev or test.")] = "test",
    per_population: Annotated[
        int, typer.Option("--per-population", min=1, help="Sessions per population.")
    ] = 150,
    seed: Annotated[int, typer.Option("--seed", help="Generator seed.")] = 0,
    external: Annotated[
        Path | None,
        typer.Option("--external", help="Third-party episodes with tool_call fields."),
    ] = None,
    no_external: Annotated[
        bool, typer.Option("--no-external", help="Skip the third-party replay.")
    ] = False,
    latency_calls: Annotated[
        int, typer.Option("--latency-calls", min=0, help="Calls timed with 1,000 nodes (0: skip).")
    ] = 400,
    external_only: Annotated[
        bool,
        typer.Option(
            "--external-only",
            help="Only the third-party replays (under the policy, and declaration-only).",
        ),
    ] = False,
) -> None:
    """Drive generated sessions through the service; write results.json, results.md and
    outcomes.jsonl to OUT."""
    from bench.tools import bench

    if external_only and no_external:
        raise typer.BadParameter("--external-only and --no-external exclude each other")
    if split not in ("dev", "test"):
        raise typer.BadParameter("split must be dev or test")
    path = None if no_external else (external or bench.DEFAULT_EXTERNAL)
    if external_only and (path is None or not path.exists()):
        raise typer.BadParameter(f"--external-only: no third-party file at {path}")
    results = bench.run(
        split=split,
        out=out,
        per_population=per_population,
        seed=seed,
        external=path,
        latency_calls=latency_calls,
        external_only=external_only,
    )
    print((out / "results.md").read_text())
    print(json.dumps({"out": str(out), "wall_seconds": results["wall_seconds"]}))
