"""`capture bench generate`: the typer sub-app the main CLI mounts under `bench`."""

from __future__ import annotations

import json
import sys
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
    sealed: Annotated[
        bool, typer.Option("--sealed", help="Write the sealed test split (sealed.jsonl and "
                           "sealed-manifest.json; fixed seed and size) instead; fails when "
                           "its hash is not the committed one.")
    ] = False,
) -> None:
    """Write train/dev/test JSONL and manifest.json to OUT."""
    if sealed:
        from bench.generator.sealed import SEALED_HASH_FILE, generate_sealed

        result = generate_sealed(out)
        print(json.dumps(result, indent=2))
        if not result["matches_committed"]:
            print(f"the sealed split changed: its hash is not the one in {SEALED_HASH_FILE}",
                  file=sys.stderr)
            raise typer.Exit(1)
        return
    summary = generate(out, seed, episodes_per_track)
    print(json.dumps(summary, indent=2))
