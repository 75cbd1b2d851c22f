"""The gate's serving-time ODE solver: fixed-step Dormand–Prince (dopri5's fifth-order
tableau), written over operators only, so one function integrates numpy arrays (the CPU
path) and torch tensors (the device path) alike.

Training integrates with torchdiffeq's adaptive dopri5 (rtol 1e-3, atol 1e-4), trying the
whole interval as its first step; the kinetic penalty keeps the learned flow smooth enough
that this first step is accepted for gaps of up to a few days, and there one fixed step of
the same tableau is the same computation as the adaptive solve. Longer gaps are cut into
equal steps of at most `MAX_STEP_DAYS`; no error estimate, no rejected step, a cost known in
advance. The decisions this gives are compared with the adaptive torch solve on the dev
split in docs/models/gate.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# The longest fixed step, in days of the gap; a longer gap takes ceil(Δt / MAX_STEP_DAYS)
# equal steps. Chosen against the adaptive solve on the dev split (docs/models/gate.md).
MAX_STEP_DAYS = 2.0

# Dormand & Prince (1980), the tableau torchdiffeq's dopri5 uses; B is the fifth-order
# solution (its seventh stage is only the error estimate, not needed without adaptation).
A: tuple[tuple[float, ...], ...] = (
    (1 / 5,),
    (3 / 40, 9 / 40),
    (44 / 45, -56 / 15, 32 / 9),
    (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
    (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
)
B: tuple[float, ...] = (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84)


def steps_for(dt_days: float, max_step_days: float = MAX_STEP_DAYS) -> int:
    """Equal steps for a gap of `dt_days`: at least one, each at most `max_step_days`."""
    return max(1, math.ceil(dt_days / max_step_days))


def dopri5_fixed(field: Callable[[T], T], h: T, dt_days: T, steps: T) -> T:
    """Integrate dh/dt = field(h) over each row's gap in that row's number of equal steps.

    h (B, latent), dt_days (B, 1), steps (B, 1) (whole numbers ≥ 1, `steps_for`) →
    (B, latent). `field` is autonomous (f_θ ignores time). A row finished in fewer steps
    than another is left where it is while the other goes on, so a row's result does not
    depend on the rows batched with it; a gap of 0 leaves its row unchanged."""
    size = dt_days / steps  # type: ignore[operator]
    for i in range(int(steps.max())):  # type: ignore[attr-defined]
        stages = [field(h)]
        for row in A:
            stages.append(field(h + size * _combine(row, stages)))
        moving = steps > i  # type: ignore[operator]
        h = h + moving * (size * _combine(B, stages))
    return h


def _combine(weights: tuple[float, ...], stages: list[T]) -> T:
    """Σ w_i k_i over the stages with a nonzero weight."""
    total: Any = None
    for weight, stage in zip(weights, stages, strict=False):
        if weight:
            term: Any = weight * stage  # type: ignore[operator]
            total = term if total is None else total + term
    assert total is not None
    out: T = total
    return out
