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

import operator
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from operator import attrgetter
from typing import Any, cast

import numpy as np

from . import bets, cells, wide
from .cells import CALENDAR_WINDOWS, KINDS, Banded, Games, Played, Sums
from .facts import STAKE_BANDS, Seat
from .seat_columns import FIELDS, Columns, FigureTable
from .valuing import Figures, Valuation
from .wide import Array

#: A Played's band as one number: count band × _TB + time band.
_TB = len(CALENDAR_WINDOWS) + 1
_BANDS = (len(cells.COUNT_WINDOWS) + 1) * _TB


def columns(seats: list[Seat]) -> Columns:
    """The valued seats of ``seats`` (in the store's order) as columns, newest first."""
    # each field read by ``attrgetter`` (a C loop, not a Python one a seat: issue 47's first run)
    valued = [s for s in reversed(seats) if isinstance(s.situation, Figures)]
    n = len(valued)
    situations = list(map(_SITUATION, valued))
    sit, first = numbered_ints(np.fromiter(map(id, situations), np.int64, n))  # an object's id: its number
    table = cast(list[Figures], [situations[i] for i in first.tolist()])  # each a Figures: ``valued``'s test
    times = list(map(_TIME, valued))
    paid = list(map(_PAID, valued))

    def ints(values: Iterable[Any]) -> Array:
        return np.fromiter(values, np.int64, n)

    def field(name: str) -> Array:
        return ints(map(attrgetter(name), valued))

    timed = np.fromiter(map(_NOT_NONE, times), bool, n)
    paid_known = np.fromiter(map(_NOT_NONE, paid), bool, n)
    return made(valued, numbered(list(map(_GAME, valued)))[0], ints(t or 0 for t in times), timed,
                (field("ante_u"), field("staked_u"), field("net_u"), ints(p or 0 for p in paid), paid_known,
                 field("bonus_u"), np.fromiter(map(_CALLED, valued), bool, n)),
                numbered(list(map(_KNOWN, valued)))[0], sit, table)


def made(seats: list[Seat], game: Array, time: Array, timed: Array, amounts: tuple[Array, ...], known: Array,
         sit: Array, table: Sequence[Figures], named: dict[str, tuple[Array, list[str]]] | None = None) -> Columns:
    """:class:`Columns` from the valued seats' columns (newest first) and their distinct
    figures (``sit`` indexes ``table``): the figures' limbs made once a distinct figures.
    ``amounts``: Ante, staked, net, paid (0 where unknown), whether paid is known, Bonus
    stake, whether called."""
    ante, staked, net, paid, paid_known, bonus, called = amounts
    if isinstance(table, FigureTable):  # valued as columns: a list a field
        field = table.fields
    else:
        field = {name: [getattr(f, name) for f in table] for name in FIELDS}
    return Columns(
        seats, game, time, timed, ante, staked, net, paid, paid_known, bonus, called, known, sit, table,
        {name: _limbs(field[name]) for name in _WIDE}, np.array(field["top"], np.float64),
        np.array(field["bonus_top"], np.float64), np.array([x != 0 for x in field["variance"]], bool),
        np.array([x != 0 for x in field["bonus_variance"]], bool), named=named or {})


_SITUATION, _TIME, _PAID, _GAME, _CALLED, _KNOWN = map(attrgetter, ("situation", "time_us", "paid_u", "game", "called",
                                                                   "known"))
_NOT_NONE = partial(operator.is_not, None)

#: The figures summed exactly, as limbs.
_WIDE = ("mean", "variance", "third", "bonus_pay", "bonus_mean", "bonus_variance", "bonus_third")


def numbered_ints(values: Array) -> tuple[Array, Array]:
    """:func:`numbered` of an int64 column, by a sort (not a dict a value): each value's
    number among the distinct values in the order first met, and where each was first met."""
    if not values.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    _, first, where = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(order.size, np.int64)
    rank[order] = np.arange(order.size)
    return rank[where.reshape(-1)], first[order]


def numbered(values: list[Any]) -> tuple[Array, list[Any]]:
    """Each value's number among the distinct values (in the order first met), and those."""
    distinct = dict.fromkeys(values)
    number = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(number.__getitem__, values), np.int64, len(values)), list(distinct)


