"""`capture train utility` and `capture train regret-utility`: the selector's r_p and the
benchmark's regret model. Added to the `train` command group by app/cli.py; torch and the
benchmark are imported only when a command runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def register(train_app: typer.Typer) -> None:
    @train_app.command("utility")
    def utility(
        out: Annotated[Path | None, typer.Option(
            help="Where to write the weights (default: app/selection/weights/utility.npz)."
        )] = None,
        seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
        epochs: Annotated[int, typer.Option(help="Training epochs.")] = 20,
        threads: Annotated[int, typer.Option(help="torch threads.")] = 2,
        limit: Annotated[int | None, typer.Option(help="Pools per split (smoke runs).")] = None,
    ) -> None:
        """Train r_p on the train split's probe pools; report dev and test."""
        from workers.selection.train import UtilityTrainConfig, main

        cfg = UtilityTrainConfig(seed=seed, epochs=epochs, threads=threads, limit=limit)
        if out is not None:
            cfg.out = out
        typer.echo(json.dumps(main(cfg)["held_out"], indent=2))

    @train_app.command("regret-utility")
    def regret_utility(
        out: Annotated[Path | None, typer.Option(
            help="Where to write the weights (default: bench/selection/weights/regret_utility.npz)."
        )] = None,
    ) -> None:
        """Train the benchmark's regret model on the dev split (never used at inference)."""
        from bench.selection.regret_utility import WEIGHTS_PATH, main

        typer.echo(json.dumps(main(out or WEIGHTS_PATH), indent=2))
