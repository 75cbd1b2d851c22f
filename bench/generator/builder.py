"""`generate`: users, splits and every episode of every track, written to disk."""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm

from bench.generator.episodes import build_episode
from bench.generator.profiles import DIMENSIONS, DOMAINS, sample_user
from bench.generator.schema import GENERATOR_VERSION, JSON, SOURCE, SPLITS, TRACKS
from bench.generator.splits import plan_splits
from bench.generator.writer import statistics, write_outputs


def build(seed: int, episodes_per_track: int = 480, *,
          progress: bool = False) -> tuple[dict[str, list[JSON]], JSON]:
    """Every episode by split, and the manifest. One user per episode of each track, so
    `episodes_per_track` is also the number of users (each has one episode per track)."""
    if episodes_per_track < 3:
        raise ValueError("episodes_per_track must be at least 3 (one user per split)")
    plan = plan_splits(seed, episodes_per_track)
    users = [sample_user(seed, i) for i in range(episodes_per_track)]
    episodes: dict[str, list[JSON]] = {split: [] for split in SPLITS}
    with tqdm(total=episodes_per_track * len(TRACKS), desc="D-PrefGuard episodes",
              unit="ep", disable=not progress) as bar:
        for split in SPLITS:
            # The position within the split balances drift shapes and attack families per split.
            for variant, index in enumerate(plan.users[split]):
                for track in TRACKS:
                    episodes[split].append(
                        build_episode(users[index], track, split, plan, seed, variant))
                    bar.update()
    stats = statistics(episodes)
    manifest: JSON = {
        "source": SOURCE,
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "episodes_per_track": episodes_per_track,
        "users": {split: len(plan.users[split]) for split in SPLITS},
        **stats,
        "dimensions": {d: list(v) for d, v in DIMENSIONS.items()},
        "domains": list(DOMAINS),
        "template_families": {intent: {s: list(f) for s, f in by_split.items()}
                              for intent, by_split in plan.families.items()},
        "topics": {split: list(t) for split, t in plan.topics.items()},
        "response_families": {key: {s: list(f) for s, f in by_split.items()}
                              for key, by_split in plan.response_families.items()},
        "files": [f"{split}.jsonl" for split in SPLITS],
    }
    return episodes, manifest


def generate(out_dir: Path, seed: int, episodes_per_track: int = 480, *,
             progress: bool = True) -> JSON:
    """Write DIR/{train,dev,test}.jsonl and DIR/manifest.json; return a summary."""
    episodes, manifest = build(seed, episodes_per_track, progress=progress)
    write_outputs(Path(out_dir), episodes, manifest)
    return {
        "out_dir": str(out_dir),
        "seed": seed,
        "episodes": manifest["episodes"],
        "users": manifest["users"],
        "counts": manifest["counts"],
        "class_mix": manifest["class_mix"]["shares"],
        "non_preference_share": manifest["non_preference_share"],
        "genuine_updates_non_user_share": manifest["genuine_updates_non_user_share"],
    }
