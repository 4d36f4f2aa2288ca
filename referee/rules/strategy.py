"""The exact value of calling: what ``optimal`` play, the decision audit and PAR rest on.

At the decision the player knows five cards (two private, the flop); 47 are unseen.
Every completion (turn and river, then the dealer's two cards) is equally likely:
C(47,2) × C(45,2) = 1,081 × 990 = 1,070,190 of them. Counting them one by one costs a
million evaluations; instead the dealer's hand, which is the flop plus four unseen
cards, is evaluated once for each of the C(47,4) = 178,365 four-card sets, and each
turn-and-river pair then sorts the 990 dealer values it meets and counts, with
bisection, how many the dealer does not qualify with, how many the player beats, ties
and loses to. The counts are exact integers by the player's final category, so any
paytable settles them exactly (rule §05 and §06) without evaluating again.

Passing example: Ah Kd with flop 7c 9s As (§09) calls; 2c 7d with flop Jh Qs 4c folds.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import lcm

from .category import CATEGORY_SHIFT, Category
from .evaluator import (
    FLUSH_BITS,
    SMALL_KEYS,
    SMALL_SHIFT,
    SUIT_START,
    Tables,
    suited_value,
    tables,
)
from .payout import Ending, MainGame, bonus_term
from .profile import Profile

COMPLETIONS = 1_070_190
NOT_QUALIFIED, WIN, TIE, LOSE = 0, 1, 2, 3
OUTCOMES = ("dealer_not_qualified", "win", "tie", "lose")


@dataclass(frozen=True, slots=True)
class CallCounts:
    """How the 1,070,190 completions of one decision end if the player calls.

    ``counts[category][outcome]``: category is the player's final hand (0 high card
    .. 9 royal flush), outcome one of ``OUTCOMES``. The counts sum to 1,070,190.
    """

    counts: tuple[tuple[int, int, int, int], ...]

    def total(self) -> int:
        return sum(sum(row) for row in self.counts)

    def outcome(self, which: int) -> int:
        return sum(row[which] for row in self.counts)

    def call_value(self, profile: Profile) -> Fraction:
        """Expected net of calling, in Antes (Ante and Call together), exact."""
        p = Payoffs.of(profile)
        return Fraction(p.value(self.counts), p.scale * self.total())


@dataclass(frozen=True)
class Payoffs:
    """Net results per Ante (Ante and Call together) by the player's final category and
    how the game ends, scaled to integers by ``scale``: the profile's payout rules
    (:func:`referee.rules.payout.main_terms`, the ones ``settle`` applies) in the form the
    counting engines need. ``game`` is the whole table they come from; two profiles with
    equal ``game`` are the same game."""

    scale: int
    table: tuple[tuple[int, int, int, int], ...]  # [category order][NOT_QUALIFIED, WIN, TIE, LOSE]
    fold: int
    call_stake: Fraction
    game: MainGame

    @classmethod
    def of(cls, profile: Profile) -> Payoffs:
        return _payoffs(MainGame.of(profile))

    def value(self, counts: Sequence[Sequence[int]]) -> int:
        """The scaled net of outcome counts ``counts[category][outcome]``."""
        return sum(n * pay for row, pays in zip(counts, self.table, strict=True)
                   for n, pay in zip(row, pays, strict=True))

    def by_outcome(self, outcome: int) -> tuple[int, ...]:
        """One outcome's scaled net for each category (high card first)."""
        return tuple(row[outcome] for row in self.table)


@lru_cache(maxsize=16)
def _payoffs(game: MainGame) -> Payoffs:
    """Cached by the game (a value): the decision audit asks once a situation."""
    ends = (Ending.NOT_QUALIFIED, Ending.WIN, Ending.TIE, Ending.LOSE)
    nets = [[Fraction(game.net(e, c)) for e in ends] for c in Category.ranked()]
    fold = Fraction(game.net(Ending.FOLD, Category.HIGH_CARD))
    call = Fraction(game.call_multiple)
    scale = lcm(*(x.denominator for x in (*(x for row in nets for x in row), fold, call)))
    table = tuple((int(a * scale), int(b * scale), int(c * scale), int(d * scale)) for a, b, c, d in nets)
    return Payoffs(scale, table, int(fold * scale), call, game)


