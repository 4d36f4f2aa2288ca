"""The randomness of the deal, per table and dealer: is what was dealt what a fair deck deals?

One seat a game carries its deal (``Seat.deal``: the first seat of the game's first
record; a second record of the game is the same deal). Four tests, each against exact
probabilities:

* **player's categories**: the final category of that seat's seven cards, against the
  sum over deals of its exact conditional distribution given the five cards known at the
  decision (the situation's counts): what the turn and river gave (chi-square);
* **dealer's categories**: the dealer's seven cards, against the 133,784,560 seven-card
  hands (chi-square);
* **dealer qualification**: qualified deals against the sum of each deal's exact
  P(the dealer qualifies | the five known cards) (z, with the exact variance
  Σ p(1 − p) of independent deals);
* **bonus hits**: under a profile with a Bonus, the deals whose five cards the Bonus
  pays, against P(hit) over the 2,598,960 five-card hands (z, binomial).

The category tests are the Cressie-Read power divergence (λ = 2/3), chi-square distributed,
over bins merged from the rarest category up until each expects 10; the counts' tests
read their p-values from the exact binomial tail (``count_p``), not z's normal one: the
band reads tails of 0.02%, where those approximations matter (``docs/monitor.md``). A test
needs 100 deals, and every deal's cards recorded: a log that kept the final cards only
when someone called would choose its deals by their cards.
"""

from __future__ import annotations

import math
import operator
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from ..analysis.distributions import binomial_cdf, binomial_sf, chi2_sf
from ..rules.category import Category
from ..rules.hands import evaluate
from ..rules.profile import BonusRule
from ..rules.strategy import COMPLETIONS
from . import exact
from .cells import COUNT_WINDOWS, WINDOWS
from .facts import Seat
from .valuing import DealFigures, exact_int, origin_of

DEAL_KINDS = ("all", "table", "dealer")
TESTS = ("player categories", "dealer categories", "dealer qualification", "bonus hits")
CATEGORY_NAMES = tuple(c.value for c in sorted(Category, key=lambda c: c.order))  # high card first
MIN_EXPECTED = 5.0
#: A category test's bins are merged, from the rarest up, until each expects this many.
#: Why 10, not the textbook 5: with the power divergence below, 10 keeps the share of
#: fair deals whose p falls below the band's 0.02% at 1.00 to 1.17 times it at 100 to
#: 10,000 deals (simulated, ``bench/monitor_tails.py``).
MIN_BIN = 10.0
#: The Cressie-Read power divergence's λ: 2/3, whose chi-square tail holds in small
#: samples where Pearson's (λ = 1) does not (at 0.02%, 1.2 to 1.9 times too many fair
#: deals fall outside with Pearson's over bins of 5; Cressie and Read, 1984).
LAMBDA = 2 / 3
#: Fewer deals than this: not tested (counts of categories and hits, not sums of skewed
#: nets: the cells' larger minimum, ``cells.MIN_GAMES``, is for those).
MIN_DEALS = 100
FIVE = exact.FIVE_CARD_HANDS


def _zeros() -> list[int]:
    return [0] * 10


@dataclass(slots=True)
class DealSums:
    """A window's deals: observed counts and exact expectations (integers over
    COMPLETIONS, or over C(52, 5) for the Bonus; variances over their squares)."""

    deals: int = 0
    unseen: int = 0
    player: list[int] = field(default_factory=_zeros)
    player_expected: list[int] = field(default_factory=_zeros)
    dealer: list[int] = field(default_factory=_zeros)
    qualified: int = 0
    q_expected: int = 0
    q_variance: int = 0
    bonus_deals: int = 0
    hits: int = 0
    hits_expected: int = 0
    hits_variance: int = 0

    def add(self, o: DealSums) -> None:
        for name in DEAL_COUNTS:
            setattr(self, name, getattr(self, name) + getattr(o, name))
        for name in DEAL_CATEGORIES:
            mine = getattr(self, name)
            mine[:] = map(operator.add, mine, getattr(o, name))

    def numbers(self) -> list[int]:
        """Every count, flat (the counts, then each category list): what the monitor's
        cache keeps; ``of`` reads it back."""
        return [*(getattr(self, name) for name in DEAL_COUNTS),
                *(x for name in DEAL_CATEGORIES for x in getattr(self, name))]

    @classmethod
    def of(cls, numbers: list[int]) -> DealSums:
        d = cls()
        for name, x in zip(DEAL_COUNTS, numbers, strict=False):
            setattr(d, name, x)
        rest = numbers[len(DEAL_COUNTS):]
        for i, name in enumerate(DEAL_CATEGORIES):
            setattr(d, name, list(rest[10 * i:10 * i + 10]))
        return d


