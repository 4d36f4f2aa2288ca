"""Observed against exact expected return, by segment and window.

A *cell* is a segment (a table, a dealer, a profile, a stake band, a player, or all),
a bet (Ante+Call, or the Bonus) and a window (the segment's last 1,000 / 10,000 /
100,000 games, or the last day / week / month before the segment's own newest game). In each:
games, seats, staked, the observed return (the rules' nets) and the exact expected
return of the decisions taken, with the z-score of their difference from the exact
variance (its p-value: ``bands.cell_p``) and the sum's exact skewness (third cumulant
over sd³, for the reader). Sums are exact integers: every seat's mean, variance and
third cumulant are put over one common denominator first (``Valuation``), so that
nothing is rounded until z.

Why one pass with bands: the count windows nest (the last 1,000 games are among the
last 10,000), as do the calendar ones, so each seat is added once a segment, to the
cell of its (count band, time band); a window is then a sum of such cells.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from .facts import Seat, stake_band
from .valuing import Figures, Valuation

COUNT_WINDOWS = (1_000, 10_000, 100_000)
DAY_US = 86_400 * 1_000_000
CALENDAR_WINDOWS = (("day", DAY_US), ("week", 7 * DAY_US), ("month", 30 * DAY_US))
WINDOWS = (*(f"last {n:,} games" for n in COUNT_WINDOWS), *(name for name, _ in CALENDAR_WINDOWS))
KINDS = ("all", "table", "dealer", "profile", "stake", "player")
#: The bets as the sums keep them: ``paid`` is the main game (Ante+Call) on the paid basis
#: (what the seats were paid against the same exact expectation), apart from the rules'
#: (``ante+call``) so that both are summed, cached and windowed alike.
BETS = ("ante+call", "bonus", "paid")
#: The bases a cell is measured on: the rules' nets, or what the seats were paid.
BASES = ("rules", "paid")
#: Fewer games than this in a cell: not tested. Why 1,000: every test made makes the
#: family band stricter for all the others, and a shortfall of a few percent does not
#: show in fewer than several thousand games (``docs/monitor.md``, "What it can see"); a
#: payout against the rules is ``check``'s finding anyway. (The tails hold from 100 games:
#: ``bench/monitor_tails.py``.)
MIN_GAMES = 1_000
#: Fewer outcomes still to come than this in a cell (calls, or Bonus stakes; a game's seats
#: in one situation count once, as they move as one): not tested. Why: a sum of few of
#: them is lumpy enough that the normal tail of its losing side is thinner than the exact
#: one (0.80 to 0.96 of it at 80 to 150 calls, as a player who calls only with two pair or
#: better makes in 1,000 games; 1.01 and more from 500, ``bench/monitor_tails.py``).
MIN_TERMS = 500

KEYS: dict[str, Callable[[Seat], str | None]] = {
    "all": lambda s: "all", "table": lambda s: s.table, "dealer": lambda s: s.dealer,
    "profile": lambda s: s.profile, "stake": lambda s: stake_band(s.ante_u), "player": lambda s: s.player,
}


#: Floats summed exactly: a float is a dyadic rational (an integer over a power of two
#: no larger than 2**1074), so over 2**1100 it is a whole number, and whole numbers add
#: (and subtract, ``cache``) in any order to the same sum. Why: the variance's and the
#: third cumulant's bounds for seats apart are floats, and a window's figure must not
#: depend on the order its games were added in, nor on whether they were added at all
#: or added and later taken away (the monitor's cache, ``docs/monitor.md``).
DYADIC = 1100


def dyadic(x: float) -> int:
    """``x`` exactly, as a whole number over 2**DYADIC."""
    n, d = x.as_integer_ratio()
    return n << (DYADIC + 1 - d.bit_length())


def undyadic(n: int) -> float:
    """A whole number over 2**DYADIC as the nearest float (int / int is correctly rounded)."""
    return n / (1 << DYADIC) if n else 0.0


@dataclass(slots=True)
class Sums:
    games: int = 0
    seats: int = 0
    staked: int = 0  # millionths
    observed: int = 0  # millionths (the Bonus: × scale)
    expected: int = 0  # millionths × scale
    variance: int = 0  # millionths² × scale2
    #: The bound on the covariance of seats of one game in different situations, in
    #: millionths², exact over 2**DYADIC (``dyadic``).
    cross: int = 0
    #: The most one game can add to the observed net (millionths): its seats' largest wins.
    jump: float = 0.0
    third: int = 0  # millionths³ × scale3: the sum's third cumulant
    #: Its like for seats of one game in different situations (``game_third``), over 2**DYADIC.
    cross3: int = 0
    #: How many random terms the sum has: a game's group of seats in one situation under
    #: one decision, with variance (a call, a Bonus stake), counts once (:data:`MIN_TERMS`).
    terms: int = 0
    #: What the seats are owed, what ``check`` calls owed (the rules' net less what was
    #: paid, ``Seat.owed_u``), summed each way apart: to the players and to the house
    #: (millionths, both 0 or more; main-game sums only).
    owed_player: int = 0
    owed_house: int = 0
    #: Seats with no record of what they were paid (``Seat.paid_u`` None): left out of the
    #: paid basis, counted in the rules' (``ante+call`` sums only).
    paid_unknown: int = 0

    def add(self, other: Sums) -> None:
        self.games += other.games
        self.seats += other.seats
        self.staked += other.staked
        self.observed += other.observed
        self.expected += other.expected
        self.variance += other.variance
        self.cross += other.cross
        self.jump = max(self.jump, other.jump)
        self.third += other.third
        self.cross3 += other.cross3
        self.terms += other.terms
        self.owed_player += other.owed_player
        self.owed_house += other.owed_house
        self.paid_unknown += other.paid_unknown

    def owe(self, s: Seat) -> None:
        """A seat's owed amount, each way (:attr:`owed_player`), or that it has none to say."""
        if s.paid_u is None:
            self.paid_unknown += 1
            return
        owed = s.net_u - s.paid_u
        if owed > 0:
            self.owed_player += owed
        else:
            self.owed_house -= owed


