"""`capture bench generate`: the typer sub-app the main CLI mounts under `bench`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from bench.generator.builder import generate

app = typer.Typer(help="Synthetic D-PrefGuard-style benchmark.", no_args_is_help=True)


@app.callback()
def _group() -> None:
    """Benchmark commands."""  # keeps `generate` a named sub-command when mounted


@app.command("generate")
def generate_command(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    seed: Annotated[int, typer.Option("--seed", help="Seed; same seed, same bytes.")] = 0,
    episodes_per_track: Annotated[
        int, typer.Option("--episodes-per-track", min=3, help="Episodes (= users) per track.")
    ] = 480,
) -> None:
    """Write train/dev/test JSONL and manifest.json to OUT."""
    summary = generate(out, seed, episodes_per_track)
    print(json.dumps(summary, indent=2))