#: DealSums' whole-number fields, and its lists of ten (one a category, high card first).
DEAL_COUNTS = ("deals", "unseen", "qualified", "q_expected", "q_variance", "bonus_deals", "hits", "hits_expected",
               "hits_variance")
DEAL_CATEGORIES = ("player", "player_expected", "dealer")


@dataclass(frozen=True, slots=True)
class DealTest:
    kind: str
    segment: str
    window: str
    test: str
    deals: int
    observed: float | None
    expected: float | None
    statistic: float | None
    dof: int | None
    p: float | None
    reason: str | None = None

    @property
    def tested(self) -> bool:
        return self.p is not None


DealBanded = dict[tuple[str, str], dict[tuple[int, int], DealSums]]


Deals = dict[tuple[str, str], list[tuple[int | None, DealSums]]]


def deals(seats: list[Seat], kinds: Iterable[str] = DEAL_KINDS) -> Deals:
    """Every deal's counts with its time, per segment, newest first (a deal's counts made
    once, whichever kinds hold it: its table, its dealer and all)."""
    facts = _Facts()
    out: Deals = defaultdict(list)
    dealt = [s for s in reversed(seats) if s.deal and isinstance(s.deal_figures, DealFigures)]
    made: list[DealSums] = []
    for s in dealt:
        d = DealSums()
        assert isinstance(s.deal_figures, DealFigures)
        _deal(d, s, s.deal_figures, facts)
        made.append(d)
    keys: dict[str, Callable[[Seat], str | None]] = {"all": lambda s: "all", "table": lambda s: s.table,
                                                     "dealer": lambda s: s.dealer}
    for kind in kinds:
        key = keys[kind]
        for s, d in zip(dealt, made, strict=True):
            segment = key(s)
            if segment is not None:
                out[(kind, segment)].append((s.time_us, d))
    return out


class _Facts:
    """What every deal of a profile shares, worked out once: the qualifier, the Bonus's
    odds as integers, whether the Bonus pays a hand."""

    def __init__(self) -> None:
        self.profiles: dict[str, tuple[int, exact.BonusOdds | None, tuple[int, int] | None]] = {}
        self.paid: dict[tuple[str, int], bool] = {}
        self.rules: dict[str, BonusRule | None] = {}

    def profile(self, text: str) -> tuple[int, exact.BonusOdds | None, tuple[int, int] | None]:
        if text not in self.profiles:
            origin = origin_of(text)
            odds = exact.bonus_odds(origin)
            ints = None if odds is None else (exact_int(odds.hit * FIVE),
                                              exact_int(odds.hit * (1 - odds.hit) * FIVE * FIVE))
            self.profiles[text] = (origin.resolve().profile.dealer_qualifier.floor(), odds, ints)
        return self.profiles[text]

    def pays(self, profile: str, value: int) -> bool:
        """Whether the Bonus pays five cards of ``value`` under ``profile``."""
        key = (profile, value)
        found = self.paid.get(key)
        if found is None:
            if profile not in self.rules:  # resolved once a profile, not once a five-card value
                self.rules[profile] = origin_of(profile).resolve().profile.bonus
            found = self.paid[key] = exact.bonus_pay_under(self.rules[profile], value) > 0
        return found


def _deal(d: DealSums, s: Seat, m: DealFigures, facts: _Facts) -> None:
    d.deals += 1
    if s.player_value is None or s.dealer_value is None:
        d.unseen += 1
        return
    qualifier, odds, bonus = facts.profile(s.profile)
    d.player[_ORDER[Category.of(s.player_value)]] += 1
    expected = d.player_expected
    for k, share in enumerate(m.categories):
        expected[k] += share
    d.dealer[_ORDER[Category.of(s.dealer_value)]] += 1
    d.qualified += s.dealer_value >= qualifier
    d.q_expected += m.qualifies
    d.q_variance += m.deal_variance
    if odds is not None and bonus is not None and s.known is not None:
        value = s.bonus_value if s.bonus_value is not None else evaluate(list(s.known)).value
        d.bonus_deals += 1
        d.hits += facts.pays(s.profile, value)
        d.hits_expected += bonus[0]
        d.hits_variance += bonus[1]


_ORDER = {c: c.order for c in Category}


def tests(banded: DealBanded) -> list[DealTest]:
    """Every segment × window × test."""
    out: list[DealTest] = []
    for (kind, segment), bands in sorted(banded.items()):
        for w, window in enumerate(WINDOWS):
            total = DealSums()
            for (count, when), sums in bands.items():
                if count <= w if w < len(COUNT_WINDOWS) else when <= w - len(COUNT_WINDOWS):
                    total.add(sums)
            if total.deals:
                out += _tests(kind, segment, window, total)
    return out


