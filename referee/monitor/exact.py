"""The exact distributions the monitor compares with: no simulation, no approximation.

* The main bet (Ante and Call): a seat's situation (its five known cards) and the
  decision it took fix the distribution of its net over the 1,070,190 completions.
  Folding is worth the profile's fold line exactly, with no variance; calling's mean
  and second moment are dot products of the situation's 40 outcome counts with the
  payout table and with its squares (the shipped counts: a look-up; any other
  qualifier is counted one by one, ``rules/strategy.call_counts``).
* The Bonus: it is settled on the player's two cards and the flop, known at the
  decision, so it is tested unconditionally, over all 2,598,960 five-card hands
  (enumerated by rank pattern, one hand evaluated a pattern), as the hand pays it.
* The dealer's final category: the 133,784,560 seven-card hands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb, prod
from typing import Any

from ..analysis.counts import DEALERS
from ..analysis.situations import CountTable, classes
from ..profiles import ProfileOrigin
from ..rules.category import Category
from ..rules.hands import evaluate
from ..rules.profile import BonusRule
from ..rules.strategy import COMPLETIONS, Payoffs, call_counts

FIVE_CARD_HANDS = comb(52, 5)
SEVEN_CARD_HANDS = comb(52, 7)

#: Seven-card hands by best category (high card first); they sum to C(52, 7).
SEVEN_CARD_COUNTS = (23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184,
                     224_848, 37_260, 4_324)


@dataclass(frozen=True, slots=True)
class Moments:
    """A situation's net under the decision taken, per Ante: its mean and its second
    moment, exact; and, for the deal's tests, P(the dealer qualifies) and P(each of
    the player's final categories), given the five known cards."""

    mean: Fraction
    second: Fraction
    qualifies: Fraction | None = None
    categories: tuple[Fraction, ...] | None = None
    #: The raw third moment E[net³] (the skew of a sum of nets: ``third_central``).
    third: Fraction | None = None

    @property
    def variance(self) -> Fraction:
        return self.second - self.mean * self.mean

    @property
    def third_central(self) -> Fraction:
        """E[(net - mean)³], the third cumulant: E[X³] - 3 mean E[X²] + 2 mean³."""
        return central3(self.mean, self.second, self.third)


def central3(mean: Fraction, second: Fraction, third: Fraction | None) -> Fraction:
    """The third central moment from the raw ones (None: not known, taken as certain: 0)."""
    if third is None:
        return Fraction(0)
    return third - 3 * mean * second + 2 * mean ** 3


def _squared(p: Payoffs) -> Payoffs:
    """The payout table squared (scale squared too): its dot product with the counts is
    the second moment. Equal payouts stay equal, so a layout that fits ``p`` fits it."""
    table = tuple((a * a, b * b, c * c, d * d) for a, b, c, d in p.table)
    return replace(p, scale=p.scale * p.scale, table=table, fold=p.fold * p.fold)


def _cubed(p: Payoffs) -> Payoffs:
    """The payout table cubed (scale cubed too): its dot product with the counts is the
    raw third moment. Cubing keeps equal payouts equal and unequal ones apart."""
    table = tuple((a ** 3, b ** 3, c ** 3, d ** 3) for a, b, c, d in p.table)
    return replace(p, scale=p.scale ** 3, table=table, fold=p.fold ** 3)


def fold_moments(origin: ProfileOrigin) -> Moments:
    """Folding: the fold line, certain (no variance, no skew)."""
    p = Payoffs.of(origin.resolve().profile)
    value = Fraction(p.fold, p.scale)
    return Moments(value, value * value, third=value ** 3)


def variance(first: int, second: int) -> int:
    """The variance of a call's net over D² (D = payoffs.scale × COMPLETIONS), from its
    first two raw moments over D and D² (``Counted``'s): E[X²] − E[X]²."""
    return second * COMPLETIONS - first * first


