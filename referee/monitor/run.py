"""The monitor's verdict over seat facts: every cell and test, the band, the alerts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .bands import Band, band, two_sided
from .cells import KINDS, Cell, accumulate, cells, value
from .facts import Seat


@dataclass(frozen=True, slots=True)
class Judged:
    """A cell with its p-value and where it falls: outside the 99% and the 99.9% family
    bands, and an alert (outside the band asked for). ``same_as``: the window of the same
    segment and bet holding the very same seats (then not a test of its own)."""

    cell: Cell
    p: float | None
    outside_99: bool
    outside_999: bool
    alert: bool
    same_as: str | None


@dataclass(slots=True)
class Verdict:
    seats: int
    games: int
    newest_us: int | None
    band: Band
    bands: tuple[Band, Band]
    cells: list[Judged] = field(default_factory=list)

    @property
    def alerts(self) -> list[Judged]:
        return [j for j in self.cells if j.alert]


def judge(seats: list[Seat], band_name: str = "99", correction: str = "sidak",
          kinds: Iterable[str] = KINDS) -> Verdict:
    """Value, sum and test ``seats`` (in the store's order, newest last)."""
    valuation = value(seats)
    banded, newest = accumulate(seats, kinds)
    found = cells(banded, valuation)
    first: dict[tuple[object, ...], str] = {}
    same: list[str | None] = []
    for c in found:
        key = (c.kind, c.segment, c.bet, c.seats, c.staked, c.observed_rtp)
        same.append(first.get(key) if c.tested else None)
        first.setdefault(key, c.window)
    tests = sum(1 for c, s in zip(found, same, strict=True) if c.tested and s is None)
    chosen = band(band_name, correction, tests)
    b99, b999 = band("99", correction, tests), band("99.9", correction, tests)
    verdict = Verdict(len(seats), len({s.game for s in seats}), newest, chosen, (b99, b999))
    for c, s in zip(found, same, strict=True):
        p = two_sided(c.z)
        verdict.cells.append(Judged(c, p, b99.outside(p), b999.outside(p), s is None and chosen.outside(p), s))
    return verdict