def _tests(kind: str, segment: str, window: str, d: DealSums) -> list[DealTest]:
    seen = d.deals - d.unseen
    reason = None
    if d.deals < MIN_DEALS:
        reason = f"fewer than {MIN_DEALS} deals"
    elif d.unseen:
        reason = f"{d.unseen} deals without all their cards" if d.unseen > 1 else "1 deal without all its cards"
    shares = exact.seven_card_shares()
    found = [
        _chi(kind, segment, window, "player categories", d.deals, d.player,
             [x / COMPLETIONS for x in d.player_expected], reason),
        _chi(kind, segment, window, "dealer categories", d.deals, d.dealer, [float(p) * seen for p in shares], reason),
        _z(kind, segment, window, "dealer qualification", d.deals, d.qualified, Fraction(d.q_expected, COMPLETIONS),
           Fraction(d.q_variance, COMPLETIONS * COMPLETIONS), seen, reason),
    ]
    if d.bonus_deals:
        found.append(_z(kind, segment, window, "bonus hits", d.deals, d.hits, Fraction(d.hits_expected, FIVE),
                        Fraction(d.hits_variance, FIVE * FIVE), d.bonus_deals, reason))
    return found


def _chi(kind: str, segment: str, window: str, test: str, deals: int, observed: list[int], expected: list[float],
         reason: str | None) -> DealTest:
    bins = _merge(observed, expected)
    if reason is None and len(bins) < 2:
        reason = "too few deals for two cells expecting 10"
    if reason is not None:
        return DealTest(kind, segment, window, test, deals, None, None, None, None, None, reason)
    statistic = divergence(bins)
    return DealTest(kind, segment, window, test, deals, None, None, statistic, len(bins) - 1,
                    chi2_sf(statistic, len(bins) - 1))


def divergence(bins: list[tuple[int, float]]) -> float:
    """The Cressie-Read power divergence of observed from expected counts at :data:`LAMBDA`,
    2 / (λ (λ + 1)) Σ o ((o / e)^λ - 1): chi-square distributed with (bins - 1) degrees
    of freedom for a fair deal, as Pearson's statistic (λ = 1) is, but with a far tail
    that holds where the band reads it (``docs/monitor.md``, *The deal*)."""
    total = math.fsum(o * ((o / e) ** LAMBDA - 1) for o, e in bins if o)
    return max(0.0, 2 / (LAMBDA * (LAMBDA + 1)) * total)


def _merge(observed: list[int], expected: list[float]) -> list[tuple[int, float]]:
    """Categories from the rarest up, merged until each bin expects :data:`MIN_BIN` or more."""
    bins: list[tuple[int, float]] = []
    o, e = 0, 0.0
    for k in range(9, -1, -1):
        o, e = o + observed[k], e + expected[k]
        if e >= MIN_BIN:
            bins.append((o, e))
            o, e = 0, 0.0
    if e and bins:
        last = bins.pop()
        bins.append((last[0] + o, last[1] + e))
    return bins


def _z(kind: str, segment: str, window: str, test: str, deals: int, observed: int, expected: Fraction,
       variance: Fraction, n: int, reason: str | None) -> DealTest:
    rate = observed / n if n else None
    expected_rate = float(expected) / n if n else None
    if reason is None and (variance <= 0 or expected < MIN_EXPECTED or n - expected < MIN_EXPECTED):
        reason = "too few deals"
    if reason is not None:
        return DealTest(kind, segment, window, test, deals, rate, expected_rate, None, None, None, reason)
    z = float(observed - expected) / math.sqrt(variance)
    return DealTest(kind, segment, window, test, deals, rate, expected_rate, z, None, count_p(observed, n, expected))


def count_p(observed: int, n: int, mean: Fraction) -> float:
    """The two-sided p-value of ``observed`` successes in ``n`` independent trials whose
    chances add up to ``mean``: twice the binomial tail at their mean chance, exact when
    the chances are equal (the Bonus's hits), and the most a sum of unequal chances can
    have there otherwise (the dealer qualifying, each deal with its own chance): from one
    below the mean down, and one above it up, a sum of independent trials with unequal
    chances is less spread than the binomial (Hoeffding, 1956). Within one of the mean, 1.

    Why not z's normal tail: a count is discrete and skewed; at 1,000 deals, where the
    band reads p near 0.02%, the normal tail of too few qualifications is a third short of
    the exact one (``bench/monitor_tails.py``), so fair dealers alerted too often."""
    if n <= 0:
        return 1.0
    chance = float(mean / n)
    if observed <= mean - 1:
        tail = binomial_cdf(observed, n, chance)
    elif observed >= mean + 1:
        tail = binomial_sf(observed, n, chance)
    else:
        return 1.0
    return min(1.0, 2 * tail)