def _limbs(values: list[int]) -> Array:
    """Figures as limbs, each distinct value made once (a Bonus's figures: a few for all);
    figures that all fit int64 (an expectation over a 32-bit denominator) straight from
    an int64 column."""
    try:
        fits = np.array(values, np.int64)
    except OverflowError:
        fits = None
    if fits is None or (fits.size and int(fits.min()) == -1 << 63):  # wider than int64 (its -2^63: no |x|)
        at, distinct = numbered(values)  # as Python's whole numbers, each distinct one once
        return wide.of_ints(distinct)[:, at]
    return wide.of_int64(fits)


def segments(c: Columns, kind: str) -> tuple[Array, list[str]]:
    """Each seat's segment of ``kind`` as a number (-1: none), and the segments' names."""
    if kind == "all":
        return np.zeros(len(c), np.int64), ["all"]
    if kind == "stake":  # the bands numbered as first met, newest first, as the names of other kinds are
        uppers = np.array([u for u, _ in STAKE_BANDS if u is not None], np.int64)
        band = np.searchsorted(uppers, c.ante, side="left")
        met, first = np.unique(band, return_index=True)
        order = met[np.argsort(first)]
        number = np.zeros(len(STAKE_BANDS), np.int64)
        number[order] = np.arange(order.size)
        return number[band], [STAKE_BANDS[i][1] for i in order.tolist()]
    if kind in c.named:  # read as columns: the names' numbers numbered as first met, newest first
        return renamed(*c.named[kind])
    return named(list(map(attrgetter(kind), c.seats)))  # table, dealer, profile, player: the seat's own


def renamed(ids: Array, names: list[str]) -> tuple[Array, list[str]]:
    """:func:`named` of names given as numbers into ``names`` (-1: none): each segment's
    number among those met, in the order first met, and their names."""
    out = np.full(ids.size, -1, np.int64)
    some = ids >= 0
    if not some.any():
        return out, []
    number, first = numbered_ints(ids[some])
    out[some] = number
    return out, [names[i] for i in ids[some][first].tolist()]


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
    bet: what a run tests (``run.judge``). A game's sums are made once a bet for every kind
    that holds it whole (``bets``: all, a table, a dealer, a profile), filed kind by kind."""
    return banded_columns(columns(seats), v, kinds)


def banded_columns(c: Columns, v: Valuation, kinds: Iterable[str] = KINDS) -> Banded:
    """:func:`banded` of seats already made columns (``columns``, or ``valued_columns``)."""
    out: Banded = defaultdict(lambda: defaultdict(Sums))
    if not len(c):
        return out
    shared = _Shared(c, v)
    for kind in kinds:
        seg, names = segments(c, kind)
        _kind(c, v, kind, seg, names, out, shared)
    return out


class _Shared:
    """Every game's sums a bet over the store's games (the seats newest first, a game a run
    of one game's seats: the ``all`` kind's), made when a kind that holds whole games first
    needs them."""

    def __init__(self, c: Columns, v: Valuation) -> None:
        self.c, self.v = c, v
        n = len(c)
        start = np.ones(n, bool)
        start[1:] = c.game[1:] != c.game[:-1]
        self.pid = np.cumsum(start) - 1  # each seat's game, as numbered here
        self.sizes = np.bincount(self.pid)
        self.bets: dict[str, bets.Games | None] = {}

    def whole(self, o: Array, pid: Array) -> Array | None:
        """Each of a kind's games (``o``, ``pid``: as ``bands`` gives them) as one of these
        games, when each is a whole one of them (every seat of it, in the same order); None
        when a kind's game is not (a stake band's, a player's)."""
        if not o.size:
            return None
        mine = self.pid[o]
        if ((pid[1:] == pid[:-1]) & (mine[1:] != mine[:-1])).any():
            return None  # a kind's game of several of these (a game's seats apart in the store)
        first = np.flatnonzero(np.diff(pid, prepend=-1))
        games = mine[first]
        if not np.array_equal(np.diff(np.append(first, o.size)), self.sizes[games]):
            return None  # a kind's game holds part of a game
        if not (np.diff(o)[pid[1:] == pid[:-1]] == 1).all():
            return None  # not its seats one after the other, as here
        return games

    def games(self, bet: str) -> bets.Games | None:
        if bet not in self.bets:
            n = len(self.c)
            rules = self.games("ante+call") if bet == "paid" else None
            self.bets[bet] = bets.per_game(self.c, self.v, bet, np.arange(n), self.pid, self.sizes == 1, rules)
        return self.bets[bet]


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


