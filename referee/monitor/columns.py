"""The banded sums of valued seats, column by column (issue 47: a fast first run).

The same sums as adding each segment's games one by one (``cells``' rules: a segment's
game is its consecutive seats of one game, newest first; a game's seats in one situation
under one decision move as one group), made with NumPy over the seats' columns: the
seats sorted by segment, their games and groups found where a key changes, every sum a
group-by (``np.add.at``) by game, then by (count band, time band). What must stay exact
is: the whole-number sums in int64 where they fit and as 16-bit limbs where they may
not (``wide``: an expectation over a 32-bit denominator, a variance over a 64-bit one);
a game's largest upward move summed seat by seat in the old order (``np.add.at`` adds in
the order given), so that the floats are the very same; and the cross terms of a game
with seats in several situations (the Cauchy-Schwarz bound: a float worked from exact
parts) made by ``cells.game_variance`` and ``cells.game_third`` themselves, game by game,
as they are few (a shared-hand table's callers share one situation).
``tests/test_monitor_columns.py`` holds the seat-by-seat sums as the oracle.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from . import cells, wide
from .cells import CALENDAR_WINDOWS, KINDS, Banded, Games, Played, Sums, dyadic, game_third, game_variance
from .facts import STAKE_BANDS, Seat
from .valuing import Figures, Valuation
from .wide import Array

#: A Played's band as one number: count band × _TB + time band.
_TB = len(CALENDAR_WINDOWS) + 1
_BANDS = (len(cells.COUNT_WINDOWS) + 1) * _TB


@dataclass(slots=True)
class Columns:
    """The valued seats (``situation`` a Figures), newest first, as columns; their
    distinct figures as a table (``sit`` indexes it)."""

    seats: list[Seat]
    game: Array
    time: Array
    timed: Array
    ante: Array
    staked: Array
    net: Array
    paid: Array
    paid_known: Array
    bonus: Array
    called: Array
    known: Array
    sit: Array
    figures: list[Figures]
    #: Per distinct figures: limbs of mean, variance, third, bonus pay, mean, variance, third.
    table: dict[str, Array]
    top: Array
    bonus_top: Array
    #: Per distinct figures: whether a call's (or the Bonus's) variance is not 0.
    var_nz: Array
    bonus_var_nz: Array
    #: A seat's stake times a figure, as limbs (``_product``), made when first needed.
    products: dict[str, Array] = field(default_factory=dict)


def columns(seats: list[Seat]) -> Columns:
    """The valued seats of ``seats`` (in the store's order) as columns, newest first."""
    valued = [s for s in reversed(seats) if isinstance(s.situation, Figures)]
    n = len(valued)
    sit, figures = numbered([id(s.situation) for s in valued])
    by_id = {id(s.situation): s.situation for s in valued}
    table = cast(list[Figures], [by_id[i] for i in figures])  # each a Figures: ``valued``'s test
    times = [s.time_us for s in valued]
    paid = [s.paid_u for s in valued]

    def ints(values: list[Any]) -> Array:
        return np.fromiter(values, np.int64, n)

    return Columns(
        valued, numbered([s.game for s in valued])[0], ints([0 if t is None else t for t in times]),
        np.fromiter([t is not None for t in times], bool, n), ints([s.ante_u for s in valued]),
        ints([s.staked_u for s in valued]), ints([s.net_u for s in valued]), ints([p or 0 for p in paid]),
        np.fromiter([p is not None for p in paid], bool, n), ints([s.bonus_u for s in valued]),
        np.fromiter([s.called for s in valued], bool, n), numbered([s.known for s in valued])[0], sit, table,
        {name: _limbs([getattr(f, name) for f in table]) for name in _WIDE},
        np.array([f.top for f in table], np.float64), np.array([f.bonus_top for f in table], np.float64),
        np.array([f.variance != 0 for f in table], bool), np.array([f.bonus_variance != 0 for f in table], bool))


#: The figures summed exactly, as limbs.
_WIDE = ("mean", "variance", "third", "bonus_pay", "bonus_mean", "bonus_variance", "bonus_third")


def numbered(values: list[Any]) -> tuple[Array, list[Any]]:
    """Each value's number among the distinct values (in the order first met), and those."""
    distinct = dict.fromkeys(values)
    number = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(number.__getitem__, values), np.int64, len(values)), list(distinct)


def _limbs(values: list[int]) -> Array:
    """Figures as limbs, each distinct value made once (a Bonus's figures: a few for all)."""
    at, distinct = numbered(values)
    return wide.of_ints(distinct)[:, at]


