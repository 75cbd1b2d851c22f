"""The serving gate (numpy, fixed-step solver) against the torch model it was exported from
(torchdiffeq's adaptive dopri5), over every hypothesis of a split's replay.

The replay is the one training and calibration read (`workers.gate.train`): each episode's
events, the learned extractor's reads and the simulated ledger's context. Both paths decide
from the same inputs; a decision is the temperature-scaled most probable action, or clarify
where the entropy exceeds η (`workers.gate.evaluate.decisions`, the rule η is set by).

    capture bench gate-parity --split dev --out var/bench-results/gate-parity
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from app.domain.vocabulary import ACTIONS
from workers.common.embedding_cache import training_cache
from workers.common.episodes import ensure_bench_data, load_split
from workers.extraction.crossfit import read_split
from workers.extraction.infer import LearnedExtractor
from workers.gate import evaluate, injection, npgate
from workers.gate.batch import collate
from workers.gate.model import GateModelConfig, GateNet
from workers.gate.replay import IGNORE, GateSequence
from workers.gate.runtime import belief_states
from workers.gate.solver import MAX_STEP_DAYS
from workers.gate.train import GateTrainConfig, _replay

WEIGHTS = Path(npgate.__file__).parent / "weights"
CHECKPOINTS = {"capture": "gate", "capture_discrete": "gate_discrete",
               "supervised_transformer": "gate_transformer",
               "capture_no_provenance": "gate_no_provenance"}
BATCH = 128


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-x)))


def replay(split: str, data_dir: Path | None, cache: Path, layered: bool,
           limit: int | None = None) -> list[GateSequence]:
    """A split's gate replay, as training builds it (MiniLM reads cached under `cache`)."""
    cfg = GateTrainConfig(layered=layered, guard_stable=layered, cache=cache)
    embeddings = training_cache(cache, None, 1)
    episodes = load_split(ensure_bench_data(data_dir), split, limit)  # type: ignore[arg-type]
    extractor = LearnedExtractor(embedder=embeddings)
    sequences = _replay(episodes, read_split(episodes, embeddings, extractor), embeddings,
                        injection.load(), cfg)
    embeddings.flush()
    return sequences


def _numpy_predictions(name: str, sequences: list[GateSequence],
                       provenance: bool) -> tuple[np.ndarray, np.ndarray]:
    net, _ = npgate.load(WEIGHTS / f"{name}.npz")
    logits, authenticity = [], []
    for start in range(0, len(sequences), BATCH):
        batch = collate(sequences[start : start + BATCH], provenance)
        states = belief_states(net, batch.embeddings.numpy(), batch.scalars.numpy(),
                               batch.dt_days.numpy())
        action_logits, auth_logits = net.decide(states, batch.claims.numpy(),
                                                batch.context.numpy(), batch.scalars.numpy())
        mask = (batch.labels != IGNORE).numpy()
        logits.append(action_logits[mask])
        authenticity.append(auth_logits[mask])
    return (np.concatenate(logits).astype(np.float64),
            np.concatenate(authenticity).astype(np.float64))


def compare(name: str, sequences: list[GateSequence]) -> dict[str, Any]:
    checkpoint = torch.load(WEIGHTS / f"{name}.pt", map_location="cpu", weights_only=True)
    meta = checkpoint["meta"]
    provenance = bool(meta.get("provenance", True))
    net = GateNet(GateModelConfig.from_dict(checkpoint["model"]))
    net.load_state_dict(checkpoint["state_dict"])
    started = time.perf_counter()
    reference = evaluate.predict(net, sequences, provenance)
    torch_s = time.perf_counter() - started
    started = time.perf_counter()
    logits, authenticity = _numpy_predictions(name, sequences, provenance)
    numpy_s = time.perf_counter() - started
    temperature, eta = float(meta["temperature"]), float(meta["eta"])
    p_torch = evaluate.softmax(reference.logits, temperature)
    p_numpy = evaluate.softmax(logits, temperature)
    d_torch = evaluate.decisions(p_torch, eta)
    d_numpy = evaluate.decisions(p_numpy, eta)
    differ = np.nonzero(d_torch != d_numpy)[0]
    return {
        "hypotheses": len(d_torch),
        "events": reference.events,
        "max_abs_dp": float(np.abs(p_torch - p_numpy).max()),
        "max_abs_d_authenticity": float(np.abs(_sigmoid(reference.authenticity)
                                               - _sigmoid(authenticity)).max()),
        "decisions_differ": len(differ),
        "differing": [{"torch": ACTIONS[d_torch[i]].value, "numpy": ACTIONS[d_numpy[i]].value,
                       "p_torch": p_torch[i].round(4).tolist(),
                       "p_numpy": p_numpy[i].round(4).tolist()} for i in differ[:20]],
        "macro_f1_torch": round(evaluate.macro_f1(d_torch, reference.labels), 4),
        "macro_f1_numpy": round(evaluate.macro_f1(d_numpy, reference.labels), 4),
        "torch_seconds": round(torch_s, 2),
        "numpy_seconds": round(numpy_s, 2),
    }


def run(out: Path, split: str = "dev", data_dir: Path | None = None,
        cache: Path | None = None, limit: int | None = None) -> dict[str, Any]:
    torch.set_num_threads(1)
    cache = cache or GateTrainConfig().cache
    replays = {layered: replay(split, data_dir, cache, layered, limit)
               for layered in (True, False)}
    results: dict[str, Any] = {
        "split": split, "max_step_days": MAX_STEP_DAYS,
        "reference": "torchdiffeq dopri5 rtol 1e-3 atol 1e-4 (the training path)",
        "policies": {policy: compare(name, replays[policy != "supervised_transformer"])
                     for policy, name in CHECKPOINTS.items()},
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = [f"# Gate parity: numpy (fixed-step, ≤ {MAX_STEP_DAYS} days a step) vs torch "
             f"(adaptive dopri5), {split} split", "",
             "| policy | hypotheses | max abs Δp | max abs Δσ | decisions differ | "
             "macro-F1 torch | macro-F1 numpy |", "|---|---|---|---|---|---|---|"]
    for policy, r in results["policies"].items():
        lines.append(f"| {policy} | {r['hypotheses']} | {r['max_abs_dp']:.2e} | "
                     f"{r['max_abs_d_authenticity']:.2e} | {r['decisions_differ']} | "
                     f"{r['macro_f1_torch']} | {r['macro_f1_numpy']} |")
    (out / "results.md").write_text("\n".join(lines) + "\n")
    return results