def _kind(c: Columns, v: Valuation, kind: str, seg: Array, names: list[str], out: Banded,
          shared: _Shared | None = None) -> None:
    """One segment kind's cells: its seats sorted by segment (newest first within it), a
    segment's game starting where the segment or the game changes."""
    if not (seg >= 0).any():
        return
    o, pid, cell, used = bands(seg, c.game, c.time, c.timed, len(names))
    alone = np.bincount(pid, minlength=cell.size) == 1  # a game of one seat in the segment (``cells._alone``)
    whole = None if shared is None else shared.whole(o, pid)
    made: dict[str, bets.Games] = {}
    for bet in bets.BETS:
        if shared is not None and whole is not None:  # its games' sums made once for the kinds that hold them whole
            g = shared.games(bet)
            if g is None:
                continue
            key = np.full(g.has.size, -1, np.int64)
            key[whole] = cell
            found = bets.by_key(g, key, used.size, whole)
        else:
            mine = bets.per_game(c, v, bet, o, pid, alone, made.get("ante+call"), cell, used.size)
            if mine is None:
                continue
            made[bet] = mine
            found = bets.by_key(mine, cell, used.size)
        _store(found, used, kind, names, bet, out)


def _store(found: bets.Summed, used: Array, kind: str, names: list[str], bet: str, out: Banded) -> None:
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
    shared = _Shared(c, v)
    shared_rows: dict[str, list[tuple[Any, ...] | None]] | None = None
    for kind in kinds:
        seg, names = segments(c, kind)
        if not (seg >= 0).any():
            continue
        o, pid, _, _ = bands(seg, c.game, c.time, c.timed, len(names))
        starts = np.flatnonzero(np.diff(pid, prepend=-1))
        whole = shared.whole(o, pid)
        if whole is not None:  # the kinds that hold whole games: each game's rows made once for all of them
            if shared_rows is None:
                shared_rows = _rows_by_game(lambda bet, rules: shared.games(bet), shared.sizes.size)
            rows, at = shared_rows, whole.tolist()
        else:
            played = starts.size
            alone = np.diff(np.append(starts, o.size)) == 1
            rows = _rows_by_game(partial(bets.per_game, c, v, o=o, pid=pid, alone=alone), played)
            at = list(range(played))
        ends = np.append(starts[1:], o.size).tolist()
        for g, start, end in zip(at, starts.tolist(), ends, strict=True):
            seats_of = o[start:end].tobytes()
            p = made.get(seats_of)
            if p is None:
                first = c.seats[int(o[start])]
                p = made[seats_of] = Played(first.game, first.time_us,
                                            {bet: Sums(*r) for bet, row in rows.items() if (r := row[g]) is not None})
            out.setdefault((kind, names[int(seg[o[start]])]), []).append(p)
    return out


def _rows_by_game(games_of: Callable[..., bets.Games | None], played: int
                  ) -> dict[str, list[tuple[Any, ...] | None]]:
    """Each bet's rows, a game each (``_rows``), from its games' sums (``games_of(bet,
    rules)``: ``rules`` the games' ``ante+call`` sums, for the paid basis's)."""
    found: dict[str, bets.Games | None] = {}
    for bet in bets.BETS:
        found[bet] = games_of(bet, rules=found.get("ante+call"))
    every = np.arange(played)
    return {bet: _rows(bets.by_key(g, every, played)) for bet, g in found.items() if g is not None}


#: Sums' fields in the order its constructor takes them.
_FIELDS = ("games", "seats", "staked", "observed", "expected", "variance", "cross", "jump", "third", "cross3", "terms",
           "owed_player", "owed_house", "paid_unknown")


def _rows(found: bets.Summed) -> list[tuple[Any, ...] | None]:
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
