"""The store's counted seats read straight into columns (issue 47: a fast first run), no
:class:`~referee.monitor.facts.Seat` a seat: the same seats, fields and order as
:func:`referee.monitor.reading.seats` gives, as NumPy columns (:class:`SeatTable`).

Why: a first run made a ``Seat`` a seat (2.2 s of 500,000 seats' reading) and then read
its fields back into columns to sum them. A live table's clean games (the runs of
``store.tableruns``: nearly every seat of a store) are read here column by column, the
run's packed layout spread by its games' seat counts; the few seats kept as rows (games
with findings) and format-1 runs are read by ``reading`` itself, as seats, and turned
into the same columns (:func:`from_seats`), so that each layout is read by one reader.
The games are then placed as ``reading.placed`` places them: each seat at its game's
first seat read, only that seat's deal tested (:func:`place`).
``tests/test_monitor_stored_columns.py`` compares the columns with ``reading.seats``'
seats on stores of each layout.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..store import DAMAGED
from . import reading
from .facts import Seat
from .wide import Array

#: A missing whole number in a column (a hand value, a time, a name's number, five cards).
NO = -1


@dataclass(slots=True)
class SeatTable:
    """Counted seats as columns, in the store's order (newest last), placed as
    ``reading.seats`` places them. Names as numbers into their kind's ``names`` (``NO``:
    none); five known cards packed 6 bits each, low first (``seats.known``'s packing);
    ``five``: those cards' value as a Bonus hand where it was read with them (``NO``: to
    evaluate when asked); a seat's game as a number, equal for equal ``Seat.game``."""

    order: Array
    game: Array
    time: Array
    timed: Array
    table: Array
    dealer: Array
    profile: Array
    player: Array
    ante: Array
    staked: Array
    net: Array
    bonus: Array
    called: Array
    known: Array
    bonus_value: Array
    five: Array
    deal: Array
    player_value: Array
    dealer_value: Array
    paid: Array
    paid_known: Array
    names: dict[str, list[str]]

    def __len__(self) -> int:
        return int(self.order.size)

    def take(self, at: Array) -> SeatTable:
        """The seats ``at`` (indexes or a mask), the same names."""
        return SeatTable(**{f.name: getattr(self, f.name)[at] for f in _COLUMNS}, names=self.names)


_COLUMNS = [f for f in fields(SeatTable) if f.name != "names"]
_NAMED = ("table", "dealer", "profile", "player")


class _Builder:
    """Columns gathered part by part (a part: a run's seats, or seats read as ``Seat``),
    names and games numbered as met."""

    def __init__(self) -> None:
        self.parts: dict[str, list[Array]] = {f.name: [] for f in _COLUMNS}
        self.names: dict[str, dict[str, int]] = {kind: {} for kind in _NAMED}
        self.games: dict[tuple[object, ...], int] = {}

    def name(self, kind: str, value: str | None) -> int:
        if value is None:
            return NO
        pool = self.names[kind]
        found = pool.get(value)
        if found is None:
            found = pool[value] = len(pool)
        return found

    def game(self, key: tuple[object, ...]) -> int:
        found = self.games.get(key)
        if found is None:
            found = self.games[key] = len(self.games)
        return found

    def add(self, **columns: Array) -> None:
        for name, values in columns.items():
            self.parts[name].append(values)

    def table(self) -> SeatTable:
        def joined(name: str) -> Array:
            parts = self.parts[name]
            dtype = bool if name in ("timed", "called", "deal", "paid_known") else np.int64
            return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)

        names = {kind: list(pool) for kind, pool in self.names.items()}
        return SeatTable(**{f.name: joined(f.name) for f in _COLUMNS}, names=names)


def from_seats(seats: list[Seat], into: _Builder | None = None) -> SeatTable | None:
    """Seats as columns (their own order and deal, as read: :func:`place` places them);
    into ``into`` when given (then None)."""
    b = _Builder() if into is None else into
    n = len(seats)

    def ints(values: Any) -> Array:
        return np.fromiter(values, np.int64, n)

    def some(values: Any) -> Array:
        return ints(NO if v is None else v for v in values)

    b.add(order=ints(s.order for s in seats), game=ints(b.game(s.game) for s in seats),
          time=ints(s.time_us or 0 for s in seats), timed=np.fromiter((s.time_us is not None for s in seats), bool, n),
          **{kind: ints(b.name(kind, getattr(s, kind)) for s in seats) for kind in _NAMED},
          ante=ints(s.ante_u for s in seats), staked=ints(s.staked_u for s in seats), net=ints(s.net_u for s in seats),
          bonus=ints(s.bonus_u for s in seats), called=np.fromiter((s.called for s in seats), bool, n),
          known=some(None if s.known is None else _packed(s.known) for s in seats),
          bonus_value=some(s.bonus_value for s in seats), five=some(s.bonus_value for s in seats),
          deal=np.fromiter((s.deal for s in seats), bool, n), player_value=some(s.player_value for s in seats),
          dealer_value=some(s.dealer_value for s in seats), paid=ints(s.paid_u or 0 for s in seats),
          paid_known=np.fromiter((s.paid_u is not None for s in seats), bool, n))
    return b.table() if into is None else None


def _packed(known: tuple[int, ...]) -> int:
    """Five cards as ``seats.known`` packs them (6 bits each, low first)."""
    if len(known) != 5 or not all(0 <= c < 64 for c in known):
        raise ValueError(f"five known cards expected, not {known!r}")
    return sum(c << (6 * i) for i, c in enumerate(known))


def unpacked(known: Array) -> Array:
    """Packed five cards (none ``NO``) as a (seats, 5) array of card indexes."""
    return (np.asarray(known, np.int64)[:, None] >> (6 * np.arange(5))) & 63


