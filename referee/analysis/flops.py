"""Every completion of one flop counted at once, in NumPy: what ``par`` and the decision
tables are made of.

With the flop fixed, both hands are the flop plus four of the remaining cards: the
player's two and the turn and river, or the dealer's two and the turn and river. So
one matrix ``V[T, X]``, the hand of flop + pair T + pair X for all pairs of remaining
cards, holds every hand of the flop. For a board (flop + T) the dealer hands a
player's pair X meets are the pairs disjoint from X: those below, equal to or above
X's hand are X's rank in the sorted row, minus its rank among the pairs holding
either of its cards, plus X itself (inclusion-exclusion).

Why ranks from sorting, not searches: the first engine found each of the 1.4 million
(board, pair) counts by nine binary searches in arrays of 11 to 22 MB, one cache miss
a step, and spent most of a flop waiting on memory (so a busy neighbour on the same
cache slowed it most). Here each row and each card's group is sorted once (keys of
32 bits: the hand's place among the 7,462 distinct values, then the pair), the counts
below and equal come from the sorted runs, and the sums by (pair, category) are one
weighted ``bincount`` a domain, two sums packed in each exact float64 weight.
``bench/par_flop.py`` times one flop class against the first engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, permutations
from math import comb
from typing import Any

from ..rules.evaluator import RANK_KEYS, best_value_of_suited, tables

FULL_DECK = tuple(range(52))
PAIR_BITS = 11  # a pair's index (< 2,048: 1,176 pairs of 49 cards) in the low bits of a key
WIDE = 1 << 21  # two sums packed in one weight: each below 2**21


class ParUnavailable(Exception):
    """NumPy is missing (exit 2)."""


def numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - the par extra is missing
        raise ParUnavailable("the PAR sheet needs NumPy: pip install 'referee[par]'") from None
    return numpy


class Tables:
    """NumPy lookup tables by a hand's *place*: its index among the distinct hand values
    in increasing order (so comparing places compares hands): 7-card rank multisets by
    their rank-key sum, flushes by the 13-bit mask of the suit's ranks (-1: fewer than five)."""

    def __init__(self) -> None:
        np = numpy()
        ranks7 = tables().ranks[7]
        keys = np.fromiter(ranks7.keys(), dtype=np.int64, count=len(ranks7))
        by_key = np.zeros(int(keys.max()) + 1, dtype=np.int32)
        by_key[keys] = np.fromiter(ranks7.values(), dtype=np.int32, count=len(ranks7))
        suited = np.zeros(1 << 13, dtype=np.int32)
        for mask in range(1 << 13):
            if mask.bit_count() >= 5:
                suited[mask] = best_value_of_suited([r for r in range(13) if mask >> r & 1])
        #: Every hand value, increasing: ``values[place]``.
        self.values = np.unique(np.concatenate([by_key[keys], suited[suited > 0]]))
        self.rank7 = np.searchsorted(self.values, by_key).astype(np.int16)
        self.suited = np.where(suited > 0, np.searchsorted(self.values, suited), -1).astype(np.int16)
        self.none = len(self.values)  # the place of no hand (two pairs sharing a card)
        #: The category of each place, and 10 for no hand.
        self.category = np.append(self.values >> 20, 10).astype(np.int32)
        self.rank_key = np.array([RANK_KEYS[c >> 2] for c in range(52)], dtype=np.int64)

    def place(self, value: int) -> int:
        """How many distinct hands are below ``value`` (a qualifier as a place)."""
        return int(self.values.searchsorted(value))


_TABLES: Tables | None = None


def shared_tables() -> Tables:
    """Made once a process (and before forking, shared with the workers)."""
    global _TABLES
    if _TABLES is None:
        _TABLES = Tables()
    return _TABLES


def flop_classes(deck: Sequence[int]) -> list[tuple[tuple[int, ...], int]]:
    """One flop of each suit-symmetry class of ``deck``, with the size of its class."""
    return list(_flop_classes(tuple(sorted(deck))))