def segments(c: Columns, kind: str) -> tuple[Array, list[str]]:
    """Each seat's segment of ``kind`` as a number (-1: none), and the segments' names."""
    if kind == "all":
        return np.zeros(len(c.seats), np.int64), ["all"]
    if kind == "stake":  # the bands numbered as first met, newest first, as the names of other kinds are
        uppers = np.array([u for u, _ in STAKE_BANDS if u is not None], np.int64)
        band = np.searchsorted(uppers, c.ante, side="left")
        met, first = np.unique(band, return_index=True)
        order = met[np.argsort(first)]
        number = np.zeros(len(STAKE_BANDS), np.int64)
        number[order] = np.arange(order.size)
        return number[band], [STAKE_BANDS[i][1] for i in order.tolist()]
    return named([getattr(s, kind) for s in c.seats])  # table, dealer, profile, player: the seat's own


def named(values: list[str | None]) -> tuple[Array, list[str]]:
    """Segments' names as numbers (-1: none) and the names, numbered."""
    ids, names = numbered(values)
    if None in names:
        none = names.index(None)
        ids = np.where(ids == none, -1, ids - (ids > none))
        names.remove(None)
    return ids, names


def banded(seats: list[Seat], v: Valuation, kinds: Iterable[str] = KINDS) -> Banded:
    """Every valued seat's game added to its (count band, time band) cell, per segment and
    bet: what a run tests (``run.judge``)."""
    c = columns(seats)
    out: Banded = defaultdict(lambda: defaultdict(Sums))
    if not c.seats:
        return out
    for kind in kinds:
        seg, names = segments(c, kind)
        _kind(c, v, kind, seg, names, out)
    return out


def bands(seg: Array, unit: Array, time: Array, timed: Array, segments: int) -> tuple[Array, Array, Array, Array]:
    """Where each item (a seat, or a deal) falls, one segment kind: ``o`` the items with a
    segment, sorted by it (newest first within it: stable); ``pid`` their game in the
    segment (a run of items of one ``unit`` there), numbered; ``cell`` each game's cell
    among ``used``, the cells that hold a game (segment × count band × time band, as one
    number: ``_BANDS`` a segment). A game's time is its first item's (its newest); the
    calendar windows end at its segment's newest game."""
    chosen = np.flatnonzero(seg >= 0)
    o = chosen[np.argsort(seg[chosen], kind="stable")]
    s_seg, s_unit = seg[o], unit[o]
    start = np.ones(o.size, bool)
    start[1:] = (s_seg[1:] != s_seg[:-1]) | (s_unit[1:] != s_unit[:-1])
    pid = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    played = first.size
    pseg = s_seg[first]
    seg_start = np.ones(played, bool)
    seg_start[1:] = pseg[1:] != pseg[:-1]
    rank = np.arange(played) - np.maximum.accumulate(np.where(seg_start, np.arange(played), 0))
    cband = np.searchsorted(np.array(cells.COUNT_WINDOWS), rank, side="right")  # read now: a test makes them small
    ptime, ptimed = time[o[first]], timed[o[first]]
    last = np.full(segments, np.iinfo(np.int64).min, np.int64)
    np.maximum.at(last, pseg[ptimed], ptime[ptimed])
    tband = np.full(played, len(CALENDAR_WINDOWS), np.int64)
    for i in range(len(CALENDAR_WINDOWS) - 1, -1, -1):  # the narrowest window that holds it
        tband[ptimed & (ptime > last[pseg] - CALENDAR_WINDOWS[i][1])] = i
    used, cell = np.unique(pseg * _BANDS + cband * _TB + tband, return_inverse=True)
    return o, pid, cell.reshape(-1), used


def _kind(c: Columns, v: Valuation, kind: str, seg: Array, names: list[str], out: Banded) -> None:
    """One segment kind's cells: its seats sorted by segment (newest first within it), a
    segment's game starting where the segment or the game changes."""
    if not (seg >= 0).any():
        return
    o, pid, cell, used = bands(seg, c.game, c.time, c.timed, len(names))
    alone = np.bincount(pid, minlength=cell.size) == 1  # a game of one seat in the segment (``cells._alone``)
    for bet in ("ante+call", "bonus", "paid"):
        found = _bet(c, v, bet, o, pid, cell, alone, used.size)
        if found is not None:
            _store(found, used, kind, names, bet, out)


@dataclass(slots=True)
class _Summed:
    """One bet's sums by key (a cell, or a game of a segment): each of ``Sums``' whole
    numbers, a list a field; the largest jump of the games under each key; the cross
    terms of the keys that have any (as ``Sums.cross``, ``cross3``)."""

    fields: dict[str, list[int]]
    jump: Array
    cross: dict[int, list[int]]


