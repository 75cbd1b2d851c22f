"""`capture train extractor | revision-side | value-support | whose-words | relation | gate
--out PATH`: seeded CPU training.

Each command but revision-side (authored frames only) and value-support (word counts of the
train split) trains on the benchmark's train split
(generated under var/bench-data when missing), tunes its thresholds / temperature / η on
dev, reports dev and test, writes the weights to --out and the metrics beside them
(`<out>.metrics.json`), with progress on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer

app = typer.Typer(help="Train Capture's models (CPU, seeded).", no_args_is_help=True)

Out = Annotated[Path | None, typer.Option(help="Where to write the weights (default: the "
                                          "shipped file under workers/<stage>/weights/).")]
Seed = Annotated[int, typer.Option(help="Random seed.")]
Threads = Annotated[int, typer.Option(help="torch threads (at most the cores you may use).")]
Limit = Annotated[int | None, typer.Option(help="Episodes per track and split (smoke runs).")]


def _print(metrics: dict[str, object]) -> None:
    summary = {k: v for k, v in metrics.items() if k != "history"}
    typer.echo(json.dumps(summary, indent=2, default=str))


@app.command()
def extractor(
    out: Out = None, seed: Seed = 0, threads: Threads = 2, limit: Limit = None,
    epochs: Annotated[int | None, typer.Option(help="Training epochs (default: the "
                                               "config's).")] = None,
    spelling: Annotated[bool, typer.Option(help="--no-spelling: read the text as written, "
                                           "no typo repair (version 5).")] = True,
    dev_threshold: Annotated[bool, typer.Option(help="Choose the abstention threshold on dev "
                                                "alone (version 5), not on dev pooled with "
                                                "out-of-fold train.")] = False,
    threshold: Annotated[float | None, typer.Option(help="A fixed abstention threshold "
                                                    "(default: the best pooled F1).")] = None,
    authored_frames: Annotated[bool, typer.Option(help="The authored-frames recipe (model "
                                                  "version 7): 5,000 revisions composed "
                                                  "from the authored frames too, sides split "
                                                  "by the full markers. Default: the "
                                                  "shipped recipe.")] = False,
) -> None:
    """Train the extractor (MLP heads over MiniLM embeddings and rule-reader cues)."""
    from workers.extraction.train import ExtractorTrainConfig, authored_recipe, main

    cfg = ExtractorTrainConfig(seed=seed, threads=threads, limit=limit, spelling=spelling,
                               pooled_threshold=not dev_threshold, threshold=threshold)
    if authored_frames:
        cfg = authored_recipe(cfg)
    if epochs is not None:
        cfg.epochs = epochs
    if out is not None:
        cfg.out = out
    _print(main(cfg))


@app.command("revision-side")
def revision_side(out: Out = None, seed: Seed = 0) -> None:
    """Train the score of which of two named values a revision wants (authored frames)."""
    from workers.extraction.train_side import RevisionSideTrainConfig, main

    cfg = RevisionSideTrainConfig(seed=seed)
    if out is not None:
        cfg.out = out
    _print(main(cfg))


@app.command("value-support")
def value_support(
    out: Out = None,
    data: Annotated[Path | None, typer.Option(help="Generated data directory (default: "
                                              "generate with --seed into var/bench-data, "
                                              "cached).")] = None,
    seed: Annotated[int, typer.Option(help="Generator seed when --data is absent.")] = 0,
) -> None:
    """Count the value-support lexicon (`app/extraction/value_support.yaml`) on the train
    split: the words that stand for one taxonomy value (no training, no randomness)."""
    from app.extraction.faithful import VALUE_SUPPORT
    from workers.common.episodes import ensure_bench_data
    from workers.extraction.value_support import main

    _print(main(ensure_bench_data(data, seed), out or VALUE_SUPPORT))


@app.command()
def relation(
    out: Out = None, seed: Seed = 0, threads: Threads = 2, limit: Limit = None,
    authored_frames: Annotated[bool, typer.Option(help="Read train with out-of-fold "
                                                  "extractors of the authored-frames recipe "
                                                  "(the gate's). Default: the shipped "
                                                  "extractor's recipe.")] = False,
    revision_side: Annotated[bool, typer.Option(help="Read train, dev and test with the "
                                                "revision-side score's turns, as the service "
                                                "reads. Default: without them, the reads the "
                                                "shipped weights learned on.")] = False,
) -> None:
    """Train the relation model (supports / contradicts / unrelated)."""
    from workers.relation.train import RelationTrainConfig, main

    cfg = RelationTrainConfig(seed=seed, threads=threads, limit=limit,
                              authored_frames=authored_frames, revision_side=revision_side)
    if out is not None:
        cfg.out = out
    _print(main(cfg))


@app.command("whose-words")
def whose_words(out: Out = None, seed: Seed = 0, threads: Threads = 2) -> None:
    """Train the whose-words model (app/text/whose.py): which sentences of a user turn are
    someone else's words."""
    from workers.voice.train import WhoseWordsTrainConfig, main

    cfg = WhoseWordsTrainConfig(seed=seed, threads=threads)
    if out is not None:
        cfg.out = out
    _print(main(cfg))


@app.command()
def gate(
    out: Out = None,
    seed: Seed = 0,
    threads: Threads = 2,
    limit: Limit = None,
    variant: Annotated[
        str, typer.Option(help="ode (capture), discrete (capture_discrete) or transformer "
                          "(supervised_transformer).")
    ] = "ode",
    provenance: Annotated[
        bool, typer.Option(help="--no-provenance: the ablation without origin and laundering.")
    ] = True,
    epochs: Annotated[int | None, typer.Option(help="Training epochs (default: the "
                                               "config's).")] = None,
    latent: Annotated[int, typer.Option(help="Latent size of h.")] = 256,
    answers: Annotated[
        bool, typer.Option(help="--no-answers: the training replay leaves its questions "
                           "unanswered; by default it answers them 'no' where the claim is "
                           "not the user's, as online.")
    ] = True,
) -> None:
    """Train an authenticity gate (the ODE-RNN by default)."""
    from workers.gate.model import GateModelConfig
    from workers.gate.train import WEIGHTS_DIR, GateTrainConfig, main

    if variant not in ("ode", "discrete", "transformer"):
        raise typer.BadParameter("variant must be ode, discrete or transformer")
    kind: Literal["ode", "discrete", "transformer"] = variant  # type: ignore[assignment]
    flat = kind == "transformer"
    cfg = GateTrainConfig(
        seed=seed, threads=threads, limit=limit, provenance=provenance, answers=answers,
        layered=not flat, guard_stable=not flat,
        model=GateModelConfig(variant=kind, latent=latent),
    )
    if epochs is not None:
        cfg.epochs = epochs
    default = {"ode": "gate.pt", "discrete": "gate_discrete.pt",
               "transformer": "gate_transformer.pt"}[kind]
    if not provenance:
        default = "gate_no_provenance.pt"
    cfg.out = out if out is not None else WEIGHTS_DIR / default
    _print(main(cfg))


@app.command("export-gate")
def export_gate(
    checkpoints: Annotated[list[Path], typer.Argument(help="Gate checkpoints (.pt).")],
) -> None:
    """Write each gate checkpoint as the .npz the service loads (numpy, no torch)."""
    from workers.gate.export import export

    for checkpoint in checkpoints:
        typer.echo(str(export(checkpoint)))