def read_table(conn: Any) -> SeatTable | None:
    """Every counted seat of the store as columns, as :func:`referee.monitor.reading.seats`
    reads them (the whole store). None: a run whose cards cannot be valued at once (the
    caller reads seats one by one, as before, and refuses what ``reading`` refuses)."""
    b = _Builder()
    try:
        from_seats(reading._rows(conn), b)
        runs, settled = reading.stored_runs(conn)
        said = reading.Said(conn)
        if not _tables(b, [run for run in runs if run.games is not None], settled, said):
            return None
        for run in runs:
            if run.games is None:  # format 1: no table, dealer or time; a seat a round
                ids = json.loads(run.settlements)
                found = reading._rounds(run, [settled[i] for i in ids])
                if not said(run.session_id):
                    for seat in found:
                        seat.paid_u = None
                from_seats(found, b)
    except DAMAGED as err:
        raise reading.Unreadable(f"{type(err).__name__}: {err}") from None
    return place(b.table())


def _tables(b: _Builder, runs: list[Any], settled: dict[int, Any], said: reading.Said) -> bool:
    """Every live table's run's seats into ``b`` (False: their hands cannot be valued at
    once: a card past 51, or twice in a game)."""
    from ..store.tableruns import NONE, Packed

    packs = [Packed(run) for run in runs]
    cards = b"".join(p.cards for p in packs)
    count = sum(p.count for p in packs)
    if not all(len(p.cards) == 9 * p.count for p in packs):
        return False
    valued = _hands(cards, count)
    if valued is None:
        return False
    player_v, dealer_v, five_v = (np.asarray(v, np.int64) for v in valued)
    ids = sorted(settled)
    where = {i: k for k, i in enumerate(ids)}
    figures = [reading._settled(settled[i]) for i in ids]
    valid = np.array([f is not None for f in figures], bool)
    ante, staked, net, bonus = (np.array([0 if f is None else f[k] for f in figures], np.int64) for k in range(4))
    called, has_bonus = (np.array([f is not None and f[k] for f in figures], bool) for k in (4, 5))
    c = np.frombuffer(cards, np.uint8).reshape(count, 9).astype(np.int64) if count else np.zeros((0, 9), np.int64)
    known_of = (c[:, :5] << (6 * np.arange(5))).sum(axis=1)
    at = 0
    for run, p in zip(runs, packs, strict=True):
        g = p.count
        seats = np.asarray(p.seats, np.int64)
        game = np.repeat(np.arange(g), seats)
        pick = np.array([where[i] for i in p.settlements], np.int64)[np.asarray(p.picks, np.int64)]
        keep = valid[pick]
        game, pick = game[keep], pick[keep]
        place = np.flatnonzero(keep)
        table = run.tbl
        known = b.games  # a game's number: as ``_Builder.game``, inlined (a first run meets one a game)
        games = np.array([known.setdefault(("game", table, number), len(known)) for number in p.games], np.int64)
        times = np.asarray(p.times, np.int64)
        players = np.array([b.name("player", name) for name in p.players], np.int64)
        dealers = np.array([b.name("dealer", name) for name in p.dealer_names], np.int64)
        n = place.size
        five = five_v[at:at + g][game]
        b.add(order=p.first_seat + place, game=games[game], time=np.where(times == NONE, 0, times)[game],
              timed=(times != NONE)[game], table=np.full(n, b.name("table", table)),
              dealer=dealers[np.asarray(p.dealers, np.int64)][game],
              profile=np.full(n, b.name("profile", run.origin or reading.DEFAULT_PROFILE)),
              player=players[np.asarray(p.player_picks, np.int64)[place]], ante=ante[pick], staked=staked[pick],
              net=net[pick], bonus=bonus[pick], called=called[pick], known=known_of[at:at + g][game],
              bonus_value=np.where(has_bonus[pick], five, NO), five=five,
              deal=~np.asarray(p.second, bool)[game], player_value=player_v[at:at + g][game],
              dealer_value=dealer_v[at:at + g][game], paid=net[pick],
              paid_known=np.full(n, said(run.session_id), bool))
        at += g
    return True


def _hands(cards: bytes, count: int) -> tuple[list[int], list[int], list[int]] | None:
    """The games' hand values (the player's seven cards, the dealer's, the five known), as
    ``reading`` values them: at once (``reading._hand_values``) from ``reading.BATCH_GAMES``
    games on, else one by one (the batch's tables cost more than a few games'
    evaluations). None: a card past 51 or twice in a game."""
    if count >= reading.BATCH_GAMES:
        return reading._hand_values(cards, count)
    from ..rules.hands import evaluate, evaluate_indexes

    c = np.frombuffer(cards, np.uint8, 9 * count).reshape(count, 9).astype(np.int64)
    if not reading.dealt_once(c):
        return None
    out: tuple[list[int], list[int], list[int]] = ([], [], [])
    for g in c.tolist():
        out[0].append(evaluate(g[:7]).value)
        out[1].append(evaluate([g[7], g[8], *g[2:7]]).value)
        out[2].append(evaluate_indexes(tuple(g[:5])).value)
    return out


def place(t: SeatTable) -> SeatTable:
    """The seats in the store's order, each game's at its first seat read, its deal tested
    there only (``reading.placed``): sorted by their own ids, then each seat of a game met
    before placed at that game's first seat (stably: a game's seats stay in their order)."""
    if not len(t):
        return t
    t = t.take(np.argsort(t.order, kind="stable"))
    _, first, inverse = np.unique(t.game, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    t.order = t.order[first][inverse]
    t.deal = t.deal & (first[inverse] == np.arange(len(t)))
    return t.take(np.argsort(t.order, kind="stable"))
