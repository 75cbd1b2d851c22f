"""Dot products of float32 vectors in one fixed summation order, whatever BLAS numpy loads.

`np.dot` of two float32 vectors calls the BLAS kernel picked for the CPU, and kernels sum in
different orders: OpenBLAS's AVX-512 kernel and its AVX2 (Haswell / Zen) kernel disagree in
the last bit of about two dot products in three. The relation model's training amplifies one
such bit in a single feature into weights that differ by up to 0.5, so the cosines of its
training pairs are computed here, in the order of the AVX2 kernel, which computed those the
shipped weights learned on: four accumulators of eight lanes, each lane fused-multiply-adding
(one rounding) over blocks of 32 elements; then each accumulator's two halves added, the
four accumulators added pairwise, and the four lanes left added pairwise.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

LANES = 8
ACCUMULATORS = 4
BLOCK = LANES * ACCUMULATORS

Array = npt.NDArray[np.float32]


def fused_multiply_add(a: Array, b: Array, c: Array) -> Array:
    """float32 a * b + c rounded once (to nearest, ties to even), as an FMA instruction does.

    The product of two float32 values is exact in float64, and the float64 sum with its error
    term (TwoSum) is the exact result; rounding that sum to float32 is right except where it
    lies exactly halfway between two float32 values while the exact result does not: there the
    error term's sign picks the side."""
    product = a.astype(np.float64) * b.astype(np.float64)
    addend = c.astype(np.float64)
    total = product + addend
    virtual = total - product
    error = (product - (total - virtual)) + (addend - virtual)
    rounded = total.astype(np.float32)
    toward_total = np.where(total > rounded, np.float32(np.inf), np.float32(-np.inf))
    neighbour = np.nextafter(rounded, toward_total.astype(np.float32))
    halfway = ((rounded.astype(np.float64) + neighbour.astype(np.float64)) * 0.5 == total) & (
        rounded.astype(np.float64) != total
    )
    on_error_side = np.where(error > 0, np.maximum(rounded, neighbour),
                             np.minimum(rounded, neighbour))
    out: Array = np.where(halfway & (error != 0), on_error_side, rounded).astype(np.float32)
    return out


def fixed_order_dots(a: npt.ArrayLike, b: npt.ArrayLike) -> Array:
    """(N, D), (N, D) → (N,) float32 row-wise dot products; D a multiple of 32 (embeddings
    are 384-d)."""
    x = np.asarray(a, dtype=np.float32)
    y = np.asarray(b, dtype=np.float32)
    if x.shape != y.shape or x.ndim != 2 or x.shape[1] % BLOCK:
        raise ValueError(f"two (N, D) arrays with D a multiple of {BLOCK}, got {x.shape}, "
                         f"{y.shape}")
    blocks = x.shape[1] // BLOCK
    x = x.reshape(len(x), blocks, ACCUMULATORS, LANES)
    y = y.reshape(len(y), blocks, ACCUMULATORS, LANES)
    acc = np.zeros((len(x), ACCUMULATORS, LANES), dtype=np.float32)
    for block in range(blocks):
        acc = fused_multiply_add(x[:, block], y[:, block], acc)
    halves = acc[..., : LANES // 2] + acc[..., LANES // 2 :]  # (N, 4 accumulators, 4 lanes)
    lanes = (halves[:, 0] + halves[:, 1]) + (halves[:, 2] + halves[:, 3])  # (N, 4)
    out: Array = (lanes[:, 0] + lanes[:, 1]) + (lanes[:, 2] + lanes[:, 3])
    return out
