"""Event times: truncated log-normal gaps and session boundaries (paper, Appendix D)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Final

import numpy as np

GAP_MEDIAN_S: Final = 8 * 3600
GAP_MIN_S: Final = 5 * 60
GAP_MAX_S: Final = 14 * 86400
# Spread of log-gaps; wide enough that both same-session bursts and week-long silences occur.
GAP_LOG_SIGMA: Final = 1.6
# A gap longer than this opens a new session.
SESSION_GAP_S: Final = 2 * 3600
_EPOCH: Final = datetime(2024, 1, 1, tzinfo=UTC)


def sample_gaps(rng: np.random.Generator, count: int) -> list[int]:
    """`count` gaps in whole seconds, log-normal around the median, truncated by rejection."""
    gaps: list[int] = []
    while len(gaps) < count:
        gap = math.exp(math.log(GAP_MEDIAN_S) + GAP_LOG_SIGMA * float(rng.standard_normal()))
        if GAP_MIN_S <= gap <= GAP_MAX_S:
            gaps.append(int(round(gap)))
    return gaps


def timeline(rng: np.random.Generator, count: int) -> tuple[list[datetime], list[int]]:
    """Times of `count` events and the 0-based session number of each."""
    start = _EPOCH + timedelta(days=int(rng.integers(0, 330)), seconds=int(rng.integers(0, 86400)))
    times = [start]
    sessions = [0]
    for gap in sample_gaps(rng, count - 1):
        times.append(times[-1] + timedelta(seconds=gap))
        sessions.append(sessions[-1] + (1 if gap > SESSION_GAP_S else 0))
    return times, sessions


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
