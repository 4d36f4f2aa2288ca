"""The monitor's verdict over seat facts: every cell and test, the band, the alerts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import randomness
from .bands import Band, band, cell_p
from .cells import KINDS, Banded, Cell, cells, newest_of
from .facts import Seat
from .randomness import DealTest
from .valuing import Valuation, value

if TYPE_CHECKING:
    from .stored_columns import SeatTable
    from .valued_columns import Valued


@dataclass(frozen=True, slots=True)
class Judged:
    """A cell with its p-value and where it falls: outside the 99% and the 99.9% family
    bands, and an alert (outside the band asked for). ``same_as``: the segment and window
    before it with the very same sums over the same seats (a table with 600 games: its last
    1,000 and 10,000; a store of one table: all and that table), then not a test of its own
    (its ``alert`` is its first's: one alert, named by both); ``also``: those that repeat
    this one (the first names them all: a store whose newest week is one table's alerts
    as ``all all, week`` and names that table's week too)."""

    cell: Cell
    p: float | None
    outside_99: bool
    outside_999: bool
    alert: bool
    same_as: str | None
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JudgedDeal:
    """A deal test, judged like a cell."""

    test: DealTest
    outside_99: bool
    outside_999: bool
    alert: bool
    same_as: str | None
    also: tuple[str, ...] = ()


@dataclass(slots=True)
class Verdict:
    seats: int
    games: int
    newest_us: int | None
    band: Band
    bands: tuple[Band, Band]
    cells: list[Judged] = field(default_factory=list)
    deals: list[JudgedDeal] = field(default_factory=list)
    #: The common denominators of the seats' figures (``valuing.Valuation``): the chart's sums.
    scale: int = 1
    scale2: int = 1
    #: Counted seats with no record of what they were paid: left out of the paid basis.
    paid_unknown: int = 0
    #: ``monitor --since/--until``: only the games of that span were read (microseconds).
    since_us: int | None = None
    until_us: int | None = None

    @property
    def alerts(self) -> list[Judged]:
        """The cells that alert, each test once (not those ``same_as`` another)."""
        return [j for j in self.cells if j.alert and j.same_as is None]

    @property
    def deal_alerts(self) -> list[JudgedDeal]:
        return [j for j in self.deals if j.alert and j.same_as is None]

    @property
    def every_alert(self) -> list[Judged | JudgedDeal]:
        return [*self.alerts, *self.deal_alerts]

    @property
    def alerting(self) -> bool:
        return bool(self.alerts or self.deal_alerts)


def _same(keys: list[tuple[object, ...]], windows: list[str], tested: list[bool]
          ) -> tuple[list[str | None], list[tuple[str, ...]]]:
    """For each test, the earlier window of identical content it repeats (None: a test of
    its own), and the later ones that repeat it."""
    first: dict[tuple[object, ...], int] = {}
    out: list[str | None] = []
    repeats: list[list[str]] = [[] for _ in keys]
    for at, (key, window, made) in enumerate(zip(keys, windows, tested, strict=True)):
        earlier = first.get(key) if made else None
        out.append(None if earlier is None else windows[earlier])
        if earlier is not None:
            repeats[earlier].append(window)
        first.setdefault(key, at)
    return out, [tuple(r) for r in repeats]


def judge(seats: list[Seat], band_name: str = "99", correction: str = "sidak",
          kinds: Iterable[str] = KINDS, valuation: Valuation | None = None) -> Verdict:
    """Value, sum and test ``seats`` (in the store's order, newest last); ``valuation``:
    the seats were valued already (their ``situation`` filled by ``valuing.value``)."""
    kinds = tuple(kinds)
    valuation = valuation or value(seats)
    from .columns import banded as summed  # column by column (NumPy): a first run's cost (issue 47)
    from .deal_columns import banded as dealt

    banded, newest = summed(seats, valuation, kinds), newest_of(seats)
    deals = dealt(seats, [k for k in randomness.DEAL_KINDS if k in kinds])
    return decide(Summed(banded, deals, valuation, len(seats), len({s.game for s in seats}), newest,
                         sum(1 for s in seats if s.paid_u is None)),
                  band_name, correction, kinds)


def judge_table(table: SeatTable, band_name: str = "99", correction: str = "sidak",
                kinds: Iterable[str] = KINDS, valued: Valued | None = None) -> Verdict:
    """:func:`judge` of seats read as columns (``stored_columns.read_table``): the same
    verdict, no ``Seat`` a seat (issue 47: a fast first run); ``valued``: the table was
    valued already (``valued_columns.value_table``)."""
    from .columns import banded_columns
    from .deal_columns import banded_deals
    from .valued_columns import columns_of, counts, deals_of, value_table

    kinds = tuple(kinds)
    valued = valued or value_table(table)
    banded = banded_columns(columns_of(table, valued), valued.valuation, kinds)
    deals = banded_deals(deals_of(table, valued), [k for k in randomness.DEAL_KINDS if k in kinds])
    return decide(Summed(banded, deals, valued.valuation, *counts(table)), band_name, correction, kinds)


@dataclass(frozen=True, slots=True)
class Summed:
    """What the tests are made from: the banded sums (over ``scales``' denominators) and
    counts, from the seats themselves (``judge``) or from the cache (``cache``)."""

    banded: Banded
    deals: randomness.DealBanded
    scales: Valuation
    seats: int
    games: int
    newest: int | None
    paid_unknown: int = 0


def decide(summed: Summed, band_name: str = "99", correction: str = "sidak",
           kinds: Iterable[str] = KINDS) -> Verdict:
    """Every cell and deal test of ``kinds`` from the banded sums, judged against the band."""
    kinds = tuple(kinds)
    found = cells({k: v for k, v in summed.banded.items() if k[0] in kinds}, summed.scales)
    deals = randomness.tests({k: v for k, v in summed.deals.items() if k[0] in kinds})
    # the same sums over the same seats: one test, whichever segments and windows hold them (a
    # paid cell with its rules cell's sums, tested or not: paid as the rules say, nothing to add)
    same, also = _same([(c.bet, c.games, c.seats, c.staked, c.observed_rtp, c.z) for c in found],
                       [c.label for c in found], [c.tested or c.basis == "paid" for c in found])
    same_deals, also_deals = _same([(t.test, t.deals, t.statistic, t.p) for t in deals],
                                   [f"{t.kind} {t.segment}, {t.window}" for t in deals], [t.tested for t in deals])
    tests = (sum(1 for c, s in zip(found, same, strict=True) if c.tested and s is None)
             + sum(1 for t, s in zip(deals, same_deals, strict=True) if t.tested and s is None))
    chosen = band(band_name, correction, tests)
    b99, b999 = band("99", correction, tests), band("99.9", correction, tests)
    verdict = Verdict(summed.seats, summed.games, summed.newest, chosen, (b99, b999),
                      scale=summed.scales.scale, scale2=summed.scales.scale2, paid_unknown=summed.paid_unknown)
    for c, s, more in zip(found, same, also, strict=True):
        p = cell_p(c.z, c.jump)
        verdict.cells.append(Judged(c, p, b99.outside(p), b999.outside(p), chosen.outside(p), s, more))
    for t, s, more in zip(deals, same_deals, also_deals, strict=True):
        verdict.deals.append(JudgedDeal(t, b99.outside(t.p), b999.outside(t.p), chosen.outside(t.p), s, more))
    return verdict