@lru_cache(maxsize=4)
def _flop_classes(deck: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    cards = set(deck)
    perms = [p for p in permutations(range(4)) if all((c & ~3) | p[c & 3] in cards for c in deck)]
    found: dict[tuple[int, ...], int] = {}
    for flop in combinations(deck, 3):
        canon = min(tuple(sorted((c & ~3) | p[c & 3] for c in flop)) for p in perms)
        found[canon] = found.get(canon, 0) + 1
    return tuple(sorted(found.items()))


class _Layout:
    """The pairs of ``n`` remaining cards (by index among them), made once per ``n``:
    each pair's cards, and each card's group of the pairs holding it, in pair order
    (so pair (i, j) is at place j - 1 of i's group and at place i of j's)."""

    def __init__(self, n: int) -> None:
        np = numpy()
        self.pairs = list(combinations(range(n), 2))
        self.first = np.array([i for i, _ in self.pairs], dtype=np.intp)
        self.second = np.array([j for _, j in self.pairs], dtype=np.intp)
        holding: list[list[int]] = [[] for _ in range(n)]
        for p, (i, j) in enumerate(self.pairs):
            holding[i].append(p)
            holding[j].append(p)
        self.holding = np.array(holding, dtype=np.intp).reshape(n, n - 1)
        self.index = np.arange(len(self.pairs), dtype=np.int32)


@lru_cache(maxsize=8)
def _layout(n: int) -> _Layout:
    return _Layout(n)


def _runs(s: Any) -> tuple[Any, Any]:
    """For each element of sorted slices (the last axis): how many elements of its slice
    are below it, and how many equal it (itself included)."""
    np = numpy()
    length = s.shape[-1]
    at = np.arange(length, dtype=np.int32)
    starts = np.empty(s.shape, dtype=bool)
    starts[..., 0] = True
    np.not_equal(s[..., 1:], s[..., :-1], out=starts[..., 1:])
    below = np.maximum.accumulate(np.where(starts, at, 0), axis=-1)
    ends = np.empty(s.shape, dtype=bool)
    ends[..., -1] = True
    ends[..., :-1] = starts[..., 1:]
    upto = np.minimum.accumulate(np.where(ends, at + 1, length)[..., ::-1], axis=-1)[..., ::-1]
    return below, upto - below


class FlopCounter:
    """The outcome counts of calling, for every hole pair of one flop of ``deck``."""

    def __init__(self, deck: Sequence[int], qualifier: int, tabs: Tables) -> None:
        self.deck = tuple(sorted(deck))
        self.qualifier = qualifier
        self.t = tabs

    def counts(self, flop: tuple[int, ...]) -> tuple[list[tuple[int, int]], Any, int]:
        """For each hole pair of this flop (as card pairs): the counts of calling, shaped
        (pairs, 10 categories, 4 outcomes: not qualified, win, tie, lose), and the
        completions each sums to."""
        np = numpy()
        rest = [c for c in self.deck if c not in flop]
        n = len(rest)
        lay = _layout(n)
        m = len(lay.pairs)
        cards = np.array(rest, dtype=np.int64)
        v = self._places(flop, cards, lay)
        q = self.t.place(self.qualifier)
        cat = self.t.category
        none = self.t.none
        group = v[:, lay.holding]  # (boards, card, the card's pairs)
        # The qualifier: one threshold, so counts, not ranks; inclusion-exclusion as above.
        below_q = v < q
        by_card = (group < q).sum(axis=2, dtype=np.int32)
        nq = below_q.sum(axis=1, dtype=np.int32)[:, None] + below_q - by_card[:, lay.first] - by_card[:, lay.second]
        # Bins (pair, category, whether the player qualifies); weight: nq and one.
        bins = m * 20
        where = (lay.index * 10 + cat[v]) * 2 + (v >= q)
        where[v == none] = bins
        packed = np.bincount(where.ravel(), weights=(nq + WIDE).ravel(), minlength=bins + 1)
        by = packed[:bins].astype(np.int64).reshape(m * 10, 2)
        nq_by, boards_by = by % WIDE, by // WIDE
        below_row, equal_row = self._ranked(v.astype(np.int32), lay.index, q, m)
        below_card, equal_card = self._ranked(group.astype(np.int32), lay.holding.astype(np.int32), q, m)
        not_qualified = nq_by.sum(axis=1)
        win = below_row - below_card - nq_by[:, 1]
        tie = equal_row - equal_card + boards_by[:, 1]
        dealers = comb(n - 4, 2)
        lose = boards_by.sum(axis=1) * dealers - not_qualified - win - tie
        counts = np.stack([not_qualified, win, tie, lose], axis=-1).reshape(m, 10, 4)
        return [(rest[i], rest[j]) for i, j in lay.pairs], counts, dealers * comb(n - 2, 2)

    def _ranked(self, places: Any, pair: Any, q: int, m: int) -> tuple[Any, Any]:
        """Sort each slice (last axis) of ``places`` (the pair of each element in ``pair``)
        and sum, by (pair, category), over its elements where the player qualifies, how
        many of the slice are below it and how many equal it."""
        np = numpy()
        keys = (places << PAIR_BITS) | pair
        keys.sort(axis=-1)
        s = keys >> PAIR_BITS
        below, equal = _runs(s)
        # A place's category if the player qualifies with it, else a bin past the pairs'.
        binned = np.where(np.arange(len(self.t.category)) >= q, self.t.category, m * 10).astype(np.int32)
        binned[self.t.none] = m * 10
        where = (keys & ((1 << PAIR_BITS) - 1)) * 10 + binned[s]
        packed = np.bincount(where.ravel(), weights=(below + equal * float(WIDE)).ravel(), minlength=m * 10)
        sums = packed[:m * 10].astype(np.int64)
        return sums % WIDE, sums // WIDE

    def _places(self, flop: tuple[int, ...], cards: Any, lay: _Layout) -> Any:
        """``V[T, X]`` as places (int16), ``Tables.none`` where T and X share a card."""
        np = numpy()
        t = self.t
        first, second = lay.first, lay.second
        bits = (np.int64(1) << first.astype(np.int64)) | (np.int64(1) << second.astype(np.int64))
        overlap = (bits[:, None] & bits[None, :]) != 0
        rank_key = t.rank_key[cards[first]] + t.rank_key[cards[second]]
        rank_sum = int(sum(t.rank_key[c] for c in flop)) + rank_key[:, None] + rank_key[None, :]
        place = t.rank7[np.where(overlap, 0, rank_sum)]
        for suit in sorted({c & 3 for c in flop}):  # five of a suit need one of them on the flop
            flop_mask = sum(1 << (c >> 2) for c in flop if c & 3 == suit)
            rank_bit = np.where((cards & 3) == suit, np.int64(1) << (cards >> 2), 0)
            pair_mask = rank_bit[first] | rank_bit[second]
            np.maximum(place, t.suited[flop_mask | pair_mask[:, None] | pair_mask[None, :]], out=place)
        place[overlap] = t.none
        return place