@dataclass(frozen=True, slots=True)
class Cell:
    """One segment × bet × window: what was staked, returned and expected."""

    kind: str
    segment: str
    bet: str
    window: str
    games: int
    seats: int
    staked: Decimal
    observed_rtp: float | None
    expected_rtp: float | None
    z: float | None
    #: The largest upward move of one game, in standard deviations of the sum (the band's
    #: upper tail: ``bands.cell_p``).
    jump: float | None = None
    #: The standardised sum's skewness, κ₃ / sd³ (None: not tested): for the reader, no
    #: p-value depends on it (``bands.cell_p``).
    skewness: float | None = None
    #: Its random terms (``Sums.terms``): calls, or Bonus stakes, a game's alike once.
    terms: int = 0
    #: ``rules`` (the rules' nets) or ``paid`` (what the seats were paid), against the same
    #: exact expectation (``BASES``).
    basis: str = "rules"
    #: What its seats are owed (``check``'s owed), to the players and to the house, in the
    #: currency (None in a Bonus cell: a seat's owed amount is its main game's cell's).
    owed_player: Decimal | None = None
    owed_house: Decimal | None = None
    #: Its seats with no record of what they were paid (the paid basis leaves them out: in
    #: a paid cell, those of the same segment and window the rules' cell holds).
    paid_unknown: int = 0

    @property
    def summed_as(self) -> str:
        """The bet as the sums keep it (:data:`BETS`: ``paid`` for the main game on the paid basis)."""
        return "paid" if self.basis == "paid" else self.bet

    @property
    def label(self) -> str:
        """The cell's segment and window in words (``table T3, last 1,000 games``; ``(paid)``
        after it on the paid basis)."""
        return f"{self.kind} {self.segment}, {self.window}" + (" (paid)" if self.basis == "paid" else "")

    @property
    def tested(self) -> bool:
        return self.z is not None

    @property
    def reason(self) -> str | None:
        """Why the cell is not tested (None: it is)."""
        if self.tested:
            return None
        if self.games < MIN_GAMES:
            return f"fewer than {MIN_GAMES:,} games"
        if not self.terms:
            return "no variance"
        return f"fewer than {MIN_TERMS:,} {'Bonus stakes' if self.bet == 'bonus' else 'calls'}"


def count_band(rank: int) -> int:
    for i, n in enumerate(COUNT_WINDOWS):
        if rank < n:
            return i
    return len(COUNT_WINDOWS)


def time_band(time_us: int | None, newest: int | None) -> int:
    if time_us is None or newest is None:
        return len(CALENDAR_WINDOWS)
    for i, (_, span) in enumerate(CALENDAR_WINDOWS):
        if time_us > newest - span:
            return i
    return len(CALENDAR_WINDOWS)


Banded = dict[tuple[str, str, str], dict[tuple[int, int], Sums]]


@dataclass(slots=True)
class Played:
    """One game's sums in one segment, per bet; ``time_us``: its time as the windows see
    it (its newest seat's in the segment)."""

    game: object
    time_us: int | None
    bets: dict[str, Sums] = field(default_factory=dict)


Games = dict[tuple[str, str], list[Played]]


def newest_of(seats: list[Seat]) -> int | None:
    """The newest stored game's time (the report's ``newest``)."""
    return max((s.time_us for s in seats if s.time_us is not None), default=None)


def last_time(times: Iterable[int | None]) -> int | None:
    """A segment's newest game's time: its calendar windows end there, not at the store's
    newest (a table closed a week ago still has its last day, week and month)."""
    return max((t for t in times if t is not None), default=None)


