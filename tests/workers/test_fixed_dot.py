"""Dot products in the AVX2 kernel's summation order, whatever BLAS kernel numpy loads."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import numpy as np
import pytest

from workers.relation.fixed_dot import fixed_order_dots, fused_multiply_add

# sha256 of np.dot of each row pair of `_rows()` under OpenBLAS's Haswell / Zen kernel
# (OPENBLAS_CORETYPE=Haswell), the one that computed the shipped relation model's features;
# its AVX-512 kernel gives another digest.
AVX2_KERNEL_DIGEST = "0454c2931329ea1ae482b47dc21c47e594b2926fd457114a261ff2d72663256b"


def _rows() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return (rng.standard_normal((256, 384)).astype(np.float32),
            rng.standard_normal((256, 384)).astype(np.float32))


def _round_to_float32(exact: Fraction) -> np.float32:
    """The float32 nearest `exact`, ties to even (directly, not through float64)."""
    guess = np.float32(float(exact))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess,
                  np.nextafter(guess, np.float32(np.inf))]
    best = min(abs(Fraction(float(c)) - exact) for c in candidates)
    nearest = [c for c in candidates if abs(Fraction(float(c)) - exact) == best]
    return min(nearest, key=lambda c: int(np.array(c).view(np.uint32)) & 1)


class TestFixedOrderDots:
    def test_gives_the_avx2_kernels_bits(self) -> None:
        a, b = _rows()
        assert hashlib.sha256(fixed_order_dots(a, b).tobytes()).hexdigest() == (
            AVX2_KERNEL_DIGEST)

    def test_is_the_dot_product(self) -> None:
        a, b = _rows()
        exact = np.einsum("nd,nd->n", a.astype(np.float64), b.astype(np.float64))
        np.testing.assert_allclose(fixed_order_dots(a, b), exact, rtol=0, atol=1e-4)

    def test_lengths_off_the_block_are_refused(self) -> None:
        with pytest.raises(ValueError, match="a multiple of 32"):
            fixed_order_dots(np.ones((2, 100)), np.ones((2, 100)))


class TestFusedMultiplyAdd:
    def test_rounds_once(self) -> None:
        rng = np.random.default_rng(3)
        a, b, c = (rng.standard_normal(500).astype(np.float32) * np.float32(s)
                   for s in (1.0, 1.0, 1e-3))
        fused = fused_multiply_add(a, b, c)
        for i in range(len(a)):
            exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
            assert fused[i] == _round_to_float32(exact)

    def test_a_float64_sum_halfway_between_two_float32_values(self) -> None:
        # a * b + c = 2^30 + 192 - 2^-40: just under the midpoint of 2^30 + 128 and 2^30 + 256.
        # Rounded to float64 it lands on the midpoint, and then to float32 on the even side.
        a = np.array([8 * (1 + 2**-23)], dtype=np.float32)
        b = np.array([8 * (1 - 2**-23)], dtype=np.float32)
        c = np.array([2**30 + 128], dtype=np.float32)
        twice_rounded = (a.astype(np.float64) * b + c).astype(np.float32)
        assert twice_rounded[0] == 2**30 + 256
        assert fused_multiply_add(a, b, c)[0] == 2**30 + 128
