"""Rates with Wilson score intervals."""

from __future__ import annotations

import math
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (n > 0)."""
    if n <= 0:
        raise ValueError("n must be positive")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(successes: int, n: int) -> dict[str, Any]:
    """{k, n, rate, ci95} for a count; rate and ci are None when n is 0."""
    if n == 0:
        return {"k": 0, "n": 0, "rate": None, "ci95": None}
    low, high = wilson(successes, n)
    return {"k": successes, "n": n, "rate": successes / n, "ci95": [low, high]}
