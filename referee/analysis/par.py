"""``referee par``: the exact PAR sheet of a profile under optimal play.

Every deal is counted: hole cards, flop, turn and river, dealer cards, 27,813,810,024,000
cases for a full deck. The count is organised so that NumPy does the work in bulk:

* **Suit symmetry.** A suit permutation maps deals to deals with the same outcome, so
  only one flop of each class is enumerated (1,755 of the 22,100), weighted by the size
  of its class; every hole pair and completion of that flop is counted.
* **One matrix a flop** (``analysis/flops.py``). With the flop fixed, both hands are
  the flop plus four of the remaining cards, so one matrix ``V[T, X]`` (flop + pair T +
  pair X) holds every hand of the flop; for a board (flop + T), the dealer hands a
  player's pair meets are counted from its rank in the sorted row, corrected for the
  pairs that hold one of its cards (inclusion-exclusion).
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
from typing import Any

from ..rules.profile import Profile
from ..rules.strategy import LOSE, NOT_QUALIFIED, TIE, WIN, Payoffs
from .flops import FULL_DECK, FlopCounter, ParUnavailable, Tables, flop_classes, shared_tables
from .flops import numpy as _numpy

__all__ = ["FULL_DECK", "DecisionTable", "FlopSolver", "ParUnavailable", "Tables", "Totals", "flop_classes",
           "solve", "solve_pure"]


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


class FlopSolver:
    """Counts every deal of one flop (``flops.FlopCounter``) and decides each hole pair."""

    def __init__(self, deck: Sequence[int], payoffs: Payoffs, qualifier: int, tabs: Tables) -> None:
        self.np = _numpy()
        self.deck = tuple(sorted(deck))
        self.payoffs = payoffs
        self.qualifier = qualifier
        self.counter = FlopCounter(self.deck, qualifier, tabs)

    def solve(self, flop: tuple[int, ...], weight: int) -> Totals:
        _, counts, completions = self.flop_counts(flop)
        return self._decide(counts, weight, completions)

    def flop_counts(self, flop: tuple[int, ...]) -> tuple[list[tuple[int, int]], Any, int]:
        """For each hole pair of this flop (as card pairs): the counts of calling, shaped
        (pairs, 10 categories, 4 outcomes), and the completions each sums to."""
        return self.counter.counts(flop)

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


def _tables() -> Tables:
    return shared_tables()


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
        self.position = {card: i for i, card in enumerate(self.deck)}
        self.rest = n
        self.canonical: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def calls(self, hole: Sequence[int], flop: Sequence[int]) -> bool:
        canon, perm = self._canonical(tuple(sorted(flop)))
        i, j = sorted(self._place(canon, (c & ~3) | perm[c & 3]) for c in hole)
        # the pair's rank in combinations(range(n), 2) order, n the cards left beside the flop
        k = i * self.rest - i * (i + 1) // 2 + j - i - 1
        byte = self.data[self.index[canon] * self.stride + k // 8]
        return bool(byte >> (7 - k % 8) & 1)

    def _place(self, flop: tuple[int, ...], card: int) -> int:
        """The card's place among the deck's cards that are not on the flop (in order)."""
        at = self.position[card]
        return at - sum(1 for f in flop if self.position[f] < at)

    def _canonical(self, flop: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The flop's class representative and a suit permutation that maps it there
        (cached: there are 22,100 flops)."""
        found = self.canonical.get(flop)
        if found is None:
            found = min((tuple(sorted((c & ~3) | q[c & 3] for c in flop)), q) for q in self.perms)
            self.canonical[flop] = found
        return found
