"""The reciprocal-division recipe's claim, checked without a GPU: with r = RN(1/s), q = RN(a*r) and
FMAs that round once, fma(fma(-q, s, a), r, q) is the correctly rounded a/s (Markstein), bit for
bit, for quotients in the normal range. The FMA is emulated exactly (tritondx_bridge.exact_fma);
numpy's fp32 division is IEEE's. The interpreter shim's FMA is checked against exact rationals."""
from fractions import Fraction

import numpy as np
import pytest

from tritondx_bridge.exact_fma import fma


def divisors(rng):
    random = (rng.uniform(1, 2, 1000) * np.exp2(rng.integers(-120, 121, 1000))).astype(np.float32)
    random *= rng.choice([-1, 1], 1000).astype(np.float32)
    powers = np.exp2(np.arange(-50, 50)).astype(np.float32)
    all_ones = ((np.arange(-25, 25) + 127).astype(np.uint32) << 23 | 0x7FFFFF).view(np.float32)
    quantize = np.array([np.float32(1e-8) / np.float32(127), np.float32(65504) / np.float32(127), 1, 3, 7, 127,
                         np.float32(0.1), np.float32(1) / np.float32(3)], dtype=np.float32)
    near_one = np.nextafter(np.float32(1), np.float32(2)) + np.arange(42, dtype=np.float32) * np.float32(2 ** -23)
    return np.concatenate([random, powers, all_ones, quantize, near_one]).astype(np.float32)


def dividends(rng):
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    halves = halves[np.isfinite(halves)].astype(np.float32)
    singles = (rng.uniform(1, 2, 20000) * np.exp2(rng.integers(-60, 61, 20000))).astype(np.float32)
    singles *= rng.choice([-1, 1], 20000).astype(np.float32)
    return np.concatenate([halves, singles])


def test_markstein_quotient_equals_ieee_division():
    rng = np.random.default_rng(20261205)
    s_all, a = divisors(rng), dividends(rng)
    assert s_all.size == 1200 and a.size == 63488 + 20000
    checked = 0
    for chunk in np.array_split(s_all, 40):
        s = chunk[:, None]
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            expected = a[None, :] / s
            r = np.float32(1) / s
            q = a[None, :] * r
            got = fma(fma(-q, np.broadcast_to(s, q.shape), np.broadcast_to(a, q.shape)), np.broadcast_to(r, q.shape), q)
        mag = np.abs(expected)
        domain = ((mag >= 2.0 ** -100) & (mag <= 2.0 ** 100)) | (a[None, :] == 0)
        diff = domain & (got.view(np.int32) != expected.view(np.int32)) & ~((got == 0) & (expected == 0))
        assert not diff.any(), (a[np.nonzero(diff)[1][:5]], np.broadcast_to(s, diff.shape)[diff][:5])
        checked += int(domain.sum())
    assert checked > 80_000_000


def test_plain_multiply_by_the_reciprocal_is_not_enough():
    # Without the correction the quotient is off on some elements: the test above can fail.
    s = np.float32(np.float32(1e-8 * 3.3) / np.float32(127))
    a = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    a = a[np.isfinite(a)].astype(np.float32)
    assert ((a * (np.float32(1) / s)) != (a / s)).sum() > 100


@pytest.mark.parametrize("seed", range(3))
def test_emulated_fma_rounds_once(seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(3000) * np.exp2(rng.integers(-30, 30, 3000))).astype(np.float32)
    b = (rng.standard_normal(3000) * np.exp2(rng.integers(-30, 30, 3000))).astype(np.float32)
    # Addends that nearly cancel the product, where a multiply then an add loses the low bits.
    c = (-(a.astype(np.float64) * b.astype(np.float64)) * (1 + rng.standard_normal(3000) * 2.0 ** -20)).astype(np.float32)
    got = fma(a, b, c)
    naive = a * b + c
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        lo = np.float32(float(exact))
        candidates = [np.nextafter(lo, np.float32(-np.inf)), lo, np.nextafter(lo, np.float32(np.inf))]
        best = min(candidates, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.float32(c).view(np.int32)) & 1))
        assert g == best, (x, y, z)
    assert (naive != got).any()