def _bet(c: Columns, v: Valuation, bet: str, o: Array, pid: Array, cell: Array | None, alone: Array,
         groups: int) -> _Summed | None:
    """One bet's sums of one kind's games (``pid``: each seat's game, numbered), by cell
    (``cell``: each game's among ``groups``) or, ``cell`` None, by game. None: no seat has the bet."""
    by_game = cell is None
    key = np.arange(alone.size) if cell is None else cell
    sit = c.sit[o]
    if bet == "bonus":
        m = (c.bonus[o] != 0) & c.bonus_var_nz[sit]
    elif bet == "paid":
        m = c.paid_known[o]
    else:
        m = np.ones(o.size, bool)
    if not m.any():
        return None
    at = o[m]
    p = pid[m]
    s = sit[m]
    has = np.zeros(key.size, bool)
    has[p] = True
    seat_key = key[p]
    fields: dict[str, list[int]] = {}
    fields["games"] = np.bincount(key[has], minlength=groups).tolist()
    fields["seats"] = np.bincount(seat_key, minlength=groups).tolist()
    if bet == "bonus":
        stake = c.bonus[at]
        fields["staked"] = wide.grouped_int64(seat_key, stake, groups)
        fields["observed"] = _wide_sum(seat_key, _product(c, "bonus", "bonus_pay")[:, at], groups)
        fields["expected"] = _wide_sum(seat_key, _product(c, "bonus", "bonus_mean")[:, at], groups)
        unit, third, top = c.table["bonus_variance"], c.table["bonus_third"], c.bonus_top
        unit_nz = c.bonus_var_nz
        known = c.known[at]
        called = np.ones(at.size, bool)
        wins = stake.astype(np.float64) * top[s]
    else:
        stake = c.ante[at]
        fields["staked"] = wide.grouped_int64(seat_key, c.staked[at], groups)
        fields["observed"] = wide.grouped_int64(seat_key, c.paid[at] if bet == "paid" else c.net[at], groups)
        fields["expected"] = _wide_sum(seat_key, _product(c, "ante", "mean")[:, at], groups)
        known_pay = c.paid_known[at]
        owed = np.where(known_pay, c.net[at] - c.paid[at], 0)
        fields["owed_player"] = wide.grouped_int64(seat_key, np.maximum(owed, 0), groups)
        fields["owed_house"] = wide.grouped_int64(seat_key, np.maximum(-owed, 0), groups)
        fields["paid_unknown"] = wide.grouped_int64(seat_key, (~known_pay).astype(np.int64), groups)
        unit, third, top = c.table["variance"], c.table["third"], c.top
        unit_nz = c.var_nz
        known = c.known[at]
        called = c.called[at]
        wins = np.where(called, stake.astype(np.float64) * top[s], 0.0)
    # a game's groups: its seats in one situation under one decision (the first one's figures)
    g_order = np.lexsort((called, known, p))  # stable: a group's first is its newest seat
    gp, gk, gc = p[g_order], known[g_order], called[g_order]
    g_start = np.ones(g_order.size, bool)
    g_start[1:] = (gp[1:] != gp[:-1]) | (gk[1:] != gk[:-1]) | (gc[1:] != gc[:-1])
    g_first = np.flatnonzero(g_start)
    g_stake = np.add.reduceat(stake[g_order], g_first)
    g_sit = s[g_order][g_first]
    g_played = gp[g_first]
    valid = unit_nz[g_sit]
    played = key.size
    n_valid = np.bincount(g_played[valid], minlength=played)
    n_moving = np.bincount(g_played[valid & (g_stake != 0)], minlength=played)
    moves = (n_moving > 0) | (alone & (n_valid > 0))  # the game adds variance (``_close``, ``_alone``)
    counted = valid & moves[g_played]
    gp_c, st_c, sit_c = g_played[counted], g_stake[counted], g_sit[counted]
    x = wide.of_int64(st_c)
    square = wide.mul(x, x)
    fields["variance"] = _wide_sum(key[gp_c], wide.mul(square, unit[:, sit_c]), groups)
    fields["third"] = _wide_sum(key[gp_c], wide.mul(wide.mul(square, x), third[:, sit_c]), groups)
    fields["terms"] = wide.grouped_int64(key, np.where(moves, n_valid, 0), groups)
    jump = np.zeros(played, np.float64)
    np.add.at(jump, p, wins)  # in the seats' order: the float of adding them one by one
    jump[~moves] = 0.0
    if not by_game:  # a cell's: the largest of its games' (``Sums.add``)
        by_key = np.zeros(groups, np.float64)
        np.maximum.at(by_key, key[has], jump[has])
        jump = by_key
    cross: dict[int, list[int]] = {}
    for game in np.flatnonzero(moves & (n_valid >= 2)).tolist():
        _cross(c, bet, game, g_played, g_stake, g_sit, valid, v, cross, int(key[game]))
    return _Summed(fields, jump, cross)


