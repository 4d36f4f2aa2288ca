"""What every seat is worth, exactly: its expected net, variance and third cumulant under
the decision it took, and its deal's expectations, as whole numbers over denominators
common to the run (:class:`Valuation`), so that ``cells`` sums millions of them without
rounding anything.

A call's figures come from its situation's outcome counts (``exact.Counted``: their
raw moments over the payouts' D = scale × the 1,070,190 completions, D², D³); a fold's
from the profile's fold line (certain); the Bonus's from its exact odds over the
2,598,960 five-card hands (``exact.bonus_odds``). Distinct situations are valued once,
and seats alike (the same profile, situation, decision and Bonus hand) share one
:class:`Figures`; a game's deal (``Seat.deal``) has its five cards' counts
(:data:`DealFigures`, in ``Seat.deal_figures``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import lcm
from operator import attrgetter

from ..profiles import ProfileOrigin
from ..rules.strategy import COMPLETIONS
from . import exact
from .facts import Seat


def origin_of(text: str) -> ProfileOrigin:
    if text.startswith("builtin:"):
        return ProfileOrigin.of_builtin(text.removeprefix("builtin:"))
    return ProfileOrigin("file", text)


@dataclass(frozen=True, slots=True)
class Figures:
    """A seat's exact figures over the common denominators: the expected net and the
    variance per unit (Ante, or Bonus stake), and the Bonus's observed pay per unit.
    Frozen: seats alike share one (``value``)."""

    mean: int
    variance: int
    bonus_pay: int = 0
    bonus_mean: int = 0
    bonus_variance: int = 0
    #: The most a call can rise above its expectation, per Ante, and the Bonus per unit
    #: stake (the profile's largest payout less the mean: what bounds one game's upward
    #: move, ``bands.bennett``).
    top: float = 0.0
    bonus_top: float = 0.0
    #: The third cumulants (central moments) per unit, over ``Valuation.scale3``.
    third: int = 0
    bonus_third: int = 0


#: A deal's exact expectations given its five known cards, as whole numbers over
#: COMPLETIONS: how many completions end in each of the player's final categories (high
#: card first, ``categories``), how many the dealer qualifies in (``qualifies``), and that
#: count times the others (``deal_variance``: P(qualifies) × P(not) over COMPLETIONS², the
#: variance of one deal). Its five cards' counts themselves, read when asked (nothing made
#: a deal: a first run has a hundred thousand of them).
DealFigures = exact.Counted


@dataclass(slots=True)
class Valuation:
    """Every seat's exact figures, over ``scale`` (means), ``scale2`` (variances) and
    ``scale3`` (third cumulants)."""

    scale: int
    scale2: int
    scale3: int = 1


class _Priced:
    """What one profile's seats are valued by: its payouts' denominator D (a call's
    figures are whole over D, D², D³: ``exact.Counted``), its fold line, its Bonus odds,
    and the denominators all of them need; once the common ones are known (``scaled``),
    the same over those, worked out once, not a seat."""

    def __init__(self, profile: str) -> None:
        from ..rules.strategy import Payoffs

        origin = origin_of(profile)
        self.profile = profile
        self.origin = origin
        payoffs = Payoffs.of(origin.resolve().profile)
        self.d = payoffs.scale * COMPLETIONS
        self.fold = Fraction(payoffs.fold, payoffs.scale)
        self.odds = exact.bonus_odds(origin)
        self.rule = origin.resolve().profile.bonus
        self.means: list[int] = [self.d]
        self.variances: list[int] = [self.d ** 2]
        self.thirds: list[int] = [self.d ** 3]
        if self.odds is not None:
            rule = origin.resolve().profile.bonus
            assert rule is not None
            self.means += [self.odds.mean.denominator, *(Fraction(o).denominator for o in rule.paytable.values())]
            self.variances.append(self.odds.variance.denominator)
            self.thirds.append(self.odds.third_central.denominator)
        self.factors = (1, 1, 1)
        self.fold_mean = 0
        self.bonus: tuple[int, int, float, int] | None = None
        self.pays: dict[int, int] = {}
        self.scaled_pays: dict[Fraction, int] = {}
        self.scale = 1

    def scaled(self, scale: int, scale2: int, scale3: int) -> None:
        """Its figures over the common denominators (multiples of its own)."""
        self.scale = scale
        self.factors = (scale // self.d, scale2 // self.d ** 2, scale3 // self.d ** 3)
        self.fold_mean = exact_int(self.fold * scale)
        if self.odds is not None:
            self.bonus = (exact_int(self.odds.mean * scale), exact_int(self.odds.variance * scale2),
                          _bonus_top(self.profile), exact_int(self.odds.third_central * scale3))

    def call(self, first: int, second: int, third: int) -> tuple[int, int, int, float]:
        """A call's figures in a situation whose net's raw moments are these
        (``exact.Counted``'s): its mean, variance and third cumulant over the common
        denominators, and its largest upward move. One rule for a seat valued as an
        object (:func:`_figures`) and as a column (``valued_columns``)."""
        f1, f2, f3 = self.factors
        mean = first * f1
        return (mean, exact.variance(first, second) * f2, exact.third_central(first, second, third) * f3,
                _top(self.profile) - mean / self.scale)

    def folded(self) -> tuple[int, int, int, float]:
        """A fold's figures: the fold line, certain (no variance), its largest upward move."""
        return self.fold_mean, 0, 0, _top(self.profile) - self.fold_mean / self.scale

    def bonus_figures(self, value: int | None) -> tuple[int, int, int, float, int]:
        """A staked Bonus's figures on five cards of ``value``: its pay, mean, variance,
        largest upward move and third cumulant; all 0 without a hand or a Bonus rule."""
        if value is None or self.bonus is None:
            return 0, 0, 0, 0.0, 0
        b_mean, b_variance, b_top, b_third = self.bonus
        return self.pay(value), b_mean, b_variance, b_top - b_mean / self.scale, b_third

    def pay(self, value: int) -> int:
        """What a unit Bonus stake nets on five cards of ``value``, over the common ``scale``."""
        found = self.pays.get(value)
        if found is None:
            pay = exact.bonus_pay_under(self.rule, value)
            found = self.scaled_pays.get(pay)
            if found is None:  # a few pays, thousands of five-card values: each pay scaled once
                found = self.scaled_pays[pay] = exact_int(pay * self.scale)
            self.pays[value] = found
        return found


def value(seats: list[Seat]) -> Valuation:
    """Value every seat's situation (exact; distinct situations once) and attach
    :class:`Figures` to each seat's ``situation``: whole numbers over denominators that
    every profile's figures divide (each a multiple of its payouts' D = scale × the
    1,070,190 completions, its square and its cube). Seats alike (the same profile,
    situation, decision and Bonus hand) share one :class:`Figures`: a game's deal seat its
    game's other seats' (why the deal is apart, in ``Seat.deal_figures``: a key a game,
    not two, 2.2 s of 13.7 at 500,000 seats)."""
    wanted: dict[str, set[tuple[int, ...]]] = defaultdict(set)
    seen: tuple[object, object] = (None, None)
    for s in seats:
        known = s.known
        if (s.called or s.deal) and known is not None and (known is not seen[0] or s.profile != seen[1]):
            wanted[s.profile].add(known)  # once a game (its seats, one after the other, share their cards)
            seen = (known, s.profile)
    priced = {profile: _Priced(profile) for profile in sorted(set(map(attrgetter("profile"), seats)))}
    scale = lcm(1, *(x for p in priced.values() for x in p.means))
    scale2 = lcm(1, *(x for p in priced.values() for x in p.variances))
    scale3 = lcm(1, *(x for p in priced.values() for x in p.thirds))
    for p in priced.values():
        p.scaled(scale, scale2, scale3)
    counted = {profile: exact.call_counted(p.origin, sorted(wanted.get(profile, ())))
               for profile, p in priced.items()}
    made: dict[tuple[object, ...], Figures | None] = {}
    calls: dict[tuple[str, tuple[int, ...]], tuple[int, int, int, float]] = {}  # a call's, whatever its Bonus
    last: tuple[object, ...] = ()
    found: Figures | None = None
    for s in seats:
        profile, known, called = s.profile, s.known, s.called
        bonus = s.bonus_value if s.bonus_u else None
        if not (last and last[1] is known and last[2] == called and last[3] == bonus and last[0] == profile):
            # not as the seat before (a game's seats, one after the other, share their five cards)
            key = (profile, known if called else None, called, bonus)
            if key in made:
                found = made[key]
            else:
                found = made[key] = _figures(s, priced[profile], counted[profile], calls)
            last = (profile, known, called, bonus)
        s.situation = found
        if s.deal and known is not None:
            s.deal_figures = counted[profile][known]
    return Valuation(scale, scale2, scale3)


def _figures(s: Seat, p: _Priced, counted: dict[tuple[int, ...], exact.Counted],
             calls: dict[tuple[str, tuple[int, ...]], tuple[int, int, int, float]]) -> Figures | None:
    """One seat's figures (None: a call whose five cards were not all seen, no exact
    expectation); ``calls``: a call's figures in a situation, worked out once for the
    seats that differ only in their Bonus."""
    if s.called:
        if s.known is None:
            return None
        call = calls.get((s.profile, s.known))
        if call is None:
            c = counted[s.known]
            call = calls[(s.profile, s.known)] = p.call(c.first, c.second, c.third)
        mean, variance, third, top = call
    else:
        mean, variance, third, top = p.folded()
    pay = b_mean = b_variance = b_third = 0
    b_top = 0.0
    if s.bonus_u and s.bonus_value is not None:
        pay, b_mean, b_variance, b_top, b_third = p.bonus_figures(s.bonus_value)
    return Figures(mean, variance, pay, b_mean, b_variance, top, b_top, third, b_third)


@lru_cache(maxsize=32)
def _top(profile: str) -> float:
    """The largest net of a call, per Ante, under ``profile``: its payout table's best line."""
    from ..rules.strategy import Payoffs

    p = Payoffs.of(origin_of(profile).resolve().profile)
    return max(max(row) for row in p.table) / p.scale


@lru_cache(maxsize=32)
def _bonus_top(profile: str) -> float:
    """The largest Bonus net per unit stake under ``profile`` (its paytable's best odds)."""
    rule = origin_of(profile).resolve().profile.bonus
    return float(max((Fraction(o) for o in rule.paytable.values()), default=Fraction(0))) if rule else 0.0


def exact_int(x: Fraction) -> int:
    """A value over a common denominator: a whole number, or the denominator was wrong."""
    if x.denominator != 1:
        raise AssertionError(f"{x} is not over the common denominator")
    return x.numerator
