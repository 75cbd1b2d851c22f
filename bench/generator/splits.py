"""Split assignment: users, template families and topics, disjoint across train/dev/test.

Per intent, three of the five surface families go to train, one to dev and one to test, so
test wording (and every attack realization built from it) is never seen before test — the
analogue of the paper's generator family reserved for test. Probe queries and candidate
responses are split the same way (`response_families`): the last family goes to test, the one
before it to dev, the rest to train, after a seeded shuffle per key.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bench.generator.responses import response_family_keys
from bench.generator.schema import FAMILIES, SPLIT_SHARES, SPLITS
from bench.generator.wording import DEFAULT_WORDING

ALL_INTENTS: tuple[str, ...] = tuple(sorted(DEFAULT_WORDING.templates))
TOPICS = DEFAULT_WORDING.topics
_FAMILY_COUNTS = {"train": 3, "dev": 1, "test": 1}


@dataclass(frozen=True)
class SplitPlan:
    users: dict[str, tuple[int, ...]]  # split -> user indices, in generation order
    families: dict[str, dict[str, tuple[str, ...]]]  # intent -> split -> families
    topics: dict[str, tuple[str, ...]]  # split -> topics
    # "candidates/<dim>", "queries/<dim>", "neutral", "safety/<i>" -> split -> families
    response_families: dict[str, dict[str, tuple[str, ...]]]

    def split_of(self, user_index: int) -> str:
        for split in SPLITS:
            if user_index in self.users[split]:
                return split
        raise KeyError(user_index)


def user_counts(total_users: int) -> dict[str, int]:
    """288/96/96 for 480 users; proportional otherwise, every split non-empty when possible."""
    dev = max(1, round(total_users * SPLIT_SHARES["dev"])) if total_users >= 3 else 0
    test = max(1, round(total_users * SPLIT_SHARES["test"])) if total_users >= 3 else 0
    return {"train": total_users - dev - test, "dev": dev, "test": test}


def plan_splits(seed: int, total_users: int) -> SplitPlan:
    rng = np.random.default_rng([seed, 3])
    order = [int(i) for i in rng.permutation(total_users)]
    counts = user_counts(total_users)
    users: dict[str, tuple[int, ...]] = {}
    start = 0
    for split in SPLITS:
        users[split] = tuple(sorted(order[start:start + counts[split]]))
        start += counts[split]

    families: dict[str, dict[str, tuple[str, ...]]] = {}
    for intent in ALL_INTENTS:
        perm = [FAMILIES[int(i)] for i in rng.permutation(len(FAMILIES))]
        cut = 0
        families[intent] = {}
        for split in SPLITS:
            families[intent][split] = tuple(sorted(perm[cut:cut + _FAMILY_COUNTS[split]]))
            cut += _FAMILY_COUNTS[split]

    topic_order = [TOPICS[int(i)] for i in rng.permutation(len(TOPICS))]
    n_train = round(len(TOPICS) * SPLIT_SHARES["train"])
    n_dev = round(len(TOPICS) * SPLIT_SHARES["dev"])
    topics = {
        "train": tuple(topic_order[:n_train]),
        "dev": tuple(topic_order[n_train:n_train + n_dev]),
        "test": tuple(topic_order[n_train + n_dev:]),
    }
    return SplitPlan(users=users, families=families, topics=topics,
                     response_families=plan_response_families(seed))


def plan_response_families(seed: int) -> dict[str, dict[str, tuple[str, ...]]]:
    """Per key, one family for test, one for dev and the rest (at least one) for train.

    Its own random stream, so adding response families moved no user, topic or event
    template family of an existing seed."""
    rng = np.random.default_rng([seed, 4])
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for key, names in response_family_keys().items():
        if len(names) < len(SPLITS):
            raise ValueError(f"{key}: needs a family for each split, has {len(names)}")
        perm = [names[int(i)] for i in rng.permutation(len(names))]
        out[key] = {"train": tuple(sorted(perm[:-2])), "dev": (perm[-2],), "test": (perm[-1],)}
    return out