def _product(c: Columns, stake: str, figure: str) -> Array:
    """Every seat's stake times one of its figures, as limbs: made once, whatever the kind."""
    key = f"{stake} {figure}"
    found = c.products.get(key)
    if found is None:
        found = c.products[key] = wide.mul(wide.of_int64(getattr(c, stake)), c.table[figure][:, c.sit])
    return found


def _cross(c: Columns, bet: str, game: int, g_played: Array, g_stake: Array, g_sit: Array, valid: Array,
           v: Valuation, cross: dict[int, list[int]], at: int) -> None:
    """A game with seats in several situations: its bounds on the cross terms, as
    ``cells._close`` makes them (few games: a table dealing each seat its own cards)."""
    mine = np.flatnonzero((g_played == game) & valid)
    units = ("bonus_variance", "bonus_third") if bet == "bonus" else ("variance", "third")
    groups: dict[tuple[str, object, bool], list[int]] = {}
    for i in mine:
        f = c.figures[int(g_sit[i])]
        groups[(bet, int(i), True)] = [int(g_stake[i]), getattr(f, units[0]), getattr(f, units[1])]
    _, bound = game_variance(groups, bet, v.scale2)
    _, bound3 = game_third(groups, bet, v.scale3)
    found = cross.setdefault(at, [0, 0])
    found[0] += dyadic(bound)
    found[1] += dyadic(bound3)


def _wide_sum(keys: Array, x: Array, groups: int) -> list[int]:
    return wide.total(wide.grouped(keys, x, groups))


def _store(found: _Summed, used: Array, kind: str, names: list[str], bet: str, out: Banded) -> None:
    """The cells that hold a game of ``bet`` into ``out``."""
    for at in np.flatnonzero(np.array(found.fields["games"]) > 0).tolist():
        segment, band = divmod(int(used[at]), _BANDS)
        sums = Sums(**{name: values[at] for name, values in found.fields.items()})
        sums.jump = float(found.jump[at])
        if at in found.cross:
            sums.cross, sums.cross3 = found.cross[at]
        out[(kind, names[segment], bet)][divmod(band, _TB)] = sums


def games(seats: list[Seat], v: Valuation, kinds: Iterable[str] = KINDS) -> Games:
    """Every valued seat's game's sums, per segment, newest game first (what the monitor's
    cache keeps, ``cached.batch_of``): the same sums as ``banded`` makes, by game instead of by
    cell; the same seats' game is one :class:`Played` for every kind that holds it."""
    c = columns(seats)
    out: Games = {}
    made: dict[bytes, Played] = {}
    for kind in kinds:
        seg, names = segments(c, kind)
        if not (seg >= 0).any():
            continue
        o, pid, _, _ = bands(seg, c.game, c.time, c.timed, len(names))
        starts = np.flatnonzero(np.diff(pid, prepend=-1))
        played = starts.size
        alone = np.diff(np.append(starts, o.size)) == 1
        summed = {bet: _bet(c, v, bet, o, pid, None, alone, played)
                  for bet in ("ante+call", "bonus", "paid")}
        rows = {bet: _rows(found) for bet, found in summed.items() if found is not None}
        ends = np.append(starts[1:], o.size).tolist()
        for g, (start, end) in enumerate(zip(starts.tolist(), ends, strict=True)):
            seats_of = o[start:end].tobytes()
            p = made.get(seats_of)
            if p is None:
                first = c.seats[int(o[start])]
                p = made[seats_of] = Played(first.game, first.time_us,
                                            {bet: Sums(*r) for bet, row in rows.items() if (r := row[g]) is not None})
            out.setdefault((kind, names[int(seg[o[start]])]), []).append(p)
    return out


#: Sums' fields in the order its constructor takes them.
_FIELDS = ("games", "seats", "staked", "observed", "expected", "variance", "cross", "jump", "third", "cross3", "terms",
           "owed_player", "owed_house", "paid_unknown")


def _rows(found: _Summed) -> list[tuple[Any, ...] | None]:
    """Each game's sums as ``Sums``' arguments (None: the game has no seat of the bet)."""
    n = len(found.fields["games"])
    columns: list[list[Any]] = []
    for name in _FIELDS:
        if name == "jump":
            columns.append(found.jump.tolist())
        elif name in ("cross", "cross3"):
            i = 0 if name == "cross" else 1
            columns.append([found.cross[g][i] if g in found.cross else 0 for g in range(n)])
        else:
            columns.append(found.fields.get(name, [0] * n))
    return [row if row[0] else None for row in zip(*columns, strict=True)]
