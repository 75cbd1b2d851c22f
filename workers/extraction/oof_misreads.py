"""How the train split's genuine changepoints are read out of fold (by extractors that never
saw the event's template family, as the gate's training replay reads them): counts by the
first field misread, per channel. A diagnostic of unseen wording that needs no test data.

    .venv/bin/python -m workers.extraction.oof_misreads

Uses the fold extractors that `capture train gate` caches under `var/cache/gate/` (17 s);
on a fresh machine it first trains them (about 15 minutes on 2 cores).
"""

from __future__ import annotations

import json
from pathlib import Path

from workers.common.embedding_cache import training_cache
from workers.common.episodes import ensure_bench_data, events_of, load_split
from workers.common.progress import configure
from workers.extraction.infer import LearnedExtractor
from workers.extraction.metrics import revision_misreads
from workers.gate.train import GateTrainConfig, train_reads


def main() -> dict[str, int]:
    configure()
    cfg = GateTrainConfig(out=Path("unused.pt"))  # the gate's defaults for the fold extractors
    cache = training_cache(cfg.cache, cfg.embedder, cfg.threads)
    extractor = LearnedExtractor(cfg.extractor_weights, embedder=cache)
    episodes = load_split(ensure_bench_data(cfg.data_dir), "train")
    counts = revision_misreads(train_reads(cfg, episodes, cache, extractor), events_of(episodes))
    print(json.dumps(counts, indent=2))  # noqa: T201 -- the report is the output
    cache.flush()
    return counts


if __name__ == "__main__":
    main()
