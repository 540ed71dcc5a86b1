"""A fused multiply-add with one rounding, for fp32 numpy arrays: what the GPU's FFMA computes.

numpy has no fma. The product of two fp32 values is exact in float64 (48 significant bits); the
sum with the addend is made exact by TwoSum, rounded to odd in float64 (its last bit set when
inexact), and then rounded to fp32 once: with 53 >= 2 * 24 + 2 bits, rounding the round-to-odd
value gives the correctly rounded result (Boldo and Melquiond, "Emulation of FMA and correctly
rounded sums: proved algorithms using rounding to odd", 2008). fp64 inputs fall back to a*b + c.
"""
import numpy as np


def fma(a, b, c):
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    if not (a.dtype == b.dtype == c.dtype == np.float32):
        return a * b + c
    with np.errstate(invalid="ignore", over="ignore"):
        p = a.astype(np.float64) * b.astype(np.float64)  # exact
        z = c.astype(np.float64)
        s = p + z
        bb = s - p
        err = (p - (s - bb)) + (z - bb)  # p + z == s + err exactly (TwoSum)
        bits = s.view(np.int64)
        inexact = (err != 0) & np.isfinite(s)
        even = (bits & 1) == 0
        toward = np.where(err > 0, np.inf, -np.inf)
        odd = np.where(inexact & even, np.nextafter(s, toward), s)
        return odd.astype(np.float32)
