"""One flop class of `referee par`, timed: the engine against the first (search-based) one.

Run: python bench/par_flop.py [CLASSES] [ROUNDS]. Needs NumPy. Counts CLASSES flop
classes spread over the 1,755 (default 5), ROUNDS times (default 2), alternating the
engine of ``referee/analysis/flops.py`` and the first engine (its searches, kept
below as it was, 30 November), checks that both give the same counts, and prints the
CPU seconds a class of each, their ratio, and what a full sheet costs at ``--jobs 2``
(1,755 classes over two workers). CPU time, not wall: a busy machine stretches the
wall clock of both; the ratio is measured in one run. The load average is printed
beside the figures.

Why a bench of one class: `referee par` is 1,755 of them and nothing else worth
timing, so a regression of the engine shows here in seconds, not in a 10-minute run.
"""

from __future__ import annotations

import os
import sys
import time
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from referee.analysis.flops import FULL_DECK, FlopCounter, flop_classes, shared_tables
from referee.profiles import load_profile
from referee.rules.evaluator import RANK_KEYS, best_value_of_suited, tables

SENTINEL, BIG = 1 << 24, 1 << 25


class FirstEngine:
    """The engine of 30 November (commit 16ea8bd), unchanged but for its form: nine
    binary searches a (board, pair), over the sorted rows (11 MB) and each card's
    sorted group (22 MB) flattened."""

    def __init__(self, qualifier: int) -> None:
        ranks7 = tables().ranks[7]
        self.rank7 = np.zeros(max(ranks7) + 1, dtype=np.int32)
        keys = np.fromiter(ranks7.keys(), dtype=np.int64, count=len(ranks7))
        self.rank7[keys] = np.fromiter(ranks7.values(), dtype=np.int32, count=len(ranks7))
        self.suited = np.zeros(1 << 13, dtype=np.int32)
        for mask in range(1 << 13):
            if mask.bit_count() >= 5:
                self.suited[mask] = best_value_of_suited([r for r in range(13) if mask >> r & 1])
        self.rank_key = np.array([RANK_KEYS[c >> 2] for c in range(52)], dtype=np.int64)
        self.qualifier = qualifier

    def counts(self, flop: tuple[int, ...]) -> Any:
        rest = [c for c in FULL_DECK if c not in flop]
        n = len(rest)
        pairs = list(combinations(range(n), 2))
        m = len(pairs)
        first = np.array([i for i, _ in pairs])
        second = np.array([j for _, j in pairs])
        cards = np.array(rest, dtype=np.int64)
        values = self._values(flop, cards, first, second)
        rows = np.sort(values, axis=1)
        holding = np.array([[p for p, (i, j) in enumerate(pairs) if c in (i, j)] for c in range(n)])
        by_card = np.sort(values[:, holding], axis=2)
        flat_rows = (rows + (np.arange(m, dtype=np.int64) * BIG)[:, None]).ravel()
        flat_cards = (by_card + (np.arange(m * n, dtype=np.int64).reshape(m, n) * BIG)[:, :, None]).ravel()

        def below(x: Any, side: Any) -> Any:
            offset = np.arange(m, dtype=np.int64)[:, None] * BIG
            return np.searchsorted(flat_rows, x + offset, side=side) - np.arange(m)[:, None] * m

        def below_card(x: Any, card: Any, side: Any) -> Any:
            key = np.arange(m, dtype=np.int64)[:, None] * n + card[None, :]
            return np.searchsorted(flat_cards, x + key * BIG, side=side) - key * (n - 1)

        valid = values < SENTINEL
        x = np.where(valid, values, 0)

        def disjoint(limit: Any, side: Any) -> Any:
            inside = (x <= limit) if side == "right" else (x < limit)
            return below(limit, side) - below_card(limit, first, side) - below_card(limit, second, side) + inside

        nq = disjoint(np.full_like(x, self.qualifier), "left")
        lt = disjoint(x, "left")
        le = disjoint(x, "right")
        qualified = x >= self.qualifier
        win = np.where(qualified, lt - nq, 0)
        tie = np.where(qualified, le - lt, 0)
        lose = comb(n - 4, 2) - nq - win - tie
        player = np.broadcast_to(np.arange(m), valid.shape)[valid]
        index = player * 10 + (x >> 20)[valid]
        counts = np.stack([np.bincount(index, weights=o[valid], minlength=m * 10) for o in (nq, win, tie, lose)],
                          axis=-1)
        return np.rint(counts).astype(np.int64).reshape(m, 10, 4)

    def _values(self, flop: tuple[int, ...], cards: Any, first: Any, second: Any) -> Any:
        bits = (np.int64(1) << first.astype(np.int64)) | (np.int64(1) << second.astype(np.int64))
        overlap = (bits[:, None] & bits[None, :]) != 0
        rank_key = self.rank_key[cards[first]] + self.rank_key[cards[second]]
        rank_sum = int(sum(self.rank_key[c] for c in flop)) + rank_key[:, None] + rank_key[None, :]
        value = self.rank7[np.where(overlap, 0, rank_sum)]
        for suit in range(4):
            flop_mask = sum(1 << (c >> 2) for c in flop if c & 3 == suit)
            rank_bit = np.where((cards & 3) == suit, np.int64(1) << (cards >> 2), 0)
            pair_mask = rank_bit[first] | rank_bit[second]
            value = np.maximum(value, self.suited[flop_mask | pair_mask[:, None] | pair_mask[None, :]])
        return np.where(overlap, SENTINEL, value).astype(np.int64)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    qualifier = load_profile("vivo").dealer_qualifier.floor()
    classes = flop_classes(FULL_DECK)
    chosen = [classes[i * len(classes) // count][0] for i in range(count)]
    engine = FlopCounter(FULL_DECK, qualifier, shared_tables())
    first = FirstEngine(qualifier)
    engine.counts(chosen[0])  # warm: the layout of 49 cards, made once
    spent = {"engine": 0.0, "first": 0.0}
    for _ in range(rounds):
        for flop in chosen:
            start = time.process_time()
            _, ours, _ = engine.counts(flop)
            middle = time.process_time()
            theirs = first.counts(flop)
            spent["engine"] += middle - start
            spent["first"] += time.process_time() - middle
            assert np.array_equal(ours, theirs), flop
    runs = count * rounds
    ours, theirs = spent["engine"] / runs, spent["first"] / runs
    load = os.getloadavg()[0]
    print(f"{count} flop classes x {rounds}, CPU seconds a class (load {load:.1f} on {os.cpu_count()} cores):")
    print(f"engine (flops.py, sorted ranks): {ours:.3f} s  -> a full sheet at --jobs 2: {1755 * ours / 2 / 60:.1f} min")
    print(f"first engine (binary searches):  {theirs:.3f} s  -> {1755 * theirs / 2 / 60:.1f} min")
    print(f"ratio: {theirs / ours:.2f}x; counts equal: yes")


if __name__ == "__main__":
    main()