def group_seat(groups: dict[tuple[str, object, bool], list[int]], s: Seat, f: Figures) -> None:
    """A seat's stakes into its game's groups (one per bet, situation and decision)."""
    group = groups.setdefault(("ante+call", s.known, s.called), [0, f.variance, f.third])
    group[0] += s.ante_u
    if s.paid_u is not None:  # the paid basis: the seats that say what they were paid
        group = groups.setdefault(("paid", s.known, s.called), [0, f.variance, f.third])
        group[0] += s.ante_u
    if s.bonus_u and f.bonus_variance:
        group = groups.setdefault(("bonus", s.known, True), [0, f.bonus_variance, f.bonus_third])
        group[0] += s.bonus_u


def game_variance(groups: dict[tuple[str, object, bool], list[int]], bet: str, scale2: int = 1) -> tuple[int, float]:
    """A game's variance on ``bet``: a group's stakes move as one, (sum of stakes)² × the
    unit variance, exact (over ``scale2``); groups apart (a table dealing each seat its own
    cards) share the board and the dealer's cards, and their covariance is bounded by
    Cauchy-Schwarz (the float returned beside, in millionths², whatever ``scale2``: worked
    from each part's exact value, so that the bound does not depend on the denominator),
    so that z is never overstated."""
    parts = [stake * stake * unit for (b, _, _), (stake, unit, _) in groups.items() if b == bet and unit]
    if len(parts) < 2:
        return sum(parts), 0.0
    roots = [math.sqrt(p / scale2) for p in parts]
    total = math.fsum(roots)
    return sum(parts), total * total - math.fsum(r * r for r in roots)


def game_third(groups: dict[tuple[str, object, bool], list[int]], bet: str, scale3: int = 1) -> tuple[int, float]:
    """A game's third cumulant on ``bet``: a group's stakes move as one, (sum of stakes)³ ×
    the unit third cumulant, exact (over ``scale3``). Groups apart are treated as the
    variance's bound treats them, as if they moved as one (comonotone): the cube of the sum
    of the cube roots, the excess over the exact part returned beside as a float (in
    millionths³). With the variance's bound this keeps a game's skewness that of its
    groups (as one group would have it), neither thinned by counting them independent nor
    inflated."""
    parts = [stake ** 3 * third for (b, _, _), (stake, unit, third) in groups.items() if b == bet and unit]
    if len(parts) < 2:
        return sum(parts), 0.0
    units = [p / scale3 for p in parts]
    roots = math.fsum(math.copysign(abs(u) ** (1 / 3), u) for u in units)
    return sum(parts), roots ** 3 - math.fsum(units)


def cells(banded: Banded, valuation: Valuation) -> list[Cell]:
    """Every segment × bet × window, from the banded sums, with its z-score: per segment,
    the rules' Ante+Call, the Bonus, then Ante+Call on the paid basis."""
    out: list[Cell] = []
    unknown: dict[tuple[str, str, int], int] = {}  # the rules' cell's seats with no record of their pay
    for (kind, segment, bet), bands in sorted(banded.items()):
        observed_scale = valuation.scale if bet == "bonus" else 1
        for w, window in enumerate(WINDOWS):
            total = Sums()
            for (count, when), sums in bands.items():
                inside = count <= w if w < len(COUNT_WINDOWS) else when <= w - len(COUNT_WINDOWS)
                if inside:
                    total.add(sums)
            if bet == "ante+call":
                unknown[(kind, segment, w)] = total.paid_unknown
            elif bet == "paid":
                total.paid_unknown = unknown.get((kind, segment, w), 0)
            if total.seats:
                out.append(_cell(kind, segment, bet, window, total, valuation, observed_scale))
    return out


def _cell(kind: str, segment: str, bet: str, window: str, t: Sums, v: Valuation, observed_scale: int) -> Cell:
    observed = Fraction(t.observed, observed_scale)  # millionths
    expected = Fraction(t.expected, v.scale)
    staked = Decimal(t.staked) / 1_000_000
    z = jump = skewness = None
    if t.games >= MIN_GAMES and t.terms >= MIN_TERMS and t.variance > 0:
        # each part from its exact value (int / int rounds correctly), so that no figure
        # depends on the common denominators: the cache's are not the run's
        sd = math.sqrt(t.variance / v.scale2 + undyadic(t.cross))
        z = float(observed - expected) / sd
        jump = t.jump / sd
        skewness = (t.third / v.scale3 + undyadic(t.cross3)) / sd ** 3
    observed_rtp = float(1 + observed / t.staked) if t.staked else None
    expected_rtp = float(1 + expected / t.staked) if t.staked else None
    main = bet != "bonus"
    return Cell(kind, segment, "ante+call" if bet == "paid" else bet, window, t.games, t.seats, staked,
                observed_rtp, expected_rtp, z, jump, skewness, t.terms, "paid" if bet == "paid" else "rules",
                Decimal(t.owed_player) / 1_000_000 if main else None,
                Decimal(t.owed_house) / 1_000_000 if main else None, t.paid_unknown if main else 0)