def third_central(first: int, second: int, third: int) -> int:
    """The third central moment of a call's net over D³, from its raw moments over D, D²,
    D³: E[X³] − 3 E[X] E[X²] + 2 E[X]³."""
    return third * COMPLETIONS * COMPLETIONS - 3 * first * second * COMPLETIONS + 2 * first ** 3


@dataclass(frozen=True, slots=True)
class Counted:
    """Calling in one situation as whole numbers: the net's first three raw moments over
    ``payoffs.scale ** k × COMPLETIONS`` (the counts dotted with the payout table, its
    squares and its cubes), the completions the dealer does not qualify in, and the
    turn-and-river pairs ending in each of the player's final categories (each is
    DEALERS completions). Why whole numbers: the monitor sums millions of seats' figures
    exactly, and a Fraction a seat is most of its time (``call_moments`` gives them)."""

    first: int
    second: int
    third: int
    not_qualified: int
    turns: tuple[int, ...]

    def variance(self) -> int:
        """The variance over D² (D = payoffs.scale × COMPLETIONS): :func:`variance`."""
        return variance(self.first, self.second)

    def third_central(self) -> int:
        """The third central moment over D³: :func:`third_central`."""
        return third_central(self.first, self.second, self.third)

    # The deal's exact expectations given these five known cards (the monitor's deal tests,
    # ``valuing.DealFigures``), as whole numbers over COMPLETIONS: read from the counts when
    # asked, so that a first run makes nothing a deal (issue 47).

    @property
    def categories(self) -> tuple[int, ...]:
        """How many completions end in each of the player's final categories (high card first)."""
        return tuple(n * DEALERS for n in self.turns)

    @property
    def qualifies(self) -> int:
        """How many completions the dealer qualifies in."""
        return COMPLETIONS - self.not_qualified

    @property
    def deal_variance(self) -> int:
        """P(qualifies) × P(not) over COMPLETIONS²: the variance of one deal's qualifying."""
        return (COMPLETIONS - self.not_qualified) * self.not_qualified


