"""``referee par``: the exact PAR sheet of a profile under optimal play.

Every deal is counted: hole cards, flop, turn and river, dealer cards, 27,813,810,024,000
cases for a full deck. The count is organised so that NumPy does the work in bulk:

* **Suit symmetry.** A suit permutation maps deals to deals with the same outcome, so
  only one flop of each class is enumerated (1,755 of the 22,100), weighted by the size
  of its class; every hole pair and completion of that flop is counted.
* **One matrix a flop.** With the flop fixed, both hands are the flop plus four of the
  remaining cards: the player's two and the turn and river, or the dealer's two and
  the turn and river. So one matrix ``W[T, X]``, the value of flop + pair T + pair X
  for all pairs of remaining cards, holds every hand of the flop.
* **Sorting and card removal.** For a board (flop + T), the dealer hands a player's
  pair P meets are the pairs disjoint from P. Counting those below, equal to or above
  P's value is a search in the sorted row, minus the pairs that hold either of P's
  cards (a search in each card's sorted row), plus P itself (inclusion-exclusion).
* **The decision.** Summing the counts over the turn-and-river pairs gives, for every
  hole pair of the flop, the outcome counts of calling by the player's final
  category: the exact value of calling, so the optimal decision, and the sheet.

Amounts are exact: odds are scaled to integers by their common denominator. The pure
path for small checks is ``brute_force`` in the tests, which counts a reduced deck
one deal at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations, permutations
from math import comb
from typing import Any

from ..rules.evaluator import RANK_KEYS, best_value_of_suited, tables
from ..rules.profile import Profile
from ..rules.strategy import LOSE, NOT_QUALIFIED, TIE, WIN, Payoffs

SENTINEL = 1 << 24
BIG = 1 << 25
FULL_DECK = tuple(range(52))


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - the par extra is missing
        raise ParUnavailable("the PAR sheet needs NumPy: pip install 'referee[par]'") from None
    return numpy


class ParUnavailable(Exception):
    """NumPy is missing (exit 2)."""


@dataclass
class Totals:
    """Exact integer counts over every case (deal), weighted by suit symmetry."""

    cases: int = 0
    fold: int = 0
    situations: int = 0
    calling_situations: int = 0
    # counts[category][outcome] of the calling cases
    counts: list[list[int]] = field(default_factory=lambda: [[0] * 4 for _ in range(10)])
    # Situations where calling is worth exactly what folding is (-1 Ante): folded, as
    # "call exactly when calling beats folding" says; their calling counts are kept so
    # that the sheet can also say what calling them would show (same expected value).
    indifferent_situations: int = 0
    indifferent_counts: list[list[int]] = field(default_factory=lambda: [[0] * 4 for _ in range(10)])
    #: The optimal decision of each hole pair of each flop solved, in order (bit set: call),
    #: packed a flop at a time: the table ``decision_table`` reads.
    decisions: list[bytes] = field(default_factory=list)

    def add(self, other: Totals) -> None:
        self.cases += other.cases
        self.fold += other.fold
        self.situations += other.situations
        self.calling_situations += other.calling_situations
        self.indifferent_situations += other.indifferent_situations
        self.decisions.extend(other.decisions)
        for table, theirs in ((self.counts, other.counts), (self.indifferent_counts, other.indifferent_counts)):
            for mine, row in zip(table, theirs, strict=True):
                for k in range(4):
                    mine[k] += row[k]


class Tables:
    """NumPy lookup tables: 7-card rank multisets, and flushes by 13-bit rank mask."""

    def __init__(self) -> None:
        np = _numpy()
        t = tables()
        ranks7 = t.ranks[7]
        self.rank7 = np.zeros(max(ranks7) + 1, dtype=np.int32)
        keys = np.fromiter(ranks7.keys(), dtype=np.int64, count=len(ranks7))
        self.rank7[keys] = np.fromiter(ranks7.values(), dtype=np.int32, count=len(ranks7))
        self.suited = np.zeros(1 << 13, dtype=np.int32)
        for mask in range(1 << 13):
            ranks = [r for r in range(13) if mask >> r & 1]
            if len(ranks) >= 5:
                self.suited[mask] = best_value_of_suited(ranks)
        self.rank_key = np.array([RANK_KEYS[c >> 2] for c in range(52)], dtype=np.int64)


def flop_classes(deck: Sequence[int]) -> list[tuple[tuple[int, ...], int]]:
    """One flop of each suit-symmetry class of ``deck``, with the size of its class."""
    cards = set(deck)
    perms = [p for p in permutations(range(4)) if all((c & ~3) | p[c & 3] in cards for c in deck)]
    classes: dict[tuple[int, ...], int] = {}
    for flop in combinations(sorted(deck), 3):
        canon = min(tuple(sorted((c & ~3) | p[c & 3] for c in flop)) for p in perms)
        classes[canon] = classes.get(canon, 0) + 1
    return sorted(classes.items())


class FlopSolver:
    """Counts every deal of one flop (see the module's docstring)."""

    def __init__(self, deck: Sequence[int], payoffs: Payoffs, qualifier: int, tabs: Tables) -> None:
        self.np = _numpy()
        self.deck = tuple(sorted(deck))
        self.payoffs = payoffs
        self.qualifier = qualifier
        self.t = tabs

    def solve(self, flop: tuple[int, ...], weight: int) -> Totals:
        _, counts, completions = self.flop_counts(flop)
        return self._decide(counts, weight, completions)

    def flop_counts(self, flop: tuple[int, ...]) -> tuple[list[tuple[int, int]], Any, int]:
        """For each hole pair of this flop (as card pairs): the counts of calling, shaped
        (pairs, 10 categories, 4 outcomes), and the completions each sums to."""
        np = self.np
        rest = [c for c in self.deck if c not in flop]
        n = len(rest)
        pairs = list(combinations(range(n), 2))
        m = len(pairs)
        first = np.array([i for i, _ in pairs])
        second = np.array([j for _, j in pairs])
        cards = np.array(rest, dtype=np.int64)
        rank_key = self.t.rank_key[cards[first]] + self.t.rank_key[cards[second]]
        bits = (np.int64(1) << first.astype(np.int64)) | (np.int64(1) << second.astype(np.int64))
        values = self._values(flop, cards, first, second, rank_key, bits)
        # Sorted rows, and each card's sorted row of the pairs holding it.
        rows = np.sort(values, axis=1)
        holding = np.array([[p for p, (i, j) in enumerate(pairs) if c in (i, j)] for c in range(n)])
        by_card = np.sort(values[:, holding], axis=2)  # (m, n, n - 1)
        flat_rows = (rows + (np.arange(m, dtype=np.int64) * BIG)[:, None]).ravel()
        flat_cards = (by_card + (np.arange(m * n, dtype=np.int64).reshape(m, n) * BIG)[:, :, None]).ravel()

        def below(x: Any, side: str) -> Any:
            """#valid pairs of each row below x (``side='right'``: at or below), x shaped (m, m)."""
            offset = np.arange(m, dtype=np.int64)[:, None] * BIG
            return np.searchsorted(flat_rows, x + offset, side=side) - np.arange(m)[:, None] * m

        def below_card(x: Any, card: Any, side: str) -> Any:
            key = np.arange(m, dtype=np.int64)[:, None] * n + card[None, :]
            return np.searchsorted(flat_cards, x + key * BIG, side=side) - key * (n - 1)

        valid = values < SENTINEL
        x = np.where(valid, values, 0)
        q = np.full_like(x, self.qualifier)

        def disjoint(limit: Any, side: str) -> Any:
            inside = (x <= limit) if side == "right" else (x < limit)
            return (below(limit, side) - below_card(limit, first, side) - below_card(limit, second, side)
                    + inside)

        nq = disjoint(q, "left")
        lt = disjoint(x, "left")
        le = disjoint(x, "right")
        qualified_player = x >= self.qualifier
        win = np.where(qualified_player, lt - nq, 0)
        tie = np.where(qualified_player, le - lt, 0)
        dealers = comb(n - 4, 2)
        lose = dealers - nq - win - tie
        category = x >> 20
        # Rows are turn-and-river pairs, columns the player's pair: sum each column's boards.
        player = np.broadcast_to(np.arange(m), valid.shape)[valid]
        index = player * 10 + category[valid]
        counts = np.stack([np.bincount(index, weights=o[valid], minlength=m * 10)
                           for o in (nq, win, tie, lose)], axis=-1)
        counts = np.rint(counts).astype(np.int64).reshape(m, 10, 4)
        return [(rest[i], rest[j]) for i, j in pairs], counts, dealers * comb(n - 2, 2)

    def _values(self, flop: tuple[int, ...], cards: Any, first: Any, second: Any, rank_key: Any, bits: Any) -> Any:
        np = self.np
        t = self.t
        overlap = (bits[:, None] & bits[None, :]) != 0  # pairs sharing a card: no hand
        rank_sum = int(sum(t.rank_key[c] for c in flop)) + rank_key[:, None] + rank_key[None, :]
        value = t.rank7[np.where(overlap, 0, rank_sum)]
        for suit in range(4):
            flop_mask = sum(1 << (c >> 2) for c in flop if c & 3 == suit)
            in_suit = (cards & 3) == suit
            rank_bit = np.where(in_suit, np.int64(1) << (cards >> 2), 0)
            pair_mask = rank_bit[first] | rank_bit[second]
            mask = flop_mask | pair_mask[:, None] | pair_mask[None, :]
            value = np.maximum(value, t.suited[mask])
        return np.where(overlap, SENTINEL, value).astype(np.int64)

    def _decide(self, counts: Any, weight: int, completions: int) -> Totals:
        """Decide each hole pair by the exact value of calling, and weigh."""
        np = self.np
        m = counts.shape[0]
        p = self.payoffs
        pay = np.array(p.table, dtype=np.int64)  # [category, outcome]
        value = (counts * pay).sum(axis=(1, 2))
        calls = value > p.fold * completions
        indifferent = value == p.fold * completions
        totals = Totals()
        totals.situations = weight * m
        totals.calling_situations = weight * int(calls.sum())
        totals.cases = weight * m * completions
        totals.fold = weight * int((~calls).sum()) * completions
        called = counts[calls].sum(axis=0)
        totals.counts = [[weight * int(called[c, k]) for k in range(4)] for c in range(10)]
        totals.indifferent_situations = weight * int(indifferent.sum())
        totals.decisions = [np.packbits(calls).tobytes()]
        level = counts[indifferent].sum(axis=0)
        totals.indifferent_counts = [[weight * int(level[c, k]) for k in range(4)] for c in range(10)]
        return totals


def _solve_one(args: tuple[tuple[int, ...], tuple[int, ...], int, Payoffs, int]) -> Totals:
    deck, flop, weight, payoffs, qualifier = args
    return FlopSolver(deck, payoffs, qualifier, _tables()).solve(flop, weight)


_TABLES: Tables | None = None


def _tables() -> Tables:
    global _TABLES
    if _TABLES is None:
        _TABLES = Tables()
    return _TABLES


def solve(profile: Profile, deck: Sequence[int] = FULL_DECK, jobs: int = 1,
          progress: Callable[[int], None] | None = None) -> Totals:
    """The exact totals of the main game under optimal play, over every deal of ``deck``."""
    payoffs = Payoffs.of(profile)
    qualifier = profile.dealer_qualifier.floor()
    work = [(tuple(deck), flop, weight, payoffs, qualifier) for flop, weight in flop_classes(deck)]
    totals = Totals()
    for result in _map(work, jobs):
        totals.add(result)
        if progress:
            progress(1)
    return totals


def _map(work: list[tuple[Any, ...]], jobs: int) -> Iterator[Totals]:
    if jobs <= 1:
        yield from map(_solve_one, work)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _tables()  # built once, shared with the forked workers
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        yield from pool.map(_solve_one, work, chunksize=2)


def solve_pure(profile: Profile, deck: Sequence[int]) -> Totals:
    """The same totals by playing every deal one by one, in pure Python: for small
    decks (a 12-card deck's 1,663,200 deals take seconds), as an independent check of
    the NumPy engine and where NumPy is missing. Decisions are exact (Fractions)."""
    from ..rules.evaluator import rank7

    q = profile.dealer_qualifier.floor()
    p = Payoffs.of(profile)
    totals = Totals()
    for hole in combinations(sorted(deck), 2):
        left = [c for c in sorted(deck) if c not in hole]
        for flop in combinations(left, 3):
            rest = [c for c in left if c not in flop]
            counts = [[0] * 4 for _ in range(10)]
            for turn_river in combinations(rest, 2):
                player = rank7(*hole, *flop, *turn_river)
                row = counts[player >> 20]
                for dealer_cards in combinations([c for c in rest if c not in turn_river], 2):
                    dealer = rank7(*dealer_cards, *flop, *turn_river)
                    row[NOT_QUALIFIED if dealer < q else WIN if player > dealer else TIE if player == dealer
                        else LOSE] += 1
            completions = sum(map(sum, counts))
            value = Fraction(p.value(counts), p.scale)
            totals.cases += completions
            totals.situations += 1
            target = totals.counts
            fold = Fraction(p.fold * completions, p.scale)
            if value > fold:
                totals.calling_situations += 1
            elif value == fold:
                totals.indifferent_situations += 1
                totals.fold += completions
                target = totals.indifferent_counts
            else:
                totals.fold += completions
                continue
            for c in range(10):
                for k in range(4):
                    target[c][k] += counts[c][k]
    return totals


class DecisionTable:
    """Optimal play without computing: the decision of every hole pair and flop, read
    from the bits ``solve`` found (shipped for the built-in profiles).

    A situation is mapped to its flop's class by the suit permutation that makes the
    flop canonical; any such permutation gives the same decision, by symmetry.
    """

    def __init__(self, data: bytes, deck: Sequence[int] = FULL_DECK) -> None:
        self.deck = tuple(sorted(deck))
        classes = flop_classes(self.deck)
        self.index = {flop: i for i, (flop, _) in enumerate(classes)}
        n = len(self.deck) - 3
        self.stride = (n * (n - 1) // 2 + 7) // 8
        if len(data) != self.stride * len(classes):
            raise ValueError("decision table of the wrong size for this deck")
        self.data = data
        cards = set(self.deck)
        self.perms = [q for q in permutations(range(4)) if all((c & ~3) | q[c & 3] in cards for c in self.deck)]
        self.pair_index: dict[tuple[int, ...], dict[tuple[int, int], int]] = {}
        self.canonical: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def calls(self, hole: Sequence[int], flop: Sequence[int]) -> bool:
        canon, perm = self._canonical(tuple(sorted(flop)))
        a, b = sorted((c & ~3) | perm[c & 3] for c in hole)
        pairs = self.pair_index.get(canon)
        if pairs is None:
            rest = [c for c in self.deck if c not in canon]
            pairs = {(rest[i], rest[j]): k for k, (i, j) in enumerate(combinations(range(len(rest)), 2))}
            self.pair_index[canon] = pairs
        k = pairs[(a, b)]
        byte = self.data[self.index[canon] * self.stride + k // 8]
        return bool(byte >> (7 - k % 8) & 1)

    def _canonical(self, flop: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The flop's class representative and a suit permutation that maps it there
        (cached: there are 22,100 flops)."""
        found = self.canonical.get(flop)
        if found is None:
            found = min((tuple(sorted((c & ~3) | q[c & 3] for c in flop)), q) for q in self.perms)
            self.canonical[flop] = found
        return found
