"""Hand values in bulk with NumPy: ``evaluate_batch``, for arrays of hands.

For simulate, the decision tables and PAR: arrays of hands, one a row. A row's value
is the larger of two lookups, both exact:

* its rank multiset's value: the row's key sum (rank key above 16 bits, one nibble
  a suit) indexes a dense table for seven cards (31 MB, made on first use; the PAR
  engine uses the same) and is found by binary search among the sorted keys of the
  five- and six-card tables;
* for the rows whose suit nibbles show five or more of one suit, the flush table
  indexed by the 13-bit mask of that suit's ranks.

A flush never coexists with a full house or four of a kind in seven cards or fewer,
so the maximum is the hand's value, as ``evaluate`` finds it one hand at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .evaluator import RANK_KEYS, best_value_of_suited, tables
from .hands import HandError

SUIT_START = 0x3333
FLUSH_BITS = 0x8888


class BatchTables:
    """Rank tables per hand size (dense for seven cards), flushes by 13-bit mask."""

    def __init__(self) -> None:
        t = tables()
        self.keys: dict[int, NDArray[np.int64]] = {}
        self.values: dict[int, NDArray[np.int32]] = {}
        for size, table in t.ranks.items():
            keys = np.array(sorted(table), dtype=np.int64)
            self.keys[size] = keys
            self.values[size] = np.array([table[k] for k in keys.tolist()], dtype=np.int32)
        self.dense7 = np.zeros(int(self.keys[7][-1]) + 1, dtype=np.int32)
        self.dense7[self.keys[7]] = self.values[7]
        self.suited = np.zeros(1 << 13, dtype=np.int32)
        for mask in range(1 << 13):
            if mask.bit_count() >= 5:
                self.suited[mask] = best_value_of_suited([r for r in range(13) if mask >> r & 1])
        self.card_key = np.array([(RANK_KEYS[c >> 2] << 16) | (1 << (4 * (c & 3))) for c in range(52)],
                                 dtype=np.int64)
        self.rank_bit = np.array([1 << (c >> 2) for c in range(52)], dtype=np.int64)


_BATCH: BatchTables | None = None


def batch_tables() -> BatchTables:
    global _BATCH
    if _BATCH is None:
        _BATCH = BatchTables()
    return _BATCH


def evaluate_batch(cards: NDArray[Any], check: bool = True) -> NDArray[np.int32]:
    """Packed values (``HandValue.value``) of many hands at once, with NumPy.

    ``cards`` is an integer array of card indices (0..51), one hand a row of 5, 6 or
    7 cards. With ``check`` a row holding a card twice or an index outside 0..51
    raises :class:`~referee.rules.hands.HandError`; callers that deal from a deck may skip it.
    """

    hands = np.asarray(cards)
    if hands.ndim != 2 or not 5 <= hands.shape[1] <= 7 or not np.issubdtype(hands.dtype, np.integer):
        raise HandError(f"a batch is an integer array of rows of 5, 6 or 7 cards, got shape {hands.shape}")
    size = hands.shape[1]
    idx = hands.astype(np.intp, copy=False)
    if check and hands.size:
        if hands.min() < 0 or hands.max() > 51:
            raise HandError("a card index is outside 0..51")
        bits = np.left_shift(1, idx, dtype=np.int64)
        repeated = np.bitwise_or.reduce(bits, axis=1) != bits.sum(axis=1)  # a repeat carries
        if repeated.any():
            row = int(np.argmax(repeated))
            raise HandError(f"row {row} holds a card twice: {hands[row].tolist()}")
    t = batch_tables()
    key = t.card_key[idx].sum(axis=1) + SUIT_START
    values = t.dense7[key >> 16] if size == 7 else t.values[size][np.searchsorted(t.keys[size], key >> 16)]
    flush = np.flatnonzero(key & FLUSH_BITS)
    if flush.size:
        rows, nibbles = idx[flush], key[flush] & FLUSH_BITS
        suit = np.select([nibbles & 0x8 != 0, nibbles & 0x80 != 0, nibbles & 0x800 != 0], [0, 1, 2], 3)
        mask = np.where((rows & 3) == suit[:, None], t.rank_bit[rows], 0).sum(axis=1)
        values[flush] = np.maximum(values[flush], t.suited[mask])
    packed: NDArray[np.int32] = values  # the tables' arrays are int32 (batch_tables)
    return packed
