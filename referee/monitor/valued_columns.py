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
from typing import Any

import numpy as np

from . import exact
from .columns import made, numbered_ints
from .deal_columns import Deals
from .seat_columns import Columns, FigureTable
from .stored_columns import NO, SeatTable, unpacked
from .valuing import Valuation, _Priced
from .wide import Array


@dataclass(slots=True)
class Valued:
    """A table's valuation: the denominators, each seat's figures as a number into
    ``figures`` (-1: none, a call whose five cards were not all seen), and each seat's
    situation (its profile and five cards: ``situation``, -1 when not wanted) with each
    situation's counts for the deals (``turns``, ``not_qualified``: ``exact.Counted``'s)."""

    valuation: Valuation
    sit: Array
    figures: FigureTable
    situation: Array
    turns: Array
    not_qualified: Array


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
    """Every seat's figures (``valuing.value``'s, exactly), with no ``Seat`` a seat: each
    distinct situation's counts once (``exact.counted_arrays``), each distinct key's
    figures once, as columns (``FigureTable``)."""
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
    sp = t.profile[wanted][first]
    cards = [tuple(row) for row in unpacked(t.known[wanted][first]).tolist()]
    size = first.size
    moments = np.zeros((4, size), np.int64)
    turns = np.zeros((size, 10), np.int64)
    calls: list[tuple[int, int, int, float]] = [(0, 0, 0, 0.0)] * size
    for p in np.unique(sp).tolist():
        at = np.flatnonzero(sp == p)
        found, turns[at] = exact.counted_arrays(priced[profiles[p]].origin, [cards[i] for i in at.tolist()])
        moments[3, at] = found[3]
        for i, call in zip(at.tolist(), _calls(found, priced[profiles[p]]), strict=True):
            calls[i] = call
    # a seat's figures: its key's (``valuing.value``), each distinct key once
    bonus = np.where(t.bonus != 0, t.bonus_value, NO)
    key, first_key = distinct(t.profile, np.where(t.called, t.known, NO), t.called.astype(np.int64), bonus)
    kp, kc, ks, kb = t.profile[first_key], t.called[first_key], situation[first_key], bonus[first_key]
    kept = ~(kc & (ks < 0))  # a call whose five cards were not all seen: no exact expectation
    kp, kc, ks, kb = kp[kept], kc[kept], ks[kept], kb[kept]
    of = [priced.get(name) for name in profiles]
    folds = [(0, 0, 0, 0.0) if q is None else q.folded() for q in of]
    figured = calls + folds  # a situation's call, then a profile's fold
    rows = [figured[i] for i in np.where(kc, ks, size + kp).tolist()]
    fields: dict[str, list[Any]] = dict(zip(("mean", "variance", "third", "top"),
                                            (list(x) for x in zip(*rows, strict=True)), strict=False))
    if not rows:
        fields = {name: [] for name in ("mean", "variance", "third", "top")}
    bonuses: dict[tuple[int, int], tuple[int, int, int, float, int]] = {}
    b_rows = [_bonus(bonuses, of[p], p, b) for p, b in zip(kp.tolist(), kb.tolist(), strict=True)]
    for name, values in zip(("bonus_pay", "bonus_mean", "bonus_variance", "bonus_top", "bonus_third"),
                            zip(*b_rows, strict=True) if b_rows else [()] * 5, strict=True):
        fields[name] = list(values)
    renumber = np.cumsum(kept) - 1
    sit = np.where(kept[key], renumber[key], -1) if key.size else key
    return Valued(Valuation(scale, scale2, scale3), sit, FigureTable(fields), situation, turns, moments[3])


def _bonus(made: dict[tuple[int, int], tuple[int, int, int, float, int]], p: _Priced | None, profile: int,
           value: int) -> tuple[int, int, int, float, int]:
    """A key's Bonus figures (``_Priced.bonus_figures``), once a profile and five-card value."""
    found = made.get((profile, value))
    if found is None:
        found = made[(profile, value)] = (0, 0, 0, 0.0, 0) if p is None else p.bonus_figures(
            None if value == NO else value)
    return found


def _calls(found: Array, p: _Priced) -> list[tuple[int, int, int, float]]:
    """A call's figures in each situation of one profile (``_Priced.call``), from its
    counts' moments (``exact.counted_arrays``)."""
    return [p.call(first, second, third) for first, second, third in zip(*(found[k].tolist() for k in range(3)),
                                                                          strict=True)]


def columns_of(t: SeatTable, v: Valued) -> Columns:
    """The valued seats as ``columns.columns`` makes them of seats: newest first, the
    situations and five cards numbered as first met."""
    at = np.flatnonzero(v.sit >= 0)[::-1]
    # ``sit`` as numbered by value_table (every key's figures some valued seat's): its order
    # is no sum's (a seat's figures looked up by it, each distinct value's limbs alike)
    known, _ = numbered_ints(t.known[at])
    paid_known = t.paid_known[at]
    amounts = (t.ante[at], t.staked[at], t.net[at], np.where(paid_known, t.paid[at], 0), paid_known, t.bonus[at],
               t.called[at])
    names = {kind: (getattr(t, kind)[at], t.names[kind]) for kind in ("table", "dealer", "profile", "player")}
    return made([], t.game[at], np.where(t.timed[at], t.time[at], 0), t.timed[at], amounts, known, v.sit[at],
                v.figures, names)


def deals_of(t: SeatTable, v: Valued) -> Deals:
    """The deals (``Seat.deal`` with its five cards' counts) newest first, as
    ``deal_columns.banded`` reads them of seats."""
    at = np.flatnonzero(t.deal & (v.situation >= 0))[::-1]
    situation = v.situation[at]
    return Deals(t.player_value[at], t.dealer_value[at], v.turns[situation], v.not_qualified[situation],
                 (t.profile[at], t.names["profile"]),
                 t.five[at], unpacked(t.known[at]).tolist(), np.where(t.timed[at], t.time[at], 0), t.timed[at],
                 {kind: (getattr(t, kind)[at], t.names[kind]) for kind in ("table", "dealer")})


def counts(t: SeatTable) -> tuple[int, int, int | None, int]:
    """The seats, their games, the newest game's time, the seats whose pay is unsaid."""
    newest = int(t.time[t.timed].max()) if t.timed.any() else None
    return len(t), int(np.unique(t.game).size), newest, int((~t.paid_known).sum())
