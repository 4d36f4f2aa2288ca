"""A class's situations valued column by column (issue 47: a fast first run).

The same figures as ``counts.Block.figures_under`` gives one hole pair at a time (the
counts dotted with each payout table, the completions the dealer does not qualify in,
the turn-and-river pairs ending in each category), for every wanted pair of one block at
once with NumPy: the block's entries (pair after pair, the categories and the column
groups of each pair's mask in order) are spread into (pair, category) and (pair, group)
arrays by the masks' bits, so that a pair's figures are sums along a row.

Why it stays exact: every count is under 2^32 (stored as uint32), and the sum is over at
most 2 × 10 + 2 terms, so a product with payouts under 2^(62 - 32 - 5) sums in int64
without overflow; a payout table with a larger entry is not served here (``served``: the
caller values those pairs one by one, as before; so are a block's few situations,
``exact._FEW``). ``figures_under`` is 6.5 µs a situation; here a block costs about
0.22 ms, however many of its 1,176 pairs are wanted (a store of 500,000 seats wants 70 a
block; one of 10 million nearly all).
``tests/test_monitor_counted.py`` compares the two on every pair of several blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..analysis.counts import COMPLETIONS, DEALERS, LOSE, NOT_QUALIFIED, PERMS, TIE, WIN, Block, Classes, DamagedTable
from .wide import Array

if TYPE_CHECKING:
    from ..rules.strategy import Payoffs

#: The largest payout magnitude (bits) whose products with uint32 counts, 22 of them
#: summed, stay under 2^62.
PAY_BITS = 62 - 32 - 5

#: Each category's bit in a pair's mask.
_BIT = np.arange(10, dtype=np.int64)


def served(tables: Sequence[Payoffs]) -> bool:
    """Whether every payout of ``tables`` is small enough to be summed in int64 here."""
    return all(abs(x).bit_length() <= PAY_BITS for p in tables for row in p.table for x in row)


def _spread(entries: Array, present: Array) -> Array:
    """A block's entries (pair after pair, in a pair's order) as a (pair, column) array."""
    out = np.zeros(present.shape, np.int64)
    if int(present.sum()) != entries.size:
        raise DamagedTable("a block whose entries do not match its masks")
    out[present] = entries
    return out


def figures(block: Block, pairs: Sequence[int], tables: Sequence[Payoffs]
            ) -> tuple[list[list[int]], list[int], list[list[int]]]:
    """For each of ``pairs``: its value under each of ``tables`` (a list a table, a value a
    pair), the completions the dealer does not qualify in, and its turn-and-river pairs
    ending in each category (high card first): ``Block.figures_under``'s, exactly.
    The tables must be :func:`served` and fit the block's layout."""
    values, not_qualified, turns = figure_arrays(block, pairs, tables)
    return [v.tolist() for v in values], not_qualified.tolist(), turns.tolist()


def figure_arrays(block: Block, pairs: Sequence[int], tables: Sequence[Payoffs]
                  ) -> tuple[list[Array], Array, Array]:
    """:func:`figures` as int64 arrays (a pair a row of ``turns``): what a first run puts
    into its columns without a Python number a situation."""
    layout = block.layout
    masks = np.asarray(block.masks, dtype=np.int64)
    cats = ((masks[:, None] >> _BIT) & 1).astype(bool)
    want = np.asarray(pairs, dtype=np.int64)
    turns = _spread(np.asarray(block.turns, dtype=np.int64), cats)
    group_of = np.zeros(10, np.int64)
    for g, members in enumerate(layout.groups):
        group_of[list(members)] = g
    count = len(layout.groups)
    in_group = np.zeros((masks.size, count), bool)
    for g, members in enumerate(layout.groups):
        in_group[:, g] = cats[:, list(members)].any(axis=1)
    columns = [_spread(np.asarray(column, dtype=np.int64), in_group)[want] for column in block.columns]
    nq, win = columns[0], columns[1]
    wanted_turns = turns[want]
    not_qualified = nq.sum(axis=1)
    won = win.sum(axis=1)
    lines = [members[0] for members in layout.groups]
    values: list[Array] = []
    if layout.ties_by_group:
        tie = columns[2]
        by_group = np.zeros((want.size, count), np.int64)
        np.add.at(by_group.T, group_of, wanted_turns.T)
        lose = by_group * DEALERS - nq - win - tie
    else:
        tied = np.asarray(block.tie, dtype=np.int64)[want] if block.tie is not None else np.zeros(want.size, np.int64)
    for payoffs in tables:
        pays = np.array([payoffs.table[line] for line in lines], np.int64)  # (group, outcome)
        value = nq @ pays[:, NOT_QUALIFIED] + win @ pays[:, WIN]
        if layout.ties_by_group:
            value += tie @ pays[:, TIE] + lose @ pays[:, LOSE]
        else:
            table = payoffs.table
            value += tied * table[0][TIE] + (COMPLETIONS - not_qualified - won - tied) * table[0][LOSE]
        values.append(value)
    return values, not_qualified, wanted_turns


def located(classes: Classes, knowns: Sequence[tuple[int, ...]]) -> list[tuple[int, int]] | None:
    """``classes.locate`` of every one of ``knowns`` (two private cards and a flop) at once:
    each one's flop class and hole-pair index, exactly as one by one (the flop's class and
    suit permutation read from the shipped places by its colex rank, the hole cards
    relabelled, then placed among the 49 cards the canonical flop leaves). None, the
    caller then locating them one by one as before (and refusing what it refuses): no
    shipped places, or a card past 51 or given twice."""
    if classes.places is None or not knowns:
        return None
    k = np.array(knowns, np.int64).reshape(len(knowns), -1)
    if k.shape[1] != 5 or int(k.min()) < 0 or int(k.max()) > 51:
        return None
    s = np.sort(k, axis=1)
    if (s[:, 1:] == s[:, :-1]).any():
        return None
    a, b, c = np.sort(k[:, 2:5], axis=1).T
    rank = a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6
    index = np.asarray(classes.places[0], np.int64)[rank]
    perm = np.array(PERMS, np.int64)[np.asarray(classes.places[1], np.int64)[rank]]
    hole = (k[:, :2] & ~3) | np.take_along_axis(perm, k[:, :2] & 3, axis=1)
    hole.sort(axis=1)
    canon = np.array(classes.flops, np.int64)[index]
    i = hole[:, 0] - (canon < hole[:, :1]).sum(axis=1)
    j = hole[:, 1] - (canon < hole[:, 1:]).sum(axis=1)
    return list(zip(index.tolist(), (i * (97 - i) // 2 + j - i - 1).tolist(), strict=True))