def call_counted(origin: ProfileOrigin, knowns: Iterable[tuple[int, ...]]) -> dict[tuple[int, ...], Counted]:
    """Calling in each situation ``knowns`` under ``origin``'s profile, exact, in whole numbers."""
    profile = origin.resolve().profile
    p = Payoffs.of(profile)
    sq, cu = _squared(p), _cubed(p)
    qualifier = profile.dealer_qualifier.floor()
    table = _count_table(*CountTable.serving(p, qualifier))
    locate = classes().locate
    out: dict[tuple[int, ...], Counted] = {}
    by_class: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    order = list(dict.fromkeys(knowns))
    places = _located(order)
    loaded: dict[int, bool] = {}
    for at, known in enumerate(order):
        index, pair = locate(known) if places is None else places[at]
        served = loaded.get(index)
        if served is None:  # a class's block looked for once, not once a situation
            served = loaded[index] = table.load(index)
        if served:
            by_class.setdefault(index, []).append((known, pair))
        else:  # another qualifier without its counts: counted one by one
            counts = call_counts(known[:2], known[2:5], qualifier).counts
            out[known] = Counted(p.value(counts), sq.value(counts), cu.value(counts), sum(row[0] for row in counts),
                                 tuple(sum(row) // DEALERS for row in counts))
    tables = (p, sq, cu)
    many = any(len(found) > _FEW for found in by_class.values()) and many_served(tables)
    for index, found in by_class.items():
        block = table.blocks[index]
        if many and len(found) > _FEW:  # a block's situations at once, column by column (``counted``)
            from .counted import figures

            (values, seconds, thirds), not_qualified, turns = figures(block, [pair for _, pair in found], tables)
            for (known, _), *row in zip(found, values, seconds, thirds, not_qualified, turns, strict=True):
                out[known] = Counted(row[0], row[1], row[2], row[3], tuple(row[4]))
            continue
        for known, pair in found:
            (value, second, third), nq, turned = block.figures_under(pair, tables)
            out[known] = Counted(value, second, third, nq, tuple(turned))
    return {known: out[known] for known in order}  # in the order asked, as one by one


def counted_arrays(origin: ProfileOrigin, knowns: list[tuple[int, ...]]) -> tuple[Any, Any]:
    """:func:`call_counted` of distinct ``knowns`` as columns, in their order: a (4, n)
    array of each one's first, second and third raw moments and not-qualified completions,
    and a (n, 10) array of its turns (``Counted``'s fields), with no ``Counted`` a
    situation (issue 47: a first run values one a game). int64 when the payouts are small
    enough for the column-by-column sums (``counted.served``: every moment then fits),
    else whole numbers of any size (dtype object)."""
    import numpy as np

    profile = origin.resolve().profile
    p = Payoffs.of(profile)
    tables = (p, _squared(p), _cubed(p))
    n = len(knowns)
    many = n > _FEW and many_served(tables)
    out = np.zeros((4, n), np.int64 if many else object)
    turns = np.zeros((n, 10), np.int64)
    if not many:
        _put(out, turns, range(n), call_counted(origin, knowns).values())
        return out, turns
    from .counted import figure_arrays

    table = _count_table(*CountTable.serving(p, profile.dealer_qualifier.floor()))
    places = _located(knowns)
    locate = classes().locate
    where = np.array([locate(k) for k in knowns] if places is None else places, np.int64).reshape(n, 2)
    order = np.argsort(where[:, 0], kind="stable")
    index = where[order, 0]
    starts = np.flatnonzero(np.diff(index, prepend=-1))
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), n], strict=True):
        ats = order[start:end]
        block_at = int(index[start])
        if not table.load(block_at):  # another qualifier without its counts: counted one by one
            _put(out, turns, ats.tolist(), call_counted(origin, [knowns[at] for at in ats.tolist()]).values())
            continue
        block = table.blocks[block_at]
        pairs = where[ats, 1].tolist()
        if ats.size > _FEW:  # a block's situations at once, column by column (``counted``)
            values, not_qualified, turned = figure_arrays(block, pairs, tables)
            out[:3, ats] = values
            out[3, ats] = not_qualified
            turns[ats] = turned
            continue
        for at, pair in zip(ats.tolist(), pairs, strict=True):
            (value, second, third), nq, row = block.figures_under(pair, tables)
            out[:, at] = (value, second, third, nq)
            turns[at] = row
    return out, turns


def _put(out: Any, turns: Any, ats: Iterable[int], found: Iterable[Counted]) -> None:
    """Situations counted one by one (``Counted``s) put into :func:`counted_arrays`'
    columns at ``ats``."""
    for at, c in zip(ats, found, strict=True):
        out[:, at] = (c.first, c.second, c.third, c.not_qualified)
        turns[at] = c.turns


def _located(knowns: list[tuple[int, ...]]) -> list[tuple[int, int]] | None:
    """Every situation's class and hole pair at once (``counted.located``: NumPy, which a
    first run over many situations has), else None (located one by one)."""
    if len(knowns) <= _FEW:
        return None
    try:
        from .counted import located
    except ImportError:  # pragma: no cover - the store extra brings NumPy
        return None
    return located(classes(), knowns)


#: A block's situations are valued one by one when they are this few or fewer: column by
#: column a block costs about 0.22 ms whatever it values (small arrays' overheads), one by one
#: 6.5 µs a situation (measured: 14 situations a block 0.09 ms one by one, 70 a block 0.46).
_FEW = 32


def many_served(tables: tuple[Payoffs, ...]) -> bool:
    """Whether the situations can be valued column by column (``counted.served``)."""
    from .counted import served

    return served(tables)


@lru_cache(maxsize=4)
def _count_table(qualifier: int, shipped: bool) -> CountTable:
    """One table a qualifier for the process: its classes are inflated once, however many
    times the monitor values seats (a cache's steps, the benchmarks' tables)."""
    return CountTable(qualifier, shipped)


