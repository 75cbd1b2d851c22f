"""Statistics over generated episodes, and the JSONL files and manifest on disk."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench.generator.schema import ACTIONS, JSON, PAPER_CLASS_MIX, SPLITS, TRACKS


def _share(counter: Counter[str], keys: tuple[str, ...] | list[str]) -> dict[str, float]:
    total = sum(counter[k] for k in keys) or 1
    return {k: round(counter[k] / total, 4) for k in keys}


def statistics(episodes: dict[str, list[JSON]]) -> JSON:
    """Counts, class mix over preference-bearing events, and other realized shares."""
    counts = {split: dict.fromkeys(TRACKS, 0) for split in episodes}
    actions: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    origins: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    families: Counter[str] = Counter()
    events = preference_events = clarify = 0
    genuine_updates = genuine_non_user = 0
    for split, items in episodes.items():
        for episode in items:
            counts[split][episode["track"]] += 1
            meta = episode["meta"]
            shapes.update([meta["drift_shape"]] if "drift_shape" in meta else [])
            families.update([meta["attack_family"]] if "attack_family" in meta else [])
            for event in episode["events"]:
                events += 1
                labels[event["label"]] += 1
                origins[event["origin"]] += 1
                oracle = event["oracle"]
                clarify += oracle["action"] == "clarify"
                if "dimension" not in oracle:
                    continue
                preference_events += 1
                actions[oracle["action"]] += 1
                if (event["label"] in ("genuine_preference", "context_specific")
                        and oracle["action"] in ("add", "revise", "scope")):
                    genuine_updates += 1
                    genuine_non_user += event["origin"] != "user"
    return {
        "counts": {s: {**c, "total": sum(c.values())} for s, c in counts.items()},
        "episodes": sum(sum(c.values()) for c in counts.values()),
        "events": events,
        "preference_events": preference_events,
        "non_preference_share": round(1 - preference_events / max(events, 1), 4),
        "class_mix": {
            "counts": {a: actions[a] for a in ACTIONS},
            "shares": _share(actions, list(ACTIONS)),
            "paper_target": PAPER_CLASS_MIX,
        },
        "clarify_per_event": round(clarify / max(events, 1), 4),
        "genuine_updates_non_user_share": round(genuine_non_user / max(genuine_updates, 1), 4),
        "labels": dict(sorted(labels.items())),
        "origins": dict(sorted(origins.items())),
        "drift_shapes": dict(sorted(shapes.items())),
        "attack_families": dict(sorted(families.items())),
    }


def write_outputs(out_dir: Path, episodes: dict[str, list[JSON]], manifest: JSON) -> list[Path]:
    """One JSONL file per split plus manifest.json; byte-identical for identical input."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for split in SPLITS:
        path = out_dir / f"{split}.jsonl"
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            for episode in episodes[split]:
                handle.write(json.dumps(episode, ensure_ascii=False))
                handle.write("\n")
        paths.append(path)
    manifest_path = out_dir / "manifest.json"
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n",
                             encoding="utf-8")
    paths.append(manifest_path)
    return paths
