"""Seats read as columns (``stored_columns.SeatTable``) valued and summed (issue 47: a fast
first run): the same figures as ``valuing.value`` gives each seat, the same columns as
``columns.columns`` makes of them, the same deals as ``deal_columns.banded`` reads, so
that ``run.judge_table`` gives ``run.judge``'s verdict, with no ``Seat`` a seat.

A seat's figures are its key's (its profile, its five cards when it called, its decision,
its Bonus hand when it staked one: ``valuing.value``'s key), each distinct key valued
once by ``valuing``'s own rules; the keys are found by a sort, not a dict a seat. A
deal's expectations are its five cards' counts (``exact.Counted``), each distinct
situation's once. ``tests/test_monitor_stored_columns.py`` compares the verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm

import numpy as np

from . import exact
from .columns import made, numbered_ints
from .deal_columns import Deals
from .facts import Seat
from .seat_columns import Columns
from .stored_columns import NO, SeatTable, unpacked
from .valuing import Figures, Valuation, _figures, _Priced
from .wide import Array


@dataclass(slots=True)
class Valued:
    """A table's valuation: the denominators, each seat's figures as a number into
    ``figures`` (-1: none, a call whose five cards were not all seen), and each seat's
    five cards' counts under its profile (``counted``, by the number ``situation`` gives;
    -1: not wanted) for the deals."""

    valuation: Valuation
    sit: Array
    figures: list[Figures]
    situation: Array
    counted: list[exact.Counted]


def distinct(*keys: Array) -> tuple[Array, Array]:
    """Each row's number among the distinct rows of ``keys`` (columns, the first the most
    significant), and the first row of each (numbered by a sort: any order)."""
    n = keys[0].size
    if not n:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.lexsort(keys[::-1])
    start = np.zeros(n, bool)
    start[0] = True
    for k in keys:
        s = k[order]
        start[1:] |= s[1:] != s[:-1]
    number = np.empty(n, np.int64)
    number[order] = np.cumsum(start) - 1
    return number, order[start]


def value_table(t: SeatTable) -> Valued:
    """Every seat's figures (``valuing.value``'s, exactly), with no ``Seat`` a seat."""
    profiles = t.names["profile"]
    present = np.unique(t.profile).tolist()
    priced = {profiles[p]: _Priced(profiles[p]) for p in sorted(present, key=profiles.__getitem__)}
    scale = lcm(1, *(x for p in priced.values() for x in p.means))
    scale2 = lcm(1, *(x for p in priced.values() for x in p.variances))
    scale3 = lcm(1, *(x for p in priced.values() for x in p.thirds))
    for p in priced.values():
        p.scaled(scale, scale2, scale3)
    # the situations valued: a call's or a deal's five known cards, once a profile
    wanted = (t.called | t.deal) & (t.known != NO)
    situation = np.full(len(t), -1, np.int64)
    number, first = distinct(t.profile[wanted], t.known[wanted])
    situation[wanted] = number
    sp, sk = t.profile[wanted][first], t.known[wanted][first]
    cards = [tuple(row) for row in unpacked(sk).tolist()]
    counted: list[exact.Counted] = [None] * first.size  # type: ignore[list-item]  # each filled below
    by_profile: dict[str, dict[tuple[int, ...], exact.Counted]] = {}
    for p in np.unique(sp).tolist():
        at = np.flatnonzero(sp == p).tolist()
        name = profiles[p]
        found = by_profile[name] = exact.call_counted(priced[name].origin, sorted(cards[i] for i in at))
        for i in at:
            counted[i] = found[cards[i]]
    # a seat's figures: its key's (``valuing.value``), each distinct key once
    bonus = np.where(t.bonus != 0, t.bonus_value, NO)
    key_known = np.where(t.called, t.known, NO)
    key, first_key = distinct(t.profile, key_known, t.called.astype(np.int64), bonus)
    calls: dict[tuple[str, tuple[int, ...]], tuple[int, int, int, float]] = {}
    made_: list[Figures | None] = []
    knowns = [tuple(row) for row in unpacked(key_known[first_key]).tolist()]
    for p, k, c, b, cards in zip(t.profile[first_key].tolist(), key_known[first_key].tolist(),
                                 t.called[first_key].tolist(), bonus[first_key].tolist(), knowns, strict=True):
        name = profiles[p]
        seat = Seat(0, (), None, None, None, name, None, 0, 0, 0, 0 if b == NO else 1, c, None if k == NO else cards,
                    None if b == NO else b)
        made_.append(_figures(seat, priced[name], by_profile.get(name, {}), calls))
    valued = np.array([f is not None for f in made_], bool)
    renumber = np.cumsum(valued) - 1
    sit = np.where(valued[key], renumber[key], -1) if key.size else key
    figures = [f for f in made_ if f is not None]
    return Valued(Valuation(scale, scale2, scale3), sit, figures, situation, counted)


def columns_of(t: SeatTable, v: Valued) -> Columns:
    """The valued seats as ``columns.columns`` makes them of seats: newest first, the
    situations and five cards numbered as first met."""
    at = np.flatnonzero(v.sit >= 0)[::-1]
    sit, first = numbered_ints(v.sit[at])
    table = [v.figures[i] for i in v.sit[at][first].tolist()]
    known, _ = numbered_ints(t.known[at])
    paid_known = t.paid_known[at]
    amounts = (t.ante[at], t.staked[at], t.net[at], np.where(paid_known, t.paid[at], 0), paid_known, t.bonus[at],
               t.called[at])
    names = {kind: (getattr(t, kind)[at], t.names[kind]) for kind in ("table", "dealer", "profile", "player")}
    return made([], t.game[at], np.where(t.timed[at], t.time[at], 0), t.timed[at], amounts, known, sit, table,
                names)


def deals_of(t: SeatTable, v: Valued) -> Deals:
    """The deals (``Seat.deal`` with its five cards' counts) newest first, as
    ``deal_columns.banded`` reads them of seats."""
    at = np.flatnonzero(t.deal & (v.situation >= 0))[::-1]
    counted = [v.counted[i] for i in v.situation[at].tolist()]
    n = at.size
    return Deals(t.player_value[at], t.dealer_value[at],
                 np.array([c.turns for c in counted], np.int64).reshape(n, 10),
                 np.fromiter((c.not_qualified for c in counted), np.int64, n), (t.profile[at], t.names["profile"]),
                 t.five[at], unpacked(t.known[at]).tolist(), np.where(t.timed[at], t.time[at], 0), t.timed[at],
                 {kind: (getattr(t, kind)[at], t.names[kind]) for kind in ("table", "dealer")})


def counts(t: SeatTable) -> tuple[int, int, int | None, int]:
    """The seats, their games, the newest game's time, the seats whose pay is unsaid."""
    newest = int(t.time[t.timed].max()) if t.timed.any() else None
    return len(t), int(np.unique(t.game).size), newest, int((~t.paid_known).sum())