def call_moments(origin: ProfileOrigin, knowns: Iterable[tuple[int, ...]]) -> dict[tuple[int, ...], Moments]:
    """Calling in each situation ``knowns`` under ``origin``'s profile, exact (as fractions)."""
    scale = Payoffs.of(origin.resolve().profile).scale
    return {known: Moments(Fraction(c.first, scale * COMPLETIONS), Fraction(c.second, scale ** 2 * COMPLETIONS),
                           Fraction(COMPLETIONS - c.not_qualified, COMPLETIONS),
                           tuple(Fraction(n * DEALERS, COMPLETIONS) for n in c.turns),
                           Fraction(c.third, scale ** 3 * COMPLETIONS))
            for known, c in call_counted(origin, knowns).items()}


@lru_cache(maxsize=1)
def five_card_values() -> tuple[tuple[int, int], ...]:
    """Every five-card hand's value with how many hands have it: one hand evaluated for
    each rank pattern (and, five ranks apart, suited or not), its suit choices counted."""
    out: dict[int, int] = {}
    for ranks in combinations_with_replacement(range(13), 5):
        counts = [ranks.count(r) for r in sorted(set(ranks))]
        if max(counts) > 4:
            continue
        if len(counts) == 5:
            suited = [r * 4 for r in ranks]
            plain = [*suited[:4], ranks[4] * 4 + 1]
            for hand, n in ((suited, 4), (plain, 4 ** 5 - 4)):
                value = evaluate(hand).value
                out[value] = out.get(value, 0) + n
            continue
        cards = []
        seen: dict[int, int] = {}
        for r in ranks:
            cards.append(r * 4 + seen.get(r, 0))
            seen[r] = seen.get(r, 0) + 1
        value = evaluate(cards).value
        out[value] = out.get(value, 0) + prod(comb(4, c) for c in counts)
    return tuple(sorted(out.items()))


@dataclass(frozen=True, slots=True)
class BonusOdds:
    """A profile's Bonus as the five cards pay it, per unit of stake: P(it pays), its mean
    and second moment (a fold's forfeit aside: that is the player's choice, not chance)."""

    hit: Fraction
    mean: Fraction
    second: Fraction
    third: Fraction | None = None

    @property
    def variance(self) -> Fraction:
        return self.second - self.mean * self.mean

    @property
    def third_central(self) -> Fraction:
        return central3(self.mean, self.second, self.third)


def bonus_pay(origin: ProfileOrigin, value: int) -> Fraction:
    """What a unit Bonus stake nets on five cards of ``value`` (the stake's loss when unpaid)."""
    return bonus_pay_under(origin.resolve().profile.bonus, value)


def bonus_pay_under(rule: BonusRule | None, value: int) -> Fraction:
    """:func:`bonus_pay` under a profile's Bonus rule read once (a first run asks for
    thousands of five-card values: the profile resolved once, not once a value)."""
    if rule is None:
        return Fraction(0)
    odds = rule.paytable.get(Category.of(value))
    return Fraction(odds) if odds is not None and rule.minimum.passes(value) else Fraction(-1)


@lru_cache(maxsize=32)
def bonus_odds(origin: ProfileOrigin) -> BonusOdds | None:
    """The Bonus's exact distribution under ``origin``'s profile (None: it has none)."""
    if origin.resolve().profile.bonus is None:
        return None
    hands: dict[Fraction, int] = {}  # how many hands each pay (a few pays: a Fraction a pay, not a hand value)
    for value, n in five_card_values():
        pay = bonus_pay(origin, value)
        hands[pay] = hands.get(pay, 0) + n
    hit = mean = second = third = Fraction(0)
    for pay, n in hands.items():
        share = Fraction(n, FIVE_CARD_HANDS)
        hit += share if pay > 0 else 0
        mean += share * pay
        second += share * pay * pay
        third += share * pay ** 3
    return BonusOdds(hit, mean, second, third)


def seven_card_shares() -> tuple[Fraction, ...]:
    """P(a seven-card hand's best category), high card first."""
    return tuple(Fraction(n, SEVEN_CARD_HANDS) for n in SEVEN_CARD_COUNTS)
