"""Exact whole-number arithmetic over NumPy columns: numbers wider than 64 bits as rows of
16-bit limbs (issue 47: the monitor's sums column by column).

Why limbs: the monitor's sums are exact (``cells``: every seat's expectation, variance
and third cumulant over common denominators of 32 to 100 bits and more), and int64
overflows long before a store's sums end (an Ante of 5 in millionths times a mean over
a 32-bit denominator is 59 bits; ten million of them, 83). A number is kept as ``L``
int64 limbs, ``value = sum(limb[k] << 16 k)``: every limb but the top one in [0, 2^16),
the top one signed (two's complement, as Python's ``>>`` floors). A product of two limbs
is under 2^32 in size, a few of them summed under 2^36, and once carried (``carry``)
every limb is back under 2^16: so the limbs of up to 2^46 numbers add in int64 without
overflow, and the sum, put together in Python (``total``), is the exact sum of the
numbers, however wide. Nothing here rounds.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

BITS = 16
MASK = (1 << BITS) - 1

Array = Any  # a NumPy array (numpy's own stubs make every operation generic; the shapes are said in words)


def needed(largest: int) -> int:
    """How many limbs hold every number of magnitude at most ``largest`` (its sign too)."""
    return max(1, (int(largest).bit_length() + BITS) // BITS)


def of_ints(values: list[int]) -> Array:
    """Python whole numbers (any size, any sign) as limbs: shape (L, len(values))."""
    if not values:
        return np.zeros((1, 0), np.int64)
    n = needed(max(map(abs, values)))  # ``map``: a C loop a value (a first run has one a situation)
    raw = b"".join(map(partial(int.to_bytes, length=2 * n, byteorder="little", signed=True), values))
    out = np.frombuffer(raw, "<u2").reshape(len(values), n).T.astype(np.int64)
    out[n - 1] = np.frombuffer(raw, "<i2").reshape(len(values), n)[:, n - 1]
    return out


def of_int64(x: Array) -> Array:
    """An int64 column as limbs (as few as its largest magnitude needs)."""
    x = np.asarray(x, np.int64)
    n = needed(int(np.abs(x).max()) if x.size else 0)
    n = min(n, 4)  # 4 limbs hold any int64
    out = np.empty((n, x.size), np.int64)
    for k in range(n - 1):
        out[k] = (x >> (BITS * k)) & MASK
    out[n - 1] = x >> (BITS * (n - 1))
    return out


def carry(x: Array) -> Array:
    """Limbs brought back under 2^16 (the top one signed), the value unchanged."""
    for k in range(x.shape[0] - 1):
        x[k + 1] += x[k] >> BITS
        x[k] &= MASK
    return x


def mul(a: Array, b: Array) -> Array:
    """The products of two columns of limbs, element by element, as limbs (carried).

    Why in pairs: ``a``'s limbs are taken two at a time (a 32-bit digit, the top one
    signed, times a limb of ``b`` is under 2^48 in magnitude, and at most a few such
    products add up at one place), so that a product costs half the passes over the
    columns it had one limb at a time (issue 47's first run: the sums' variances and
    third cumulants are such products, a seat or a group each)."""
    if a.shape[0] < b.shape[0]:
        a, b = b, a
    la, lb = a.shape[0], b.shape[0]
    out = np.zeros((la + lb + 1, a.shape[1]), np.int64)
    for i in range(0, la, 2):
        digit = a[i] if i + 1 == la else a[i] + (a[i + 1] << BITS)
        for j in range(lb):
            out[i + j] += digit * b[j]
    carry(out)
    out[-2] += out[-1] << BITS  # the extra top limb (0 or -1: the product fits la + lb limbs) folded in, signed
    return out[:-1]


def grouped(keys: Array, x: Array, groups: int) -> Array:
    """The limbs of ``x`` summed by ``keys`` (0 to ``groups`` - 1): limbs again, not carried
    (each limb a sum of at most 2^46 limbs under 2^16 fits int64)."""
    out = np.zeros((x.shape[0], groups), np.int64)
    for k in range(x.shape[0]):
        np.add.at(out[k], keys, x[k])
    return out


def total(x: Array) -> list[int]:
    """Each column of limbs as the Python whole number it is: carried into four more limbs
    than it has (a sum of up to 2^47 columns fits), every limb then under 2^16 and the top
    one 0 or -1, so that the limbs are the number's two's-complement bytes."""
    if not x.shape[1]:
        return []
    wider = carry(np.vstack([x, np.zeros((4, x.shape[1]), np.int64)]))
    # the columns that fit 63 bits (the limbs above the fourth the sign's): their four low
    # limbs in int64, which wraps to the very value; the others from their bytes
    above, fourth = wider[4:], wider[3]
    fits = (((above == 0).all(axis=0) & (fourth < 1 << 15))
            | ((above[:-1] == MASK).all(axis=0) & (above[-1] == -1) & (fourth >= 1 << 15)))
    low = wider[0] + (wider[1] << BITS) + (wider[2] << 2 * BITS) + (wider[3] << 3 * BITS)
    out: list[int] = low.tolist()
    wide_at = np.flatnonzero(~fits).tolist()
    if wide_at:
        raw = wider[:, wide_at].T.astype("<u2").tobytes()  # each limb's low 16 bits: the top one's two's complement
        width = 2 * wider.shape[0]
        for j, i in zip(wide_at, range(0, len(raw), width), strict=True):
            out[j] = int.from_bytes(raw[i:i + width], "little", signed=True)
    return out


def grouped_int64(keys: Array, x: Array, groups: int) -> list[int]:
    """An int64 column summed by ``keys``, exactly: in int64 when no sum can overflow it
    (the largest magnitude times the count under 2^62: a game's stakes, a store's
    counts), else as limbs."""
    x = np.asarray(x, np.int64)
    if not x.size or int(np.abs(x).max()) * x.size < 1 << 62:
        out = np.zeros(groups, np.int64)
        np.add.at(out, keys, x)
        return [int(v) for v in out.tolist()]
    return total(grouped(keys, of_int64(x), groups))