def call_counts(private: Sequence[int], flop: Sequence[int], qualifier: int) -> CallCounts:
    """Exact outcome counts of calling with these cards (card indices 0..51).

    ``qualifier`` is the smallest dealer hand value that qualifies
    (``profile.dealer_qualifier.floor()``).
    """
    t = tables()
    ranks7 = t.ranks[7]
    known = set(private) | set(flop)
    if len(known) != 5:
        raise ValueError("the decision needs two private cards and three flop cards, all different")
    unseen = [c for c in range(52) if c not in known]
    keys = [SMALL_KEYS[c] for c in unseen]
    flop_t = tuple(flop)
    base = SUIT_START + sum(SMALL_KEYS[c] for c in flop)
    dealer = _dealer_values(unseen, keys, flop_t, base, ranks7, t)
    hole = SUIT_START + sum(SMALL_KEYS[c] for c in (*private, *flop))
    pairs = list(combinations(range(47), 2))
    bits = [(1 << i) | (1 << j) for i, j in pairs]
    counts = [[0, 0, 0, 0] for _ in range(10)]
    cards_p = (*private, *flop)
    for (i, j), pb in zip(pairs, bits, strict=True):
        key = hole + keys[i] + keys[j]
        if key & FLUSH_BITS:
            player = suited_value((*cards_p, unseen[i], unseen[j]), key, t)
        else:
            player = ranks7[key >> SMALL_SHIFT]
        values = [dealer[pb | qb] for qb in bits if not pb & qb]
        values.sort()
        nq = bisect_left(values, qualifier)
        if player < qualifier:
            win = tie = 0
        else:
            below = bisect_left(values, player)
            win = below - nq
            tie = bisect_right(values, player, below) - below
        row = counts[player >> CATEGORY_SHIFT]
        row[NOT_QUALIFIED] += nq
        row[WIN] += win
        row[TIE] += tie
        row[LOSE] += 990 - nq - win - tie
    return CallCounts(tuple((a, b, c, d) for a, b, c, d in counts))


def _dealer_values(
    unseen: list[int], keys: list[int], flop: tuple[int, ...], base: int,
    ranks7: dict[int, int], t: Tables,
) -> dict[int, int]:
    """The dealer's value for each four unseen cards, keyed by their bits among the 47."""
    values: dict[int, int] = {}
    n = len(unseen)
    for a in range(n - 3):
        ka, ba = base + keys[a], 1 << a
        for b in range(a + 1, n - 2):
            kb, bb = ka + keys[b], ba | 1 << b
            for c in range(b + 1, n - 1):
                kc, bc = kb + keys[c], bb | 1 << c
                for d in range(c + 1, n):
                    key = kc + keys[d]
                    if key & FLUSH_BITS:
                        cards = (*flop, unseen[a], unseen[b], unseen[c], unseen[d])
                        values[bc | 1 << d] = suited_value(cards, key, t)
                    else:
                        values[bc | 1 << d] = ranks7[key >> SMALL_SHIFT]
    return values


def bonus_edge(profile: Profile, five_value: int, ante: Fraction, bonus: Fraction) -> Fraction:
    """What calling gains over folding on the side bet, in Antes: the difference between
    the bonus's settlement after a call and after a fold (``payout.bonus_term``, as
    ``settle`` applies it). Only a bonus that a fold forfeits differs, and then only when
    the five cards already win it: folding loses the stake, calling collects ``stake × odds``."""
    if not bonus or profile.bonus is None:
        return Fraction(0)
    called, folded = bonus_term(profile, five_value, False), bonus_term(profile, five_value, True)
    return bonus * (Fraction(called.net) - Fraction(folded.net)) / ante if called.rule.pays else Fraction(0)


def should_call(
    profile: Profile, private: Sequence[int], flop: Sequence[int], edge: Fraction = Fraction(0)
) -> bool:
    """Optimal play: call exactly when calling's expected value beats folding's.

    ``edge`` is what calling gains on a side bet (see :func:`bonus_edge`). At exact
    equality the player folds, risking less for the same value.
    """
    counts = call_counts(private, flop, profile.dealer_qualifier.floor())
    return counts.call_value(profile) + edge > fold_value(profile)


def fold_value(profile: Profile) -> Fraction:
    """What folding is worth, in Antes (the fold's Ante line: -1 in every profile so far)."""
    p = Payoffs.of(profile)
    return Fraction(p.fold, p.scale)
